"""Conversations as trees of messages: each message and memory step belongs to a branch.

A branch is a whole path from the first message on (`conversation_branches`): it knows the
branch it came from and the message where it parts from it. `conversations.active_branch`
is the one shown. Message and step rows gain a `branch` column in their key; every existing
conversation becomes one branch, number 0.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

_TABLES = ("conversation_messages", "memory_steps")

# SQLite keeps a table's key as it was created: the two tables are made again, each row
# keeping its rowid, which `message_search` (migration 0004) indexes messages under.
_SQLITE_TABLE = (
    "CREATE TABLE {name}_new (conversation_id VARCHAR(64) NOT NULL, {branch}"
    "position INTEGER NOT NULL, data JSON NOT NULL, PRIMARY KEY (conversation_id, {key}"
    "position), FOREIGN KEY(conversation_id) REFERENCES conversations (id) ON DELETE CASCADE)"
)
_SQLITE_TRIGGERS = [
    "CREATE TRIGGER conversation_messages_search_insert AFTER INSERT ON conversation_messages "
    "WHEN json_type(new.data, '$.content') = 'text' BEGIN "
    "INSERT INTO message_search(rowid, body) "
    "VALUES (new.rowid, json_extract(new.data, '$.content')); END",
    "CREATE TRIGGER conversation_messages_search_delete AFTER DELETE ON conversation_messages "
    "BEGIN DELETE FROM message_search WHERE rowid = old.rowid; END",
]
_SQLITE_REINDEX = [
    "DELETE FROM message_search",
    "INSERT INTO message_search(rowid, body) SELECT rowid, json_extract(data, '$.content') "
    "FROM conversation_messages WHERE json_type(data, '$.content') = 'text'",
]


def upgrade() -> None:
    op.create_table(
        "conversation_branches",
        sa.Column(
            "conversation_id",
            sa.String(64),
            sa.ForeignKey("conversations.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("parent", sa.Integer(), nullable=True),
        sa.Column("fork", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.add_column(
        "conversations",
        sa.Column("active_branch", sa.Integer(), nullable=False, server_default="0"),
    )
    op.execute(
        "INSERT INTO conversation_branches (conversation_id, id, parent, fork, seen_at) "
        "SELECT id, 0, NULL, 0, updated_at FROM conversations"
    )
    if op.get_bind().dialect.name == "sqlite":
        _sqlite_rebuild(with_branch=True, rows="SELECT rowid, conversation_id, 0, position, data")
        return
    for name in _TABLES:
        op.add_column(name, sa.Column("branch", sa.Integer(), nullable=False, server_default="0"))
        op.drop_constraint(f"{name}_pkey", name, type_="primary")
        op.create_primary_key(f"{name}_pkey", name, ["conversation_id", "branch", "position"])


def downgrade() -> None:
    # Back to one chat per conversation: the branch shown stays, the others are dropped.
    shown = (
        "EXISTS (SELECT 1 FROM conversations AS c WHERE c.id = {name}.conversation_id "
        "AND c.active_branch = {name}.branch)"
    )
    for name in _TABLES:
        op.execute(f"DELETE FROM {name} WHERE NOT {shown.format(name=name)}")
    if op.get_bind().dialect.name == "sqlite":
        _sqlite_rebuild(with_branch=False, rows="SELECT rowid, conversation_id, position, data")
    else:
        for name in _TABLES:
            op.drop_constraint(f"{name}_pkey", name, type_="primary")
            op.create_primary_key(f"{name}_pkey", name, ["conversation_id", "position"])
            op.drop_column(name, "branch")
    op.drop_column("conversations", "active_branch")
    op.drop_table("conversation_branches")


def _sqlite_rebuild(with_branch: bool, rows: str) -> None:
    """Make the message and step tables again with or without `branch` in their key, moving
    the rows (with their rowids) across, then put the search triggers and index back."""
    branch = "branch INTEGER DEFAULT 0 NOT NULL, " if with_branch else ""
    key = "branch, " if with_branch else ""
    columns = "rowid, conversation_id, " + key + "position, data"
    for name in _TABLES:
        op.execute(_SQLITE_TABLE.format(name=name, branch=branch, key=key))
        op.execute(f"INSERT INTO {name}_new ({columns}) {rows} FROM {name}")
        op.execute(f"DROP TABLE {name}")  # its triggers go with it
        op.execute(f"ALTER TABLE {name}_new RENAME TO {name}")
    for statement in _SQLITE_TRIGGERS + _SQLITE_REINDEX:
        op.execute(statement)
