"""How many bytes an owner keeps on the server, against a per-owner quota.

Counted from the database: the uploads of the owner's conversations (`uploads.size`) and the
files their agents wrote (`output_files.size`). Deleting a conversation deletes its rows, so
its bytes stop counting at once.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from smolui.store.schema import Conversation, Upload

MB = 1024 * 1024


class QuotaExceededError(Exception):
    """Storing this would take the owner past their quota; the message says so to them."""


class OwnerQuota:
    """The per-owner byte quota (`SMOLUI_OWNER_QUOTA_MB`).

    Args:
        engine: The store's migrated engine.
        limit_bytes: Most bytes one owner may keep (0 or None: no quota).
    """

    def __init__(self, engine: Any, limit_bytes: int | None):
        self.engine = engine
        self.limit_bytes = int(limit_bytes or 0)

    def used(self, owner: str) -> int:
        """Bytes the owner keeps now (uploads and agent-written files).

        Args:
            owner: Whose bytes.
        """
        from smolui.store.outputs import OUTPUT_FILES

        uploads = (
            select(func.coalesce(func.sum(Upload.size), 0))
            .join(Conversation, Upload.conversation_id == Conversation.id)
            .where(Conversation.owner == owner)
        )
        outputs = select(func.coalesce(func.sum(OUTPUT_FILES.c.size), 0)).where(
            OUTPUT_FILES.c.owner == owner
        )
        with self.engine.connect() as connection:
            return int(connection.scalar(uploads)) + int(connection.scalar(outputs))

    def check(self, owner: str, adding: int) -> None:
        """Refuse `adding` more bytes if they do not fit in the owner's quota.

        Args:
            owner: Whose quota.
            adding: Bytes about to be stored.

        Raises:
            QuotaExceededError: With a message for the owner.
        """
        if not self.limit_bytes:
            return
        used = self.used(owner)
        if used + adding > self.limit_bytes:
            raise QuotaExceededError(
                f"Not stored: your files would take {_mb(used + adding)} of the "
                f"{_mb(self.limit_bytes)} this server keeps per person. Delete a conversation "
                "with large files to make room."
            )


def _mb(size: int) -> str:
    return f"{size / MB:.1f} MB"


__all__ = ["OwnerQuota", "QuotaExceededError"]
