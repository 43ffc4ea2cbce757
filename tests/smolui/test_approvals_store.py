"""Pending approvals and approval switches on real databases (SQLite file, real PostgreSQL):
one answer wins, a turn that is gone is told apart, deleting a conversation deletes its
pending actions, and migration 0007 goes down and up again."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import inspect, update

from smolui.store import database, migrate, open_store
from smolui.store.approvals import ApprovalStore, PendingApprovalRow


@pytest.fixture
def store(store_url, tmp_path):
    store = open_store(tmp_path / "data", store_url)
    store.save("alice", "c1", folder="f-c1", messages=[], memory=None, turn_state="running")
    yield store
    store.close()


def test_a_pending_action_is_kept_found_and_answered_once(store):
    approvals = ApprovalStore(store.engine)
    pending = approvals.add("c1", "tool", 2, None, "send_email", {"to": "a@example.com"}, "mail")
    found = approvals.waiting("c1")
    assert found == pending and found.arguments == {"to": "a@example.com"} and not found.stale
    assert approvals.waiting("c2") is None
    assert not approvals.answer(pending.id, "c2", {"action": "run"})  # another conversation's
    assert approvals.answer(pending.id, "c1", {"action": "skip", "reason": "not now"})
    assert not approvals.answer(pending.id, "c1", {"action": "run"})  # already answered
    answered = approvals.get(pending.id)
    assert answered.state == "answered" and answered.decision["reason"] == "not now"
    assert approvals.waiting("c1") is None


def test_of_answers_given_at_the_same_moment_exactly_one_wins(store):
    approvals = ApprovalStore(store.engine)
    pending = approvals.add("c1", "code", 1, code="print(1)")
    start, won = threading.Barrier(6), []

    def answer(n: int) -> None:
        start.wait()
        won.append(approvals.answer(pending.id, "c1", {"action": "edit", "code": f"print({n})"}))

    threads = [threading.Thread(target=answer, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(won) == [False] * 5 + [True]
    assert approvals.get(pending.id).decision["code"].startswith("print(")


def test_a_withdrawn_action_cannot_be_answered_and_an_untouched_one_is_stale(store):
    approvals = ApprovalStore(store.engine)
    first = approvals.add("c1", "code", 1, code="print(1)")
    assert approvals.withdraw(first.id, "c1")
    assert not approvals.answer(first.id, "c1", {"action": "run"})
    second = approvals.add("c1", "code", 2, code="print(2)")
    long_ago = datetime.now(UTC) - timedelta(minutes=5)
    with store.engine.begin() as connection:
        connection.execute(
            update(PendingApprovalRow).where(PendingApprovalRow.id == second.id)
            .values(touched_at=long_ago)
        )  # fmt: skip
    assert approvals.get(second.id).stale
    approvals.touch(second.id)
    assert not approvals.get(second.id).stale


def test_deleting_the_conversation_deletes_its_pending_actions(store):
    approvals = ApprovalStore(store.engine)
    pending = approvals.add("c1", "code", 1, code="import os")
    assert store.delete("alice", "c1")
    assert approvals.get(pending.id) is None


def test_the_switch_and_the_allowed_tools_are_kept_per_conversation(store):
    approvals = ApprovalStore(store.engine)
    assert approvals.switch("c1").enabled is None  # the app's default
    approvals.set_enabled("c1", True)
    approvals.allow_tool("c1", "web_search")
    approvals.allow_tool("c1", "send_email")
    approvals.set_enabled("c1", False)
    switch = approvals.switch("c1")
    assert switch.enabled is False and switch.allowed_tools == ("send_email", "web_search")
    assert approvals.switch("new-one").allowed_tools == ()


def test_migration_0007_goes_down_and_up_again(store_url):
    engine = database.create_engine(store_url)
    migrate.upgrade(engine)
    assert {"pending_approvals", "approval_switches"} <= set(inspect(engine).get_table_names())
    from alembic import command

    with engine.begin() as connection:
        command.downgrade(migrate.alembic_config(connection), "0006")
    assert "pending_approvals" not in inspect(engine).get_table_names()
    migrate.upgrade(engine)
    assert "approval_switches" in inspect(engine).get_table_names()
    engine.dispose()


def test_migration_0012_keeps_the_model_output_and_goes_down_and_up_again(store):
    approvals = ApprovalStore(store.engine)
    output = {"role": "assistant", "content": "<code>\nfinal_answer(1)\n</code>"}
    kept = approvals.add("c1", "code", 1, "final_answer(1)", model_output=output)
    assert approvals.get(kept.id).model_output == output
    from alembic import command

    def columns() -> set[str]:
        return {c["name"] for c in inspect(store.engine).get_columns("pending_approvals")}

    with store.engine.begin() as connection:
        command.downgrade(migrate.alembic_config(connection), "0011")
    assert "model_output" not in columns()
    migrate.upgrade(store.engine)
    assert "model_output" in columns()
    assert approvals.get(kept.id).model_output is None, "the old row is kept, without one"
