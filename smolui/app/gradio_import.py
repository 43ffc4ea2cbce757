"""Build the app without importing the notebook and MCP integrations gradio does not need here.

When IPython or `mcp` is installed (this project installs them for the Jupyter executor and
for MCP tools), gradio imports them while the app starts: `mcp` at gradio's import, for its
optional MCP server; IPython at its import (its `%%blocks` notebook magic) and again each
time it builds a page's configuration (to ask whether it runs in Colab). `python app.py`
serves no MCP server and runs in no notebook, and the two imports cost 1-2 CPU seconds
(about 650 modules) before the chat can serve. gradio is written to work without them (it
catches their `ImportError` and carries on as outside a notebook, without MCP), so
`unused_integrations_hidden` hides them from imports while the app is built (Python's
documented `sys.modules[name] = None`) and shows them again once it serves: the Jupyter
executor, MCP tools and agent code still import them on their first use. gradio's served
configuration stays the same (it keeps the one it built).

Not hidden: a package already imported (e.g. inside a notebook), and `mcp` when
`GRADIO_MCP_SERVER` asks gradio for its MCP server.

No public switch does this (checked against gradio 6.31: `gradio.server` imports
`gradio.mcp`, `gradio/__init__` imports `gradio.ipython_ext`, `Blocks` calls
`utils.colab_check()`, and no parameter or environment variable skips them), so this module
is the one place that works around those imports.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

OPTIONAL = ("IPython", "mcp")  # imported by gradio only when installed


@contextmanager
def unused_integrations_hidden() -> Iterator[list[str]]:
    """Within the block, `import IPython` and `import mcp` fail (unless already imported).

    Meant for the app's start only: other threads of the process see the same.

    Yields:
        The names hidden.
    """
    hidden = [name for name in _unused() if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # `import name` fails
    try:
        yield hidden
    finally:
        for name in hidden:
            if name in sys.modules and sys.modules[name] is None:
                del sys.modules[name]


def _unused() -> list[str]:
    """The optional integrations gradio will not be asked for in this process."""
    wants_mcp = os.environ.get("GRADIO_MCP_SERVER", "False").lower() == "true"
    return [name for name in OPTIONAL if not (name == "mcp" and wants_mcp)]
