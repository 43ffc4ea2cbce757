"""Conversations, their uploads, and full-text search over titles and messages.

Revision ID: 0001
Revises:
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

# SQLite: an FTS5 table kept in step with `conversations` by triggers.
_SQLITE_SEARCH = [
    "CREATE VIRTUAL TABLE conversation_search USING fts5("
    "conversation_id UNINDEXED, body, tokenize='unicode61 remove_diacritics 2')",
    "CREATE TRIGGER conversations_search_insert AFTER INSERT ON conversations BEGIN "
    "INSERT INTO conversation_search(conversation_id, body) "
    "VALUES (new.id, new.title || ' ' || new.search_text); END",
    "CREATE TRIGGER conversations_search_delete AFTER DELETE ON conversations BEGIN "
    "DELETE FROM conversation_search WHERE conversation_id = old.id; END",
    "CREATE TRIGGER conversations_search_update AFTER UPDATE OF title, search_text "
    "ON conversations BEGIN "
    "DELETE FROM conversation_search WHERE conversation_id = old.id; "
    "INSERT INTO conversation_search(conversation_id, body) "
    "VALUES (new.id, new.title || ' ' || new.search_text); END",
]
# PostgreSQL: an expression index the search query uses as is.
_POSTGRES_SEARCH = (
    "CREATE INDEX ix_conversations_search ON conversations USING gin "
    "(to_tsvector('simple', title || ' ' || search_text))"
)


def upgrade() -> None:
    op.create_table(
        "conversations",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("owner", sa.String(128), nullable=False, index=True),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False, index=True),
        sa.Column("folder", sa.String(64), nullable=False),
        sa.Column("messages", sa.JSON(), nullable=False),
        sa.Column("memory", sa.JSON(), nullable=True),
        sa.Column("turn_state", sa.String(16), nullable=False),
        sa.Column("search_text", sa.Text(), nullable=False),
    )
    op.create_table(
        "uploads",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "conversation_id",
            sa.String(64),
            sa.ForeignKey("conversations.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        ),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("pages", sa.Integer(), nullable=True),
        sa.Column("rows", sa.Integer(), nullable=True),
        sa.Column("path", sa.String(512), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for statement in _SQLITE_SEARCH:
            op.execute(statement)
    elif dialect == "postgresql":
        op.execute(_POSTGRES_SEARCH)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for name in ("insert", "delete", "update"):
            op.execute(f"DROP TRIGGER IF EXISTS conversations_search_{name}")
        op.execute("DROP TABLE IF EXISTS conversation_search")
    op.drop_table("uploads")
    op.drop_table("conversations")
