"""Code executors: the seam (`CodeExecutor`), the sandbox (default) and the in-process one.

May import: agents.errors, agents.observability, tools.base, tools.tool_source.
"""

from __future__ import annotations

from typing import Any

from agents.errors import AgentConfigError
from agents.executors.base import CodeExecutor, CodeOutput

REMOTE_EXECUTOR_TYPES = ("jupyter", "docker", "e2b", "modal")
EXECUTOR_TYPES = ("sandbox", "local", *REMOTE_EXECUTOR_TYPES)


def create_executor(
    executor_type: str,
    additional_authorized_imports: list[str] | None = None,
    max_print_outputs_length: int | None = None,
    **executor_kwargs: Any,
) -> CodeExecutor:
    """Build an executor by name: "sandbox" (confined worker process), "local" (in-process),
    or a remote Jupyter kernel: "jupyter" (a gateway's URL), "docker", "e2b", "modal".

    Args:
        executor_type: Which executor to build.
        additional_authorized_imports: Modules the code may import besides the base list.
        max_print_outputs_length: Cap on captured print output per execution.
        **executor_kwargs: Passed to the executor (timeouts, limits, readable paths...).
    """
    if executor_type == "sandbox":
        from agents.executors.sandbox import SandboxExecutor

        cls: Any = SandboxExecutor
    elif executor_type == "local":
        from agents.executors.local import LocalPythonExecutor

        cls = LocalPythonExecutor
    elif executor_type in REMOTE_EXECUTOR_TYPES:
        from agents.executors.remote import remote_executor_class

        cls = remote_executor_class(executor_type)
    else:
        raise AgentConfigError(
            f"Unknown executor_type {executor_type!r}; use one of {', '.join(EXECUTOR_TYPES)}."
        )
    return cls(
        additional_authorized_imports=additional_authorized_imports,
        max_print_outputs_length=max_print_outputs_length,
        **executor_kwargs,
    )


__all__ = ["CodeExecutor", "CodeOutput", "EXECUTOR_TYPES", "create_executor"]
