"""smolagents' `GradioUI` methods for scripts that wire their own Blocks: `upload_file`,
`log_user_message` and `interact_with_agent`. The app itself (`GradioUI.launch`) does not
use them."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agents.loop.agent import MultiStepAgent
from smolui.render.messages import Message


class GradioUIApiMixin:
    """Adds `upload_file`, `log_user_message` and `interact_with_agent` to `GradioUI`.

    Expects `upload_root` (Path), `factory` (builds an agent), `reset_agent_memory` (bool),
    `settings` (with `max_file_size_mb`) and `_script_session` (a dict) on the class it is
    mixed into.
    """

    def upload_file(
        self, file: Any, file_uploads_log: list[str], allowed_file_types: list[str] | None = None
    ) -> tuple[Any, list[str]]:
        """Check and store one uploaded file under the upload folder.

        Args:
            file: A path, or a gradio file object (with `.name`), or None.
            file_uploads_log: Paths stored so far.
            allowed_file_types: Extensions allowed (e.g. [".pdf", ".txt"]); default: every
                type the app can check (PDF, DOCX, text, images).

        Returns:
            A `gr.Textbox` saying what happened, and the log with the stored path added.
        """
        import gradio as gr

        from smolui.uploads import UploadPolicy, ingest

        if file is None:
            return gr.Textbox(value="No file uploaded", visible=True), file_uploads_log
        path = str(file if isinstance(file, (str, os.PathLike)) else file.name)
        extension = Path(path).suffix.lower()
        if allowed_file_types is not None and extension not in allowed_file_types:
            return gr.Textbox(value="File type disallowed", visible=True), file_uploads_log
        policy = UploadPolicy(max_file_bytes=int(self.settings.max_file_size_mb * 1024 * 1024))
        result = ingest([(os.path.basename(path), path)], self.upload_root, policy, False)
        if not result.accepted:
            reason = result.refused[0].reason if result.refused else "refused"
            return gr.Textbox(value=f"File refused: {reason}", visible=True), file_uploads_log
        stored = str(result.accepted[0].stored_path)
        return (
            gr.Textbox(value=f"File uploaded: {stored}", visible=True),
            [*file_uploads_log, stored],
        )

    def log_user_message(self, text_input: str, file_uploads_log: list[str]) -> tuple[Any, ...]:
        """The task for the agent (the text, plus the uploaded files' paths), an empty text
        box, and a disabled send button: what a smolagents-style Blocks app wires to submit.

        Args:
            text_input: What the user typed.
            file_uploads_log: Paths stored by `upload_file`.
        """
        import gradio as gr

        task = text_input
        if file_uploads_log:
            task += f"\nYou have been given these files (paths you can read): {file_uploads_log}"
        return task, "", gr.Button(interactive=False)

    def interact_with_agent(
        self, prompt: str, messages: list[Any], session_state: dict[str, Any] | None = None
    ) -> Iterator[list[Any]]:
        """Run the agent on `prompt` and yield the chat (`messages` + this turn) as it grows.

        Args:
            prompt: The user's message.
            messages: The chat so far (`gr.Chatbot` messages).
            session_state: A per-browser dict (`gr.State({})`); the agent is kept in it
                under "agent". Without one, every call uses the same agent.
        """
        from smolui.app.streaming import stream_to_gradio

        agent = self._interactive_agent(session_state)
        user: Message = {"role": "user", "content": prompt}
        history: list[Any] = [*messages, user]
        yield history
        for turn in stream_to_gradio(agent, prompt, reset_agent_memory=self.reset_agent_memory):
            yield history + turn

    def _interactive_agent(self, session_state: dict[str, Any] | None) -> MultiStepAgent:
        if session_state is None:
            session_state = self._script_session
        if "agent" not in session_state:
            session_state["agent"] = self.factory()
        return session_state["agent"]
