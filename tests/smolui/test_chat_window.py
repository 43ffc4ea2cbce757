"""The page's window on a long chat: where it opens, how earlier messages come back, and
how an index the page gives maps to the conversation's (`smolui.render.chat_window`)."""

from __future__ import annotations

import pytest

from smolui.render.chat_window import (
    earlier_start,
    full_index,
    messages_seen,
    shown_versions,
    turn_starts,
    window_start,
)


def user(text: str) -> dict:
    return {"role": "user", "content": text}


def bot(text: str) -> dict:
    return {"role": "assistant", "content": text}


def turns(count: int, answers: int = 3) -> list[dict]:
    """`count` turns: the person's message, then `answers` messages of the agent's."""
    chat: list[dict] = []
    for n in range(count):
        chat += [user(f"q{n}")] + [bot(f"a{n}.{k}") for k in range(answers)]
    return chat


def test_turns_start_at_the_first_of_the_persons_messages():
    chat = [bot("notice"), user("file"), user("text"), bot("a"), user("again"), bot("b")]
    assert turn_starts(chat) == [1, 4]


def test_a_short_chat_is_shown_whole_and_a_zero_window_is_off():
    chat = turns(3)
    assert window_start(chat, 20) == 0
    assert window_start(turns(30), 0) == 0


def test_the_window_opens_on_the_first_turn_that_fits_the_last_messages():
    chat = turns(10)  # 40 messages, a turn every 4
    start = window_start(chat, 10)
    assert start == 32  # the last two turns: 8 messages; three would be 12
    assert chat[start] == user("q8")
    assert len(chat) - start <= 10


def test_a_last_turn_longer_than_the_window_is_shown_whole():
    chat = turns(2) + [user("long")] + [bot(f"step {k}") for k in range(30)]
    assert window_start(chat, 10) == 8
    assert chat[8] == user("long")


def test_a_chat_without_the_persons_messages_is_shown_whole():
    assert window_start([bot(f"n{k}") for k in range(30)], 10) == 0


def test_the_window_keeps_the_message_acted_on():
    chat = turns(10)
    assert window_start(chat, 10, keep=13) == 12  # the turn holding message 13
    assert window_start(chat, 10, keep=39) == 32  # already shown: no change


def test_earlier_messages_come_a_window_at_a_time_down_to_the_first():
    chat = turns(10, answers=1)  # a question and its answer: 2 messages a turn
    start = window_start(chat, 10)
    seen = [start]
    while start > 0:
        start = earlier_start(chat, start, 10)
        seen.append(start)
    assert seen == [10, 0]  # 5 turns a click


def test_earlier_messages_count_what_the_person_sees_not_the_steps_blocks():
    # Turns of a question, three steps of four blocks each, the answer and its footer.
    chat: list[dict] = []
    for n in range(12):
        steps = [
            {"role": "assistant", "content": part, "metadata": {"title": "Step", "id": f"{n}.{k}"}}
            for k in range(3)
            for part in ("thought", "code", "output", "log")
        ]
        chat += [user(f"q{n}"), *steps, bot(f"answer {n}"), bot("<sub>3 steps</sub>")]
    start = turn_starts(chat)[-1]
    earlier = earlier_start(chat, start, 20)
    assert messages_seen(chat[earlier:start]) == 20  # ten questions and ten answers
    assert turn_starts(chat).index(earlier) == 1


def test_earlier_messages_bring_at_least_one_turn():
    chat = turns(3, answers=20)  # 21 messages a turn: more than a window
    assert earlier_start(chat, 42, 10) == 21
    assert earlier_start(chat, 42, 1) == 21  # one turn, however small the window
    assert earlier_start(chat, 0, 10) == 0
    assert earlier_start(chat, 42, 0) == 0  # no window: everything


def test_an_index_in_the_window_maps_to_the_conversation():
    chat = turns(10)
    start = window_start(chat, 10)
    window = chat[start:]
    for index, item in enumerate(window):
        assert chat[full_index(start, index)] is item
    with pytest.raises(ValueError, match="cannot be negative"):
        full_index(start, -1)


def test_switchers_are_placed_by_the_turn_counted_in_the_window():
    chat = turns(10)
    start = window_start(chat, 10)  # turns 8 and 9 shown
    versions = [
        {"position": 4, "current": 2, "total": 2, "role": "user", "turn": 1},
        {"position": 33, "current": 1, "total": 3, "role": "assistant", "turn": 8},
        {"position": 36, "current": 2, "total": 2, "role": "user", "turn": 9},
    ]
    shown = shown_versions(versions, chat, start)
    assert [(v["position"], v["turn"]) for v in shown] == [(33, 0), (36, 1)]
    assert shown_versions(versions, chat, 0) == versions


def test_the_earlier_count_is_of_messages_a_person_sees_not_of_step_blocks():
    step = {"role": "assistant", "content": "", "metadata": {"title": "Step 1", "id": "s1"}}
    parts = [
        {"role": "assistant", "content": text, "metadata": {"parent_id": "s1"}}
        for text in ("Thought: look.", "```python\nprint(1)\n```", "1")
    ]
    footer = bot("<sub>✓ answered · 1 step · 2 s</sub>")
    turn = [user("q"), step, *parts, bot("The answer."), footer]
    assert messages_seen(turn * 3) == 6, "three questions and their three answers"
    # The page sends messages back in gradio's form: blocks, and metadata with empty keys.
    normalized = [
        {
            "role": m["role"],
            "content": [{"type": "text", "text": m["content"]}],
            "metadata": {"title": None, "parent_id": None, **m.get("metadata", {})},
        }
        for m in turn
    ]
    assert messages_seen(normalized) == 2
    notice = bot("ℹ️ Stopped.")
    assert messages_seen([user("q"), notice]) == 2, "a note the person reads counts"


def test_the_earlier_button_counts_messages_seen():
    from smolui.ui.chat_window import PageWindow

    step = {"role": "assistant", "content": "", "metadata": {"title": "Step 1", "id": "s1"}}
    turn = [user("q"), step, bot("The answer."), bot("<sub>1 step</sub>")]
    window = PageWindow(chatbot=None, earlier=None, button=None, size=4)
    shown, earlier, button = window.cut(turn * 3)
    assert len(shown) == 4 and len(earlier) == 8
    assert button.value == "↑ Earlier messages (4)" and button.visible is True
    assert window.cut(turn)[2].visible is False
