"""What the host enforces while code runs that rlimits cannot: the scratch folder's size
and number of entries (deleted files the worker still holds included, see `held`), and
the number of threads in the worker."""

from __future__ import annotations

import os

from agents.executors.sandbox.cleanup import FolderMoved, folder_usage, remove_tree
from agents.executors.sandbox.held import deleted_files
from agents.executors.sandbox.process import LOST, WorkerLost, WorkerProcess

_MAX_DISTURBED_WALKS = 8  # quota walks in a row cut short by the code moving folders


def make_folder(path: str) -> None:
    """Create a folder only its owner may enter (nothing happens if it exists).

    Args:
        path: The folder.
    """
    os.makedirs(path, mode=0o700, exist_ok=True)


class WorkerWatch:
    """Checks one executor's worker against its disk, file and thread limits.

    Args:
        scratch: The code's read-write folder.
        owns_scratch: Whether the executor made that folder (and may empty it).
        disk_quota: Most bytes the folder may hold.
        max_files: Most entries the folder may hold.
        max_threads: Most threads the worker may run.
    """

    def __init__(
        self, scratch: str, owns_scratch: bool, disk_quota: int, max_files: int, max_threads: int
    ):
        self.scratch = scratch
        self.owns_scratch = owns_scratch
        self.disk_quota = disk_quota
        self.max_files = max_files
        self.max_threads = max_threads
        self._walks_disturbed = 0

    def check(self, worker: WorkerProcess) -> None:
        """Raise WorkerLost (after killing the worker and emptying the folder when it is
        over quota) if the worker went past a limit; drain its stderr meanwhile.

        Args:
            worker: The running worker.
        """
        threads = worker.thread_count()
        if threads is not None and threads > self.max_threads:
            raise WorkerLost(
                f"The code started {threads - 1} threads; the sandbox allows "
                f"{self.max_threads - 1}. {LOST}."
            )
        worker.drain_stderr()
        if self._over_quota(worker.pid):
            worker.kill()  # stopped first: it must not move folders under the walk
            self.empty_scratch()
            raise WorkerLost(
                f"The code filled the scratch folder (over {self.disk_quota // 2**20} MB or "
                f"{self.max_files} files); its files were deleted. {LOST}."
            )

    def empty_scratch(self) -> None:
        """Delete everything in the scratch folder, if the executor made it."""
        if self.owns_scratch:
            remove_tree(self.scratch)
            make_folder(self.scratch)

    def _over_quota(self, pid: int) -> bool:
        held, deleted = deleted_files(pid, self.scratch, self.max_files)
        try:
            used, entries = folder_usage(self.scratch, self.max_files)
            self._walks_disturbed = 0
        except FolderMoved:
            self._walks_disturbed += 1  # the code moved folders during the walk
            # Over quota when it keeps hiding its files.
            return self._walks_disturbed >= _MAX_DISTURBED_WALKS
        return used + held > self.disk_quota or entries + deleted > self.max_files
