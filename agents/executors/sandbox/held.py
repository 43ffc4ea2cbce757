"""Disk a sandbox worker holds in files it deleted: read by the host from /proc.

A file the code opened (or mapped) and then deleted, or made without a name (O_TMPFILE),
keeps its blocks for as long as the worker keeps it: no walk of the scratch folder sees
it, and the worker lives across turns. Kept open, 256 descriptors of 64 MB files hold
16 GB; mapped (one page each, the descriptor closed), only the number of mappings bounds
them. The host finds them through the worker's descriptors (`/proc/<pid>/fd`) and its
mappings (`/proc/<pid>/maps`, measured through `map_files`), by the names the kernel
gives deleted files: their old path (so in the scratch folder) and " (deleted)". Reading
those takes root (the worker is not dumpable): an app that is not root measures nothing
here.
"""

from __future__ import annotations

import os
import stat

_DELETED = " (deleted)"


def deleted_files(pid: int, folder: str, max_files: int) -> tuple[int, int]:
    """Bytes on disk and number of the deleted files from `folder` that `pid` still holds,
    counting at most `max_files + 1` files.

    Args:
        pid: The worker's process id.
        folder: The scratch folder (the only place the code can create files).
        max_files: Stop once more files than this were seen.
    """
    prefix = os.path.realpath(folder) + "/"
    sizes: dict[tuple[int, int], int] = {}
    for path in _candidates(f"/proc/{pid}", prefix, max_files):
        try:
            info = os.stat(path)
        except OSError:  # closed or unmapped meanwhile, or no right to look
            continue
        if info.st_nlink == 0 and stat.S_ISREG(info.st_mode):
            sizes[info.st_dev, info.st_ino] = info.st_blocks * 512
            if len(sizes) > max_files:
                break
    return sum(sizes.values()), len(sizes)


def _candidates(base: str, prefix: str, max_files: int) -> list[str]:
    """Paths in /proc that lead to deleted files from the folder `prefix` names: the
    worker's descriptors and its mappings (one path per file, `max_files + 1` at most)."""
    paths = []
    try:
        for name in os.listdir(f"{base}/fd"):
            try:
                target = os.readlink(f"{base}/fd/{name}")
            except OSError:
                continue
            if target.startswith(prefix) and target.endswith(_DELETED):
                paths.append(f"{base}/fd/{name}")
    except OSError:
        pass
    try:
        with open(f"{base}/maps", "rb") as maps:
            text = maps.read()
    except OSError:
        return paths
    deleted = _DELETED.encode() + b"\n"
    if deleted not in text:  # the usual case: done without splitting hundreds of lines
        return paths
    seen: set[bytes] = set()
    for line in text.splitlines(keepends=True):
        # start-end perms offset dev inode path; the kernel escapes "\n" in paths
        if not line.endswith(deleted):
            continue
        fields = line.split(maxsplit=5)
        if len(fields) == 6 and fields[5].startswith(prefix.encode()) and fields[4] not in seen:
            seen.add(fields[4])
            paths.append(f"{base}/map_files/{fields[0].decode()}")
            if len(seen) > max_files:
                break
    return paths
