"""Whose container is it: the labels on every Docker executor container, and orphan removal.

Each container carries `LABEL` and `OWNER_LABEL` = "<host>/<pid>/<process start>" of the
process that started it. A container outlives its process only when that process could not
remove it (killed with `kill -9`, or the machine's power cut); the next executor to start on
this host removes those whose owner is gone, with their socket folders. Containers of a
live process, or of another host sharing the engine, are left alone.
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import tempfile
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

LABEL = "smolui.executor"
OWNER_LABEL = "smolui.owner"
FOLDER_LABEL = "smolui.socket-folder"
FOLDER_PREFIX = "smolui-kernel-"


def this_owner() -> str:
    """This process's owner label: host, pid and when the process started."""
    return f"{socket.gethostname()}/{os.getpid()}/{_started(os.getpid())}"


def _started(pid: int) -> str:
    """The process's start time in clock ticks since boot ("" if it does not exist): with
    the pid, it names one process even after the pid is reused."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat.rsplit(")", 1)[1].split()[19]  # field 22; the name may hold spaces


def is_orphan(owner: str) -> bool:
    """True if `owner` names a process of this host that no longer runs.

    Args:
        owner: An `OWNER_LABEL` value.
    """
    host, _, rest = owner.partition("/")
    pid, _, started = rest.partition("/")
    if host != socket.gethostname() or not pid.isdigit() or not started:
        return False  # another host's, or not ours to judge
    return _started(int(pid)) != started


def remove_orphans(client: Any) -> list[str]:
    """Remove this host's executor containers whose process is gone; their names.

    Best effort: an engine that cannot list or remove them is logged, and the new
    container starts anyway.

    Args:
        client: A `docker.DockerClient`.
    """
    removed = []
    try:
        containers = client.containers.list(all=True, filters={"label": LABEL})
    except Exception as error:  # the SDK's errors, or an engine without label filters
        logger.warning("could not look for orphaned kernel containers: %s", error)
        return removed
    for container in containers:
        labels = container.labels or {}
        if not is_orphan(labels.get(OWNER_LABEL, "")):
            continue
        try:
            container.remove(force=True)
        except Exception as error:  # removed meanwhile by another starting executor
            logger.info("could not remove orphaned container %s: %s", container.name, error)
            continue
        remove_socket_folder(labels.get(FOLDER_LABEL, ""))
        removed.append(container.name)
    if removed:
        logger.warning("removed kernel containers left by ended processes: %s", removed)
    return removed


def make_socket_folder() -> Path:
    """A folder for the gateway's socket: private to this host's user (0700), with an inner
    folder the container's user may create the socket in; the inner one is returned."""
    outer = Path(tempfile.mkdtemp(prefix=FOLDER_PREFIX))
    inner = outer / "run"
    inner.mkdir()
    inner.chmod(0o777)  # the container's uid differs from ours; `outer` keeps others out
    return inner


def remove_socket_folder(inner: str | Path) -> None:
    """Delete a folder made by `make_socket_folder` (and nothing else).

    Args:
        inner: The path `make_socket_folder` returned, e.g. read from a container's label.
    """
    outer = Path(inner).parent
    if outer.parent == Path(tempfile.gettempdir()) and outer.name.startswith(FOLDER_PREFIX):
        shutil.rmtree(outer, ignore_errors=True)
