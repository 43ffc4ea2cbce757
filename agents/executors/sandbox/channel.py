"""Framed JSON messages between the host and a sandbox worker, over a pair of pipes.

Both sides load this module, so it imports only the standard library. A message is a
4-byte big-endian length followed by UTF-8 JSON; oversized frames are refused before they
are read, and every wait has a deadline. What the values inside look like: `values`.
"""

from __future__ import annotations

import json
import os
import re
import select
import time
from typing import Any

HEADER_BYTES = 4
DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024
# Most values in one frame from the worker, counted as its `[`, `{` and `,` bytes (those
# inside strings too: an upper bound, cheap to count). Each value becomes an object of
# 30-100 bytes in the reader, so a 60 MB frame of `{},` would cost the host 2.7 GB and a
# minute of CPU to parse (short strings: 12 times their size). A legitimate result (1 M
# characters of value at most; images are long strings) stays below.
DEFAULT_MAX_VALUES = 2_000_000
# One encoder for every frame (`json.dumps` with options builds a new one per call).
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
# A lone UTF-16 surrogate is text no UTF-8 encoder takes: left in a log or a value it
# would make every later model request and every save of the conversation fail. Raw in
# the bytes, the decoding replaces it; as a JSON escape ("\ud800") only a forged frame
# brings one (`send` never writes one), and that frame is refused.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


class ChannelClosed(EOFError):
    """The other side closed the pipe (for the host: the worker died)."""


class ChannelTimeout(TimeoutError):
    """No complete message arrived (or could be sent) before the deadline."""


class MessageTooLarge(ValueError):
    """A message this side would send is larger than the other side accepts; nothing was sent."""


class ProtocolViolation(ValueError):
    """The other side sent something that is not a valid message."""


class Channel:
    """Framed JSON messages over a pair of pipe file descriptors.

    Args:
        read_fd: Where messages arrive.
        write_fd: Where messages go.
        max_message_bytes: Larger incoming frames are refused (the sender is misbehaving).
        chunk_bytes: How much one read asks for. A pipe holds 64 KiB, so one read rarely
            brings more; asking for more only costs a larger buffer (from 128 KiB on, an
            mmap, a shrink and an munmap around every read).
        max_values: Frames with more values (see DEFAULT_MAX_VALUES) are refused before
            they are parsed (the host sets it for frames from the worker; None: no cap).
    """

    def __init__(
        self,
        read_fd: int,
        write_fd: int,
        max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES,
        chunk_bytes: int = 64 * 1024,
        max_values: int | None = None,
    ):
        self.read_fd = read_fd
        self.write_fd = write_fd
        self.max_message_bytes = max_message_bytes
        self.chunk_bytes = chunk_bytes
        self.max_values = max_values
        self._buffer = bytearray()
        self.last_frame_bytes = 0  # size of the last message received

    def send(
        self, message: dict[str, Any], deadline: float | None = None, max_bytes: int | None = None
    ) -> None:
        """Write one message; with a deadline, give up (ChannelTimeout) if the reader stalls.

        One write when the pipe has room (the usual case); the wait for room comes only
        when it is full. With `max_bytes` (what the reader accepts), a larger message raises
        MessageTooLarge and nothing is written."""
        text = _ENCODER.encode(message)
        try:
            body = text.encode()
        except UnicodeEncodeError:  # e.g. a file name listed with surrogateescape
            body = text.encode("utf-8", "replace")
        del text
        if max_bytes is not None and len(body) > max_bytes:  # the reader would refuse it
            raise MessageTooLarge(
                f"{len(body) / 1e6:.1f} MB; the limit is {max_bytes / 1e6:.0f} MB"
            )
        view = memoryview(len(body).to_bytes(HEADER_BYTES, "big") + body)
        while view:
            try:
                written = os.write(self.write_fd, view)
            except BlockingIOError:  # full (non-blocking descriptor): wait for room
                if deadline is not None:
                    _wait(self.write_fd, deadline, for_write=True)
                continue
            except (BrokenPipeError, OSError) as error:
                raise ChannelClosed(f"pipe closed while sending: {error}") from error
            view = view[written:]

    def receive(self, deadline: float | None = None) -> dict[str, Any]:
        """Read one message; raise ChannelTimeout at the deadline, ChannelClosed on EOF."""
        size = None
        while True:
            if size is None and len(self._buffer) >= HEADER_BYTES:
                size = int.from_bytes(self._buffer[:HEADER_BYTES], "big")
                if size > self.max_message_bytes:
                    raise ProtocolViolation(
                        f"message of {size} bytes exceeds the {self.max_message_bytes} byte limit"
                    )
            if size is not None and len(self._buffer) >= HEADER_BYTES + size:
                body = bytes(self._buffer[HEADER_BYTES : HEADER_BYTES + size])
                del self._buffer[: HEADER_BYTES + size]
                self.last_frame_bytes = size
                return _parse(body, self.max_values)
            if deadline is not None:
                _wait(self.read_fd, deadline, for_write=False)
            try:
                chunk = os.read(self.read_fd, self.chunk_bytes)
            except BlockingIOError:
                continue
            if not chunk:
                raise ChannelClosed("pipe closed by the other side")
            self._buffer += chunk

    def close(self) -> None:
        for fd in {self.read_fd, self.write_fd}:
            try:
                os.close(fd)
            except OSError:
                pass


def _wait(fd: int, deadline: float, for_write: bool) -> None:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise ChannelTimeout("deadline passed")
    ready = (
        select.select([], [fd], [], remaining)
        if for_write
        else select.select([fd], [], [], remaining)
    )
    if not any(ready):
        raise ChannelTimeout("deadline passed")


def _parse(body: bytes, max_values: int | None) -> dict[str, Any]:
    if max_values is not None:
        values = body.count(b",") + body.count(b"[") + body.count(b"{")
        if values > max_values:
            raise ProtocolViolation(
                f"a message of about {values:,} values (the limit is {max_values:,})"
            )
    try:
        message = json.loads(body.decode("utf-8", "replace"))
    except (ValueError, RecursionError) as error:
        raise ProtocolViolation(f"invalid message: {error}") from None
    if not isinstance(message, dict) or not isinstance(message.get("t"), str):
        raise ProtocolViolation("a message must be an object with a string 't' field")
    # The search also finds an escaped backslash before "ud800", or a valid pair.
    if _SURROGATE_ESCAPE.search(body) and has_lone_surrogate(message):
        raise ProtocolViolation("a lone UTF-16 surrogate in a message")
    return message


def has_lone_surrogate(message: dict[str, Any]) -> bool:
    """Whether a string of `message` (a key too) holds a lone surrogate (json.loads joins
    valid pairs, so any left is lone).

    Args:
        message: A parsed message, nested as deep as the parser allowed.
    """
    try:
        _ENCODER.encode(message).encode()
        return False
    except UnicodeEncodeError:
        return True
    except RecursionError:  # deeper than the encoder goes here: look without recursion
        pass
    todo: list[Any] = [message]
    while todo:
        node = todo.pop()
        for item in [*node, *node.values()] if isinstance(node, dict) else node:
            if isinstance(item, (dict, list)):
                todo.append(item)
            elif isinstance(item, str) and _SURROGATE.search(item):
                return True
    return False


# -- values --------------------------------------------------------------------------------
