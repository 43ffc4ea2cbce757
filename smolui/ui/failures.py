"""Handler failures as the page shows them: a readable toast, never a bare "Error".

Every page module wraps its non-streaming handlers with `safe`; the details go to the
server log (`smolui.render.errors.describe_failure`).
"""

import functools
from collections.abc import Callable
from typing import Any


def safe(handler: Callable) -> Callable:
    """Failures become a readable toast (details in the server log), never a bare "Error".

    Args:
        handler: A non-generator event handler.
    """
    import gradio as gr

    from smolui.render.errors import describe_failure

    @functools.wraps(handler)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        try:
            return handler(*args, **kwargs)
        except Exception as error:
            raise gr.Error(describe_failure(error)) from None

    return wrapped
