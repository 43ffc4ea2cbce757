"""The template process: imports the data stack once, then forks sandbox workers on request.

Worker side of `template` (the host's end). It starts like a worker (a bare interpreter,
see `spawn`), holds no user data and runs no agent code: it imports the worker's own
modules and the data stack, checks it is single-threaded (a fork copies only the thread
that calls it: a lock another thread held would stay locked in the child forever),
freezes what it imported out of the garbage collector's sight (so no collection in a
child writes to, and so copies, those shared pages), then serves its control socket.

Each `fork` request brings three descriptors (the new worker's request and reply pipes,
its stderr). The child gets its own session, a parent-death signal, a PID namespace of
its own when the kernel allows (see `pidns`), fresh random seeds, and only those three
descriptors; then it runs `worker.main` as a spawned worker would: it waits for its
setup and confines itself (`confine`) before any agent code runs. What one worker does
reaches neither the template (a copy-on-write page is copied on the first write) nor
another worker. The parent answers with the child's pid and a pidfd on it, and reaps a
child only when the host asks (`reap`), so its pid is never reused while the host may
still signal it. Standard library only, besides what it preloads.
"""

from __future__ import annotations

import ctypes
import fcntl
import gc
import importlib
import json
import os
import random
import signal
import socket
import sys
import traceback
from typing import Any

from agents.executors.sandbox import pidns

_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4
MAX_REQUEST = 4096
# Where the new worker's descriptors go before the rest are closed.
_STDERR, _READ, _WRITE = 2, 3, 4


def main(control_fd: int, sys_path: list[str], modules: list[str]) -> None:
    """Import, check, say ready, then fork workers until the host closes the socket.

    Args:
        control_fd: A SOCK_SEQPACKET socket to the host (requests and descriptors).
        sys_path: Folders to import from (the worker's `sys_path`).
        modules: The data-stack modules to import once for every worker.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    ctypes.CDLL(None).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)  # no one reads its memory
    control = socket.socket(fileno=control_fd)
    sys.path.extend(p for p in sys_path if p not in sys.path)
    sys.argv = [""]
    importlib.import_module("agents.executors.sandbox.worker")
    imported = [name for name in modules if _imported(name)]
    threads = len(os.listdir("/proc/self/task"))
    if threads != 1:
        _send(control, {"t": "refused", "error": f"{threads} threads after the imports"})
        return
    gc.collect()
    gc.freeze()
    _send(control, {"t": "ready", "imported": imported, "address_space": _address_space()})
    serve(control)


def serve(control: socket.socket) -> None:
    """Answer `fork` and `reap` requests, one at a time, until the host goes."""
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(control, MAX_REQUEST, 3)
        except OSError:
            return
        if not data:
            return
        try:
            request = json.loads(data)
            if request.get("t") == "fork" and len(fds) == 3:
                _fork(control, fds)
            elif request.get("t") == "reap":
                _send(control, {"t": "reaped", "status": _reap(int(request["pid"]))})
            else:
                _send(control, {"t": "error", "error": "unknown request"})
        finally:
            for fd in fds:
                os.close(fd)


def _fork(control: socket.socket, fds: list[int]) -> None:
    entered = pidns.enter_for_next_child()
    try:
        pid = os.fork()
    except OSError as error:
        pid = -1
        _send(control, {"t": "error", "error": f"fork: {error}"})
    if pid == 0:
        _become_worker(control, fds)  # never returns
    if entered:
        pidns.leave()  # the parent only: the child stays in its own namespace
    if pid < 0:
        return
    pidfd = os.pidfd_open(pid)
    try:
        socket.send_fds(control, [json.dumps({"t": "forked", "pid": pid}).encode()], [pidfd])
    finally:
        os.close(pidfd)


def _become_worker(control: socket.socket, fds: list[int]) -> None:
    """In the child: cut every tie to the template, then serve as a sandbox worker."""
    code = 1
    try:
        os.setsid()  # its own process group: the host kills the group
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        control.detach()
        # Above the targets first: a received descriptor may have a target's number.
        read_fd, write_fd, stderr_fd = (fcntl.fcntl(fd, fcntl.F_DUPFD, 16) for fd in fds)
        os.dup2(stderr_fd, _STDERR)
        os.dup2(read_fd, _READ)
        os.dup2(write_fd, _WRITE)
        os.closerange(_WRITE + 1, os.sysconf("SC_OPEN_MAX"))  # the socket, the template's
        _reseed()
        from agents.executors.sandbox.worker import main as worker_main

        worker_main(_READ, _WRITE)
        code = 0
    except SystemExit as stop:  # e.g. id maps refused: the host reads why on stderr
        code = _exit_code(stop)
    except BaseException:  # noqa: BLE001 - the child must never return into the template
        traceback.print_exc()
    finally:
        os._exit(code)


def _exit_code(stop: SystemExit) -> int:
    """What the interpreter would exit with for this SystemExit (its message to stderr)."""
    if stop.code is None or isinstance(stop.code, int):
        return stop.code or 0
    print(stop.code, file=sys.stderr, flush=True)
    return 1


def _reseed() -> None:
    # Every child starts from the template's memory: without this they would all draw the
    # same "random" numbers (numpy's global generator is seeded once, at import).
    random.seed()
    numpy_random = sys.modules.get("numpy.random")
    if numpy_random is not None:
        numpy_random.seed()


def _reap(pid: int) -> int | None:
    """The exit code of a child that has ended (as `subprocess` gives it), None if it runs."""
    try:
        done, status = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:  # reaped already: as good as killed for the host
        return -signal.SIGKILL
    return os.waitstatus_to_exitcode(status) if done else None


def _address_space() -> int:
    """This process's virtual size in bytes (what a child starts with under RLIMIT_AS)."""
    with open("/proc/self/statm") as file:
        return int(file.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _imported(name: str) -> bool:
    try:
        importlib.import_module(name)
    except Exception:  # noqa: BLE001 - missing or broken: the code gets the error itself
        return False
    return True


def _send(control: socket.socket, message: dict[str, Any]) -> None:
    control.send(json.dumps(message).encode())
