"""`GradioUI` (the whole app) and `stream_to_gradio` (for people who build their own Blocks)."""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from smolui.factory import as_factory, looks_like_agent
from smolui.media import MediaSink, media_root
from smolui.render import Message
from smolui.sessions import SessionRegistry
from smolui.settings import Settings
from smolui.turn_view import TurnView

logger = logging.getLogger(__name__)

MB = 1024 * 1024
QUEUE_POLL_S = 0.01  # how often gradio's queue looks for waiting events (its default: 1 ms)
PROGRESS_POLL_S = 0.05  # how often it looks for progress updates (its default: 10 ms)


class GradioUI:
    """A chat app around an agent: one agent per conversation, streamed steps, uploads.

    Args:
        agent_or_factory: A function returning a new agent (called once per conversation,
            with the conversation's upload folder if it takes an argument), or an agent
            instance (then one conversation at a time uses it).
        file_upload_folder: Root of the per-conversation upload folders.
        settings: App settings (limits, sessions, host, port...); defaults otherwise.
        model_label: Returns the model's name for the side panel.
        examples: Example prompts (`{"text", "files"}` dicts); None for the defaults.
        title: The page title.
    """

    def __init__(
        self,
        agent_or_factory: Any,
        file_upload_folder: str | Path = "uploads",
        settings: Settings | None = None,
        model_label: Callable[[], str] | None = None,
        examples: list[dict[str, Any]] | None = None,
        title: str = "smolui",
    ):
        self.settings = settings or Settings(upload_folder=str(file_upload_folder))
        self.upload_root = Path(
            file_upload_folder if settings is None else self.settings.upload_folder
        )
        self.factory = as_factory(agent_or_factory)
        self.registry = SessionRegistry(
            self.factory, upload_root=self.upload_root, idle_s=self.settings.session_idle_s,
            grace_s=self.settings.session_grace_s, max_sessions=self.settings.max_sessions,
            media_root=media_root(),
        )  # fmt: skip
        if model_label is None and looks_like_agent(agent_or_factory):
            model_id = (
                getattr(getattr(agent_or_factory, "model", None), "model_id", None) or "model"
            )
            model_label = lambda: str(model_id)  # noqa: E731
        self.model_label = model_label or (lambda: self.settings.model)
        self.examples = examples
        self.title = title
        self.demo: Any = None

    def create_app(self) -> Any:
        """Build the Blocks app (not launched). Returns the `gr.Blocks`."""
        from smolui.conversations import ConversationHandlers
        from smolui.handlers import ChatHandlers, HandlerConfig
        from smolui.layout import build_layout
        from smolui.uploads import UploadPolicy
        from smolui.wiring import wire

        policy = UploadPolicy(max_file_bytes=int(self.settings.max_file_size_mb * MB))
        config = HandlerConfig(
            policy=policy, max_files=self.settings.max_files, max_steps=self.settings.max_steps,
            executor_type=self.settings.executor, model_label=self.model_label,
        )  # fmt: skip
        chat = ChatHandlers(self.registry, config)
        conversations = ConversationHandlers(self.registry, _served_roots)
        layout = build_layout(self.title, policy.file_types, self.examples)
        with layout.demo:
            wire(layout, chat, conversations, self.settings.concurrency, self.model_label)
        self.registry.start_sweeper()
        self.demo = layout.demo
        return layout.demo

    def launch(self, share: bool | None = None, **kwargs: Any) -> Any:
        """Build and serve the app with safe defaults (no share link, uploads never served).

        Args:
            share: Create a public link (default: the settings' `share`, False).
            **kwargs: Passed to `gr.Blocks.launch` (server_name, server_port, ...).
        """
        demo = self.demo or self.create_app()
        demo.queue(default_concurrency_limit=self.settings.concurrency)
        _calm_queue_polling(demo)
        self.upload_root.mkdir(parents=True, exist_ok=True)
        kwargs.setdefault("server_name", self.settings.host)
        kwargs.setdefault("server_port", self.settings.port)
        kwargs.setdefault("max_file_size", int(self.settings.max_file_size_mb * MB))
        kwargs.setdefault("auth", self.settings.auth)
        kwargs.setdefault("footer_links", ["gradio", "settings"])
        # Gradio 6 records every call's inputs and outputs in the browser (localStorage) for
        # its run history page. Here each call carries the whole chat, so that copy grows with
        # the conversation, costs the page seconds per turn in long chats, and duplicates what
        # the conversation list already keeps. Off unless asked for.
        kwargs.setdefault("run_history", False)
        # Files under the working directory are servable by default; uploads must never be.
        blocked = list(kwargs.pop("blocked_paths", None) or [])
        kwargs["blocked_paths"] = [*blocked, str(self.upload_root.resolve())]
        return demo.launch(share=self.settings.share if share is None else share, **kwargs)

    def close(self) -> None:
        """Stop serving and free every conversation's agent."""
        if self.demo is not None:
            self.demo.close()
        self.registry.close_all()


def _calm_queue_polling(demo: Any) -> None:
    """Let gradio's queue look for work every 10 ms instead of every 1 ms.

    The queue polls in a loop; at 1 ms an idle server burns about a tenth of a core and,
    under load, crowds the event loop that streams the pages' updates. A turn waits at
    most 10 ms more to start, which nobody sees next to a model call.
    """
    queue = getattr(demo, "_queue", None)
    if queue is None:
        return
    if getattr(queue, "sleep_when_free", None) is not None:
        queue.sleep_when_free = max(queue.sleep_when_free, QUEUE_POLL_S)
    if getattr(queue, "progress_update_sleep_when_free", None) is not None:
        queue.progress_update_sleep_when_free = max(
            queue.progress_update_sleep_when_free, PROGRESS_POLL_S
        )


def _served_roots() -> list[str]:
    """Folders whose files a restored transcript may show: gradio's cache and our media."""
    from gradio import utils

    return [str(utils.get_upload_folder()), str(media_root())]


def stream_to_gradio(
    agent: Any,
    task: str,
    task_images: list[Any] | None = None,
    reset_agent_memory: bool = False,
    additional_args: dict[str, Any] | None = None,
    media_folder: str | Path | None = None,
) -> Iterator[list[Message]]:
    """Run `agent` on `task` and yield the turn's chat messages as they change.

    Each item is the full list of this turn's messages so far (dicts `gr.Chatbot`
    accepts): yield `history + messages` from your own handler.

    Args:
        agent: The agent.
        task: The user's request.
        task_images: PIL images sent with the task.
        reset_agent_memory: Start a new conversation instead of continuing.
        additional_args: Values given to the agent (variables for code).
        media_folder: Where produced images are written (default: a temp folder).
    """
    folder = Path(media_folder) if media_folder else media_root() / f"stream-{secrets.token_hex(6)}"
    view = TurnView(secrets.token_hex(4), MediaSink(folder))
    started = time.monotonic()
    yield list(view.messages)
    state, note = "done", None
    try:
        for event in agent.run(task, stream=True, reset=reset_agent_memory, images=task_images,
                               additional_args=additional_args):  # fmt: skip
            view.apply(event)
            yield list(view.messages)
    except Exception as error:
        from agents.errors import AgentInterruptedError
        from smolui.errors import describe_failure

        if isinstance(error, AgentInterruptedError):
            state, note = "stopped", "Stopped."
        else:
            state, note = "failed", describe_failure(error)
    view.finish(state, time.monotonic() - started, note)
    yield list(view.messages)
