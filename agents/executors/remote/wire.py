"""How Jupyter messages travel on a gateway's kernel websocket: the two framings servers speak.

- `v1.kernel.websocket.jupyter.org` (jupyter_server 2, JupyterLab's default): one binary
  frame holding the channel and the message's parts (header, parent header, metadata,
  content, buffers), each packed JSON, behind a table of offsets. The server passes the
  parts between the websocket and ZeroMQ as they are: it neither parses nor re-encodes
  them, which is most of its work per message in the other framing.
- The legacy framing (no subprotocol; older servers): one JSON text frame per message, with
  a `channel` field.

Parts are packed and unpacked by `jupyter_client.session.Session`, as Jupyter's own clients do.
"""

from __future__ import annotations

import json
from typing import Any

V1_PROTOCOL = "v1.kernel.websocket.jupyter.org"
_PARTS = ("header", "parent_header", "metadata", "content")
_WORD = 8  # bytes per offset, little-endian


class MalformedMessage(ValueError):
    """A frame that is not a Jupyter message in the framing agreed on."""


def encode_v1(message: dict[str, Any], channel: str, pack: Any) -> bytes:
    """One binary frame for `message` on `channel`.

    Args:
        message: A message as `Session.msg` builds it (no buffers).
        channel: "shell", "stdin" or "control".
        pack: The session's packer (object -> JSON bytes).
    """
    parts = [channel.encode(), *(pack(message[name]) for name in _PARTS)]
    count = len(parts) + 1  # an offset where each part starts, and one where the last ends
    offsets = [_WORD * (1 + count)]
    for part in parts:
        offsets.append(offsets[-1] + len(part))
    table = b"".join(n.to_bytes(_WORD, "little") for n in (count, *offsets))
    return table + b"".join(parts)


def decode_v1(frame: bytes, unpack: Any) -> dict[str, Any]:
    """The message in a binary frame, with its `channel` and `msg_type`.

    Args:
        frame: The websocket frame's bytes.
        unpack: The session's unpacker (JSON bytes -> object).

    Raises:
        MalformedMessage: The frame does not hold a channel and four parts.
    """
    try:
        count = int.from_bytes(frame[:_WORD], "little")
        if not 6 <= count <= 1024 or len(frame) < _WORD * (1 + count):
            raise MalformedMessage(f"a frame with {count} offsets")
        offsets = [
            int.from_bytes(frame[_WORD * i : _WORD * (i + 1)], "little")
            for i in range(1, count + 1)
        ]
        pieces = [frame[start:end] for start, end in zip(offsets, offsets[1:], strict=False)]
        message: dict[str, Any] = {"channel": pieces[0].decode()}
        for name, piece in zip(_PARTS, pieces[1:5], strict=True):
            message[name] = unpack(piece)
    except (ValueError, UnicodeDecodeError) as error:
        raise MalformedMessage(str(error)) from None
    message["buffers"] = pieces[5:]
    return _with_type(message)


def encode_legacy(message: dict[str, Any], channel: str) -> str:
    """One JSON text frame for `message` on `channel` (servers without the v1 framing).

    Args:
        message: A message as `Session.msg` builds it.
        channel: "shell", "stdin" or "control".
    """
    from jupyter_client.jsonutil import json_default

    return json.dumps({**message, "channel": channel}, default=json_default)


def decode_legacy(frame: str | bytes) -> dict[str, Any]:
    """The message in a JSON text frame.

    Args:
        frame: The websocket frame.

    Raises:
        MalformedMessage: Not a JSON object.
    """
    try:
        message = json.loads(frame)
    except ValueError as error:
        raise MalformedMessage(str(error)) from None
    if not isinstance(message, dict):
        raise MalformedMessage("not a JSON object")
    return _with_type(message)


def _with_type(message: dict[str, Any]) -> dict[str, Any]:
    header = message.get("header")
    if not isinstance(header, dict) or not isinstance(message.get("content", {}), dict):
        raise MalformedMessage("no header or content")
    message.setdefault("msg_type", header.get("msg_type"))
    return message
