"""Per-user limits and the turn queue: each limit hit and read, users kept apart, order kept."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest

from smolui.store.usage import StoreLedger
from smolui.turns.limits import MB, Limits, UsageLimiter, subjects_for, window_start
from smolui.turns.queue import Holder, QueueRefusal, TurnQueue, UserLimitReached, queue_message
from smolui.turns.usage_ledger import DAY_S, MemoryLedger

# 2026-11-23 14:40:00 UTC: 20 minutes before the hour, 9 h 20 min before the day resets.
NOW = datetime(2026, 11, 23, 14, 40, tzinfo=UTC).timestamp()


class Clock:
    def __init__(self, now: float = NOW):
        self.now = now

    def __call__(self) -> float:
        return self.now


def limiter(ledger=None, clock=None, **limits) -> UsageLimiter:
    return UsageLimiter(Limits(**limits), ledger or MemoryLedger(), clock or Clock())


def test_turns_per_hour_says_the_limit_the_figure_and_the_reset():
    usage = limiter(turns_per_hour=2)
    alice = ["password:alice"]
    for _ in range(2):
        assert usage.refusal(alice) is None
        usage.count_turn(alice)
    message = usage.refusal(alice)
    assert message is not None
    assert "2 turns this hour" in message and "used 2" in message
    assert "resets at 15:00 UTC (in 20 min)" in message and "Nothing was run" in message


def test_the_hour_resets_on_the_clock():
    clock = Clock()
    usage = limiter(clock=clock, turns_per_hour=1)
    usage.count_turn(["password:alice"])
    assert usage.refusal(["password:alice"]) is not None
    clock.now = window_start(NOW, 3600) + 3600  # 15:00
    assert usage.refusal(["password:alice"]) is None


def test_turns_per_day():
    usage = limiter(turns_per_day=1)
    usage.count_turn(["hf:julien"])
    message = usage.refusal(["hf:julien"])
    assert "1 turns today" in message and "resets at 00:00 UTC (in 9 h 20 min)" in message


def test_tokens_per_day_counted_from_what_the_model_reported():
    usage = limiter(tokens_per_day=1000)
    usage.count_tokens(["password:alice"], 600)
    assert usage.refusal(["password:alice"]) is None  # under the limit: the turn may start
    usage.count_tokens(["password:alice"], 450)
    message = usage.refusal(["password:alice"])
    assert "1,000 model tokens today" in message and "used 1,050" in message


def test_upload_megabytes_per_day():
    usage = limiter(upload_bytes_per_day=5 * MB)
    usage.count_turn(["password:alice"], upload_bytes=4 * MB)
    assert usage.refusal(["password:alice"], upload_bytes=MB // 2) is None
    message = usage.refusal(["password:alice"], upload_bytes=2 * MB)
    assert "5 MB of uploads today" in message and "used 4.0" in message
    assert "This message adds 2.0 MB" in message


def test_two_users_do_not_share_limits():
    usage = limiter(turns_per_hour=1)
    usage.count_turn(["password:alice"])
    assert usage.refusal(["password:alice"]) is not None
    assert usage.refusal(["password:bob"]) is None


def test_anonymous_visitors_are_limited_per_browser_key_and_per_address():
    usage = limiter(turns_per_hour=1)
    first = subjects_for("k" * 43, signed_in=False, client="10.0.0.9")
    assert first == ["key:" + "k" * 43, "ip:10.0.0.9"]
    usage.count_turn(first)
    # A new browser key (cleared storage) from the same address is still refused...
    message = usage.refusal(subjects_for("n" * 43, signed_in=False, client="10.0.0.9"))
    assert message is not None and "network address" in message
    # ...and a signed-in user is counted by name only.
    assert subjects_for("password:alice", signed_in=True, client="10.0.0.9") == ["password:alice"]
    assert usage.refusal(["password:alice"]) is None


def test_the_report_lists_everyone_busiest_first():
    clock = Clock()
    usage = limiter(clock=clock, turns_per_day=10)
    usage.count_turn(["password:bob"])
    clock.now -= 2 * 3600  # earlier today: counts for the day, not for this hour
    usage.count_turn(["password:alice"], upload_bytes=MB)
    usage.count_turn(["password:alice"])
    clock.now = NOW
    rows = usage.report()
    assert [row["subject"] for row in rows] == ["password:alice", "password:bob"]
    assert rows[0]["turns_today"] == 2 and rows[0]["turns_this_hour"] == 0
    assert rows[0]["upload_bytes_today"] == MB and rows[1]["turns_this_hour"] == 1


def test_no_limits_refuse_nothing():
    usage = limiter()
    for _ in range(50):
        usage.count_turn(["password:alice"], upload_bytes=MB)
    assert usage.refusal(["password:alice"], upload_bytes=100 * MB) is None
    assert not usage.limits.active


def test_usage_held_in_the_database_is_shared_by_replicas(store_url, tmp_path):
    from smolui.store import open_store

    first = open_store(tmp_path / "a", store_url)
    second = open_store(tmp_path / "b", store_url)  # another replica, same database
    try:
        clock = Clock()
        one = limiter(StoreLedger(first.engine), clock, turns_per_hour=2, tokens_per_day=100)
        two = limiter(StoreLedger(second.engine), clock, turns_per_hour=2, tokens_per_day=100)
        one.count_turn(["hf:julien"])
        two.count_turn(["hf:julien"])
        assert "used 2" in one.refusal(["hf:julien"])
        assert two.refusal(["hf:bob"]) is None
        two.count_tokens(["hf:bob"], 120)
        assert "model tokens" in one.refusal(["hf:bob"])
        assert one.usage("hf:julien")["turns_this_hour"] == 2
        report = {row["subject"]: row for row in two.report()}
        assert report["hf:julien"]["turns_today"] == 2 and report["hf:bob"]["tokens_today"] == 120
        clock.now = NOW + DAY_S
        assert one.refusal(["hf:julien"]) is None and one.refusal(["hf:bob"]) is None
    finally:
        first.close()
        second.close()


# -- the turn queue -----------------------------------------------------------------------


def test_turns_wait_in_order_and_see_their_position():
    queue = TurnQueue(slots=1, max_waiting=5, user_slots=1)
    running = queue.join("a")
    assert running.wait(0) and running.position == 0
    second, third = queue.join("b"), queue.join("c")
    assert (second.position, third.position, queue.waiting) == (1, 2, 2)
    assert not third.wait(0.01)
    running.release()
    assert second.wait(1) and not third.wait(0.01)
    assert third.position == 1 and queue.waiting == 1 and queue.running == 1


def test_stop_leaves_the_queue():
    queue = TurnQueue(slots=1, max_waiting=5)
    running = queue.join("a")
    waiting, behind = queue.join("b"), queue.join("c")
    waiting.leave()
    assert waiting.position == 0 and behind.position == 1 and queue.waiting == 1
    assert not waiting.wait(0.01)
    running.release()
    assert behind.wait(1)


def test_a_waiter_is_woken_when_a_slot_frees():
    queue = TurnQueue(slots=1)
    running = queue.join("a")
    waiter = queue.join("b")
    admitted = []
    thread = threading.Thread(target=lambda: admitted.append(waiter.wait(5)))
    thread.start()
    running.release()
    thread.join(5)
    assert admitted == [True]


def test_one_user_runs_one_turn_at_a_time_and_others_are_not_blocked():
    queue = TurnQueue(slots=4, user_slots=1)
    queue.join("password:alice")
    with pytest.raises(QueueRefusal, match="each user may run 1 at a time"):
        queue.join("password:alice")
    assert queue.join("password:bob").wait(0)


def test_the_user_limit_names_the_conversation_holding_it_and_what_to_do():
    queue = TurnQueue(slots=1, user_slots=2)
    queue.join("key:k", "c-running")
    queue.join("password:bob", "c-bob")
    queue.join("key:k", "c-queued")  # waits behind bob's turn
    with pytest.raises(UserLimitReached) as refused:
        queue.join("key:k", "c-new")
    names = {"c-running": Holder("Plot the sales"), "c-queued": Holder("Sum a column")}
    said = refused.value.message(names.get)
    assert "your turn in “Plot the sales” is still running" in said
    assert "your message in “Sum a column” waits in the queue" in said
    assert "open it and stop it" in said and "c-bob" not in said and "Nothing was run." in said
    # Without names (an API client, or a conversation that is not theirs): none is named.
    assert "a turn in another conversation is running" in str(refused.value)


def test_a_turn_waiting_for_approval_is_named_as_waiting_for_the_person():
    queue = TurnQueue(slots=4, user_slots=1)
    queue.join("key:k", "c-asks")
    with pytest.raises(UserLimitReached) as refused:
        queue.join("key:k", "c-new")
    said = refused.value.message({"c-asks": Holder("Delete old files", True)}.get)
    assert "“Delete old files” is waiting for your approval, not working" in said
    assert "run or skip the action shown there, or stop that turn" in said
    assert "still running" not in said


def test_a_full_queue_refuses_with_a_clear_message():
    queue = TurnQueue(slots=1, max_waiting=1, user_slots=0)
    queue.join("a")
    queue.join("b")
    with pytest.raises(QueueRefusal, match="server is full"):
        queue.join("c")


def test_the_wait_is_estimated_from_finished_turns():
    clock = Clock(0.0)
    queue = TurnQueue(slots=2, clock=clock, user_slots=0)
    assert queue.estimated_wait_s(1) is None
    slot = queue.join("a")
    clock.now = 30.0
    slot.release()
    assert queue.estimated_wait_s(1) == 30.0 and queue.estimated_wait_s(3) == 60.0
    text = queue_message(3, 4, 60.0)
    assert "number 3 of 4" in text and "About 1 min" in text and "Stop leaves the queue" in text


def test_the_memory_ledger_forgets_subjects_that_never_come_back():
    # Visitors rotating keys or addresses each leave a subject: old ones must not pile up.
    ledger = MemoryLedger(keep_s=100.0)
    for visitor in range(50):
        ledger.add(f"ip:10.0.0.{visitor}", "turn", 1, at=1000.0 + visitor)
    assert len(ledger.totals("turn", since=0.0)) == 50
    ledger.add("ip:10.0.1.1", "turn", 1, at=1000.0 + 49 + 101)  # later than keep_s and a sweep
    assert ledger.totals("turn", since=0.0) == {"ip:10.0.1.1": 1}
