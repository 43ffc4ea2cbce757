"""Namespaces for the sandbox worker: its own user, IPC and network namespaces.

Called by the worker on itself, single-threaded, before it drops its capabilities. The user
namespace maps the worker's own ids to themselves (what an unprivileged process may do
alone), so files keep their owners; it is what lets an unprivileged worker take an IPC
namespace, and it leaves the worker no capability in the app's namespace. The IPC
namespace makes System V IPC objects and POSIX message queues private to the worker and
deletes them when it exits. The network namespace has no interface but a loopback that is
down: no network at all, even for a call the other layers would miss (about 3 ms more
per start). Standard library only.

Elsewhere: the uid of its own those ids are, when the app is root (`identity`, just
before this), and the PID namespace, which the host makes as it starts the worker (`pidns`).
"""

from __future__ import annotations

import ctypes
import os

CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
_PR_SET_DUMPABLE = 4


# How a worker that could not map its ids ends (on its stderr): the host recognises it (see
# `process.namespaces_refusal`) and may start the next worker without namespaces.
ID_MAPS_FAILED = "sandbox worker: user namespace id maps failed"


class NamespacesUnavailable(OSError):
    """The kernel (or its configuration) refused to create the namespaces."""


def enter() -> str:
    """Move this process into a new user namespace (ids mapped to themselves) and new IPC
    and network namespaces. Returns a short note; raises NamespacesUnavailable."""
    uid, gid = os.geteuid(), os.getegid()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWUSER | CLONE_NEWIPC | CLONE_NEWNET) != 0:
        code = ctypes.get_errno()
        raise NamespacesUnavailable(code, f"unshare: {os.strerror(code)}")
    # An undumpable process's /proc files belong to root (`confine` makes the worker so,
    # and undoes this right after): its new namespace could not write its own id maps
    # unless it was root. Nothing but this process runs yet, in a namespace of its own.
    libc.prctl(_PR_SET_DUMPABLE, ctypes.c_ulong(1), 0, 0, 0)
    try:
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{uid} {uid} 1")
        _write("/proc/self/gid_map", f"{gid} {gid} 1")
    except OSError as error:
        # Unmapped ids cannot create files: the worker would be useless, so it stops.
        raise SystemExit(f"{ID_MAPS_FAILED}: {error}") from None
    return "user (own ids), ipc, net"


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)
