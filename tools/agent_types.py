"""Output types: wrappers that let a tool's text, image or audio result reach both the model
(as text) and the UI (as a file path).

`AgentText` is a `str`. `AgentImage` and `AgentAudio` hold a value (PIL image, path, bytes or
samples) and write it to a temporary file on demand, so the UI can show it by path.
"""

from __future__ import annotations

import io
import logging
import os
import tempfile
import uuid
import wave
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

_OUTPUT_DIR: str | None = None


def output_dir() -> str:
    """The folder where image and audio results are written (created on first use)."""
    global _OUTPUT_DIR
    if _OUTPUT_DIR is None or not os.path.isdir(_OUTPUT_DIR):
        _OUTPUT_DIR = tempfile.mkdtemp(prefix="smolui-outputs-")
    return _OUTPUT_DIR


def _new_path(suffix: str) -> str:
    return os.path.join(output_dir(), f"{uuid.uuid4().hex}{suffix}")


class AgentType:
    """Base of the output types: `to_raw()` gives the value, `to_string()` a text form."""

    def __init__(self, value: Any):
        self._value = value

    def to_raw(self) -> Any:
        return self._value

    def to_string(self) -> str:
        return str(self._value)

    def __str__(self) -> str:
        return self.to_string()


class AgentText(AgentType, str):
    """Text returned by a tool or an agent; behaves as a plain `str`."""

    def __new__(cls, value: Any) -> AgentText:
        return str.__new__(cls, value)

    def __init__(self, value: Any):
        AgentType.__init__(self, str(value))

    def to_raw(self) -> str:
        return str.__str__(self)

    def to_string(self) -> str:
        return str.__str__(self)

    def __str__(self) -> str:
        return str.__str__(self)


class AgentImage(AgentType):
    """An image result: a PIL image, a path to an image file, or encoded image bytes.

    Args:
        value: The image (PIL image, `str`/`Path` path, or PNG/JPEG bytes).
    """

    def __init__(self, value: Any):
        if isinstance(value, AgentImage):
            value = value._value
        if not isinstance(value, (str, Path, bytes, bytearray)) and not _is_pil(value):
            raise TypeError(
                f"AgentImage needs a PIL image, a path or image bytes, got {type(value).__name__}."
            )
        super().__init__(value)
        self._path: str | None = str(value) if isinstance(value, (str, Path)) else None

    def to_raw(self) -> Any:
        """The image as a PIL image (opened from the path or bytes when needed)."""
        from PIL import Image

        if _is_pil(self._value):
            return self._value
        if isinstance(self._value, (bytes, bytearray)):
            return Image.open(io.BytesIO(self._value))
        return Image.open(self._value)

    def to_string(self) -> str:
        """A path to the image file (a PNG is written once for in-memory images)."""
        if self._path is None:
            path = _new_path(".png")
            if isinstance(self._value, (bytes, bytearray)):
                Path(path).write_bytes(self._value)
            else:
                self._value.save(path, format="PNG")
            self._path = path
        return self._path

    @property
    def path(self) -> str:
        return self.to_string()

    def _repr_png_(self) -> bytes:
        buffer = io.BytesIO()
        self.to_raw().save(buffer, format="PNG")
        return buffer.getvalue()

    def __repr__(self) -> str:
        return f"AgentImage({self._path or type(self._value).__name__})"


def raw_image(value: Any) -> Any:
    """The PIL image behind an image value (an `AgentImage` keeps it behind `to_raw`); any
    other value as it is.

    Args:
        value: An `AgentImage`, a PIL image, or anything else.
    """
    return value.to_raw() if isinstance(value, AgentImage) else value


