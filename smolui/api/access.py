"""Who calls the API: the user of a bearer key, a loopback caller, or nobody allowed."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any

from starlette.datastructures import Headers

from smolui.auth import Identity, SignIn
from smolui.auth.identity import client_address, forwarded_entries
from smolui.auth.keys import ApiKeys
from smolui.auth.proxy_peers import Proxies

# Headers a proxy adds: a request carrying one came through a proxy, not from this machine.
FORWARDING_HEADERS = ("forwarded", "x-forwarded-for", "x-forwarded-host", "x-real-ip")
LOCAL_OWNER = "api:local"  # owns the conversations of key-less loopback callers
KEY_NEEDED = (
    "An API key is needed: send 'Authorization: Bearer <key>' "
    "(python -m smolui.auth.keys add USER makes one)."
)
BAD_KEY = "This API key is not valid (unknown or revoked)."
LOOPBACK_ONLY = (
    "Without sign-in and without API keys, the API answers callers on this machine only; "
    "make a key with python -m smolui.auth.keys add USER."
)


@dataclass(frozen=True)
class Caller:
    """Who a call runs as.

    Args:
        identity: For the gate (sign-in, limits, the queue).
        owner: Who owns the conversations the call makes or continues.
    """

    identity: Identity
    owner: str


@dataclass(frozen=True)
class Refused:
    """Why a call may not run, and its HTTP status.

    Args:
        status: 401 (no or a bad key) or 403 (not on this machine).
        message: For the client.
    """

    status: int
    message: str


class ApiAccess:
    """Tells who a call comes from.

    Args:
        sign_in: The app's sign-in (a key user is signed in as `<mode>:<user>`, so they own
            the conversations they see in the page; with sign-in off, `api:<user>`).
        keys: The app's API keys (None: no key works, only loopback callers with sign-in off).
    """

    def __init__(self, sign_in: SignIn, keys: ApiKeys | None):
        self.sign_in, self.keys = sign_in, keys

    def caller(self, authorization: str | None, request: Any) -> Caller | Refused:
        """The caller of one request, or why it is refused.

        Args:
            authorization: The `Authorization` header.
            request: The Starlette request (its client address).
        """
        client = client_address(request, self.sign_in.proxies)
        token = _bearer(authorization)
        user = self.keys.user_for(token) if token and self.keys is not None else None
        if user is not None:
            provider = self.sign_in.mode if self.sign_in.required else "api"
            admin = user in self.sign_in.config.admins
            identity = Identity(provider=provider, name=user, admin=admin, client=client)
            return Caller(identity, identity.owner or LOCAL_OWNER)
        if self.sign_in.required or (self.keys is not None and self.keys.any_active()):
            return Refused(401, BAD_KEY if token else KEY_NEEDED)
        # No key exists and sign-in is off: any token (clients insist on sending one) is
        # ignored, and the address decides.
        proxied = self.sign_in.proxies
        if (
            not _loopback(client)
            or not _loopback_host(request)
            or not _came_through(request, proxied)
        ):
            return Refused(403, LOOPBACK_ONLY)
        return Caller(Identity(client=client), LOCAL_OWNER)


def _bearer(authorization: str | None) -> str | None:
    scheme, _, token = (authorization or "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def _loopback_host(request: Any) -> bool:
    """Whether the request names this machine as its host (or names none).

    A web page whose name was made to resolve to 127.0.0.1 (DNS rebinding) reaches a
    loopback server from the visitor's browser with its own name as Host: the key-less
    loopback door must not open for it.
    """
    headers = getattr(request, "headers", None) or {}  # a test double may carry none
    host = str(dict(headers).get("host") or "").strip().lower()
    if not host:
        return True
    name = host[1:].partition("]")[0] if host.startswith("[") else host.rpartition(":")[0] or host
    return name == "localhost" or _loopback(name)


def _came_through(request: Any, proxies: Proxies) -> bool:
    """Whether a loopback request's forwarding headers fit the proxies trusted: from a
    peer that is no trusted proxy, it carries none; from a trusted proxy, its
    `X-Forwarded-For` names a hop for each.

    Behind a proxy on this machine every request arrives from loopback. A proxy not
    declared (`SMOLUI_TRUST_PROXY`, `SMOLUI_PROXY_PEERS`) still tells of itself in most
    setups by a forwarding header; a declared one that added no entry (nginx adds none
    unless told to) says nothing of its client. Either way the key-less loopback door must
    stay shut.
    """
    headers = getattr(request, "headers", None)
    if not isinstance(headers, Headers):  # a test double, or no HTTP request
        return not proxies.active
    client = getattr(request, "client", None)
    peer = getattr(client, "host", None) if client is not None else None
    if not proxies.believes(peer, forwarded=False):
        return not any(name in headers for name in FORWARDING_HEADERS)
    return len(forwarded_entries(headers.getlist("x-forwarded-for"))) >= proxies.hops


def _loopback(address: str | None) -> bool:
    try:
        return address is not None and ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False
