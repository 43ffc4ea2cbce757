"""Files out: what the agent's code wrote in its working folder during a turn, kept with the
conversation and offered under the answer and in the side panel for download.

Before the turn the working folder's files are noted (name, size, modification time); after
it, every file that is new or changed is copied into the store (`smolui.store.outputs`) and
one message lists them with download links (`smolui.render.downloads`).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from smolui.render.downloads import render_downloads, render_not_kept
from smolui.render.messages import Message
from smolui.sessions import Session
from smolui.uploads.folders import work_folder

logger = logging.getLogger(__name__)

Snapshot = dict[str, tuple[int, int]]
MAX_SCANNED = 2000  # entries looked at: a folder of many files is not walked whole


def snapshot(folder: Path) -> Snapshot:
    """Every plain file below `folder` (links not followed; hidden files and folders left out)
    as name -> (size, mtime in ns).

    Args:
        folder: A working folder (missing: empty).
    """
    found: Snapshot = {}
    pending, seen = [folder], 0
    while pending and seen < MAX_SCANNED:
        try:
            with os.scandir(pending.pop()) as entries:
                for entry in entries:
                    seen += 1
                    if entry.name.startswith("."):  # caches and settings libraries keep in
                        continue  # their home (.matplotlib, .cache, .config): not the answer's
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(Path(entry.path))
                    elif entry.is_file(follow_symlinks=False):
                        stat = entry.stat(follow_symlinks=False)
                        name = Path(entry.path).relative_to(folder).as_posix()
                        found[name] = (stat.st_size, stat.st_mtime_ns)
        except OSError:  # missing, or a folder the code made unreadable
            continue
    return found


def written_since(folder: Path, before: Snapshot) -> list[tuple[str, Path]]:
    """The files in `folder` that are new or changed since `before`, by name.

    Args:
        folder: The working folder.
        before: Its snapshot at the turn's start.
    """
    now = snapshot(folder)
    names = sorted(name for name, mark in now.items() if before.get(name) != mark)
    return [(name, folder / name) for name in names]


class TurnFiles:
    """Keeps the files each turn's code wrote and says where to download them.

    Args:
        outputs: Returns the store's `OutputFiles` (the store opens on first use).
        url_prefix: Where the download route is served (`smolui.api.file_routes`).
    """

    def __init__(self, outputs: Callable[[], Any], url_prefix: str):
        self.outputs, self.url_prefix = outputs, url_prefix

    def begin(self, session: Session) -> Snapshot:
        """Note the working folder's files before the turn runs.

        Args:
            session: The conversation.
        """
        return snapshot(work_folder(session.upload_dir))

    def finish(self, session: Session, before: Snapshot) -> list[Message]:
        """Keep the files written since `begin` and return the message listing them (none
        when nothing was written; a notice when they could not be kept).

        Args:
            session: The conversation (stored: its row exists since the turn began).
            before: What `begin` returned.
        """
        found = written_since(work_folder(session.upload_dir), before)
        if not found or session.owner is None:
            return []
        try:
            kept = self.outputs().keep(session.id, session.owner, session.folder, found)
        except Exception:
            logger.exception("could not keep the files a turn wrote")
            return [render_not_kept("The files this turn wrote could not be kept.")]
        if kept.refused:
            return [render_not_kept(kept.refused)]
        return [render_downloads(kept.files, self.url_prefix)]

    def kept(self, conversation_id: str, owner: str | None) -> list[Any]:
        """The stored files the conversation's turns wrote, for the side panel (none when the
        store cannot answer now: the panel still shows the rest). Its agent need not be
        live: the panel lists them after a version switch let it go too.

        Args:
            conversation_id: The conversation.
            owner: Its owner: another owner's conversation lists nothing (None: nothing).
        """
        if owner is None:
            return []
        try:
            return self.outputs().of_conversation(conversation_id, owner)
        except Exception as error:  # the store down: the panel is drawn without them
            logger.warning("could not list the files a conversation wrote: %s", error)
            return []


__all__ = ["TurnFiles", "snapshot", "written_since"]
