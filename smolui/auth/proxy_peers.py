"""Which proxies may tell the app who its client is.

Behind a proxy every request arrives from the proxy, which names the client in
`X-Forwarded-For`. Anyone else who can reach the app's port can send the same header, so it is
believed only when the connection comes from a named proxy peer (`SMOLUI_PROXY_PEERS`):
addresses, networks, or host names such as a compose service (`haproxy`), looked up with the
standard library. A request from any other peer is its own client, whatever it writes.

Names are looked up when a peer matches nothing, at most every `REFRESH_S` seconds: the proxy
may start after the app or come back on another address. The look-up blocks the request that
makes it (the middleware asking is synchronous there); a container network's resolver or
/etc/hosts answers at once, and strangers cannot make it happen more often.
"""

from __future__ import annotations

import ipaddress
import logging
import re
import socket
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

logger = logging.getLogger(__name__)

LOOPBACK = ("127.0.0.0/8", "::1")  # the default: a proxy on this machine (uvicorn's choice)
ANY_PEER = "*"  # every peer is a proxy: only where nothing else can reach the port
REFRESH_S = 5.0
MAX_REPORTED = 64  # peers whose ignored header was logged; a bound on the set
_NAME = re.compile(r"^(?!-)[a-z0-9_-]{1,63}(?<!-)(\.(?!-)[a-z0-9_-]{1,63}(?<!-))*\.?$", re.I)
_DOTTED = re.compile(r"^[0-9.]+$")  # looks like an IPv4 address: never a name

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def peer_address(text: str | None) -> Address | None:
    """The IP address of a connection's peer, or None for anything else ("testclient", a
    Unix socket). An IPv4 address seen on an IPv6 socket (`::ffff:10.0.0.1`) is the IPv4 one.

    Args:
        text: The peer as the server reports it.
    """
    try:
        address = ipaddress.ip_address((text or "").strip())
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def peers_problem(entries: Iterable[str]) -> str | None:
    """What is wrong with a list of proxy peers, or None when each entry is usable.

    Args:
        entries: Addresses, CIDR networks, host names, or `*`.
    """
    for entry in entries:
        problem = _entry_problem(entry.strip())
        if problem:
            return f"--proxy-peers: {problem}"
    return None


def _entry_problem(entry: str) -> str | None:
    if entry == ANY_PEER:
        return None
    try:
        ipaddress.ip_network(entry, strict=False)
        return None
    except ValueError:
        pass
    if "/" in entry or ":" in entry or _DOTTED.match(entry):
        return f"{entry!r} is not an IP address or network (e.g. 10.0.0.2, 10.0.0.0/24, ::1)"
    if not _NAME.match(entry):
        return f"{entry!r} is neither an address, a network nor a host name"
    return None


def resolve(name: str) -> set[str]:
    """The addresses `name` resolves to here (the system's resolver: /etc/hosts, DNS).

    Raises:
        OSError: The name does not resolve.
    """
    found = socket.getaddrinfo(name, None, proto=socket.IPPROTO_TCP)
    return {str(sockaddr[0]).partition("%")[0] for *_, sockaddr in found}


