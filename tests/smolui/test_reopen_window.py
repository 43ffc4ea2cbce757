"""A reopened conversation shows its last questions whole, however many step messages its
turns hold (`smolui.render.chat_window`): the default window of 20 messages once opened a
two-question chat of 11-message turns on its second question."""

from __future__ import annotations

from smolui.render.chat_window import CHAT_WINDOW, turns_kept, window_start
from smolui.ui.chat_window import PageWindow


def agent_turn(question: str, steps: int = 3) -> list[dict]:
    """One turn as the page renders it: the question, each step with its thought, code and
    output as children, the answer and its footer (11 messages for three steps)."""
    chat = [{"role": "user", "content": question}]
    for step in range(steps):
        chat.append({"role": "assistant", "content": "", "metadata": {"title": f"Step {step}"}})
        chat += [{"role": "assistant", "content": f"{question} {step} {part}"} for part in "tc"]
    return chat + [
        {"role": "assistant", "content": f"Answer to {question}"},
        {"role": "assistant", "content": "<sub>answered</sub>"},
    ]


def questions(chat: list[dict]) -> list[str]:
    return [m["content"] for m in chat if m["role"] == "user"]


def test_a_two_question_chat_reopens_with_both_questions():
    chat = agent_turn("first?") + agent_turn("second?")
    assert len(chat) > CHAT_WINDOW  # more messages than the window holds
    shown, earlier, button = PageWindow(None, None, None).cut(chat)
    assert questions(shown) == ["first?", "second?"]
    assert earlier == [] and button.visible is False


def test_a_long_chat_reopens_on_its_last_questions_whole_with_the_rest_held_back():
    chat = [m for n in range(6) for m in agent_turn(f"q{n}?")]
    shown, earlier, button = PageWindow(None, None, None).cut(chat)
    assert questions(shown) == ["q3?", "q4?", "q5?"]  # turns_kept(20) == 3
    assert shown[0]["role"] == "user", "the window never opens mid-turn"
    assert earlier + shown == chat and button.visible is True


def test_short_turns_still_fill_the_window_and_a_tiny_window_keeps_one_turn():
    chat = [m for n in range(10) for m in agent_turn(f"q{n}?", steps=0)]  # 3 messages a turn
    assert questions(chat[window_start(chat, CHAT_WINDOW) :]) == [f"q{n}?" for n in range(4, 10)]
    assert turns_kept(4) == 1
    assert questions(chat[window_start(chat, 4) :]) == ["q9?"]
