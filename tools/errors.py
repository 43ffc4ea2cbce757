"""The errors of tools, named after who must act: the developer who defined a tool, the model
that called it wrongly, or nobody (the tool could not do what it was asked).

`tools.base` re-exports them, where they have always been imported from.
"""

from __future__ import annotations


class ToolDefinitionError(ValueError):
    """A tool is defined wrongly (a developer mistake, raised at definition)."""


class ToolArgumentError(ValueError):
    """A tool was called with wrong arguments (a model mistake, shown to the model)."""


class ToolExecutionError(RuntimeError):
    """A tool could not do what it was asked (bad URL, missing file, offline...).

    The message is written for the model: it says what happened and what to try instead.
    """
