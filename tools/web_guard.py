"""Which network addresses a host-side web tool may connect to.

Tools such as `visit_webpage` run on the host, at the request of code a model wrote; a
page can ask for any address. By default only globally routable addresses are reached:
never this machine (the app's own endpoints), its private networks (a database, a
gateway) or a link-local metadata service, whatever form the address is written in.
The decision is made on the resolved addresses, and the caller connects to the address
that was checked, so a name that resolves differently a moment later changes nothing.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from dataclasses import dataclass

from tools.base import ToolExecutionError

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

PRIVATE_HOSTS_ENV = "SMOLUI_VISIT_PRIVATE_HOSTS"
"""Set to 1 to let web tools reach private and loopback hosts (an operator's choice)."""

# IPv6 prefixes that carry an IPv4 address in their last 32 bits.
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")  # local-use: never global
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
_CGNAT = ipaddress.ip_network("100.64.0.0/10")


def private_hosts_allowed(allow_private: bool | None) -> bool:
    """The tool's setting: `allow_private` when given, else the environment's.

    Args:
        allow_private: True or False from the constructor; None: read PRIVATE_HOSTS_ENV.
    """
    if allow_private is not None:
        return allow_private
    return os.environ.get(PRIVATE_HOSTS_ENV, "").strip().lower() in ("1", "true", "yes")


def is_public_address(address: Address) -> bool:
    """Whether `address` is globally routable, judged through any IPv4 it embeds.

    Args:
        address: An IPv4 or IPv6 address.
    """
    if isinstance(address, ipaddress.IPv4Address):
        return _is_public_ipv4(address)
    if address in _NAT64_LOCAL:
        return False
    embedded = _embedded_ipv4(address)
    if embedded:  # mapped, compatible, NAT64, 6to4, Teredo: what it reaches is the IPv4
        return all(_is_public_ipv4(v4) for v4 in embedded)
    return address.is_global and not (address.is_multicast or address.is_site_local)


def is_never_allowed(address: Address) -> bool:
    """Addresses refused even when private hosts are allowed: link-local (cloud metadata
    services live there), multicast and unspecified, in any form.

    Args:
        address: An IPv4 or IPv6 address.
    """
    forms = [address, *_embedded_ipv4(address)] if address.version == 6 else [address]
    return any(a.is_link_local or a.is_multicast or a.is_unspecified for a in forms)


def _is_public_ipv4(address: ipaddress.IPv4Address) -> bool:
    # is_global of Python 3.11 counts multicast as global; CGNAT is checked for clarity.
    return address.is_global and not (address.is_multicast or address in _CGNAT)


def _embedded_ipv4(address: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    if address.ipv4_mapped is not None:
        return [address.ipv4_mapped]
    if address.teredo is not None:
        return list(address.teredo)  # (server, client)
    if address.sixtofour is not None:
        return [address.sixtofour]
    low = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address in _NAT64:
        return [low]
    if address in _IPV4_COMPATIBLE and int(address) > 1:  # not :: and ::1
        return [low]
    return []


@dataclass(frozen=True)
class Target:
    """A checked place to connect: the name the URL gave and the addresses to use."""

    host: str
    addresses: tuple[str, ...]


def checked_target(host: str, port: int, allow_private: bool) -> Target:
    """Resolve `host` and return an address the policy allows; refuse the host when any of
    its addresses is refused (a name that also points inside is not trusted).

    Args:
        host: The URL's host name or address literal.
        port: The port, for the lookup.
        allow_private: Allow loopback and private networks (never link-local).
    """
    addresses = _resolve(host, port)
    for address in addresses:
        if is_never_allowed(address) or not (allow_private or is_public_address(address)):
            where = "this machine or a private network" if not allow_private else "link-local"
            raise ToolExecutionError(
                f"Visiting {host} is not allowed: it is an address of {where} ({address})."
            )
    return Target(host=host, addresses=tuple(str(a) for a in addresses))


def _resolve(host: str, port: int) -> list[Address]:
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass  # a name, or an IPv4 written in a short form such as 127.1: let the resolver read it
    try:
        # AI_ADDRCONFIG: no IPv6 answers on a machine without IPv6, as a browser would.
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_ADDRCONFIG)
    except (socket.gaierror, UnicodeError) as error:
        raise ToolExecutionError(
            f"Could not find the host {host!r} ({error}). Check the address, or this machine "
            "may be offline."
        ) from error
    except OSError as error:  # e.g. a network guard refusing the lookup
        raise ToolExecutionError(f"Could not look up {host!r}: {error}") from error
    addresses = list(
        dict.fromkeys(ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos)
    )
    if not addresses:
        raise ToolExecutionError(f"Could not find the host {host!r}.")
    return addresses
