"""Shared test setup: a guard against real remote calls, and the --fast flag."""

from __future__ import annotations

import ipaddress
import os
import socket

import pytest

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
_real_getaddrinfo = socket.getaddrinfo


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--fast", action="store_true", help="skip tests marked slow or e2e")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    skip_network = pytest.mark.skip(reason="needs the internet; set SMOLUI_NETWORK_TESTS=1")
    skip_slow = pytest.mark.skip(reason="--fast skips slow and e2e tests")
    for item in items:
        if "network" in item.keywords and os.environ.get("SMOLUI_NETWORK_TESTS") != "1":
            item.add_marker(skip_network)
        if config.getoption("--fast") and ("slow" in item.keywords or "e2e" in item.keywords):
            item.add_marker(skip_slow)


class RemoteCallBlocked(RuntimeError):
    """A test tried to reach a host that is not this machine."""


def _is_local(address: object) -> bool:
    if isinstance(address, (str, bytes)):  # AF_UNIX path
        return True
    if not isinstance(address, tuple) or not address:
        return True
    host = address[0]
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _guarded_connect(self: socket.socket, address: object) -> None:
    if not _is_local(address):
        raise RemoteCallBlocked(f"test tried to reach a remote host: {address!r}")
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: object) -> int:
    if not _is_local(address):
        raise RemoteCallBlocked(f"test tried to reach a remote host: {address!r}")
    return _real_connect_ex(self, address)


def _guarded_getaddrinfo(host, *args, **kwargs):
    if host not in (None, "localhost") and not _is_local((host,)):
        try:
            ipaddress.ip_address(host)
        except ValueError:
            raise RemoteCallBlocked(f"test tried to resolve a remote host: {host!r}") from None
        raise RemoteCallBlocked(f"test tried to reach a remote host: {host!r}")
    return _real_getaddrinfo(host, *args, **kwargs)


@pytest.fixture(autouse=True)
def no_remote_calls(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    """Fail any test that reaches a real remote API (tests marked `network` excepted)."""
    if "network" in request.keywords:
        yield
        return
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", _guarded_connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", _guarded_getaddrinfo)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    yield


@pytest.fixture(scope="session")
def postgres_server():
    """A real PostgreSQL server on loopback for the whole session (Debian's `postgresql`)."""
    from tests.postgres import PostgresServer, postgres_bin

    if postgres_bin() is None:
        pytest.skip("PostgreSQL is not installed: bash scripts/install.sh --tests")
    server = PostgresServer().start()
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path) -> str:
    """A fresh conversation database: a SQLite file, or a new database on the real PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.db'}"
    return request.getfixturevalue("postgres_server").create_database()


@pytest.fixture(scope="session")
def kernel_gateway():
    """A real Jupyter Kernel Gateway on loopback, with a token, for the whole session."""
    from tests.kernel_gateway import KernelGateway, gateway_available

    if not gateway_available():
        pytest.skip("jupyter_kernel_gateway is not installed: pip install -r requirements.txt")
    server = KernelGateway().start()
    yield server
    server.stop()
