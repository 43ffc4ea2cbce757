"""What one execution may send and spend, counted and capped by the host itself.

The worker also caps its output, logs and images, but the code runs in the same process
and can change those caps. The host never relies on them: every frame's size is checked
before it is read (`Channel`), and this budget re-checks text lengths, the number of tool
calls and their argument size, and the number and pixels of images, reading each PNG's
dimensions from its header before decoding anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agents.executors.values import decode_png, png_size


class BudgetExceeded(ValueError):
    """The worker sent more than the host allows for one execution."""


@dataclass
class BudgetLimits:
    """The caps, per execution.

    Args:
        max_log_chars: Printed output kept.
        max_output_chars: Length of a text value kept.
        max_error_chars: Length of an error message kept.
        max_images: Images (figures, displayed or returned images, tool arguments).
        max_pixels: Pixels over all those images together.
        max_tool_calls: Tool calls.
        max_call_bytes: Size of one tool call's encoded arguments.
        max_frame_bytes: Bytes of all the frames the worker sends in one execution. The
            host parses each frame before it knows what it is (about 0.25 s of CPU per
            60 MB): without a cap, frames refused after parsing cost it 15 s of CPU in a
            30 s step.
    """

    max_log_chars: int = 20_000
    max_output_chars: int = 1_000_000
    max_error_chars: int = 20_000
    max_images: int = 20
    max_pixels: int = 40_000_000
    max_tool_calls: int = 2_000
    max_call_bytes: int = 8 * 1024 * 1024
    max_frame_bytes: int = 256 * 1024 * 1024


class StepBudget:
    """The host's count for one execution.

    Args:
        limits: The caps.
    """

    def __init__(self, limits: BudgetLimits):
        self.limits = limits
        self.images = 0
        self.pixels = 0
        self.calls = 0
        self.frame_bytes = 0

    def image(self, data: bytes) -> Any:
        """Decode one PNG if it fits in what is left; raise BudgetExceeded otherwise."""
        try:
            width, height = png_size(data)
        except ValueError as error:
            raise BudgetExceeded(f"an image could not be read: {error}") from None
        pixels = width * height
        if self.images + 1 > self.limits.max_images:
            raise BudgetExceeded(f"more than {self.limits.max_images} images in one step")
        if self.pixels + pixels > self.limits.max_pixels:
            raise BudgetExceeded(
                f"images of more than {self.limits.max_pixels:,} pixels in one step "
                f"(one is {width}x{height})"
            )
        self.images += 1
        self.pixels += pixels
        try:
            return decode_png(pixel_chunks(data), self.limits.max_pixels)
        except (ValueError, ImportError) as error:
            raise BudgetExceeded(f"an image could not be read: {error}") from None

    def frame(self, size: int) -> None:
        """Count one frame of `size` bytes from the worker; raise BudgetExceeded past the cap."""
        self.frame_bytes += size
        if self.frame_bytes > self.limits.max_frame_bytes:
            raise BudgetExceeded(
                f"more than {self.limits.max_frame_bytes >> 20} MB of messages in one step"
            )

    def tool_call(self, frame_bytes: int) -> None:
        """Count one tool call of `frame_bytes`; raise BudgetExceeded when over the caps."""
        self.calls += 1
        if self.calls > self.limits.max_tool_calls:
            raise BudgetExceeded(f"more than {self.limits.max_tool_calls} tool calls in one step")
        if frame_bytes > self.limits.max_call_bytes:
            raise BudgetExceeded(
                f"tool arguments of {frame_bytes:,} bytes (the limit is "
                f"{self.limits.max_call_bytes:,})"
            )


# The chunks that make a PNG's pixels; the rest is metadata the host never needs. Text
# chunks are the danger: Pillow inflates zTXt/iTXt up to 64 MB per image when it opens it,
# so 20 images of 70 KB each would hold 1.3 GB in the host.
_PIXEL_CHUNKS = (b"IHDR", b"PLTE", b"tRNS", b"IDAT", b"IEND")
# Encoders write 8-64 KB of pixels per chunk, so a real PNG has a few chunks per MB. Empty
# 12-byte chunks fit 4 M in a 45 MB image, and reading them cost the host 4 s of CPU in
# Python (here, and in Pillow again) for a 1x1 image, every step.
MAX_CHUNKS = 20_000


def pixel_chunks(data: bytes) -> bytes:
    """The PNG `data` with only the chunks that make its pixels (a broken one stays broken,
    for the decoder to refuse). Raises ValueError past `MAX_CHUNKS` chunks.

    Args:
        data: PNG bytes from the worker (untrusted).
    """
    kept, position = [data[:8]], 8
    for _ in range(MAX_CHUNKS + 1):
        if position + 12 > len(data):
            break
        end = position + 12 + int.from_bytes(data[position : position + 4], "big")
        kind = data[position + 4 : position + 8]
        if kind in _PIXEL_CHUNKS:
            kept.append(data[position:end])
        if kind == b"IEND":
            break
        position = end
    else:
        raise ValueError(f"a PNG of more than {MAX_CHUNKS:,} chunks")
    return b"".join(kept)


class StepClock:
    """The wall-clock deadline of one execution: the code's own time, plus the time its
    tool calls take, up to `max_tool_seconds` in all.

    Args:
        deadline: When the code's own time runs out (monotonic clock).
        max_tool_seconds: Most extra time tool calls may add.
    """

    def __init__(self, deadline: float, max_tool_seconds: float):
        self.deadline = deadline
        self.max_tool_seconds = max_tool_seconds
        self.tool_seconds = 0.0  # granted so far

    def spent_in_tools(self, seconds: float) -> None:
        """Move the deadline by the time a tool call took, within the tool allowance."""
        granted = min(seconds, self.max_tool_seconds - self.tool_seconds)
        self.tool_seconds += granted
        self.deadline += granted

    def waited_for_answer(self, seconds: float) -> None:
        """Move the deadline by the time a held tool call waited for a person's answer: no
        allowance caps it (the code was frozen, and a person may take minutes)."""
        self.deadline += seconds


def cut_text(value: Any, limit: int, what: str) -> str:
    """`value` as text of at most about `limit` characters, saying how much was cut.

    Args:
        value: What the worker sent (anything: it is untrusted).
        limit: Characters kept.
        what: Names the text in the note ("output", "error").
    """
    text = value if isinstance(value, str) else ("" if value is None else str(value))
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... {what} cut by the host: {len(text) - limit} more characters]"
