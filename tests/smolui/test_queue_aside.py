"""A turn waiting for its person's approval steps aside in the turn queue: it holds no slot,
so an abandoned wait (its browser closed) locks nobody at the address out; once answered it
takes a slot back ahead of new turns, after the person's other running turn. And a refusal
for a browser sharing an address says what holds the slot and when it frees."""

from __future__ import annotations

import pytest

from smolui.turns.queue import TurnQueue, UserLimitReached


def test_a_turn_that_steps_aside_frees_the_address_for_another_browser():
    queue = TurnQueue(slots=1, user_slots=1)
    asks = queue.join("ip:10.0.0.7", "c-asks")
    assert asks.wait(0)
    asks.step_aside()  # waits for its person, who closed the browser
    other = queue.join("ip:10.0.0.7", "c-new")  # refused before the fix
    assert other.wait(0), "the new browser runs at once"
    assert queue.running == 1


def test_an_answered_turn_waits_for_the_persons_other_turn_then_goes_first():
    queue = TurnQueue(slots=4, user_slots=1)
    asks = queue.join("key:k", "c-asks")
    asks.step_aside()
    other = queue.join("key:k", "c-other")
    assert other.wait(0)
    asks.take_back()
    assert not asks.wait(0) and asks.position == 1, "in line, first"
    with pytest.raises(UserLimitReached) as refused:
        queue.join("key:k", "c-third")  # the answered turn counts again
    assert "waits in the queue" in str(refused.value)
    other.release()
    assert asks.wait(0)
    asks.release()
    assert queue.running == 0 and queue.join("key:k").wait(0), "nothing left counted"


def test_an_answered_turn_goes_before_turns_that_joined_while_it_waited():
    queue = TurnQueue(slots=1, user_slots=0)
    asks = queue.join("a", "c-asks")
    asks.step_aside()
    running = queue.join("b")
    later = queue.join("c")
    asks.take_back()
    assert asks.position == 1 and later.position == 2
    running.release()
    assert asks.wait(0) and not later.wait(0)


def test_a_turn_stopped_while_aside_gives_nothing_back_twice():
    queue = TurnQueue(slots=1, user_slots=1)
    asks = queue.join("key:k")
    asks.step_aside()
    held = queue.join("key:k")
    asks.release()  # stopped while it waited: the turn ends
    with pytest.raises(UserLimitReached):
        queue.join("key:k")  # `held` still counts: the stop did not free it twice
    held.release()
    assert queue.join("key:k").wait(0)


def test_a_browser_sharing_an_address_is_told_what_holds_the_slot_and_when_it_frees():
    queue = TurnQueue(slots=2, user_slots=1)
    queue.join("ip:10.0.0.7", "c-elsewhere")
    with pytest.raises(UserLimitReached) as refused:
        queue.join("ip:10.0.0.7", "c-mine")
    said = refused.value.message(lambda conversation: None)  # not this browser's to name
    assert "another browser at this address is running" in said
    assert "frees by itself as soon as that turn ends" in said
    assert "waiting there for approval does not hold it" in said
    assert "stop it" not in said, "this browser cannot see or stop it"
