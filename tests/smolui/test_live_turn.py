"""A running turn's chat, followed by pages that arrive at any time."""

from __future__ import annotations

import threading

from smolui.turns.live import LiveTurn
from tests.waiting import wait_for


def chat(text: str) -> list[dict]:
    return [{"role": "assistant", "content": text}]


def test_a_follower_sees_the_chat_now_then_each_change_to_the_end():
    live = LiveTurn(chat("start"))
    seen: list[str] = []

    def follow() -> None:
        for version in live.follow():
            seen.append(version[0]["content"])

    def after_seeing(text: str) -> None:  # publish only once the follower has the version before
        wait_for(lambda: text in seen, f"the follower saw {text!r}")

    follower = threading.Thread(target=follow, daemon=True)
    follower.start()
    try:
        for before, step in (("start", "one"), ("one", "two")):
            after_seeing(before)
            live.publish(chat(step))
        after_seeing("two")
    finally:
        live.publish(chat("end"), done=True)  # ends the follower, even after a failure
    follower.join(60)
    assert not follower.is_alive(), "the follower ends with the turn"
    assert seen[0] == "start" and seen[-1] == "end" and live.done
    assert seen == sorted(set(seen), key=seen.index), "no version twice"


def test_a_page_shown_the_turn_part_way_follows_it_once_even_after_it_ended():
    live = LiveTurn(chat("start"))
    assert live.shown_to("page-1") == chat("start")
    live.publish(chat("end"), done=True)
    assert not live.claim("page-2"), "a page that was not shown the turn has nothing to follow"
    assert live.claim("page-1") and [c for c in live.follow()] == [chat("end")]
    assert not live.claim("page-1")
