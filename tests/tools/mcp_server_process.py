"""The MCP test server (`mcp_test_server.py`) run as a real process on a free loopback port."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.waiting import wait_for

SERVER = str(Path(__file__).with_name("mcp_test_server.py"))


def free_port() -> int:
    """A loopback port nobody listens on (now)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _listens(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


@contextmanager
def http_mcp_server() -> Iterator[str]:
    """The server over streamable HTTP; yields its URL and stops it afterwards."""
    port = free_port()
    process = subprocess.Popen([sys.executable, SERVER, "http", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        wait_for(lambda: _listens(port), f"the MCP test server listens on port {port}")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)
