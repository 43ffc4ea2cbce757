"""Approvals waiting for a person's answer, and each conversation's approval switch (issue 28).

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "pending_approvals",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column(
            "conversation_id",
            sa.String(64),
            sa.ForeignKey("conversations.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("step_number", sa.Integer(), nullable=False),
        sa.Column("code", sa.Text(), nullable=True),
        sa.Column("tool_name", sa.String(200), nullable=True),
        sa.Column("arguments", sa.JSON(), nullable=True),
        sa.Column("thought", sa.Text(), nullable=True),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("decision", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("touched_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("answered_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index(
        "ix_pending_approvals_conversation_id", "pending_approvals", ["conversation_id"]
    )
    op.create_table(
        "approval_switches",
        sa.Column("conversation_id", sa.String(64), primary_key=True),
        sa.Column("enabled", sa.Boolean(), nullable=True),
        sa.Column("allowed_tools", sa.JSON(), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("approval_switches")
    op.drop_index("ix_pending_approvals_conversation_id", table_name="pending_approvals")
    op.drop_table("pending_approvals")
