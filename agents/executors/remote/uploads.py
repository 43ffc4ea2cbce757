"""Which uploaded files a remote kernel still needs, under size caps.

A remote kernel cannot read the host's upload folder, so before each execution the files
that appeared (or changed) since the last one are sent into the kernel's working folder
(`uploads/<name>`; the host path also leads there when the kernel's machine can create
it). Files over the per-file cap, or past the per-kernel total, are skipped with a note.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_PIECE_BYTES = 3 * 1024 * 1024  # gateways cap websocket messages (tornado at 10 MB)


@dataclass
class UploadSync:
    """Tracks what one kernel already holds.

    Args:
        max_file_bytes: Largest single file copied.
        max_total_bytes: Most bytes copied into one kernel over its life.
    """

    max_file_bytes: int
    max_total_bytes: int
    folders: list[str] = field(default_factory=list)
    _sent: dict[str, tuple[int, int]] = field(default_factory=dict)
    _skipped: set[str] = field(default_factory=set)
    _total: int = 0

    def forget(self) -> None:
        """The kernel was replaced: everything must be sent again."""
        self._sent.clear()
        self._skipped.clear()
        self._total = 0

    def pending(self) -> tuple[list[str], list[str]]:
        """Paths to send now, and notes about files skipped for size (each said once)."""
        paths: list[str] = []
        notes: list[str] = []
        planned = self._total
        for path, size, mtime in _files(self.folders):
            if self._sent.get(path) == (size, mtime):
                continue
            if size > self.max_file_bytes or planned + size > self.max_total_bytes:
                if path not in self._skipped:
                    self._skipped.add(path)
                    notes.append(
                        f"{os.path.basename(path)} was not copied to the remote kernel "
                        f"({size:,} bytes; limits {self.max_file_bytes:,} per file, "
                        f"{self.max_total_bytes:,} in all): use the document tools for it."
                    )
                continue
            planned += size
            paths.append(path)
        return paths, notes

    def mark_sent(self, path: str) -> None:
        """Record that `path`, as it is now, reached the kernel."""
        stat = os.stat(path)
        self._sent[path] = (stat.st_size, stat.st_mtime_ns)
        self._total += stat.st_size


def copy_pending(sync: UploadSync, run_code: Callable[[str], Any]) -> list[str]:
    """Send the files `sync` says the kernel lacks, in pieces, through the bridge's
    `put_file`; return notes about files skipped or not copied.

    Args:
        sync: What the kernel holds (updated as files arrive).
        run_code: Runs bridge code in the kernel and returns its `Outcome`.
    """
    paths, notes = sync.pending()
    for path in paths:
        error = _send_file(path, run_code)
        if error:
            notes.append(f"{os.path.basename(path)} could not be copied to the kernel: {error}")
        else:
            sync.mark_sent(path)
    return notes


def _send_file(path: str, run_code: Callable[[str], Any]) -> str | None:
    with open(path, "rb") as handle:
        first = True
        while True:
            piece = handle.read(_PIECE_BYTES)
            if not piece and not first:
                return None
            data = base64.b64encode(piece).decode()
            outcome = run_code(f"__smolui__.put_file({path!r}, {data!r}, {first})")
            if outcome.error:
                return outcome.error
            first = False


def _files(folders: list[str]) -> list[tuple[str, int, int]]:
    found = []
    for folder in folders:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.is_file(follow_symlinks=False):
                stat = entry.stat(follow_symlinks=False)
                found.append((os.path.abspath(entry.path), stat.st_size, stat.st_mtime_ns))
    return sorted(found)
