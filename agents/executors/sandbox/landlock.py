"""Landlock: the kernel's unprivileged filesystem (and TCP, and signal) sandbox, via ctypes.

Applied by the sandbox worker to itself. After `restrict(...)` the process can read only
the read-only paths, read and write only the read-write paths, open no TCP connection,
and signal no process outside itself. Standard library only: the worker loads it before
any agent code runs.
"""

from __future__ import annotations

import ctypes
import os
import sys

_SYS_CREATE_RULESET = 444  # the same number on every architecture (new syscall table)
_SYS_ADD_RULE = 445
_SYS_RESTRICT_SELF = 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1

# Filesystem rights, in the order the ABI versions added them.
EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13  # ABI 2
TRUNCATE = 1 << 14  # ABI 3
IOCTL_DEV = 1 << 15  # ABI 5
_FILE_ONLY = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV

NET_BIND_TCP = 1 << 0  # ABI 4
NET_CONNECT_TCP = 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
SCOPE_SIGNAL = 1 << 1

READ_ONLY = READ_FILE | READ_DIR
# Symlinks are not granted: a link in scratch could later trick the host into reading a
# file it points to. Device nodes are not granted either.
READ_WRITE = (
    READ_ONLY
    | WRITE_FILE
    | REMOVE_DIR
    | REMOVE_FILE
    | MAKE_DIR
    | MAKE_REG
    | MAKE_FIFO
    | MAKE_SOCK
    | REFER
    | TRUNCATE
)


class LandlockUnavailable(OSError):
    """The kernel (or the container) does not offer Landlock."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def abi_version() -> int:
    """The Landlock ABI the kernel offers; 0 when there is none."""
    if not sys.platform.startswith("linux"):
        return 0
    result = _libc().syscall(
        _SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION)
    )
    return max(int(result), 0)


def _fs_rights(abi: int) -> int:
    rights = (1 << 13) - 1
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


def restrict(read_only: list[str], read_write: list[str]) -> dict[str, object]:
    """Confine this process (and its future threads) to the given paths, for good.

    Args:
        read_only: Files and folders the process may read.
        read_write: Folders the process may read, create, change and delete files in.

    Returns a report: the ABI and which extra scopes (network, signals) are enforced.
    Raises LandlockUnavailable when the kernel has no Landlock.
    """
    abi = abi_version()
    if abi < 1:
        raise LandlockUnavailable("Landlock is not available (kernel < 5.13, or disabled)")
    libc = _libc()
    handled = _fs_rights(abi)
    attr = _RulesetAttr(handled_access_fs=handled)
    size = 8
    if abi >= 4:
        attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP
        size = 16
    if abi >= 6:
        attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
        size = 24
    ruleset = libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0)
    if ruleset < 0:
        raise LandlockUnavailable(os.strerror(ctypes.get_errno()))
    try:
        skipped = [p for p in read_only if not _add_path(libc, ruleset, p, READ_ONLY & handled)]
        skipped += [p for p in read_write if not _add_path(libc, ruleset, p, READ_WRITE & handled)]
        if libc.syscall(_SYS_RESTRICT_SELF, ruleset, 0) != 0:
            raise LandlockUnavailable(os.strerror(ctypes.get_errno()))
    finally:
        os.close(ruleset)
    return {"abi": abi, "network_tcp": abi >= 4, "signals_scoped": abi >= 6, "skipped": skipped}


def _add_path(libc: ctypes.CDLL, ruleset: int, path: str, rights: int) -> bool:
    """Allow `rights` beneath `path`; False when the path does not exist."""
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        if not os.path.isdir(path):
            rights &= _FILE_ONLY
        rule = _PathBeneathAttr(allowed_access=rights, parent_fd=fd)
        result = libc.syscall(_SYS_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(rule), 0)
        if result != 0:
            raise LandlockUnavailable(f"adding {path}: {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(fd)
    return True
