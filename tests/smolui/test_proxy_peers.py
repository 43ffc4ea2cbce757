"""Proxy peers: `X-Forwarded-For` is believed only from the proxies named, so code beside the
proxy (a kernel on the replicas' network) cannot pass for a loopback caller or for many
visitors by writing the header itself."""

from __future__ import annotations

import logging
import socket
from pathlib import Path

import httpx
import pytest
import yaml
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from smolui.api.access import ApiAccess, Refused
from smolui.api.upload_gate import UPLOAD_PATH, UploadGate
from smolui.app.settings import Settings, settings_from_args
from smolui.auth import AuthConfig, SignIn
from smolui.auth.identity import client_address, scope_client
from smolui.auth.login_origin import SameOriginLogin
from smolui.auth.proxy_peers import LOOPBACK, REFRESH_S, Proxies, ProxyPeers, peers_problem
from smolui.observability.server import AppServer

COMPOSE = Path(__file__).resolve().parents[2] / "deploy" / "compose.yaml"
KERNEL = "10.86.86.10"  # a kernel container on the replicas' network, beside the balancer
BALANCER = "10.89.0.5"  # where the name `haproxy` resolves in these tests


def compose_peers() -> ProxyPeers:
    """`SMOLUI_PROXY_PEERS=haproxy`, with the name resolving as compose's DNS would."""
    return ProxyPeers(["haproxy"], lookup=lambda name: {BALANCER} if name == "haproxy" else set())


def test_addresses_and_networks_match_their_peers_only():
    peers = ProxyPeers(["10.0.0.2", "192.168.8.0/24"])
    assert peers.match("10.0.0.2") and peers.match("192.168.8.77")
    assert not peers.match("10.0.0.3") and not peers.match("192.168.9.1")
    assert not peers.match("testclient") and not peers.match(None)  # no address: no proxy


def test_ipv6_peers_and_ipv4_seen_on_an_ipv6_socket():
    peers = ProxyPeers(["fd00:1::/64", *LOOPBACK])
    assert peers.match("fd00:1::7") and not peers.match("fd00:2::7")
    assert peers.match("::1") and peers.match("127.0.0.1")
    assert peers.match("::ffff:127.0.0.1")  # a dual-stack socket's IPv4 peer
    assert not peers.match("::ffff:10.0.0.1")


def test_a_host_name_matches_the_addresses_it_resolves_to_here():
    # The real resolver: /etc/hosts names localhost on every machine.
    peers = ProxyPeers(["localhost"])
    assert peers.match("127.0.0.1")
    assert not peers.match(KERNEL)


def test_a_name_that_does_not_resolve_vouches_for_nobody(caplog):
    def nowhere(name: str) -> set[str]:  # the resolver's answer (tests may not ask DNS)
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    peers = ProxyPeers(["no-such-proxy.invalid"], lookup=nowhere)
    with caplog.at_level(logging.WARNING, logger="smolui.auth.proxy_peers"):
        assert not peers.match("127.0.0.1")
    assert "no-such-proxy.invalid" in caplog.text and "does not resolve" in caplog.text


def test_names_are_looked_up_again_when_the_proxy_starts_late_or_moves():
    now, answers, asked = [100.0], [OSError("not yet"), {"10.0.0.5"}, {"10.0.0.6"}], []

    def lookup(name: str) -> set[str]:
        asked.append(name)
        answer = answers[min(len(asked), len(answers)) - 1]
        if isinstance(answer, Exception):
            raise answer
        return answer

    peers = ProxyPeers(["haproxy"], lookup=lookup, clock=lambda: now[0])
    assert not peers.match("10.0.0.5")  # the proxy has not started: the name does not resolve
    assert not peers.match("10.0.0.5") and len(asked) == 1  # a stranger costs no look-up each
    now[0] += REFRESH_S
    assert peers.match("10.0.0.5") and len(asked) == 2
    assert peers.match("10.0.0.5") and len(asked) == 2  # a match needs no look-up
    now[0] += REFRESH_S
    assert peers.match("10.0.0.6")  # restarted on another address
    assert not peers.match("10.0.0.5")  # its old address vouches for nobody now


