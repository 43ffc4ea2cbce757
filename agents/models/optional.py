"""Import an optional dependency, or say how to install it."""

from __future__ import annotations

import importlib
from types import ModuleType

from agents.errors import AgentConfigError


def optional_import(module: str, package: str, backend: str) -> ModuleType:
    """Import `module`, raising a friendly `AgentConfigError` when it is missing.

    Args:
        module: The module to import, e.g. "llama_cpp".
        package: The pip requirement that provides it, e.g. "llama-cpp-python".
        backend: Who needs it, for the message, e.g. "LlamaCppModel".
    """
    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise AgentConfigError(
            f"{backend} needs the '{package}' package, which is not installed "
            f"({err}). Install it with: pip install '{package}'"
        ) from err
