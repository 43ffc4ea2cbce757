"""The images one step shows, gathered where the code runs: matplotlib figures and PIL images.

Like a notebook: after each step every open pyplot figure is drawn to PNG and closed;
`plt.show()` and `fig.show()` draw at once. matplotlib is touched only when the code
imported it (it is in `sys.modules`), so steps that do not plot pay nothing. Caps: at most
`MAX_IMAGES` images per step and `MAX_SIDE` pixels per side (larger figures are drawn
smaller, larger images shrunk); each cap that applies leaves a note for the step's log.
Only the standard library is imported here: the sandbox worker loads this module.
"""

from __future__ import annotations

import io
import sys
from typing import Any

MAX_IMAGES = 10
MAX_SIDE = 4096


def is_figure(value: Any) -> bool:
    """True for a matplotlib `Figure` (without importing matplotlib).

    Args:
        value: Anything.
    """
    module = sys.modules.get("matplotlib.figure")
    return module is not None and isinstance(value, module.Figure)


def figure_of(value: Any) -> Any:
    """The figure to show for a value: a Figure itself, or the figure an Axes is drawn on.

    Args:
        value: Anything; None when it is neither a Figure nor an Axes.
    """
    if is_figure(value):
        return value
    axes = sys.modules.get("matplotlib.axes")
    if axes is not None and isinstance(value, axes.Axes) and is_figure(value.figure):
        return value.figure
    return None


def is_pil_image(value: Any) -> bool:
    """True for a PIL image (without importing PIL).

    Args:
        value: Anything.
    """
    module = sys.modules.get("PIL.Image")
    return module is not None and isinstance(value, module.Image)


def png_size(png: bytes) -> tuple[int, int]:
    """Width and height from a PNG's header (0, 0 if it is not a PNG).

    Args:
        png: The file's bytes.
    """
    if len(png) < 24 or not png.startswith(b"\x89PNG\r\n\x1a\n"):
        return 0, 0
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def figure_png(figure: Any, max_side: int = MAX_SIDE) -> tuple[bytes, str | None]:
    """Draw a figure to PNG, at a lower resolution if it would exceed `max_side`.

    Args:
        figure: A matplotlib Figure.
        max_side: Most pixels per side.

    Returns:
        The PNG bytes and a note when the figure was drawn smaller, else None.
    """
    width_in, height_in = (float(v) for v in figure.get_size_inches())
    dpi = float(figure.dpi)
    wanted = (round(width_in * dpi), round(height_in * dpi))
    largest = max(width_in, height_in, 1e-6)
    note = None
    if max(wanted) > max_side:
        dpi = max_side / largest
        note = f"a figure of {wanted[0]}x{wanted[1]} px was drawn at most {max_side} px per side"
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi)
    png = buffer.getvalue()
    if max(png_size(png)) > max_side:
        raise ValueError(f"the drawn figure is {png_size(png)} px, over {max_side} px per side")
    return png, note


class ImageCollector:
    """Collects one step's images as PNG bytes, under the caps, with notes for the log.

    Args:
        max_images: Most images kept; further ones are counted and left out.
        max_side: Most pixels per side of any image.
    """

    def __init__(self, max_images: int = MAX_IMAGES, max_side: int = MAX_SIDE):
        self.max_images = max_images
        self.max_side = max_side
        self.pngs: list[bytes] = []
        self.notes: list[str] = []
        self.left_out = 0
        self._seen: dict[int, Any] = {}  # figures shown this step (held so ids stay unique)

    def add(self, value: Any) -> bool:
        """Add a figure, an Axes' figure or a PIL image; False for anything else.

        Args:
            value: The value to show.
        """
        figure = figure_of(value)
        if figure is not None:
            self.add_figure(figure)
            return True
        if is_pil_image(value):
            self.add_image(value)
            return True
        return False

    def add_figure(self, figure: Any) -> None:
        """Draw a figure (once per step) into the collection.

        Args:
            figure: A matplotlib Figure.
        """
        if id(figure) in self._seen:
            return
        self._seen[id(figure)] = figure
        if not self._room():
            return
        try:
            png, note = figure_png(figure, self.max_side)
        except Exception as error:  # noqa: BLE001 - bad data in a plot goes to the model
            self.notes.append(f"a figure could not be drawn: {type(error).__name__}: {error}")
            return
        if note:
            self.notes.append(note)
        self.pngs.append(png)

    def mark_shown(self, figure: Any) -> None:
        """Leave this figure out of the step's images (it is shown another way).

        Args:
            figure: A matplotlib Figure.
        """
        self._seen[id(figure)] = figure

    def add_image(self, image: Any) -> None:
        """Add a PIL image, shrunk to fit `max_side` if needed.

        Args:
            image: A PIL image.
        """
        if not self._room():
            return
        png = image_png(image, self.max_side, self.notes)
        if png is None:
            self.notes.append("an image could not be encoded as PNG")
            return
        self.pngs.append(png)

    def capture_open_figures(self) -> None:
        """Draw every open pyplot figure, then close them all (none leaks into the next step)."""
        pyplot = sys.modules.get("matplotlib.pyplot")
        if pyplot is None:
            return
        try:
            for number in pyplot.get_fignums():
                self.add_figure(pyplot.figure(number))
        finally:
            pyplot.close("all")

    def take_notes(self) -> list[str]:
        """The notes gathered so far, including how many images were left out; clears them."""
        notes = list(self.notes)
        if self.left_out:
            notes.append(
                f"{self.left_out} more image(s) not shown: at most {self.max_images} per step"
            )
        self.notes, self.left_out = [], 0
        return notes

    def _room(self) -> bool:
        if len(self.pngs) < self.max_images:
            return True
        self.left_out += 1
        return False


def image_png(image: Any, max_side: int, notes: list[str]) -> bytes | None:
    """PNG bytes of a PIL image no larger than `max_side` per side (shrunk copy if needed).

    Args:
        image: A PIL image.
        max_side: Most pixels per side.
        notes: Gets a note when the image was shrunk.
    """
    width, height = image.size
    if max(width, height) > max_side:
        image = image.copy()
        image.thumbnail((max_side, max_side))
        notes.append(
            f"an image of {width}x{height} px was shrunk to {image.size[0]}x{image.size[1]} px"
        )
    for candidate in (image, None):
        buffer = io.BytesIO()
        try:
            (candidate if candidate is not None else image.convert("RGBA")).save(buffer, "PNG")
        except Exception:  # noqa: BLE001 - a mode PNG cannot hold: try RGBA once
            continue
        return buffer.getvalue()
    return None


def install_show_hooks(collector_of: Any) -> None:
    """Make `plt.show()` and `Figure.show()` draw into the current step's images.

    `plt.show()` draws and closes every open figure, as a notebook does; `fig.show()` draws
    that figure. A no-op until the code has imported pyplot.

    Args:
        collector_of: A callable returning the current step's `ImageCollector`.
    """
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None or getattr(pyplot.show, "_smolui", False):  # matplotlib's show, or ours
        return

    def show(*_: Any, **__: Any) -> None:
        collector_of().capture_open_figures()

    def figure_show(figure: Any, *_: Any, **__: Any) -> None:
        collector_of().add_figure(figure)

    show._smolui = True  # type: ignore[attr-defined]
    pyplot.show = show
    sys.modules["matplotlib.figure"].Figure.show = figure_show
