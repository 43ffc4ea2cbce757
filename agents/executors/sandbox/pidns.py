"""A PID namespace for each sandbox worker, made by the host as it starts the worker.

The worker is the first process of a namespace of its own (pid 1 there): it sees no
other process, so it can neither signal nor probe nor renice one (calls naming another
pid answer "no such process"), whatever the other layers let through. A namespace
only takes processes at their birth, so the host's spawning thread asks for a new one
for its next child just before it starts a worker, then returns to its own. That takes
CAP_SYS_ADMIN: an app that is not root starts workers without it (the isolation report
says so; seccomp and Landlock's signal scope still keep them from other processes).

Pid 1 is special: the kernel drops signals it has no handler for, except SIGKILL from
outside. The worker handles SIGINT (Stop) itself, and the host's kill is SIGKILL; the
soft CPU-time limit's SIGXCPU is dropped, so a worker over its CPU time budget dies by
the hard limit's SIGKILL a second later. Standard library only.
"""

from __future__ import annotations

import ctypes
import logging
import os
import subprocess
import sys
import threading
from typing import Any

logger = logging.getLogger(__name__)

CLONE_NEWPID = 0x20000000

_state = threading.local()  # per thread: its own namespace's fd, or False if refused


def popen_in_new_namespace(command: list[str], **options: Any) -> subprocess.Popen[bytes]:
    """`subprocess.Popen(command, **options)`, the child as pid 1 of a new PID namespace
    when the kernel allows it (otherwise an ordinary child). Only this thread's children
    are affected, and only this one.

    Args:
        command: The program and its arguments.
        options: Passed to `subprocess.Popen` as they are.
    """
    entered = _enter()
    try:
        return subprocess.Popen(command, **options)
    finally:
        if entered:
            _leave()


def enter_for_next_child() -> bool:
    """Make this thread's next child the first process of a new PID namespace; False when
    the kernel refuses (then it is an ordinary child). `leave` after the fork."""
    return _enter()


def leave() -> None:
    """Back to this thread's own PID namespace after `enter_for_next_child` returned True."""
    _leave()


def _own_namespace() -> int | None:
    """This thread's PID namespace (opened once), or None when new ones are refused."""
    fd = getattr(_state, "fd", None)  # threading.local: unset in a new thread
    if fd is None:
        fd = False
        if sys.platform.startswith("linux"):
            try:
                fd = os.open("/proc/thread-self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                pass
        _state.fd = fd
    return None if fd is False else fd


def _enter() -> bool:
    if getattr(_state, "stuck", False):  # threading.local: unset in a new thread
        # Children would land in the last worker's namespace: start none.
        raise OSError("the sandbox's spawning thread could not return to its PID namespace")
    fd = _own_namespace()
    if fd is None:
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWPID) != 0:
        code = ctypes.get_errno()
        logger.debug("No PID namespace for sandbox workers: %s", os.strerror(code))
        os.close(fd)
        _state.fd = False  # e.g. EPERM: the app is not root; do not ask again
        return False
    return True


def _leave() -> None:
    """Back to this thread's own namespace for its next children (and so that the next
    `unshare` is allowed: it must start from the namespace the thread lives in)."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.setns(_state.fd, CLONE_NEWPID) != 0:
        logger.error("setns back to the host's PID namespace: %s", os.strerror(ctypes.get_errno()))
        _state.stuck = True
