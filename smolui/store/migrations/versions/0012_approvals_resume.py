"""A pending approval keeps the model's output for its step, so that answering it after a
restart resumes the turn without asking the model again (issue 28).

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("pending_approvals", sa.Column("model_output", sa.JSON(), nullable=True))


def downgrade() -> None:
    op.drop_column("pending_approvals", "model_output")
