"""A step's first image becomes the step block's own content, so the page can show it.

gradio 6's chat loads the component that draws an image (or audio) only for messages at the
top of the chat: a file in a nested message (a child of a step block) stays an empty box
unless some top-level message of the chat happens to need the same component. A step block
is top-level, so a step whose first image is its own content loads the image component, and
every other image nested in the chat then shows too. Pure functions, no gradio.
"""

from __future__ import annotations

from typing import Any

from smolui.render.messages import IMAGE_TITLE, Message


def lift_step_images(messages: list[Message]) -> list[Message]:
    """The messages with each top-level step's first image moved into the step block.

    A step block (a top-level message with an `id` and a `title`, and no content yet) takes
    the content of its first child titled `IMAGE_TITLE` that holds a file; that child is
    dropped. Anything else is left as it is, so applying it twice changes nothing.

    Args:
        messages: Chat messages (a turn's, or a whole stored chat).
    """
    steps = {_meta(m)["id"]: index for index, m in enumerate(messages) if _is_empty_step(m)}
    lifted: dict[int, Any] = {}  # a step's index -> the image content it takes
    dropped: set[int] = set()
    for index, item in enumerate(messages):
        step = steps.get(_meta(item).get("parent_id"))
        if step is not None and step not in lifted and _is_image_child(item):
            lifted[step] = item["content"]
            dropped.add(index)
    if not lifted:
        return messages
    return [
        {**item, "content": lifted[index]} if index in lifted else item
        for index, item in enumerate(messages)
        if index not in dropped
    ]


def _meta(item: Message) -> dict[str, Any]:
    meta = item.get("metadata")
    return meta if isinstance(meta, dict) else {}


def _is_empty_step(item: Message) -> bool:
    meta = _meta(item)
    return bool(
        item.get("role") == "assistant"
        and meta.get("id")
        and meta.get("title")
        and not meta.get("parent_id")
        and _is_empty(item.get("content"))
    )


def _is_empty(content: Any) -> bool:
    """No content: "" as rendered, or gradio's normalized form of it (an empty text block)."""
    if content in (None, "", []):
        return True
    if isinstance(content, list) and len(content) == 1 and isinstance(content[0], dict):
        block = content[0]
        return block.get("type") == "text" and not block.get("text")
    return False


def _is_image_child(item: Message) -> bool:
    return _meta(item).get("title") == IMAGE_TITLE and _is_file(item.get("content"))


def _is_file(content: Any) -> bool:
    """A file dict as rendered (`{"path", "mime_type"}`) or in gradio's normalized form."""
    if isinstance(content, list) and len(content) == 1:
        content = content[0]
    if not isinstance(content, dict):
        return False
    if content.get("type") == "file" or content.get("path"):
        return True
    return isinstance(content.get("file"), dict)
