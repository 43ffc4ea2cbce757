"""Who is asking: the signed-in user (the owner of their conversations) or an anonymous browser.

A signed-in user's conversations belong to an owner id made from how they signed in and their
name (`password:alice`, `hf:alice`), so they find them from any browser. An anonymous visitor's
conversations belong to the random key their browser keeps. The browser cannot claim a
signed-in owner: only `SignedInState`, built on the server from the request, carries one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from starlette.datastructures import Headers

from smolui.auth.proxy_peers import NO_PROXIES, Proxies

ANONYMOUS = "anonymous"
MAX_ADDRESS_CHARS = 64  # an IPv6 address with a zone fits; a longer entry is not an address


@dataclass(frozen=True)
class Identity:
    """The visitor behind one request.

    Args:
        provider: "anonymous", "password" or "hf".
        name: The user name (None when anonymous).
        admin: May see everyone's usage.
        client: The client's IP address, when known.
    """

    provider: str = ANONYMOUS
    name: str | None = None
    admin: bool = False
    client: str | None = None

    @property
    def signed_in(self) -> bool:
        """True for a signed-in user."""
        return self.provider != ANONYMOUS and bool(self.name)

    @property
    def owner(self) -> str | None:
        """The owner id of the user's conversations (None when anonymous: the browser's key)."""
        return f"{self.provider}:{self.name}" if self.signed_in else None


class SignedInState(dict):
    """The browser state with the signed-in user's owner id, made on the server.

    Gradio builds component values from JSON, so a value the browser sends is never of this
    type: an owner id that is not a random key is only believed from here.
    """


def with_identity(state: Any, identity: Identity) -> Any:
    """The browser state the conversation handlers should see for this visitor.

    Args:
        state: The `gr.BrowserState` value (`{"owner", "current"}`).
        identity: Who is asking.

    Returns:
        A `SignedInState` naming the signed-in owner, or `state` unchanged when anonymous.
    """
    if identity.owner is None:
        return state
    current = state.get("current") if isinstance(state, dict) else None
    return SignedInState(owner=identity.owner, current=current)


def signed_in_owner(state: Any) -> str | None:
    """The owner id in a `SignedInState`, or None for anything the browser sent.

    Args:
        state: A browser state value.
    """
    if isinstance(state, SignedInState):
        owner = state.get("owner")
        return owner if isinstance(owner, str) and owner else None
    return None


def client_address(request: Any, proxies: Proxies = NO_PROXIES) -> str | None:
    """The client's IP address.

    Args:
        request: A `gr.Request` or a Starlette request (or None).
        proxies: The proxies in front (`smolui.auth.proxy_peers`): their `X-Forwarded-For`
            is read only when the connection comes from one of their peers; then the client
            is the entry `proxies.hops` places from the right (entries further left were
            written by the client itself and prove nothing). From any other peer, or with no
            proxies, the connection's own address.
    """
    if request is None:
        return None
    client = getattr(request, "client", None)  # gr.Request: none outside HTTP
    host = getattr(client, "host", None) if client is not None else None  # starlette Address
    peer = str(host) if host else None
    headers = getattr(request, "headers", None) or {}  # gr.Request: none outside HTTP
    if isinstance(headers, Headers):
        values = headers.getlist("x-forwarded-for")
    else:  # a plain mapping (a test double)
        values = [str(headers.get("x-forwarded-for") or "")]
    return forwarded_client(values, peer, proxies)


def scope_client(scope: dict, proxies: Proxies = NO_PROXIES) -> str:
    """The client's address of a raw ASGI request (middleware sees no `Request`): as
    `client_address`, "unknown" when the server names no peer.

    Args:
        scope: The ASGI scope.
        proxies: The proxies in front.
    """
    client = scope.get("client")
    peer = str(client[0]) if client else None
    values = [
        value.decode("latin-1")
        for key, value in scope.get("headers", [])
        if key == b"x-forwarded-for"
    ]
    return forwarded_client(values, peer, proxies) or "unknown"


def forwarded_client(values: list[str], peer: str | None, proxies: Proxies) -> str | None:
    """The client address: the one the proxies recorded in `X-Forwarded-For` when `peer` is
    one of them, else the peer itself.

    Args:
        values: The header's values, in the order received (several headers are one list).
        peer: The address of the connection (the nearest proxy, when it is one).
        proxies: The proxies in front.

    Returns:
        The entry `proxies.hops` places from the right; the peer when the peer is no proxy
        or the list is shorter (then the header did not come through that many proxies).
    """
    entries = forwarded_entries(values)
    if not proxies.believes(peer, forwarded=bool(entries)) or len(entries) < proxies.hops:
        return peer
    return entries[-proxies.hops][:MAX_ADDRESS_CHARS]


def forwarded_entries(values: list[str]) -> list[str]:
    """The addresses in `X-Forwarded-For` values, left (the client's own writing) to right.

    Args:
        values: The header's values, in the order received.
    """
    return [entry.strip() for value in values for entry in value.split(",") if entry.strip()]
