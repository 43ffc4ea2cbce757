"""Read-only share links and the files the agent's code wrote (issue 31).

`output_files`: one row per file a turn's code wrote in its working folder; the bytes live in
the data folder (`outputs/<owner folder>/<conversation folder>/<id>`). Files of one turn share
a `batch` and the `key` that their download links carry.

`shares`: one row per read-only link, keyed by a digest of its token (the token itself is
never stored); `snapshot` holds the chat as it was shared; `revoked_at` set when the owner
takes it back.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "output_files",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "conversation_id",
            sa.String(64),
            sa.ForeignKey("conversations.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("owner", sa.String(128), nullable=False),
        sa.Column("batch", sa.String(32), nullable=False),
        sa.Column("key", sa.String(64), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("mime_type", sa.String(128), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_output_files_conversation_id", "output_files", ["conversation_id"])
    op.create_index("ix_output_files_owner", "output_files", ["owner"])
    op.create_index("ix_output_files_batch", "output_files", ["batch"])
    op.create_table(
        "shares",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column(
            "conversation_id",
            sa.String(64),
            sa.ForeignKey("conversations.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("owner", sa.String(128), nullable=False),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("snapshot", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_shares_conversation_id", "shares", ["conversation_id"])


def downgrade() -> None:
    op.drop_index("ix_shares_conversation_id", table_name="shares")
    op.drop_table("shares")
    for column in ("batch", "owner", "conversation_id"):
        op.drop_index(f"ix_output_files_{column}", table_name="output_files")
    op.drop_table("output_files")
