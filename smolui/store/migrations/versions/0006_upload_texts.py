"""The text extracted from uploaded documents, in pieces, indexed for the conversation search.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

# SQLite: each piece's text goes into `upload_text_search` under its `upload_texts` id, as
# messages go into `message_search` (migration 0004).
_SQLITE_SEARCH = [
    "CREATE VIRTUAL TABLE upload_text_search USING fts5("
    "body, tokenize='unicode61 remove_diacritics 2')",
    "CREATE TRIGGER upload_texts_search_insert AFTER INSERT ON upload_texts BEGIN "
    "INSERT INTO upload_text_search(rowid, body) VALUES (new.id, new.body); END",
    "CREATE TRIGGER upload_texts_search_delete AFTER DELETE ON upload_texts BEGIN "
    "DELETE FROM upload_text_search WHERE rowid = old.id; END",
]
# PostgreSQL: an expression index the search query uses as is.
_POSTGRES_SEARCH = [
    "CREATE INDEX ix_upload_texts_search ON upload_texts USING gin (to_tsvector('simple', body))",
]


def upgrade() -> None:
    op.create_table(
        "upload_texts",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "upload_id",
            sa.Integer(),
            sa.ForeignKey("uploads.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column(
            "conversation_id",
            sa.String(64),
            sa.ForeignKey("conversations.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
    )
    op.create_index("ix_upload_texts_upload_id", "upload_texts", ["upload_id"])
    op.create_index("ix_upload_texts_conversation_id", "upload_texts", ["conversation_id"])
    dialect = op.get_bind().dialect.name
    for statement in {"sqlite": _SQLITE_SEARCH, "postgresql": _POSTGRES_SEARCH}.get(dialect, []):
        op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for name in ("insert", "delete"):
            op.execute(f"DROP TRIGGER IF EXISTS upload_texts_search_{name}")
        op.execute("DROP TABLE IF EXISTS upload_text_search")
    op.drop_index("ix_upload_texts_conversation_id", table_name="upload_texts")
    op.drop_index("ix_upload_texts_upload_id", table_name="upload_texts")
    op.drop_table("upload_texts")  # the PostgreSQL index goes with it
