"""Upload folders an older version kept in `./uploads`, moved into the data folder.

Before uploads moved into the data folder (`data/uploads/<owner folder>/<folder>/`), the app
kept each conversation's files in `./uploads/<folder>/` by default. A stored conversation
whose folder is still there would come back without its files, so at start each such folder
is moved to where the store now looks. Only folders of conversations this store knows are
moved, and never onto a folder that exists: nothing is overwritten or merged.
"""

from __future__ import annotations

import errno
import logging
import shutil
from pathlib import Path
from typing import Any

from smolui.store.files import is_folder_name

logger = logging.getLogger(__name__)

OLD_UPLOAD_ROOT = Path("uploads")  # the default before uploads moved into the data folder
_BATCH = 500  # folder names per query


def move_old_uploads(store: Any, old_root: str | Path = OLD_UPLOAD_ROOT) -> int:
    """Move stored conversations' upload folders from `old_root` to the store's upload root.

    Args:
        store: The `ConversationStore` (its database names each folder's owner).
        old_root: Where an older version kept them (relative: to the working directory).

    Returns:
        How many folders were moved.
    """
    old_root = Path(old_root)
    if old_root.is_symlink() or not old_root.is_dir():
        return 0
    if old_root.resolve() == store.files.upload_root.resolve():
        return 0  # the operator still keeps uploads there: nothing to move
    from sqlalchemy.exc import SQLAlchemyError

    try:
        names = [entry.name for entry in old_root.iterdir() if _plain_folder(entry)]
        owners = _owners(store, names) if names else {}
    except (OSError, SQLAlchemyError) as error:  # the start goes on; the files stay
        logger.warning("could not look for upload folders in %s: %s", old_root, error)
        return 0
    moved = 0
    for folder, owner in owners.items():
        target = store.files.upload_dir(folder, owner)
        unscoped = store.files.upload_root / folder  # where a resume would also look
        if target.exists() or unscoped.exists():
            logger.warning("left %s: the data folder has a folder of that name", old_root / folder)
            continue
        moved += _move(old_root / folder, target)
    if moved:
        logger.info("moved %d upload folders from %s into %s", moved, old_root,
                    store.files.upload_root)  # fmt: skip
    return moved


def _plain_folder(entry: Path) -> bool:
    return is_folder_name(entry.name) and entry.is_dir() and not entry.is_symlink()


def _owners(store: Any, names: list[str]) -> dict[str, str]:
    """Folder name -> owner, for the stored conversations among `names`."""
    from sqlalchemy import select

    from smolui.store.schema import Conversation

    owners: dict[str, str] = {}
    with store.session() as session:
        for start in range(0, len(names), _BATCH):
            batch = names[start : start + _BATCH]
            query = select(Conversation.folder, Conversation.owner).where(
                Conversation.folder.in_(batch)
            )
            owners.update({folder: owner for folder, owner in session.execute(query)})
    return owners


def _move(source: Path, target: Path) -> int:
    """Move one folder (1) or leave it where it is and say why (0). Across file systems the
    copy is made under a temporary name first, so `target` is only ever a whole folder."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        source.rename(target)  # fails on a non-empty target; an empty one holds nothing
        return 1
    except OSError as error:
        if error.errno != errno.EXDEV:
            logger.warning("could not move the upload folder %s: %s", source, error)
            return 0
    partial = target.with_name(f".{target.name}.moving")
    try:
        shutil.rmtree(partial, ignore_errors=True)
        shutil.copytree(source, partial, symlinks=True)
        partial.rename(target)
    except OSError as error:
        shutil.rmtree(partial, ignore_errors=True)
        logger.warning("could not move the upload folder %s: %s", source, error)
        return 0
    shutil.rmtree(source, ignore_errors=True)
    return 1
