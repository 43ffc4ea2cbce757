"""Several replicas on one database: usage counters updated atomically (issue 32).

Saves are version-checked on `conversations.revision` (added by 0004, counted up by every save;
see `smolui.store.versions`), so no column is needed for them. Limits need one row per user,
kind and window, incremented in one statement, so two replicas cannot both admit a turn over a
limit (`smolui.store.usage`).

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "usage_counters",
        sa.Column("subject", sa.String(160), primary_key=True),
        sa.Column("kind", sa.String(16), primary_key=True),
        sa.Column("window_s", sa.Integer(), primary_key=True),
        sa.Column("window_start", sa.DateTime(timezone=True), primary_key=True),
        sa.Column("amount", sa.Float(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("usage_counters")
