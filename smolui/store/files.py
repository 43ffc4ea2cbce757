"""Where a stored conversation's files are in the data folder, and deleting them with it.

The data folder (one shared volume when there are several replicas) holds, per owner and
conversation: `uploads/<owner folder>/<folder>/` (the files the owner attached),
`media/<owner folder>/<folder>/` (images and audio the agent made) and
`memory-images/<folder>/` (images in the agent's memory). Beside the upload folders, private
like them: `uploads/.outputs/<owner folder>/<folder>/` (copies of the files the agent's code
wrote, `smolui.store.outputs`) and each conversation's working folder (`work_folder`). The owner folder is a digest of
the owner (`smolui.uploads.folders.owner_folder`); `<folder>` is the conversation's folder
name, never its id (paths reach the model and the page; the id is a secret).

Memory images are named by their content; an image the agent reduced (`agents.memory.image_budget`)
is saved as a new file, and the full-size file goes once no saved step names it any more
(`remove_unused_images`). The chat never shows these files: it shows the copies in `media/`.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agents.memory.io import is_image_name
from smolui.uploads.folders import conversation_folder, work_folder

logger = logging.getLogger(__name__)

_FOLDER = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def is_folder_name(name: str | None) -> bool:
    """Whether `name` is a conversation folder's name as the app makes them (no path, no dots).

    Args:
        name: A name from the database or a folder listing.
    """
    return bool(_FOLDER.match(name or ""))


class ConversationFiles:
    """The folders of every conversation's files.

    Args:
        data_dir: The data folder.
        upload_root: Parent of the owners' upload folders (default: `data_dir/uploads`).
        media_root: Parent of the owners' media folders (default: `data_dir/media`).
    """

    def __init__(
        self,
        data_dir: str | Path,
        upload_root: str | Path | None = None,
        media_root: str | Path | None = None,
    ):
        self.data_dir = Path(data_dir)
        self.upload_root = Path(upload_root) if upload_root else self.data_dir / "uploads"
        self.media_root = Path(media_root) if media_root else self.data_dir / "media"
        # Under the upload root: never served, as the uploads (a dot: no owner folder's name).
        self.outputs_root = self.upload_root / ".outputs"
        # Parents of other per-conversation folders deleted with it (e.g. an older media root).
        self.extra_roots: list[Path] = []

    def upload_dir(self, folder: str, owner: str | None = None) -> Path:
        """A conversation's upload folder.

        Args:
            folder: The conversation's folder name.
            owner: Its owner.
        """
        return conversation_folder(self.upload_root, owner, folder)

    def adopt_unscoped(self, folder: str, owner: str) -> None:
        """Move the upload folder of a conversation saved before folders were kept per owner
        (`<upload root>/<folder>`) to its owner's folder, where its agent now looks.

        Args:
            folder: The conversation's folder name.
            owner: Its owner.
        """
        old, new = self.upload_root / folder, self.upload_dir(folder, owner)
        if not is_folder_name(folder) or new.exists() or old.is_symlink() or not old.is_dir():
            return
        try:
            new.parent.mkdir(parents=True, exist_ok=True)
            old.rename(new)
        except OSError as error:
            logger.warning("could not move an upload folder to its owner's folder: %s", error)

    def media_dir(self, folder: str, owner: str | None = None) -> Path:
        """Where the agent's images and audio for a conversation are written.

        Args:
            folder: The conversation's folder name.
            owner: Its owner.
        """
        return conversation_folder(self.media_root, owner, folder)

    def outputs_dir(self, folder: str, owner: str | None = None) -> Path:
        """Where the files the agent's code wrote in a conversation are kept for download.

        Args:
            folder: The conversation's folder name.
            owner: Its owner.
        """
        return conversation_folder(self.outputs_root, owner, folder)

    def image_dir(self, folder: str) -> Path:
        """Where a conversation's memory images are kept.

        Args:
            folder: The conversation's folder name.
        """
        return self.data_dir / "memory-images" / folder

    def remove_unused_images(self, folder: str, memory: Any) -> int:
        """Delete the conversation's memory images that `memory` names nowhere (the full-size
        files of images the agent since reduced, the images of steps undone or cleared).
        Returns how many were deleted.

        Call it with the memory just saved, while no other save of the conversation runs: a
        file written for another save's memory would go too.

        Args:
            folder: The conversation's folder name; a damaged one deletes nothing.
            memory: The saved memory (`agents.memory.io` data): every string in it that is an
                image's file name keeps that file.
        """
        if not is_folder_name(folder):
            return 0
        place = self.image_dir(folder)
        try:
            with os.scandir(place) as entries:
                names = [
                    entry.name
                    for entry in entries
                    if is_image_name(entry.name) and entry.is_file(follow_symlinks=False)
                ]
        except OSError:  # no image saved yet
            return 0
        used = set(_image_names(memory)) if names else set()
        removed = 0
        for name in names:
            if name in used:
                continue
            try:
                (place / name).unlink()
                removed += 1
            except OSError as error:
                logger.warning("could not delete a memory image no step uses: %s", error)
        return removed

    def delete(self, owner: str, folder: str) -> None:
        """Delete every file of one conversation (uploads, media, memory images).

        Args:
            owner: Its owner.
            folder: Its folder name; a damaged one (not a plain name) deletes nothing.
        """
        if not is_folder_name(folder):
            logger.warning("left the files of a conversation whose folder name is damaged")
            return
        places = [
            conversation_folder(self.upload_root, owner, folder),
            self.upload_root / folder,  # saved before folders were kept per owner
            conversation_folder(self.media_root, owner, folder),
            self.outputs_dir(folder, owner),
            work_folder(conversation_folder(self.upload_root, owner, folder)),
            self.image_dir(folder),
        ]
        places += [conversation_folder(root, owner, folder) for root in self.extra_roots]
        places += [root / folder for root in self.extra_roots]
        for place in places:
            # rmtree removes links inside the tree without following them.
            shutil.rmtree(place, ignore_errors=True)


def _image_names(data: Any) -> Iterator[str]:
    """Every string in `data` (nested dicts and lists) that is an image's file name."""
    pending = [data]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if is_image_name(item):
                yield item
        elif isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)


__all__ = ["ConversationFiles"]
