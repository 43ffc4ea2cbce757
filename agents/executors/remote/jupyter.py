"""`JupyterExecutor`: a kernel per agent on a Jupyter Kernel Gateway or Enterprise Gateway."""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import urlsplit

from agents.errors import AgentConfigError
from agents.executors.remote.base import RemoteExecutor
from agents.executors.remote.gateway import GatewayKernel

URL_ENV = "SMOLUI_EXECUTOR_URL"
TOKEN_ENV = "SMOLUI_EXECUTOR_TOKEN"


class JupyterExecutor(RemoteExecutor):
    """Runs code in a kernel started on a Jupyter gateway (`executor_type="jupyter"`).

    Confinement is the gateway's: a Kernel Gateway runs kernels as processes of its own
    machine (put it in a container or VM); Enterprise Gateway can run each one as a pod.

    Args:
        url: The gateway's base URL (default: `SMOLUI_EXECUTOR_URL`).
        token: Its auth token (default: `SMOLUI_EXECUTOR_TOKEN`).
        kernel_name: The kernelspec to start.
        kernel_env: Environment variables for the kernel (the gateway must allow them);
            never secrets.
        request_timeout: Seconds to wait for the gateway and for a kernel to be ready.
        **kwargs: `RemoteExecutor` arguments (timeout, import policy, upload folders...).
    """

    kind = "jupyter"
    url_from_env = True  # False for executors that start their own gateway

    def __init__(
        self,
        url: str | None = None,
        token: str | None = None,
        *,
        kernel_name: str = "python3",
        kernel_env: dict[str, str] | None = None,
        request_timeout: float = 60.0,
        **kwargs: Any,
    ):
        super().__init__(**kwargs)
        self.url = (url or (os.environ.get(URL_ENV) if self.url_from_env else "") or "").rstrip("/")
        self.token = token or (os.environ.get(TOKEN_ENV) if self.url_from_env else None) or None
        if self.url:
            _check_url(self.url)
        elif self.url_from_env:
            raise AgentConfigError(
                "executor_type='jupyter' needs the gateway's URL: executor_kwargs={'url': "
                f"'http://host:8888', 'token': ...}} or {URL_ENV} (and {TOKEN_ENV})."
            )
        self.kernel_name = kernel_name
        self.kernel_env = dict(kernel_env or {})
        self.request_timeout = request_timeout

    def _open_kernel(self) -> GatewayKernel:
        return GatewayKernel(
            self.url, self.token, self.kernel_name, self.request_timeout, self.kernel_env
        )

    def _where(self) -> dict[str, Any]:
        host = urlsplit(self.url).netloc or "?"
        return {
            "where": self.url,
            "level": f"remote Jupyter kernel on {host} (isolated by the gateway's machine, "
            "not by this app)",
        }


def _check_url(url: str) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise AgentConfigError(f"Not a Jupyter gateway URL: {url!r}; expected http(s)://host:port.")
