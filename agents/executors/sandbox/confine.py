"""Confine the sandbox worker before any agent code runs: limits, namespaces, privileges,
Landlock, seccomp.

`confine(limits, read_only, read_write)` is called once by the worker on itself and
returns which layers took effect. A layer the platform lacks is reported, not fatal: the
host decides whether to warn or refuse. Standard library only.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from typing import Any

from agents.executors.sandbox import landlock, seccomp
from agents.executors.sandbox.identity import DEFAULT_WORKER_ID, become
from agents.executors.sandbox.namespaces import enter as enter_namespaces

_PR_SET_DUMPABLE = 4
_PR_CAPBSET_DROP = 24
_PR_SET_NO_NEW_PRIVS = 38
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_CAP_VERSION_3 = 0x20080522
MB = 1024 * 1024


def confine(
    limits: dict[str, Any], read_only: list[str], read_write: list[str], namespaces: bool = True
) -> dict[str, Any]:
    """Apply every available layer to this process; return the isolation report.

    Args:
        limits: `memory_mb`, `cpu_seconds`, `file_mb`, `open_files`, `threads` (None leaves
            one unset).
        read_only: Paths the code may read.
        read_write: Paths the code may read and write (the scratch folder).
        namespaces: Enter new user, IPC and network namespaces (see the `namespaces` module),
            under an id of its own when the app is root (see `identity`).
    """
    report: dict[str, Any] = {"process": True, "clean_env": True, "notes": {}}
    linux = sys.platform.startswith("linux")
    if linux:
        _prctl(_PR_SET_NO_NEW_PRIVS, 1)
        _prctl(_PR_SET_DUMPABLE, 0)  # nobody of the same user may attach or read our memory
    report["rlimits"] = _try(report, "rlimits", lambda: set_limits(limits))
    # Before the capabilities go: a new user namespace gives a full set to drop there.
    if namespaces:
        # While still root: an id of its own (the user namespace then maps that id).
        report["own_uid"] = linux and _try(
            report, "own_uid", lambda: become(DEFAULT_WORKER_ID, read_only, read_write)
        )
        report["namespaces"] = linux and _try(report, "namespaces", enter_namespaces)
        if linux:
            _prctl(_PR_SET_DUMPABLE, 0)  # again: a change of uid may have reset it
        if report["namespaces"] and limits.get("threads"):
            report["threads_limit"] = _try(report, "threads", lambda: limit_threads(limits))
    report["pid_namespace"] = linux and os.getpid() == 1  # see `pidns`: made by the host
    report["capabilities_dropped"] = linux and _try(report, "capabilities", drop_capabilities)
    report["landlock"] = linux and _try(
        report, "landlock", lambda: _landlock(read_only, read_write)
    )
    report["seccomp"] = linux and _try(report, "seccomp", _seccomp)
    if not report["seccomp"]:
        # Without seccomp the only process barrier left is RLIMIT_NPROC (it stops threads
        # too for a normal user, and root ignores it; better than nothing).
        _try(report, "nproc", lambda: _set(_resource().RLIMIT_NPROC, 0))
    return report


def _try(report: dict[str, Any], layer: str, apply: Any) -> bool:
    try:
        note = apply()
    except Exception as error:
        report["notes"][layer] = f"unavailable: {error}"
        return False
    if note:
        report["notes"][layer] = note
    return True


def _resource() -> Any:
    import resource

    return resource


def _set(which: int, value: int) -> None:
    _resource().setrlimit(which, (value, value))


def set_limits(limits: dict[str, Any]) -> str:
    """Lower this process's resource limits (soft and hard: the code cannot raise them)."""
    resource = _resource()
    table = [
        ("memory_mb", resource.RLIMIT_AS, MB),
        ("cpu_seconds", resource.RLIMIT_CPU, 1),
        ("file_mb", resource.RLIMIT_FSIZE, MB),
        ("open_files", resource.RLIMIT_NOFILE, 1),
    ]
    applied = []
    for key, which, unit in table:
        if limits.get(key):
            value = int(limits[key] * unit)
            if key == "cpu_seconds":
                # The soft limit sends SIGXCPU (which ends Python); the hard one SIGKILLs.
                resource.setrlimit(which, (value, value + 1))
            else:
                resource.setrlimit(which, (value, value))
            applied.append(f"{key}={limits[key]}")
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # A write past RLIMIT_FSIZE should raise OSError(EFBIG) in the code, not kill us.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    return ", ".join(applied)


def limit_threads(limits: dict[str, Any]) -> str:
    """Let the kernel refuse threads past `limits["threads"]` (main thread included).

    The host counts threads too, but only every quarter second and never while a tool
    runs; thousands start in that time, and each takes a pid from a table the whole
    machine shares (32,768 pids on many). RLIMIT_NPROC counts per user namespace (Linux
    5.14+): in the worker's own namespace it counts this worker's threads, not the other
    workers' of the same uid. Outside one it would count every process of the app's
    user, so it is set only after `namespaces.enter`.
    """
    count = int(limits["threads"])
    _set(_resource().RLIMIT_NPROC, count)
    return f"{count} threads"


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _prctl(option: int, arg: int) -> None:
    libc = _libc()
    if libc.prctl(option, ctypes.c_ulong(arg), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))


def drop_capabilities() -> str:
    """Empty the bounding, ambient, effective, permitted and inheritable capability sets.

    A worker started as root keeps uid 0 (it must still read the Python installation),
    but without capabilities root cannot override the other layers.
    """
    libc = _libc()
    last = _last_capability()
    for cap in range(last + 1):
        libc.prctl(_PR_CAPBSET_DROP, ctypes.c_ulong(cap), 0, 0, 0)  # EPERM if not root: fine
    libc.prctl(_PR_CAP_AMBIENT, ctypes.c_ulong(_PR_CAP_AMBIENT_CLEAR_ALL), 0, 0, 0)
    header = (ctypes.c_uint32 * 2)(_CAP_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()  # two {effective, permitted, inheritable} words, all zero
    if libc.capset(header, data) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return ""


def _last_capability() -> int:
    try:
        with open("/proc/sys/kernel/cap_last_cap") as file:
            return int(file.read())
    except (OSError, ValueError):
        return 63


def _landlock(read_only: list[str], read_write: list[str]) -> str:
    result = landlock.restrict(read_only, read_write)
    extras = [name for name in ("network_tcp", "signals_scoped") if result[name]]
    return f"ABI {result['abi']}" + (f" (+{', '.join(extras)})" if extras else "")


def _seccomp() -> str:
    report = seccomp.install()
    return f"allow-list of {report['rules']} rules, EPERM for the rest"
