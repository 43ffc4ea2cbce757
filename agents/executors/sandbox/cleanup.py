"""Host side of the scratch folder: measure it and remove it, whatever the code did to it.

Sandboxed code owns its scratch folder: it can make folders the host cannot list (mode
0300), nest them thousands deep (past Python's recursion limit and past PATH_MAX), or fill
them with FIFOs and sockets. Both walks here are iterative and work relative to open folder
descriptors, one at a time (going back up through ".."), giving each folder back its owner's
read, write and search rights before entering it. Links are never followed: a folder is
opened without following links and its rights are changed through that descriptor, and
each step back up checks it reached the folder it came from, so a live worker moving
folders during a quota walk can make the count wrong but never lead the host outside.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Callable

logger = logging.getLogger(__name__)

_OPEN_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_PATH_DIR = os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_OWNER_ALL = stat.S_IRWXU


class FolderMoved(OSError):
    """A folder changed place while the host walked it (only a live worker can do that)."""


def _open_folder(name: str, parent_fd: int | None = None) -> int:
    """Open a folder (never a link), giving its owner read/write/search rights if missing."""
    handle = os.open(name, _PATH_DIR, dir_fd=parent_fd)
    try:
        if os.fstat(handle).st_mode & _OWNER_ALL != _OWNER_ALL:
            try:  # through the descriptor: the very folder opened, whatever its name now
                os.chmod(f"/proc/self/fd/{handle}", 0o700)
            except OSError:
                pass
        return os.open(".", _OPEN_DIR, dir_fd=handle)
    finally:
        os.close(handle)


def _identity(fd: int) -> tuple[int, int]:
    info = os.fstat(fd)
    return info.st_dev, info.st_ino


def walk(
    top: str, on_entry: Callable[[int, os.DirEntry], bool], on_leave: Callable[[int, str], None]
) -> None:
    """Visit every entry under `top`, depth first, holding one folder descriptor at a time.

    Args:
        top: The folder to walk (not followed if it is a link).
        on_entry: Called with (folder fd, entry) for each entry, sub-folders included
            (before they are entered); returns False to stop the walk.
        on_leave: Called with (parent fd, name) after a sub-folder was fully visited.

    Raises FolderMoved when going back up does not reach the folder the walk came from.
    """
    fd = _open_folder(top)
    # (name of the current folder, its siblings still to do, identity of its parent)
    stack: list[tuple[str, list[str], tuple[int, int]]] = []
    try:
        pending = _list(fd, on_entry)
        while pending is not None:
            if pending:
                name = pending.pop()
                try:
                    child = _open_folder(name, fd)
                except OSError:
                    continue
                stack.append((name, pending, _identity(fd)))
                os.close(fd)
                fd = child
                pending = _list(fd, on_entry)
                continue
            if not stack:
                break
            name, pending, expected = stack.pop()
            parent = os.open("..", _OPEN_DIR, dir_fd=fd)
            os.close(fd)
            fd = parent
            if _identity(fd) != expected:
                raise FolderMoved(f"{name!r} was moved during the walk")
            on_leave(fd, name)
    finally:
        os.close(fd)


def _list(fd: int, on_entry: Callable[[int, os.DirEntry], bool]) -> list[str] | None:
    """Names of the sub-folders of `fd`, after `on_entry` saw every entry (None: stop)."""
    folders = []
    with os.scandir(fd) as listing:
        for entry in listing:
            if not on_entry(fd, entry):
                return None
            if entry.is_dir(follow_symlinks=False):
                folders.append(entry.name)
    return folders


def remove_tree(path: str) -> bool:
    """Delete `path` and everything under it; True when nothing is left.

    Args:
        path: The folder to delete (a missing one is fine).
    """

    def unlink(fd: int, entry: os.DirEntry) -> bool:
        if entry.is_dir(follow_symlinks=False):
            return True
        try:
            os.unlink(entry.name, dir_fd=fd)
        except FileNotFoundError:
            pass
        return True

    def rmdir(fd: int, name: str) -> None:
        os.rmdir(name, dir_fd=fd)

    try:
        walk(path, unlink, rmdir)
        os.rmdir(path)
    except FileNotFoundError:
        return True
    except OSError as error:
        logger.warning("Could not remove the sandbox folder %s: %s", path, error)
        return not os.path.lexists(path)
    return True


def folder_usage(path: str, max_entries: int) -> tuple[int, int]:
    """Bytes on disk and number of entries under `path`, counting at most `max_entries + 1`.

    Args:
        path: The folder to measure.
        max_entries: Stop counting once more entries than this were seen.

    Raises FolderMoved when folders moved during the walk (the count would be short).
    """
    totals = [0, 0]

    def count(fd: int, entry: os.DirEntry) -> bool:
        totals[1] += 1
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            return True
        totals[0] += getattr(info, "st_blocks", 0) * 512 or info.st_size  # os.stat_result
        return totals[1] <= max_entries

    try:
        walk(path, count, lambda fd, name: None)
    except FolderMoved:
        raise
    except OSError:
        pass
    return totals[0], totals[1]
