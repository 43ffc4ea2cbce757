"""The model a conversation was started with (`--models` picker), restored when it resumes.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A plain ALTER TABLE on both databases: rebuilding the table on SQLite would drop the
    # search triggers that reference it.
    op.add_column("conversations", sa.Column("model", sa.String(300), nullable=True))


def downgrade() -> None:
    op.drop_column("conversations", "model")
