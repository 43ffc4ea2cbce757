"""`transcriber`: speech to text with a Whisper model through transformers' pipeline.

The model loads on first use. Audio comes as a path, bytes, samples, or an `AgentAudio`, and
is converted to 16 kHz mono as Whisper expects.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from tools.base import Tool, ToolExecutionError

logger = logging.getLogger(__name__)

WHISPER_RATE = 16_000
DEFAULT_MODEL = "openai/whisper-tiny"
# Largest audio file read from a path (bytes): hours of compressed speech. A call from
# sandboxed code names any host path; a bigger file must not fill the host's memory.
MAX_AUDIO_FILE_BYTES = 200_000_000


class SpeechToTextTool(Tool):
    """Transcribes speech to text.

    Args:
        model: A Hub model id or a local folder holding a Whisper model.
        device: Torch device ("cpu", "cuda", ...); default CPU.
        chunk_length_s: Split long audio into chunks of this many seconds.
    """

    name = "transcriber"
    description = "Transcribes speech in an audio file to text."
    inputs = {
        "audio": {
            "type": "audio",
            "description": "The audio to transcribe: a file path (WAV, or any format ffmpeg reads).",
        }
    }
    output_type = "string"

    def __init__(
        self,
        model: str | None = None,
        device: str | None = None,
        chunk_length_s: float = 30.0,
    ):
        super().__init__()
        self.model = model or os.environ.get("SMOLUI_WHISPER_MODEL", DEFAULT_MODEL)
        self.device = device or "cpu"
        self.chunk_length_s = chunk_length_s
        self.pipeline: Any = None

    def setup(self) -> None:
        # the model loads on the first transcription, after the audio is known to be good
        self.is_initialized = True

    def load_model(self) -> None:
        """Build the Whisper pipeline; a readable error when the weights are missing."""
        try:
            from transformers import pipeline
        except ImportError as error:
            raise ToolExecutionError(
                "Speech to text needs the 'transformers' and 'torch' packages; install them."
            ) from error
        try:
            self.pipeline = pipeline(
                "automatic-speech-recognition",
                model=self.model,
                device=self.device,
                chunk_length_s=self.chunk_length_s,
            )
        except (OSError, ValueError) as error:
            raise ToolExecutionError(_missing_weights_message(self.model, error)) from error

    def forward(self, audio: Any) -> str:
        samples = load_audio(audio)
        if samples.size == 0:
            raise ToolExecutionError("The audio is empty; there is nothing to transcribe.")
        if self.pipeline is None:
            self.load_model()
        result = self.pipeline({"raw": samples, "sampling_rate": WHISPER_RATE})
        return str(result.get("text", "")).strip()


def _missing_weights_message(model: str, error: Exception) -> str:
    return (
        f"The speech-to-text model {model!r} could not be loaded ({type(error).__name__}: "
        f"{str(error).splitlines()[0][:200] if str(error) else ''}). With no network, its "
        "weights must already be on this machine: download them once with "
        f"`huggingface-cli download {model}` (or `hf download {model}`), or set the "
        "transcriber's model (SMOLUI_WHISPER_MODEL) to a local folder holding a Whisper model."
    )


def load_audio(audio: Any, target_rate: int = WHISPER_RATE) -> Any:
    """Turn audio into float32 mono samples at `target_rate`.

    Args:
        audio: A path, encoded bytes, an `AgentAudio`, a `(rate, samples)` tuple, a dict
            with `raw`/`array` and `sampling_rate`, or samples already at `target_rate`.
        target_rate: The sampling rate wanted.
    """
    import numpy as np

    from tools.agent_types import AgentAudio

    rate = target_rate
    if isinstance(audio, AgentAudio):
        samples, rate = audio.to_raw(), audio.samplerate
    elif isinstance(audio, dict):
        samples = audio.get("raw", audio.get("array"))
        rate = int(audio.get("sampling_rate", target_rate))
    elif isinstance(audio, tuple) and len(audio) == 2 and isinstance(audio[0], int):
        rate, samples = audio
    elif isinstance(audio, (str, Path, bytes, bytearray)):
        samples, rate = decode_audio(audio)
    else:
        samples = audio
    samples = np.asarray(samples)
    if samples.dtype.kind in "iu":
        samples = samples / np.iinfo(samples.dtype).max
    samples = samples.astype(np.float32)
    if samples.ndim == 2:  # channels-last (or channels-first when short side is first)
        samples = samples.mean(axis=1 if samples.shape[1] <= samples.shape[0] else 0)
    return resample(samples, rate, target_rate)


def decode_audio(source: str | Path | bytes | bytearray) -> tuple[Any, int]:
    """Decode a WAV file natively, other formats through ffmpeg (when installed).

    Args:
        source: A path (a regular file of at most `MAX_AUDIO_FILE_BYTES`) or the file's bytes.

    Raises:
        ToolExecutionError: No such file, a file too big, or audio that cannot be decoded.
    """
    from tools.agent_types import read_wav

    data = read_audio_file(Path(source)) if isinstance(source, (str, Path)) else bytes(source)
    if data[:4] == b"RIFF" and data[8:12] == b"WAVE":
        try:
            return read_wav(data)
        except Exception as error:  # wave raises several types for unsupported encodings
            logger.debug("stdlib wave could not decode: %s; trying ffmpeg", error)
    try:
        from transformers.pipelines.audio_utils import ffmpeg_read

        return ffmpeg_read(data, WHISPER_RATE), WHISPER_RATE
    except (ImportError, ValueError) as error:
        raise ToolExecutionError(
            "Could not decode this audio: only PCM WAV is read without ffmpeg; install "
            "ffmpeg or convert the file to WAV."
        ) from error


def read_audio_file(path: Path, limit: int = MAX_AUDIO_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; its size is checked before any
    byte is read, and at most `limit + 1` bytes are read should it grow meanwhile.

    Args:
        path: The audio file.
        limit: Most bytes accepted.

    Raises:
        ToolExecutionError: Not a regular file (missing, a folder, a device), or too big.
    """
    try:
        if not path.is_file():
            raise ToolExecutionError(f"There is no audio file at {str(path)!r}.")
        size = path.stat().st_size
        if size <= limit:
            with path.open("rb") as handle:
                data = handle.read(limit + 1)
                if len(data) > limit:  # it grew since
                    size = max(len(data), os.fstat(handle.fileno()).st_size)
    except OSError as error:
        raise ToolExecutionError(f"The audio file {str(path)!r} cannot be read: {error}") from None
    if size > limit:
        raise ToolExecutionError(
            f"The audio file {str(path)!r} is {_megabytes(size)}; the transcriber reads files "
            f"of at most {_megabytes(limit)}. Cut it into shorter parts (e.g. with ffmpeg)."
        )
    return data


def _megabytes(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB"


def resample(samples: Any, rate: int, target_rate: int) -> Any:
    """Resample by linear interpolation after a moving-average low-pass when downsampling.

    Args:
        samples: 1-D float samples.
        rate: Their sampling rate.
        target_rate: The rate wanted.
    """
    import numpy as np

    if rate == target_rate or samples.size == 0:
        return samples.astype(np.float32)
    if rate > target_rate:
        width = int(round(rate / target_rate))
        if width > 1:  # crude anti-aliasing: speech survives it, aliasing artefacts do not
            samples = np.convolve(samples, np.ones(width) / width, mode="same")
    duration = samples.size / rate
    count = max(1, int(round(duration * target_rate)))
    positions = np.linspace(0, samples.size - 1, count)
    return np.interp(positions, np.arange(samples.size), samples).astype(np.float32)
