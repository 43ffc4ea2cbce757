"""`ProvisionedExecutor`: a `JupyterExecutor` whose gateway it starts itself, and removes.

Docker, E2B and Modal differ only in how a machine running `jupyter kernelgateway` comes
to exist (`_provision`) and goes away (`_release`); from then on the code talks to the
gateway exactly as `JupyterExecutor` does. The gateway's token is made here, per executor.
"""

from __future__ import annotations

import importlib
import secrets
import time
from typing import Any

from agents.errors import AgentConfigError
from agents.executors.remote.gateway import GatewayError, GatewayKernel
from agents.executors.remote.jupyter import JupyterExecutor

GATEWAY_PORT = 8888


def gateway_command(port: int = GATEWAY_PORT) -> list[str]:
    """The command that serves kernels in the provisioned machine (token from `KG_AUTH_TOKEN`).

    Args:
        port: The port the gateway listens on.
    """
    return ["jupyter", "kernelgateway", "--ip=0.0.0.0", f"--port={port}", "--port_retries=0"]


def require_sdk(module: str, package: str, executor_type: str) -> Any:
    """Import an optional SDK, or say how to install it.

    Args:
        module: The module to import.
        package: Its name on PyPI.
        executor_type: The executor that needs it, for the message.
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        raise AgentConfigError(
            f"executor_type={executor_type!r} needs the {package!r} package: pip install {package}"
        ) from None


class ProvisionedExecutor(JupyterExecutor):
    """Starts a gateway on first use, keeps it for the executor's life, removes it on close.

    Args:
        startup_timeout: Seconds to wait for the provisioned gateway to answer.
        **kwargs: `JupyterExecutor` arguments other than url and token.
    """

    url_from_env = False

    def __init__(self, *, startup_timeout: float = 180.0, **kwargs: Any):
        super().__init__(url=None, token=None, **kwargs)
        self.token = secrets.token_urlsafe(24)
        self.startup_timeout = startup_timeout

    def _provision(self) -> str:
        """Start the machine with `gateway_command()` and `self.token`; return the gateway URL."""
        raise NotImplementedError

    def _open_kernel(self) -> GatewayKernel:
        if not self.url:
            try:
                url = self._provision().rstrip("/")
            except (AgentConfigError, GatewayError):
                raise
            except Exception as error:  # the SDK's own errors: say which backend failed
                raise GatewayError(
                    f"Could not start the {self.kind} kernel machine: {type(error).__name__}: "
                    f"{error}"
                ) from None
            wait_for_gateway(url, self.token, self.startup_timeout)
            self.url = url
        return super()._open_kernel()


def wait_for_gateway(url: str, token: str | None, seconds: float) -> None:
    """Poll `GET /api` until the gateway answers.

    Args:
        url: The gateway's base URL.
        token: Its token.
        seconds: How long to wait.

    Raises:
        GatewayError: It did not answer in time.
    """
    import requests

    headers = {"Authorization": f"token {token}"} if token else {}
    deadline = time.monotonic() + seconds
    last = "no answer"
    while time.monotonic() < deadline:
        try:
            response = requests.get(f"{url}/api", headers=headers, timeout=5)
            if response.status_code == 200:
                return
            last = f"HTTP {response.status_code}"
        except requests.RequestException as error:
            last = str(error)
        time.sleep(0.5)
    raise GatewayError(f"The Jupyter gateway at {url} did not start in {seconds:g} s ({last})")
