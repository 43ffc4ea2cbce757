"""Output types: text stays a str; images and audio become files the UI can show."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from tools.agent_types import (
    AgentAudio,
    AgentImage,
    AgentText,
    handle_agent_output_types,
    read_wav,
)


def test_agent_text_is_a_string() -> None:
    text = AgentText("hello")
    assert isinstance(text, str) and text == "hello" and text.upper() == "HELLO"
    assert text.to_raw() == "hello" and text.to_string() == "hello" and str(text) == "hello"


def test_agent_image_from_pil_writes_a_png_once() -> None:
    image = AgentImage(Image.new("RGB", (5, 3), "red"))
    path = image.to_string()
    assert path.endswith(".png") and image.path == path
    with Image.open(path) as reopened:
        assert reopened.size == (5, 3) and reopened.getpixel((0, 0)) == (255, 0, 0)
    assert image.to_raw().size == (5, 3)


def test_agent_image_from_path_and_bytes(tmp_path: Path) -> None:
    Image.new("L", (4, 4), 7).save(tmp_path / "a.png")
    from_path = AgentImage(str(tmp_path / "a.png"))
    assert from_path.to_string() == str(tmp_path / "a.png")
    assert from_path.to_raw().getpixel((1, 1)) == 7
    buffer = io.BytesIO()
    Image.new("L", (2, 2), 9).save(buffer, format="PNG")
    from_bytes = AgentImage(buffer.getvalue())
    assert from_bytes.to_raw().getpixel((0, 0)) == 9
    assert Path(from_bytes.to_string()).read_bytes() == buffer.getvalue()


def test_agent_image_refuses_other_values() -> None:
    with pytest.raises(TypeError, match="PIL image, a path or image bytes"):
        AgentImage(42)


def test_agent_audio_samples_to_wav_and_back() -> None:
    samples = np.sin(np.linspace(0, 100, 8000)).astype(np.float32) * 0.5
    audio = AgentAudio(samples, samplerate=8000)
    path = audio.to_string()
    decoded, rate = read_wav(path)
    assert rate == 8000 and decoded.shape == samples.shape
    assert np.allclose(decoded, samples, atol=1e-3)
    again = AgentAudio((8000, samples))
    assert again.samplerate == 8000 and np.allclose(again.to_raw(), samples)


def test_output_types_follow_the_declared_type() -> None:
    assert isinstance(handle_agent_output_types("x", "string"), AgentText)
    assert isinstance(handle_agent_output_types(Image.new("RGB", (1, 1))), AgentImage)
    assert isinstance(handle_agent_output_types(np.zeros(10), "audio"), AgentAudio)
    assert handle_agent_output_types(3, "integer") == 3
    assert handle_agent_output_types(42, "image") == 42  # does not fit: left as is