class AgentAudio(AgentType):
    """An audio result: a path to an audio file, or samples with their sampling rate.

    Args:
        value: A path (`str`/`Path`), encoded bytes, or a 1-D/2-D array of samples.
        samplerate: Samples per second, needed for raw samples.
    """

    def __init__(self, value: Any, samplerate: int = 16_000):
        if isinstance(value, AgentAudio):
            value, samplerate = value._value, value.samplerate
        if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], int):
            samplerate, value = value  # gradio's (rate, samples) form
        super().__init__(value)
        self.samplerate = samplerate
        self._path: str | None = str(value) if isinstance(value, (str, Path)) else None

    def to_raw(self) -> Any:
        """The samples as a float32 numpy array in [-1, 1] (mono or channels-last)."""
        import numpy as np

        if isinstance(self._value, (str, Path, bytes, bytearray)):
            samples, self.samplerate = read_wav(self._value)
            return samples
        return np.asarray(self._value, dtype=np.float32)

    def to_string(self) -> str:
        """A path to the audio file (a WAV is written once for raw samples)."""
        if self._path is None:
            path = _new_path(".wav")
            if isinstance(self._value, (bytes, bytearray)):
                Path(path).write_bytes(self._value)
            else:
                write_wav(path, self.to_raw(), self.samplerate)
            self._path = path
        return self._path

    @property
    def path(self) -> str:
        return self.to_string()

    def __repr__(self) -> str:
        return f"AgentAudio({self._path or 'samples'}, samplerate={self.samplerate})"


def read_wav(source: str | Path | bytes | bytearray) -> tuple[Any, int]:
    """Decode a PCM WAV file (path or bytes) to float32 samples and its sampling rate.

    Args:
        source: A path or the file's bytes.
    """
    import numpy as np

    handle = io.BytesIO(source) if isinstance(source, (bytes, bytearray)) else str(source)
    with wave.open(handle, "rb") as wav:
        rate, width, channels = wav.getframerate(), wav.getsampwidth(), wav.getnchannels()
        frames = wav.readframes(wav.getnframes())
    if width == 1:
        samples = (np.frombuffer(frames, dtype=np.uint8).astype(np.float32) - 128) / 128
    elif width in (2, 4):
        dtype = np.int16 if width == 2 else np.int32
        samples = np.frombuffer(frames, dtype=dtype).astype(np.float32) / np.iinfo(dtype).max
    else:
        raise ValueError(f"Unsupported WAV sample width: {width * 8} bits.")
    if channels > 1:
        samples = samples.reshape(-1, channels)
    return samples, rate


def write_wav(path: str | Path, samples: Any, samplerate: int) -> None:
    """Write float samples in [-1, 1] (mono, or channels-last) as 16-bit PCM WAV.

    Args:
        path: Where to write.
        samples: The samples.
        samplerate: Samples per second.
    """
    import numpy as np

    data = np.asarray(samples, dtype=np.float32)
    channels = 1 if data.ndim == 1 else data.shape[1]
    pcm = (np.clip(data, -1.0, 1.0) * 32767).astype("<i2")
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(channels)
        wav.setsampwidth(2)
        wav.setframerate(int(samplerate))
        wav.writeframes(pcm.tobytes())


def _is_pil(value: Any) -> bool:
    return any(
        c.__module__.startswith("PIL.") and c.__name__ == "Image" for c in type(value).__mro__
    )


_TYPES: dict[str, type[AgentType]] = {
    "string": AgentText,
    "image": AgentImage,
    "audio": AgentAudio,
}


def handle_agent_output_types(output: Any, output_type: str | None = None) -> Any:
    """Wrap a tool's or agent's output in the matching output type.

    With a declared `output_type` ("string", "image", "audio") the output is wrapped in that
    type; otherwise the type is guessed from the value (str, PIL image). Anything else is
    returned unchanged.

    Args:
        output: The value.
        output_type: The declared type, when known.
    """
    if isinstance(output, AgentType):
        return output
    if output_type in _TYPES:
        try:
            return _TYPES[output_type](output)
        except (TypeError, ValueError):
            logger.debug("output %r does not fit type %s; left as is", type(output), output_type)
            return output
    if isinstance(output, str):
        return AgentText(output)
    if _is_pil(output):
        return AgentImage(output)
    return output


__all__ = [
    "AgentAudio",
    "AgentImage",
    "AgentText",
    "AgentType",
    "handle_agent_output_types",
    "read_wav",
    "write_wav",
]
