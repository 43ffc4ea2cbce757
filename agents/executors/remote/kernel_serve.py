"""The Jupyter Kernel Gateway on a unix socket instead of a TCP port.

Runs inside the kernel container, where `kernel.Dockerfile` copies it; the host never
imports it. The container has no network at all (not even an internal one), so the host
reaches the gateway through this socket, in a folder it bind-mounts (`DockerExecutor`).
The gateway is otherwise the stock one: same REST API, websocket and token.

    python serve.py /run/smolui/gateway.sock     # the token comes from KG_AUTH_TOKEN
"""

from __future__ import annotations

import os
import sys

from kernel_gateway.gatewayapp import KernelGatewayApp
from tornado import httpserver, netutil


class UnixSocketGateway(KernelGatewayApp):
    """A `KernelGatewayApp` that listens on `SOCKET_PATH` only."""

    socket_path = ""

    def init_http_server(self) -> None:
        self.http_server = httpserver.HTTPServer(self.web_app)
        # Any local user may connect to the socket: the folder holding it decides who can
        # (the host makes it private), and the gateway's token is still required.
        self.http_server.add_socket(netutil.bind_unix_socket(self.socket_path, mode=0o666))


def main(argv: list[str]) -> None:
    """Serve kernels on the socket named by `argv[1]`."""
    path = argv[1]
    if os.path.exists(path):
        os.unlink(path)  # left by a gateway that was killed
    UnixSocketGateway.socket_path = path
    UnixSocketGateway.launch_instance(argv=[])


if __name__ == "__main__":
    main(sys.argv)