def test_bad_entries_are_refused_with_a_message():
    assert peers_problem(["haproxy", "10.0.0.0/8", "::1", "*", "smolui_haproxy_1"]) is None
    for bad in ("10.0.0.0/33", "10.0.0.300", "fe80::zz", "two words", "-dash"):
        problem = peers_problem([bad])
        assert problem and repr(bad) in problem and "--proxy-peers" in problem, bad
    with pytest.raises(ValueError, match="10.0.0.0/33"):
        ProxyPeers(["10.0.0.0/33"])


def test_the_setting_is_read_and_checked_at_start(capsys):
    assert Settings().proxy_peers == LOOPBACK
    environ = {"SMOLUI_TRUST_PROXY": "1", "SMOLUI_PROXY_PEERS": "haproxy, 10.0.0.0/24"}
    settings = settings_from_args([], environ)
    assert settings.proxy_peers == ("haproxy", "10.0.0.0/24")
    proxies = Proxies.from_settings(settings)
    assert proxies.hops == 1 and proxies.peers.names == ("haproxy",)
    assert not Proxies.from_settings(settings.with_changes(trust_proxy=False)).active
    with pytest.raises(SystemExit):
        settings_from_args(["--trust-proxy", "--proxy-peers", "10.0.0.0/33"], {})
    assert "10.0.0.0/33" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # named, yet nothing would be believed
        settings_from_args(["--proxy-peers", "haproxy"], {})
    assert "--trust-proxy" in capsys.readouterr().err


def test_the_header_of_a_peer_that_is_no_proxy_is_ignored():
    proxies = Proxies(hops=1, peers=compose_peers())
    spoofed = {"client": (KERNEL, 40000), "headers": [(b"x-forwarded-for", b"127.0.0.1")]}
    assert scope_client(spoofed, proxies) == KERNEL
    proxied = {"client": (BALANCER, 40000), "headers": [(b"x-forwarded-for", b"203.0.113.9")]}
    assert scope_client(proxied, proxies) == "203.0.113.9"
    # IPv6 peers, with the default peers (this machine).
    header = [(b"x-forwarded-for", b"2001:db8::9")]
    local = Proxies(hops=1)
    assert scope_client({"client": ("::1", 40000), "headers": header}, local) == "2001:db8::9"
    assert scope_client({"client": ("fd00::9", 40000), "headers": header}, local) == "fd00::9"


def door(proxies: Proxies) -> Starlette:
    """An app whose `/v1/models` asks the API's access rules, as the real route does:
    sign-in off and no key made, so only a loopback caller gets in."""
    access = ApiAccess(SignIn(AuthConfig(), proxies=proxies), None)

    async def models(request: Request) -> JSONResponse:
        caller = access.caller(request.headers.get("authorization"), request)
        if isinstance(caller, Refused):
            return JSONResponse({"detail": caller.message}, status_code=caller.status)
        return JSONResponse({"client": caller.identity.client})

    return Starlette(routes=[Route("/v1/models", models)])


def test_a_kernel_beside_the_balancer_does_not_pass_for_a_loopback_caller():
    app = door(Proxies(hops=1, peers=compose_peers()))
    spoof = {"X-Forwarded-For": "127.0.0.1", "Host": "localhost"}
    with TestClient(app, client=(KERNEL, 40000)) as kernel:
        refused = kernel.get("/v1/models", headers=spoof)
    assert refused.status_code == 403, "a kernel's own X-Forwarded-For opened the key-less door"
    # Through the balancer, the same header is believed: a caller on the balancer's machine.
    with TestClient(app, client=(BALANCER, 40000)) as balancer:
        passed = balancer.get("/v1/models", headers=spoof)
    assert passed.status_code == 200 and passed.json() == {"client": "127.0.0.1"}


def test_a_loopback_peer_that_is_no_proxy_may_not_forward_either():
    # The proxy is `haproxy`, not this machine: a local process writing the header is refused,
    # one that writes none is a local caller.
    app = door(Proxies(hops=1, peers=compose_peers()))
    with TestClient(app, client=("127.0.0.1", 40000)) as local:
        forged = local.get("/v1/models", headers={"X-Forwarded-For": "127.0.0.1"})
        plain = local.get("/v1/models", headers={"Host": "localhost"})
    assert forged.status_code == 403
    assert plain.status_code == 200 and plain.json() == {"client": "127.0.0.1"}


async def accept(scope: dict, receive, send) -> None:
    response = PlainTextResponse("ok")
    await response(scope, receive, send)


