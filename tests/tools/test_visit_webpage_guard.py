"""visit_webpage as code talked into attacking the host would use it.

It must not reach this machine or its network (the app's own /metrics, a database, a cloud
metadata service) unless the operator allows private hosts; the check holds for every
address form, every redirect and the address actually connected to; and a page built to be
expensive to convert costs bounded memory and ends with a clear note.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
import tracemalloc
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote

import pytest

from tools.base import ToolExecutionError
from tools.visit_webpage import VisitWebpageTool
from tools.web_guard import is_public_address

# A page of 4.8 MB, under the download cap: 40,000 nested elements, then a huge table.
_NESTED = 40_000
_CELLS = b"<tr><td>x</td><td>y</td></tr>" * 150_000
PATHOLOGICAL = b"<html><body>" + b"<div>" * _NESTED + b"<table>" + _CELLS + b"</table></body>"
SEEN_HOSTS: list[str] = []
_RESOLVE = socket.getaddrinfo  # the real resolver (tests guard it): local names only


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:  # keep test output quiet
        pass

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        SEEN_HOSTS.append(self.headers.get("Host", ""))
        if self.path.startswith("/to/"):  # /to/<url>: a redirect to any address
            self.send_response(302)
            self.send_header("Location", unquote(self.path[len("/to/") :]))
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = PATHOLOGICAL if self.path == "/pathological" else b"<h1>Internal metrics</h1>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.parametrize(
    "host", ["127.0.0.1", "localhost", "[::1]", "[::ffff:127.0.0.1]", "127.1", "2130706433"]
)
def test_this_machine_is_refused_by_default(
    port: int, host: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(socket, "getaddrinfo", _RESOLVE)  # 127.1 is a name to the test guard
    with pytest.raises(ToolExecutionError, match="not allowed"):
        VisitWebpageTool()(url=f"http://{host}:{port}/metrics")


def test_private_hosts_are_reachable_when_the_operator_allows_them(port: int) -> None:
    assert "# Internal metrics" in VisitWebpageTool(allow_private=True)(
        url=f"http://127.0.0.1:{port}/metrics"
    )


def test_the_environment_can_allow_private_hosts(
    port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SMOLUI_VISIT_PRIVATE_HOSTS", "1")
    assert "# Internal metrics" in VisitWebpageTool()(url=f"http://127.0.0.1:{port}/metrics")


@pytest.mark.parametrize(
    "url",
    [
        "http://[::ffff:169.254.169.254]/latest/meta-data",  # IPv4-mapped metadata service
        "http://[::ffff:a9fe:a9fe]/",
        "http://169.254.169.254/",
        "http://[fe80::1]/",
        "http://0.0.0.0/",
        "http://[::]/",
        "http://224.0.0.1/",
    ],
)
def test_metadata_and_link_local_stay_refused_even_when_private_is_allowed(url: str) -> None:
    with pytest.raises(ToolExecutionError, match="not allowed"):
        VisitWebpageTool(allow_private=True)(url=url)


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "100.64.0.1", "169.254.169.254",
        "0.0.0.0", "224.0.0.1", "239.255.255.250", "240.0.0.1", "255.255.255.255",
        "192.0.2.1", "198.18.0.1",
        "::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "ff02::1", "fec0::1",
        "::ffff:127.0.0.1", "::ffff:169.254.169.254", "::ffff:10.0.0.1",
        "::127.0.0.1",  # IPv4-compatible
        "2002:7f00:1::1", "2002:a9fe:a9fe::1",  # 6to4 of loopback, of the metadata service
        "2001:0:4136:e378:8000:63bf:80ff:fffe",  # Teredo whose client is 127.0.0.1
        "64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe", "64:ff9b:1::a00:1",  # NAT64 prefixes
        "2001:db8::1", "100::1",
    ],
)  # fmt: skip
def test_every_non_global_form_is_non_public(address: str) -> None:
    assert not is_public_address(ipaddress.ip_address(address))


@pytest.mark.parametrize(
    "address", ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"]
)
def test_global_addresses_are_public(address: str) -> None:
    assert is_public_address(ipaddress.ip_address(address))


def test_every_redirect_hop_is_checked(port: int) -> None:
    target = "http://[::ffff:169.254.169.254]/latest/meta-data"
    with pytest.raises(ToolExecutionError, match="not allowed"):
        VisitWebpageTool(allow_private=True)(url=f"http://127.0.0.1:{port}/to/{target}")


def test_the_connection_goes_to_the_address_that_was_checked(
    port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # DNS rebinding: the name resolves to an allowed address when checked, then to the
    # metadata service. Connecting by name again would reach the second one (the test
    # guard against remote calls would then fail the test).
    answers = iter(["127.0.0.1"] + ["169.254.169.254"] * 10)
    real = socket.getaddrinfo

    def rebinding(host, *args, **kwargs):
        if host == "rebind.test":
            return real(next(answers), *args, **kwargs)
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    SEEN_HOSTS.clear()
    text = VisitWebpageTool(allow_private=True)(url=f"http://rebind.test:{port}/metrics")
    assert "# Internal metrics" in text
    assert [f"rebind.test:{port}"] == SEEN_HOSTS  # the site still sees its own name


def test_a_pathological_page_is_converted_within_bounds(port: int) -> None:
    tool = VisitWebpageTool(allow_private=True)
    tracemalloc.start()
    try:
        text = tool(url=f"http://127.0.0.1:{port}/pathological")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "x" in text and "y" in text  # some of the page's text is still there
    assert "[The page" in text  # a note says what was cut or simplified, and why
    # The download (4.8 MB) and its text are held; the conversion's tree is not.
    assert peak < 60_000_000, f"the conversion allocated {peak / 1e6:.0f} MB in the app"
