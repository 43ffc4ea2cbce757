"""`GradioUI` (the whole app) and `stream_to_gradio` (for people who build their own Blocks,
defined in `smolui.app.streaming`: importable from here, as from smolagents' `gradio_ui`)."""

from __future__ import annotations

import dataclasses
import functools
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.loop.agent import MultiStepAgent
from smolui.app.factory import AgentOrFactory, as_factory
from smolui.app.queue_polling import calm_queue_polling
from smolui.app.settings import Settings
from smolui.app.streaming import stream_to_gradio
from smolui.app.ui_compat import GradioUIApiMixin
from smolui.render.media import media_root
from smolui.sessions import SessionRegistry

if TYPE_CHECKING:  # imported where used: building the app loads them, importing it must not
    from smolui.api.app import Api
    from smolui.api.downloads import Downloads
    from smolui.approvals import ChatApprovals
    from smolui.conversations.keeper import ConversationKeeper
    from smolui.observability.metrics import AppMetrics
    from smolui.store import ConversationStore
    from smolui.turns.admission import TurnAdmission

logger = logging.getLogger(__name__)

__all__ = ["GradioUI", "stream_to_gradio"]

MB = 1024 * 1024
# On close, how long running turns get to reach their step boundary and save their stopped
# state before their agents and the store close (a model call in flight finishes first).
SHUTDOWN_WAIT_S = 10.0


