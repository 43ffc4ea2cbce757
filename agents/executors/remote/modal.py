"""`ModalExecutor`: a kernel gateway inside a Modal sandbox (a gVisor container in Modal's cloud).

Needs `pip install modal` and a Modal token (`MODAL_TOKEN_ID` and `MODAL_TOKEN_SECRET`,
or `modal token new`). The sandbox runs `jupyter kernelgateway` with this executor's
token and exposes its port through an encrypted Modal tunnel; from then on it works like
`executor_type="jupyter"` (tools stay on the host).
"""

from __future__ import annotations

import os
from typing import Any

from agents.errors import AgentConfigError
from agents.executors.remote.provisioned import (
    GATEWAY_PORT,
    ProvisionedExecutor,
    gateway_command,
    require_sdk,
)

TOKEN_ENVS = ("MODAL_TOKEN_ID", "MODAL_TOKEN_SECRET")
KERNEL_PACKAGES = (
    "jupyter_kernel_gateway>=3.0",
    "ipykernel>=6.29",
    "numpy",
    "pandas",
    "matplotlib",
    "pillow",
)


class ModalExecutor(ProvisionedExecutor):
    """Runs code in a kernel inside a Modal sandbox (`executor_type="modal"`).

    Args:
        app_name: The Modal app the sandboxes belong to (created when missing).
        packages: Python packages of the sandbox image.
        cpu: CPU cores for the sandbox.
        memory_mb: Its memory.
        sandbox_timeout_s: Longest life of a sandbox.
        **kwargs: `RemoteExecutor` arguments (timeout, import policy, upload folders...).
    """

    kind = "modal"

    def __init__(
        self,
        app_name: str = "smolui-kernels",
        *,
        packages: tuple[str, ...] = KERNEL_PACKAGES,
        cpu: float = 1.0,
        memory_mb: int = 2048,
        sandbox_timeout_s: int = 3600,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        self._sdk = require_sdk("modal", "modal", "modal")
        configured = os.path.exists(os.path.expanduser("~/.modal.toml"))
        if not configured and not all(os.environ.get(name) for name in TOKEN_ENVS):
            raise AgentConfigError(
                "executor_type='modal' needs a Modal token: set MODAL_TOKEN_ID and "
                "MODAL_TOKEN_SECRET, or run `modal token new`."
            )
        self.app_name = app_name
        self.packages = tuple(packages)
        self.cpu = cpu
        self.memory_mb = memory_mb
        self.sandbox_timeout_s = sandbox_timeout_s
        self.sandbox: Any = None

    def _provision(self) -> str:
        modal = self._sdk
        app = modal.App.lookup(self.app_name, create_if_missing=True)
        image = modal.Image.debian_slim(python_version="3.11").pip_install(*self.packages)
        self.sandbox = modal.Sandbox.create(
            *gateway_command(),
            app=app,
            image=image,
            secrets=[modal.Secret.from_dict({"KG_AUTH_TOKEN": self.token})],
            encrypted_ports=[GATEWAY_PORT],
            cpu=self.cpu,
            memory=self.memory_mb,
            timeout=self.sandbox_timeout_s,
        )
        return self.sandbox.tunnels()[GATEWAY_PORT].url

    def _release(self) -> None:
        sandbox, self.sandbox = self.sandbox, None
        self.url = ""
        if sandbox is not None:
            sandbox.terminate()

    def _where(self) -> dict[str, Any]:
        return {
            "where": self.url or "Modal (starts with the first step)",
            "level": "Modal sandbox (a gVisor container in Modal's cloud; it has internet)",
        }
