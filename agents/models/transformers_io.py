"""Inputs for transformers chat templates: messages, images, and a GGUF file's template."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from agents.models.messages import content_text
from agents.models.tool_call_text import parse_arguments


def template_messages(messages: list[dict[str, Any]], keep_images: bool) -> list[dict[str, Any]]:
    """Prepared messages -> what `apply_chat_template` expects.

    Text-only templates get string content; vision templates get text and image blocks.
    Tool-call arguments become dicts, as chat templates render them.

    Args:
        messages: Prepared messages (content as a list of blocks).
        keep_images: Keep image blocks (for a processor) instead of dropping them.
    """
    out = []
    for message in messages:
        content = message.get("content")
        if keep_images and isinstance(content, list):
            blocks = [
                {"type": "image", "image": block["image"]}
                if block.get("type") == "image"
                else {"type": "text", "text": block.get("text", "")}
                for block in content
                if block.get("type") in ("image", "text")
            ]
            entry: dict[str, Any] = {"role": message["role"], "content": blocks}
        else:
            entry = {"role": message["role"], "content": content_text(content)}
        if message.get("tool_calls"):
            entry["tool_calls"] = [
                {
                    "type": "function",
                    "function": {
                        "name": call["function"]["name"],
                        "arguments": parse_arguments(call["function"].get("arguments")),
                    },
                }
                for call in message["tool_calls"]
            ]
        out.append(entry)
    return out


def to_pil_image(image: Any) -> Any:
    """A PIL image from a PIL image, PNG/JPEG bytes, a data URL or a file path."""
    from PIL import Image

    if isinstance(image, Image.Image):
        return image
    if isinstance(image, str) and image.startswith("data:"):
        import base64

        return Image.open(io.BytesIO(base64.b64decode(image.split(",", 1)[1])))
    if isinstance(image, (bytes, bytearray)):
        return Image.open(io.BytesIO(bytes(image)))
    return Image.open(Path(image))


def chat_template_from_gguf(path: Path) -> str | None:
    """The chat template stored in a GGUF file's metadata, if any."""
    from gguf import GGUFReader

    field = GGUFReader(str(path)).fields.get("tokenizer.chat_template")
    if field is None:
        return None
    return bytes(field.parts[field.data[0]]).decode("utf-8")