class GradioUI(GradioUIApiMixin):
    """A chat app around an agent: one agent per conversation, streamed steps, uploads.

    Args:
        agent: A function returning a new agent (called once per conversation, with the
            conversation's upload folder if it takes an argument), or an agent instance
            (then one conversation at a time uses it, or clones of it).
        file_upload_folder: Root of the per-conversation upload folders (None: "uploads").
        reset_agent_memory: Start every turn with an empty memory instead of continuing
            the conversation.
        settings: App settings (limits, sessions, host, port...); defaults otherwise. Without
            settings, each turn runs up to the agent's own `max_steps`.
        model_label: Returns the model's name for the side panel.
        examples: Example prompts (`{"text", "files"}` dicts); None for the defaults.
        title: The page title.
    """

    def __init__(
        self,
        agent: AgentOrFactory,
        file_upload_folder: str | Path | None = None,
        reset_agent_memory: bool = False,
        settings: Settings | None = None,
        model_label: Callable[[], str] | None = None,
        examples: list[dict[str, Any]] | None = None,
        title: str = "smolui",
    ):
        agent_or_factory = agent
        file_upload_folder = file_upload_folder or "uploads"
        self.reset_agent_memory = reset_agent_memory
        # Without app settings, a turn may take as many steps as the agent allows.
        self.max_steps = None if settings is None else settings.max_steps
        self._script_session: dict[str, Any] = {}
        self.settings = settings or Settings(upload_folder=str(file_upload_folder))
        data_dir = Path(self.settings.data_dir)
        # The app's uploads and agent-made media live in the data folder, so a restart or
        # another replica on the same volume finds them.
        self.upload_root = Path(
            file_upload_folder
            if settings is None
            else self.settings.upload_folder or data_dir / "uploads"
        )
        self.factory = as_factory(agent_or_factory)
        self.registry = SessionRegistry(
            self.factory,
            upload_root=self.upload_root,
            idle_s=self.settings.session_idle_s,
            grace_s=self.settings.session_grace_s,
            max_sessions=self.settings.max_sessions,
            media_root=data_dir / "media",
        )
        if model_label is None and isinstance(agent_or_factory, MultiStepAgent):
            model_id = agent_or_factory.model.model_id or "model"
            model_label = lambda: str(model_id)  # noqa: E731
        self.model_label = model_label or (lambda: self.settings.model)
        self.examples = examples
        self.title = title
        self.demo: Any = None
        self.store: ConversationStore | None = None  # instead of the settings' one
        self.keeper: ConversationKeeper | None = None
        self.metrics: AppMetrics | None = None  # made with the app (served at /metrics)
        self.admission: TurnAdmission | None = None  # sign-in, limits, queue: made with the app
        self.api: Api | None = None  # the other ways in (/v1): made with the app
        self.downloads: Downloads | None = None  # files out, exports, shares: made with the app
        self.shares: Any = None  # read-only share links (`ShareLinks`): made with the app
        self.approvals: ChatApprovals | None = None  # the page's approvals: made with the app
        # Name -> check for /readyz; the store's is added with the app, app.py adds the model's.
        self.ready_checks: dict[str, Callable[[], None]] = {}
        self.server: Any = None
        # A bound, listening socket to serve on instead of binding host:port (app.py's
        # starting page hands its socket over, so no connection is refused meanwhile).
        self.listen_socket: Any = None

    def handler_config(self) -> Any:
        """What the chat handlers need from the app's settings (a `HandlerConfig`)."""
        from smolui.handlers.chat import HandlerConfig
        from smolui.uploads import UploadPolicy

        policy = UploadPolicy(max_file_bytes=int(self.settings.max_file_size_mb * MB))
        return HandlerConfig(
            policy=policy,
            max_files=self.settings.max_files,
            max_steps=self.max_steps,
            executor_type=self.settings.executor,
            model_label=self.model_label,
            reset_agent_memory=self.reset_agent_memory,
            model_available=self._model_offered(),
        )

    def _model_offered(self) -> Callable[[str], bool]:
        """Whether a conversation may run a model spec: the app's factory says (models found
        on local servers included); otherwise the default model or one of `settings.models`."""
        from smolui.app.factory import AgentFactory
        from smolui.sessions.model_choice import model_offered

        if isinstance(self.factory, AgentFactory):
            return self.factory.offers
        return functools.partial(
            model_offered, default=self.settings.model, models=self.settings.models
        )

    def _model_choices(self) -> list[tuple[str, str]] | Callable[[], list[tuple[str, str]]]:
        """The model picker's choices when the app builds its own agents (an `AgentFactory`):
        its function, asked on each page load (models found on local servers join the
        default and `settings.models`); none for an agent or factory a script passed in."""
        from smolui.app.factory import AgentFactory

        if not isinstance(self.factory, AgentFactory):
            return []
        return self.factory.model_choices

    def create_app(self) -> Any:
        """Build the Blocks app (not launched). Returns the `gr.Blocks`."""
        from smolui.api.app import Api
        from smolui.api.downloads import Downloads
        from smolui.api.share_routes import ShareLinks, gradio_viewer
        from smolui.approvals import ChatApprovals
        from smolui.conversations.keeper import attach_store
        from smolui.handlers.chat import ChatHandlers
        from smolui.handlers.conversations import ConversationHandlers
        from smolui.observability.health import store_check
        from smolui.observability.metrics import AppMetrics
        from smolui.render.about import server_facts
        from smolui.render.panel import capability_line
        from smolui.turns.admission import build_admission
        from smolui.turns.limits import Limits
        from smolui.ui.layout import build_layout
        from smolui.ui.share import share_events, share_panel
        from smolui.ui.wiring import wire

        config = self.handler_config()
        policy = config.policy
        roots = functools.partial(_served_roots, self.registry.media_root)
        self.keeper = keeper = attach_store(self.registry, self.settings, roots, self.store)
        # Usage limits count in the store's database: then it opens now, else on first use.
        counted = Limits.from_settings(self.settings).active
        self.admission = build_admission(self.settings, keeper.store if counted else None)
        self.metrics = AppMetrics(self.registry, queue=self.admission.queue)
        self.ready_checks.setdefault("store", lambda: store_check(keeper.store)())
        conversations = ConversationHandlers(self.registry, self.keeper)
        # Files the code writes, exports and share links, through the app's own routes; an
        # export names its conversation's model, as the header does.
        self.downloads = Downloads(
            keeper, self.settings.owner_quota_mb,
            lambda conversation_id: conversations.model_label(conversation_id, config),
            self.admission.sign_in,
        )  # fmt: skip
        config = dataclasses.replace(config, upload_room=self.downloads.upload_room)
        sharing, viewer = self.settings.sharing, gradio_viewer(self.admission.sign_in)
        self.shares = ShareLinks(keeper, sharing, viewer)
        # The page's turns may wait for a person's approval; the API's never do (no page).
        self.approvals = approvals = ChatApprovals(
            self.settings.approve, lambda: keeper.store, self.settings.approval_timeout,
            self.settings.approve_required,
        )  # fmt: skip
        chat_config = dataclasses.replace(config, approvals=approvals)
        chat = ChatHandlers(
            self.registry, chat_config, self.keeper, observer=self.metrics, admission=self.admission,
            files=self.downloads.turn_files(),
            about=server_facts(self.settings, self.admission.sign_in),  # "About this server"
        )  # fmt: skip
        sign_in = self.admission.sign_in
        self.api = Api(
            self.registry,
            config,
            self.keeper,
            self.metrics,
            self.admission,
            mcp=self.settings.mcp,
            fetch_urls="visit_webpage" in self.settings.tools,  # the agent may visit the web
        )

        def events(layout: Any) -> None:
            wire(
                layout,
                chat,
                conversations,
                self.settings.concurrency,
                self.model_label,
                sign_in=sign_in,
                waiting=self.settings.queue_size,
                usage=self.admission.usage_report,
                export_link=self.downloads.export_link,
                chat_window=self.settings.chat_window,
            )
            share_events(layout, self.shares, sign_in)  # nothing when sharing is off

        layout = build_layout(
            self.title,
            policy.file_types,
            self.examples,
            sign_in=sign_in,  # who is signed in, beside the title, and Sign out
            models=self._model_choices(),
            events=events,  # wired inside the Blocks: gradio builds its config once
            model_line=lambda shown: capability_line(conversations.model_label(shown, config)),
            share_panel=share_panel if self.shares.enabled else None,
        )
        self.registry.start_sweeper()
        self.demo = layout.demo
        return layout.demo

    def open_store(self) -> None:
        """Open the conversation store now (built with the app, it otherwise opens on first
        use: app.py opens it once the page serves).

        Raises:
            StoreUnavailableError: The database cannot be reached or migrated.
        """
        if self.keeper is None:
            self.create_app()
        self.keeper.open()

    def launch(self, share: bool | None = None, **kwargs: Any) -> Any:
        """Build and serve the app with safe defaults (no share link, uploads never served).

        The page is served by FastAPI with gradio mounted at `/`, next to `/healthz`,
        `/readyz` and `/metrics`; blocks until Ctrl+C unless `prevent_thread_lock=True`.

        Args:
            share: Create a public link (default: the settings' `share`, False); served by
                gradio's own server, without the health and metrics routes.
            **kwargs: `gr.Blocks.launch` options (server_name, server_port, auth, quiet,
                prevent_thread_lock...); one that a mounted app cannot take also falls back
                to gradio's own server.
        """
        from smolui.ui.theme import apply_defaults as apply_theme_defaults

        demo = self.demo or self.create_app()
        demo.queue(default_concurrency_limit=self.settings.concurrency)
        calm_queue_polling(demo)
        self.upload_root.mkdir(parents=True, exist_ok=True)
        kwargs.setdefault("server_name", self.settings.host)
        kwargs.setdefault("server_port", self.settings.port)
        kwargs.setdefault("max_file_size", int(self.settings.max_file_size_mb * MB))
        for name, value in self.admission.sign_in.launch_options().items():
            kwargs.setdefault(name, value)  # password mode: gradio's login page
        kwargs.setdefault("footer_links", ["gradio", "settings"])
        apply_theme_defaults(kwargs)  # smolui's CSS and page script (smolui.ui.theme)
        # Gradio 6 records every call's inputs and outputs in the browser (localStorage) for
        # its run history page. Here each call carries the whole chat, so that copy grows with
        # the conversation, costs the page seconds per turn in long chats, and duplicates what
        # the conversation list already keeps. Off unless asked for.
        kwargs.setdefault("run_history", False)
        # Files under the working directory are servable by default; uploads and the data
        # folder (every conversation in its database) must never be, but for the images the
        # agent made, which the chat shows.
        blocked = list(kwargs.pop("blocked_paths", None) or [])
        kwargs["blocked_paths"] = blocked + self._private_paths()
        if self.registry.media_root is not None:
            allowed = list(kwargs.pop("allowed_paths", None) or [])
            kwargs["allowed_paths"] = [*allowed, str(self.registry.media_root.resolve())]
        share = self.settings.share if share is None else share
        return self._serve(demo, share, kwargs)

    def _private_paths(self) -> list[str]:
        """Paths never served: the uploads, and everything in the data folder but media."""
        data = Path(self.settings.data_dir).resolve()
        media = self.registry.media_root.resolve() if self.registry.media_root else None
        private = [self.upload_root.resolve(), data / "uploads", data / "memory-images"]
        private += [data / f"smolui.db{suffix}" for suffix in ("", "-wal", "-shm", "-journal")]
        if data.is_dir():
            private += [entry for entry in data.iterdir() if entry != media]
        if media is None or media.parent != data:
            private.append(data)
        return sorted({str(path) for path in private})

    def _serve(self, demo: Any, share: bool, options: dict[str, Any]) -> Any:
        """Serve gradio mounted next to /healthz, /readyz and /metrics; gradio's own server
        (without those routes) only for options a mounted app cannot honour, e.g. share."""
        from smolui.observability.server import can_mount, serve

        if share or not can_mount(options):
            logger.warning("serving without /healthz, /readyz and /metrics (share or %s)",
                           sorted(options))  # fmt: skip
            return demo.launch(share=share, **options)
        routes = [self.api.router()] if self.api is not None else []
        if self.downloads is not None:
            routes.append(self.downloads.router())
        if self.shares is not None:
            routes.append(self.shares.router())
        middleware = [self.api.body_limit()] if self.api is not None else []
        middleware.append(self._upload_gate())
        self.server = serve(
            demo, self.metrics, self.ready_checks, options, self.listen_socket, routes, middleware
        )
        if not options.get("prevent_thread_lock"):
            self.server.wait()  # until Ctrl+C or SIGTERM; then the app closes
            self.close()
        return self.server

    def _upload_gate(self) -> Any:
        """The bound on gradio's upload route (`smolui.api.upload_gate`), as middleware: it
        writes to the disk before any handler, for anyone who may open the page."""
        from starlette.middleware import Middleware

        from smolui.api.upload_gate import UploadGate
        from smolui.auth.proxy_peers import NO_PROXIES

        proxies = self.admission.sign_in.proxies if self.admission else NO_PROXIES
        return Middleware(UploadGate, max_files=self.settings.max_files, proxies=proxies,
                          max_file_bytes=int(self.settings.max_file_size_mb * MB))  # fmt: skip

    def close(self) -> None:
        """Stop serving, let running turns stop at their step boundary and save (up to
        `SHUTDOWN_WAIT_S`), then free every conversation's agent and close the store."""
        if self.server is not None:
            self.server.stop()  # no new turn starts from here on
        if self.demo is not None:
            self.demo.close()
        # A turn's thread saves its stopped state to the store: it must close after that.
        # One waiting for a person's approval is left waiting, answered after the restart.
        held = self.approvals.held_here if self.approvals is not None else None
        self.registry.close_all(wait_s=SHUTDOWN_WAIT_S, held=held)
        if self.server is not None:  # its requests ended with their turns (a turn waiting
            self.server.close()  # for approval held the server's end until they stopped)
        if self.keeper is not None:
            self.keeper.close()


def _served_roots(media: Path | None = None) -> list[str]:
    """Folders whose files a restored transcript may show: gradio's cache and our media
    (the app's, in the data folder, and the temp folder `stream_to_gradio` uses)."""
    from gradio import utils

    roots = [str(utils.get_upload_folder()), str(media_root())]
    return roots + ([str(media)] if media is not None else [])
