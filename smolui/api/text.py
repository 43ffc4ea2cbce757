"""A turn's chat messages as text for API clients: finished steps as reasoning, the answer
as content, images and audio as Markdown links to the app's file route."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from smolui.render.attachments import ATTACHED_ICON
from smolui.render.messages import Message, render_notice

# A file the chat shows -> the URL a client can fetch it from.
FileUrl = Callable[[str], str]
# How the chat's note on an attached file starts (`smolui.render.attachments`): told with the
# reasoning, not the answer. A refused file's note stays in the answer.
ATTACHED_MARK = str(render_notice("", ATTACHED_ICON)["content"])


def content_text(content: Any, file_url: FileUrl) -> str:
    """One message's content as Markdown.

    Args:
        content: Text, or a file dict (`{"path", "mime_type"}`) for an image or audio.
        file_url: Turns a served file's path into a URL.
    """
    if isinstance(content, str):
        return content
    if isinstance(content, dict) and content.get("path"):
        url = file_url(str(content["path"]))
        if str(content.get("mime_type") or "").startswith("image/"):
            return f"![image]({url})"
        return f"[file]({url})"
    return str(content or "")


def _is_attached(item: Message) -> bool:
    content = item.get("content")
    return (
        not item.get("metadata") and isinstance(content, str) and content.startswith(ATTACHED_MARK)
    )


def _is_footer(item: Message) -> bool:
    """The turn's footer (steps, tokens, time) is a `<sub>` line without metadata."""
    content = item.get("content")
    return isinstance(content, str) and content.startswith("<sub>") and content.endswith("</sub>")


def answer_text(messages: list[Message], file_url: FileUrl) -> str:
    """The turn's answer: its messages outside the step blocks (the answer, a stop or error
    note), without the footer.

    Args:
        messages: The turn's messages (after the user's).
        file_url: Turns a served file's path into a URL.
    """
    parts = [
        content_text(item.get("content"), file_url)
        for item in messages
        if not item.get("metadata") and not _is_footer(item) and not _is_attached(item)
    ]
    return "\n\n".join(part for part in parts if part)


def footer_text(messages: list[Message]) -> str:
    """The footer's text (steps, tokens, time), or "".

    Args:
        messages: The turn's messages.
    """
    for item in reversed(messages):
        if _is_footer(item):
            return str(item["content"])[len("<sub>") : -len("</sub>")]
    return ""


class StepText:
    """Attached files' notes and finished steps as reasoning text, each once, in order, as a
    turn's messages change.

    A step's messages are rewritten while it runs (its thought streams, then the parsed step
    replaces it), so a step is told only once it is done: reasoning a client received is
    never taken back.

    Args:
        file_url: Turns a served file's path into a URL.
    """

    def __init__(self, file_url: FileUrl):
        self.file_url = file_url
        self._told: set[str] = set()

    def new(self, messages: list[Message]) -> str:
        """The reasoning of steps finished since the last call ("" if none).

        Args:
            messages: The turn's messages now.
        """
        return "".join(self.new_parts(messages))

    def new_parts(self, messages: list[Message]) -> list[str]:
        """`new`'s text, one part per note or step.

        Args:
            messages: The turn's messages now.
        """
        parts: list[str] = []
        for start, item in enumerate(messages):
            meta = item.get("metadata") or {}
            if _is_attached(item) and f"note:{start}" not in self._told:
                self._told.add(f"note:{start}")
                parts.append(f"{item['content']}\n\n")
            if not meta or meta.get("parent_id"):
                continue
            if meta.get("status") != "done":
                break  # later steps wait for this one: the text stays in order
            if meta.get("id") in self._told:
                continue
            self._told.add(str(meta.get("id")))
            parts.append(self._step(messages, start))
        return parts

    def _step(self, messages: list[Message], start: int) -> str:
        title = str(messages[start]["metadata"].get("title") or "Step")
        lines = [f"**{title}**\n\n"]
        for item in messages[start + 1 :]:
            meta = item.get("metadata") or {}
            if not meta.get("parent_id"):
                break
            text = content_text(item.get("content"), self.file_url).strip()
            if text:
                lines.append(f"{meta.get('title') or ''}:\n{text}\n\n")
        return "".join(lines)
