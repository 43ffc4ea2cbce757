"""What the host runs in a kernel to set it up: the bridge's modules, and variables."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agents.executors.values import encode_value


def prelude_code() -> str:
    """Code that loads the value codec (`values`) and `kernel_bridge` into the kernel as modules."""
    here = Path(__file__).resolve().parent
    codec = (here.parent / "values.py").read_text()
    bridge = (here / "kernel_bridge.py").read_text()
    return (
        "def __smolui_load(name, source):\n"
        "    import sys, types\n"
        "    module = types.ModuleType(name)\n"
        "    sys.modules[name] = module\n"
        "    exec(compile(source, name, 'exec'), module.__dict__)\n"
        "    return module\n"
        f"__smolui_load('_smolui_values', {codec!r})\n"
        f"__smolui__ = __smolui_load('_smolui_bridge', {bridge!r})\n"
        "del __smolui_load\n"
        "get_ipython().user_ns_hidden['__smolui__'] = __smolui__\n"
        "__smolui__.setup()"
    )


def vars_code(variables: dict[str, Any]) -> str:
    """Code that binds `variables` in the kernel (encoded here; pickle allowed host -> kernel).

    Args:
        variables: Name -> value.
    """
    payload = json.dumps(encode_value(variables, trusted=True))
    return f"__smolui__.set_vars({payload!r})"
