"""Who is asking: the signed-in user (the owner of their conversations) or an anonymous browser.

A signed-in user's conversations belong to an owner id made from how they signed in and their
name (`password:alice`, `hf:alice`), so they find them from any browser. An anonymous visitor's
conversations belong to the random key their browser keeps. The browser cannot claim a
signed-in owner: only `SignedInState`, built on the server from the request, carries one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ANONYMOUS = "anonymous"


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


def client_address(request: Any, trust_forwarded: bool = False) -> str | None:
    """The client's IP address.

    Args:
        request: A `gr.Request` (or None).
        trust_forwarded: Believe the first `X-Forwarded-For` address (set it only behind a
            proxy that writes that header, such as a Hugging Face Space's).
    """
    if request is None:
        return None
    if trust_forwarded:
        headers = getattr(request, "headers", None) or {}  # gr.Request: none outside HTTP
        forwarded = str(dict(headers).get("x-forwarded-for") or "").split(",")[0].strip()
        if forwarded:
            return forwarded
    client = getattr(request, "client", None)  # gr.Request: none outside HTTP
    host = getattr(client, "host", None) if client is not None else None  # starlette Address
    return str(host) if host else None