def test_per_address_limits_count_the_peer_whatever_it_writes():
    proxies = Proxies(hops=1, peers=compose_peers())
    gate = UploadGate(accept, max_files=1, max_file_bytes=1024, proxies=proxies,
                      messages_per_hour=1)  # fmt: skip
    files = {"files": ("a.txt", b"x", "text/plain")}

    def upload(client: TestClient, address: str) -> int:
        return client.post(UPLOAD_PATH, files=files,
                           headers={"X-Forwarded-For": address}).status_code  # fmt: skip

    kernel, balancer = (
        TestClient(gate, client=(KERNEL, 40000)),
        TestClient(gate, client=(BALANCER, 40000)),
    )
    assert upload(kernel, "198.51.100.1") == 200
    assert upload(kernel, "198.51.100.2") == 429  # a new header is not a new visitor
    assert upload(balancer, "198.51.100.1") == 200  # the balancer's visitors are apart
    assert upload(balancer, "198.51.100.2") == 200


def test_client_address_of_a_request_follows_the_same_rule():
    proxies = Proxies(hops=1, peers=compose_peers())

    async def who(request: Request) -> JSONResponse:
        return JSONResponse({"client": client_address(request, proxies)})

    app = Starlette(routes=[Route("/who", who)])
    header = {"X-Forwarded-For": "203.0.113.9"}
    with TestClient(app, client=(KERNEL, 40000)) as kernel:
        assert kernel.get("/who", headers=header).json() == {"client": KERNEL}
    with TestClient(app, client=(BALANCER, 40000)) as balancer:
        assert balancer.get("/who", headers=header).json() == {"client": "203.0.113.9"}


def test_a_login_s_forwarded_host_counts_from_a_proxy_only():
    guard = SameOriginLogin(accept, proxies=Proxies(hops=1, peers=compose_peers()))
    headers = {"Origin": "https://chat.example.org", "X-Forwarded-Host": "chat.example.org"}
    form = {"username": "alice", "password": "x"}
    kernel = TestClient(guard, client=(KERNEL, 40000))
    assert kernel.post("/login", data=form, headers=headers).status_code == 403
    balancer = TestClient(guard, client=(BALANCER, 40000))
    assert balancer.post("/login", data=form, headers=headers).status_code == 200


def test_an_ignored_header_is_reported_once_per_peer(caplog):
    proxies = Proxies(hops=1, peers=compose_peers())
    scope = {"client": (KERNEL, 40000), "headers": [(b"x-forwarded-for", b"127.0.0.1")]}
    with caplog.at_level(logging.WARNING, logger="smolui.auth.proxy_peers"):
        for _ in range(3):
            scope_client(scope, proxies)
    reports = [record for record in caplog.records if KERNEL in record.getMessage()]
    assert len(reports) == 1 and "SMOLUI_PROXY_PEERS" in reports[0].getMessage()


def test_the_compose_replicas_believe_the_balancer_alone():
    compose = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    services = compose["services"]
    for name in ("app1", "app2"):
        environment = services[name]["environment"]
        proxy = {key: str(value) for key, value in environment.items() if "PROX" in key}
        settings = settings_from_args([], proxy)
        peers = Proxies.from_settings(settings).peers
        assert peers.names and not peers.networks and not peers.any, peers
        # Each name is the service that publishes the port, never the code gateway.
        assert all("ports" in services[peer] for peer in peers.names), peers
        assert "kernels" not in peers.names


def test_the_served_app_sees_the_connection_s_own_address():
    # uvicorn would rewrite a loopback peer's address from X-Forwarded-For before the app
    # reads it; the app's server leaves that to `proxy_peers`, its one reader.
    haproxy_only = Proxies(hops=1, peers=compose_peers())
    on_this_machine = Proxies(hops=1)  # the default peers: a proxy on loopback

    async def who(request: Request) -> JSONResponse:
        return JSONResponse({"named": scope_client(request.scope, haproxy_only),
                             "local": scope_client(request.scope, on_this_machine)})  # fmt: skip

    listening = socket.create_server(("127.0.0.1", 0))
    port = listening.getsockname()[1]
    server = AppServer(Starlette(routes=[Route("/who", who)]), "127.0.0.1", port, listening)
    try:
        server.start()
        answer = httpx.get(f"{server.url}who", headers={"X-Forwarded-For": "203.0.113.9"})
    finally:
        server.close()
    assert answer.json() == {"named": "127.0.0.1", "local": "203.0.113.9"}
