"""Remote code executors: Jupyter kernels behind a gateway, Docker, E2B and Modal.

All of them run the code in a Jupyter kernel and keep tools on the host (see `base`,
`host_calls`); `kernel_link` holds the kernel, `gateway` and `wire` talk to it.
Nothing heavy is imported here: each backend imports its SDK when it is built.
"""

from __future__ import annotations

import importlib
from typing import Any

from agents.executors.remote.base import RemoteExecutor
from agents.executors.remote.jupyter import JupyterExecutor

_CLASSES = {
    "jupyter": ("agents.executors.remote.jupyter", "JupyterExecutor"),
    "docker": ("agents.executors.remote.docker", "DockerExecutor"),
    "e2b": ("agents.executors.remote.e2b", "E2BExecutor"),
    "modal": ("agents.executors.remote.modal", "ModalExecutor"),
}


def remote_executor_class(executor_type: str) -> Any:
    """The class for a remote `executor_type` ("jupyter", "docker", "e2b" or "modal").

    Args:
        executor_type: The name given to `CodeAgent(executor_type=...)`.
    """
    module, name = _CLASSES[executor_type]
    return getattr(importlib.import_module(module), name)  # lazy: optional clients


__all__ = ["JupyterExecutor", "RemoteExecutor", "remote_executor_class"]
