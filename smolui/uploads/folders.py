"""Per-session upload folders: where they live, and deleting them safely."""

from __future__ import annotations

import hashlib
import logging
import re
import shutil
from pathlib import Path

logger = logging.getLogger(__name__)

_SESSION_ID = re.compile(r"[A-Za-z0-9_-]{8,128}")
OWNER_FOLDER_CHARS = 24


def owner_folder(owner: str) -> str:
    """The name of an owner's folder among the conversations' files.

    A digest, never the key itself: folder paths reach the model and the page, and the
    owner key is a secret (a signed-in name is kept out of them too).

    Args:
        owner: The owner key or signed-in owner id.
    """
    digest = hashlib.sha256(f"smolui-owner:{owner}".encode()).hexdigest()
    return digest[:OWNER_FOLDER_CHARS]


def conversation_folder(root: str | Path, owner: str | None, folder: str) -> Path:
    """Where one conversation's files go under `root`: `<root>/<owner folder>/<folder>`
    (`<root>/<folder>` for a conversation that has no owner yet). Nothing is created.

    Args:
        root: The parent of every owner's folders (e.g. `data/uploads`).
        owner: Whose conversation it is, or None.
        folder: The conversation's folder name (not its id).
    """
    return Path(root) / owner_folder(owner) / folder if owner else Path(root) / folder


def session_folder(root: str | Path, session_id: str, create: bool = True) -> Path:
    """The upload folder of one session: `<root>/<session_id>`.

    Args:
        root: The upload root (`uploads/`).
        session_id: An unguessable id (letters, digits, `-`, `_`; 8 to 128 characters).
        create: Create the folder (private to this user) if it does not exist.

    Raises:
        ValueError: The id could escape the root or is not a plausible random id.
    """
    if not _SESSION_ID.fullmatch(session_id):
        raise ValueError("A session id must be 8 to 128 letters, digits, '-' or '_'.")
    root = Path(root).resolve()
    folder = root / session_id
    if create:
        root.mkdir(parents=True, exist_ok=True)
        folder.mkdir(mode=0o700, exist_ok=True)
    if folder.is_symlink() or (folder.exists() and folder.resolve().parent != root):
        raise ValueError(f"The upload folder {folder} is not a plain folder inside {root}.")
    return folder


def delete_session_folder(root: str | Path, session_id: str) -> bool:
    """Delete a session's upload folder and everything in it; links are removed, not followed.

    Args:
        root: The upload root.
        session_id: The session whose folder goes.

    Returns:
        True when a folder was deleted.
    """
    folder = session_folder(root, session_id, create=False)
    if not folder.exists():
        return False
    # rmtree does not follow symlinks inside the tree (it uses file descriptors on Linux).
    try:
        shutil.rmtree(folder)
    except OSError as exc:
        logger.warning("could not delete the upload folder %s: %s", folder, exc)
    return not folder.exists()


def empty_session_folder(root: str | Path, session_id: str) -> None:
    """Delete everything in a session's upload folder but keep the folder itself.

    A running sandbox worker was granted access to this very folder; a new folder in its
    place would be out of its reach.

    Args:
        root: The upload root.
        session_id: The session whose files go.
    """
    folder = session_folder(root, session_id, create=False)
    if not folder.is_dir():
        return
    for entry in folder.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)


def folder_usage(folder: Path) -> tuple[int, int]:
    """Number of files and their total size in bytes, for the session caps.

    Args:
        folder: A session's upload folder.
    """
    count = total = 0
    if folder.is_dir():
        for entry in folder.iterdir():
            if entry.is_file() and not entry.is_symlink():
                count += 1
                total += entry.stat().st_size
    return count, total


def work_folder(upload_dir: str | Path) -> Path:
    """The code's working folder of a conversation: beside its upload folder, private like it
    (never served), and kept across restarts, so files the code wrote are still there.

    The name starts with a dot, which no conversation folder's name holds (`is_folder_name`).

    Args:
        upload_dir: The conversation's upload folder.
    """
    upload_dir = Path(upload_dir)
    return upload_dir.with_name(f".work-{upload_dir.name}")
