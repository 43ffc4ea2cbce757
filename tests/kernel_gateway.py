"""A real Jupyter Kernel Gateway for tests and benchmarks, on a free loopback port with a token."""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path


def gateway_available() -> bool:
    """Whether `jupyter_kernel_gateway` and `ipykernel` are installed."""
    import importlib.util

    return all(importlib.util.find_spec(m) for m in ("kernel_gateway", "ipykernel"))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class KernelGateway:
    """`jupyter kernelgateway` in a child process; kernels start in a private folder.

    Args:
        startup_timeout: Seconds to wait for the gateway to answer.
        port: The port to listen on (default: a free one).
        token: The auth token (default: a random one).
        extra_args: More command-line options for the gateway (its traitlets config).
    """

    def __init__(
        self,
        startup_timeout: float = 60.0,
        port: int | None = None,
        token: str | None = None,
        extra_args: tuple[str, ...] = (),
    ) -> None:
        self.extra_args = list(extra_args)
        self.port = port or _free_port()
        self.token = token or secrets.token_urlsafe(16)
        self.url = f"http://127.0.0.1:{self.port}"
        self.folder = Path(tempfile.mkdtemp(prefix="smolui-kg-"))
        self.startup_timeout = startup_timeout
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> KernelGateway:
        command = [
            sys.executable, "-m", "kernel_gateway", "--ip=127.0.0.1", f"--port={self.port}",
            "--port_retries=0", f"--KernelGatewayApp.auth_token={self.token}",
            "--JupyterWebsocketPersonality.list_kernels=True", *self.extra_args,
        ]  # fmt: skip
        env = {k: v for k, v in os.environ.items() if not k.endswith("_TOKEN")}
        env["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
        self._log = open(self.folder / "gateway.log", "wb")  # noqa: SIM115
        self._process = subprocess.Popen(
            command, cwd=self.folder, env=env, stdout=self._log, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"the gateway exited: {self.log_tail()}")
            if self._answers():
                return self
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"the gateway did not start in {self.startup_timeout:g} s")

    @property
    def pid(self) -> int | None:
        """The gateway's process id while it runs."""
        return self._process.pid if self._process is not None else None

    def _answers(self) -> bool:
        request = urllib.request.Request(
            f"{self.url}/api", headers={"Authorization": f"token {self.token}"}
        )
        try:
            with urllib.request.urlopen(request, timeout=2) as response:
                return response.status == 200
        except (urllib.error.URLError, OSError):
            return False

    def kernel_count(self) -> int:
        """How many kernels the gateway runs now."""
        import json

        request = urllib.request.Request(
            f"{self.url}/api/kernels", headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(request, timeout=5) as response:
            return len(json.load(response))

    def log_tail(self, chars: int = 3000) -> str:
        path = self.folder / "gateway.log"
        return path.read_text(errors="replace")[-chars:] if path.exists() else ""

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
        if getattr(self, "_log", None) is not None:
            self._log.close()
        shutil.rmtree(self.folder, ignore_errors=True)
