"""Per-owner caps kept across restarts (issue 33): the conversations evicted before their first
turn, so they come back under their own id and owner after a restart
(`smolui.store.released`).

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "released_conversations",
        sa.Column("seq", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("conversation_id", sa.String(64), nullable=False, unique=True),
        sa.Column("owner", sa.String(128), nullable=False),
        sa.Column("folder", sa.String(64), nullable=False),
        sa.Column("model", sa.String(300), nullable=True),
        sa.Column("released_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_released_conversations_owner", "released_conversations", ["owner"])


def downgrade() -> None:
    op.drop_index("ix_released_conversations_owner", table_name="released_conversations")
    op.drop_table("released_conversations")
