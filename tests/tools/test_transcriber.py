"""transcriber: audio decoding and resampling on real WAV files; a clear error with no weights."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tools.agent_types import AgentAudio, write_wav
from tools.base import ToolExecutionError
from tools.transcriber import SpeechToTextTool, load_audio, read_audio_file


def _sine(freq: float, rate: int, seconds: float = 1.0) -> np.ndarray:
    t = np.arange(int(rate * seconds)) / rate
    return (0.5 * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def _dominant_frequency(samples: np.ndarray, rate: int) -> float:
    spectrum = np.abs(np.fft.rfft(samples))
    return float(np.fft.rfftfreq(samples.size, 1 / rate)[np.argmax(spectrum)])


def test_stereo_44k_wav_becomes_16k_mono(tmp_path: Path) -> None:
    left = _sine(440, 44_100)
    write_wav(tmp_path / "a.wav", np.stack([left, left], axis=1), 44_100)
    samples = load_audio(str(tmp_path / "a.wav"))
    assert samples.ndim == 1 and samples.dtype == np.float32
    assert abs(samples.size - 16_000) <= 1
    assert abs(_dominant_frequency(samples, 16_000) - 440) < 5


def test_bytes_agent_audio_and_int16_arrays(tmp_path: Path) -> None:
    write_wav(tmp_path / "b.wav", _sine(300, 8_000), 8_000)
    from_bytes = load_audio((tmp_path / "b.wav").read_bytes())
    assert abs(from_bytes.size - 16_000) <= 1
    assert abs(_dominant_frequency(from_bytes, 16_000) - 300) < 5
    from_agent_audio = load_audio(AgentAudio(_sine(300, 8_000), samplerate=8_000))
    assert np.allclose(from_agent_audio, from_bytes, atol=1e-3)
    pcm = (_sine(500, 16_000) * 32767).astype(np.int16)
    assert np.max(np.abs(load_audio(pcm))) <= 1.0
    assert abs(_dominant_frequency(load_audio((16_000, pcm)), 16_000) - 500) < 5


def test_unreadable_audio_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ToolExecutionError, match="no audio file"):
        SpeechToTextTool()(audio=str(tmp_path / "missing.wav"))
    (tmp_path / "noise.mp3").write_bytes(b"ID3" + b"\x00" * 100)
    with pytest.raises(ToolExecutionError, match="decode|ffmpeg"):
        load_audio(str(tmp_path / "noise.mp3"))


def test_empty_audio_is_refused_before_loading_a_model() -> None:
    tool = SpeechToTextTool()
    with pytest.raises(ToolExecutionError, match="empty"):
        tool(audio=np.zeros(0, dtype=np.float32))
    assert tool.pipeline is None


@pytest.mark.slow
def test_missing_weights_offline_says_how_to_provide_them(tmp_path: Path) -> None:
    tool = SpeechToTextTool(model="openai/whisper-tiny")
    with pytest.raises(ToolExecutionError) as caught:
        tool(audio=_sine(440, 16_000))
    message = str(caught.value)
    assert "openai/whisper-tiny" in message
    assert "download" in message and "local folder" in message


def test_a_file_over_the_size_limit_is_refused_before_a_byte_is_read(tmp_path: Path) -> None:
    import tracemalloc

    huge = tmp_path / "huge.wav"
    with huge.open("wb") as handle:
        handle.truncate(300_000_000)  # sparse: no disk used, but 300 MB if read
    tool = SpeechToTextTool()
    tracemalloc.start()
    try:
        with pytest.raises(ToolExecutionError, match=r"is 300\.0 MB.*at most 200\.0 MB"):
            tool(audio=str(huge))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000 and tool.pipeline is None
    with pytest.raises(ToolExecutionError, match="no audio file"):
        load_audio("/dev/zero")  # not a regular file: endless if read
    with pytest.raises(ToolExecutionError, match="no audio file"):
        load_audio(tmp_path)


def test_the_limit_is_exact_and_paths_and_bytes_still_work(tmp_path: Path) -> None:
    write_wav(tmp_path / "c.wav", _sine(300, 16_000), 16_000)
    data = (tmp_path / "c.wav").read_bytes()
    assert read_audio_file(tmp_path / "c.wav", limit=len(data)) == data
    with pytest.raises(ToolExecutionError, match="at most"):
        read_audio_file(tmp_path / "c.wav", limit=len(data) - 1)
    from_path = load_audio(tmp_path / "c.wav")
    assert np.array_equal(from_path, load_audio(str(tmp_path / "c.wav")))
    assert np.array_equal(from_path, load_audio(bytearray(data)))