class ProxyPeers:
    """The peers whose `X-Forwarded-For` is believed.

    Args:
        entries: Addresses, CIDR networks, host names, or `*` (any peer).
        lookup: Resolves a name to its addresses (default `resolve`; raises OSError).
        clock: Monotonic seconds (when names were last looked up).

    Raises:
        ValueError: An entry is none of those (the message names it).
    """

    def __init__(
        self,
        entries: Iterable[str] = LOOPBACK,
        lookup: Callable[[str], Iterable[str]] = resolve,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.entries = tuple(entry.strip() for entry in entries if entry.strip())
        problem = peers_problem(self.entries)
        if problem:
            raise ValueError(problem)
        self.any = ANY_PEER in self.entries
        networks, names = [], []
        for entry in self.entries:
            if entry == ANY_PEER:
                continue
            try:
                networks.append(ipaddress.ip_network(entry, strict=False))
            except ValueError:
                names.append(entry.lower())
        self.networks: tuple[Network, ...] = tuple(networks)
        self.names = tuple(names)
        self._lookup, self._clock = lookup, clock
        self._named: frozenset[Address] = frozenset()
        self._looked_at: float | None = None
        self._lock = threading.Lock()
        self._reported: set[str] = set()
        self._unresolved: set[str] = set()

    def __repr__(self) -> str:
        return f"ProxyPeers({','.join(self.entries) or 'none'})"

    def match(self, peer: str | None) -> bool:
        """Whether `peer` (a connection's address) is one of these proxies.

        Args:
            peer: The connection's address as the server reports it.
        """
        if self.any:
            return True
        address = peer_address(peer)
        if address is None:
            return False
        if any(address in network for network in self.networks):
            return True
        if not self.names:
            return False
        return address in self._named or address in self._look_up_names()

    def report_ignored(self, peer: str | None) -> None:
        """Log, once per peer, that its `X-Forwarded-For` was ignored: the first sign of a
        proxy left out of `SMOLUI_PROXY_PEERS` (every visitor then shares its address).

        Args:
            peer: The connection's address.
        """
        with self._lock:
            if not peer or peer in self._reported or len(self._reported) >= MAX_REPORTED:
                return
            self._reported.add(peer)
        logger.warning(
            "X-Forwarded-For from %s ignored: not a proxy peer (%s); if it is your "
            "proxy, add it to SMOLUI_PROXY_PEERS",
            peer,
            ",".join(self.entries),
        )

    def _look_up_names(self) -> frozenset[Address]:
        """The names' addresses looked up afresh, or those known when the last look-up is
        less than `REFRESH_S` old (a stranger's requests must not cost a look-up each)."""
        with self._lock:
            now = self._clock()
            if self._looked_at is not None and now - self._looked_at < REFRESH_S:
                return self._named
            self._looked_at = now
        found: set[Address] = set()
        for name in self.names:
            try:
                addresses = self._lookup(name)
            except OSError as error:  # a name that does not resolve vouches for nobody
                level = logging.DEBUG if name in self._unresolved else logging.WARNING
                self._unresolved.add(name)  # said once until it resolves again
                logger.log(level, "proxy peer %r does not resolve here: %s", name, error)
                continue
            self._unresolved.discard(name)
            found.update(address for text in addresses if (address := peer_address(text)))
        self._named = frozenset(found)
        return self._named


@dataclass(frozen=True)
class Proxies:
    """Who tells the app its client's address: how many proxies append to `X-Forwarded-For`,
    and which peers the nearest of them may connect from.

    Args:
        hops: Proxies that append to `X-Forwarded-For` (0: the header is never believed).
        peers: The nearest proxy's possible addresses (default: this machine).
    """

    hops: int = 0
    peers: ProxyPeers = field(default_factory=ProxyPeers, compare=False)

    @classmethod
    def from_settings(cls, settings: Any) -> Proxies:
        """The proxies of the app's `Settings` (`trust_proxy`, `trusted_proxies`,
        `proxy_peers`).

        Raises:
            ValueError: A proxy peer is neither an address, a network nor a host name.
        """
        hops = settings.trusted_proxies if settings.trust_proxy else 0
        return cls(hops=int(hops), peers=ProxyPeers(settings.proxy_peers))

    @property
    def active(self) -> bool:
        """Whether any `X-Forwarded-For` may be believed."""
        return self.hops > 0

    def believes(self, peer: str | None, forwarded: bool = True) -> bool:
        """Whether this connection's forwarding headers are believed: proxies are trusted
        and `peer` is one of them.

        Args:
            peer: The connection's address.
            forwarded: The request carries `X-Forwarded-For` (only to log, once per peer,
                a header that was ignored: a proxy missing from `SMOLUI_PROXY_PEERS`).
        """
        if self.hops < 1:
            return False
        if self.peers.match(peer):
            return True
        if forwarded:
            self.peers.report_ignored(peer)
        return False


NO_PROXIES = Proxies()  # nothing in front: the connection's address is the client's


__all__ = ["ANY_PEER", "LOOPBACK", "NO_PROXIES", "Proxies", "ProxyPeers", "peers_problem"]
