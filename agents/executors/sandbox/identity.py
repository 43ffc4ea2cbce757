"""A uid of its own for the sandbox worker: not the app's, not root, not anyone's on this machine.

When the app runs as root, the worker switches to an unprivileged id (uid and gid, no
supplementary groups) before any agent code runs, so even a call every other layer let
through cannot touch what the app owns: root-only files stay unreadable, the app's files
keep their modes and owners, and the app's processes are another user's. What the
worker was granted stays usable through its view of the files (see `view`): grants it
could not use under its id (the scratch folder, upload folders private to the app) are
shown through id-mapped mounts in which the app's files are its own; on disk they stay
the app's, so the host can always measure and remove them, and a worker that has to
run without this layer later finds them as before.

An app that is not root cannot give away its uid (that takes CAP_SETUID, or the
setuid helper `newuidmap`); its worker keeps the app's uid, inside a user namespace of
its own. Standard library only.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import time

from agents.executors.sandbox import mounts, view

# One id for every worker, outside the ranges systems hand out (users, systemd's dynamic
# users, container id ranges). Workers sharing it are still apart: each has its own PID,
# IPC and network namespaces, and sees only its own grants.
DEFAULT_WORKER_ID = 1_999_999_999
_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4


class IdentityUnavailable(OSError):
    """The worker cannot switch to an id of its own here (not root, or no id-mapped mounts)."""


def become(worker_id: int, read_only: list[str], read_write: list[str]) -> str:
    """Switch this process (root, single-threaded) to `worker_id` for good.

    Args:
        worker_id: The uid and gid to run under (not 0).
        read_only: Paths the worker may read; they stay readable.
        read_write: Paths it may change; they stay writable (their files shown as its own).

    Returns a short note. Raises IdentityUnavailable when it cannot be done; then the
    worker is as it was (at most in a private mount namespace of its own). A failure
    half-way ends the process (SystemExit): it would be broken.
    """
    if not sys.platform.startswith("linux"):
        raise IdentityUnavailable("only on Linux")
    if worker_id <= 0:
        raise IdentityUnavailable(f"{worker_id} is not an unprivileged id")
    if not app_is_root():
        raise IdentityUnavailable("the app is not root, so the worker keeps the app's uid")
    if not _mapped(worker_id):  # e.g. root of a container with a narrow id range
        raise IdentityUnavailable(f"id {worker_id} does not exist in this user namespace")
    started = time.perf_counter()
    # The worker never waits for a child (it may not start any): the kernel collects the
    # short-lived helper that `mounts.idmap_namespace` makes, without waiting for it here.
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    app = (os.getuid(), os.getgid())
    cwd = os.getcwd()
    seen = view.plan(read_only, read_write, worker_id, worker_id)
    # The id-mapped mounts' helper is a clone of this process: were it undumpable (as
    # `confine` made it), opening its namespace would take CAP_SYS_PTRACE, which root
    # lacks in a container. Nothing but this process runs yet; `confine` undoes it.
    _prctl(_PR_SET_DUMPABLE, 1)
    try:
        if seen.needs_mounts:
            view.build(seen, app, (worker_id, worker_id))
    except mounts.MountError as error:
        raise IdentityUnavailable(str(error)) from None
    try:
        os.setgroups([])
        os.setresgid(worker_id, worker_id, worker_id)
        os.setresuid(worker_id, worker_id, worker_id)
    except OSError as error:  # the view is built for that id: the worker would be broken
        raise SystemExit(f"sandbox worker: switching to id {worker_id} failed: {error}") from None
    # A change of ids clears the parent-death signal: set it again (the worker must die
    # with the app). It also makes the process undumpable, which gives its /proc files to
    # root: it could not write its own user namespace's id maps. `confine` resets that.
    _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    _prctl(_PR_SET_DUMPABLE, 1)
    os.chdir(cwd)  # through the new view
    took = (time.perf_counter() - started) * 1000
    return f"uid {worker_id}; files: {seen.describe()}; {took:.1f} ms"


def app_is_root() -> bool:
    """Whether this process may give a worker a uid of its own: root, on Linux."""
    return sys.platform.startswith("linux") and os.geteuid() == 0


def _mapped(uid: int) -> bool:
    """Whether `uid` has a mapping in this process's user namespace (always, outside one)."""
    try:
        with open("/proc/self/uid_map") as file:
            ranges = [tuple(map(int, line.split())) for line in file if line.strip()]
    except (OSError, ValueError):
        return False
    return any(inside <= uid < inside + count for inside, _, count in ranges)


def _prctl(option: int, value: int) -> None:
    ctypes.CDLL(None, use_errno=True).prctl(option, ctypes.c_ulong(value), 0, 0, 0)
