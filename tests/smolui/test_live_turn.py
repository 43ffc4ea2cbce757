"""A running turn's chat, followed by pages that arrive at any time."""

from __future__ import annotations

import threading
import time

from smolui.turns.live import LiveTurn


def chat(text: str) -> list[dict]:
    return [{"role": "assistant", "content": text}]


def test_a_follower_sees_the_chat_now_then_each_change_to_the_end():
    live = LiveTurn(chat("start"))

    def publish() -> None:
        for step in ("one", "two"):
            time.sleep(0.05)
            live.publish(chat(step))
        live.publish(chat("end"), done=True)

    threading.Thread(target=publish).start()
    seen = [c[0]["content"] for c in live.follow()]
    assert seen[0] == "start" and seen[-1] == "end" and live.done
    assert seen == sorted(set(seen), key=seen.index), "no version twice"


def test_a_page_shown_the_turn_part_way_follows_it_once_even_after_it_ended():
    live = LiveTurn(chat("start"))
    assert live.shown_to("page-1") == chat("start")
    live.publish(chat("end"), done=True)
    assert not live.claim("page-2"), "a page that was not shown the turn has nothing to follow"
    assert live.claim("page-1") and [c for c in live.follow()] == [chat("end")]
    assert not live.claim("page-1")
