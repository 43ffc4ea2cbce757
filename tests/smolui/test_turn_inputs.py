"""A sent message's turn does not carry the whole chat back from the page (issue 31: a turn's
cost does not grow with the conversation): checked in the events of the built app."""

from __future__ import annotations

from pathlib import Path

import pytest

from smolui.app.gradio_ui import GradioUI
from smolui.app.settings import Settings


@pytest.fixture
def built(tmp_path: Path):
    settings = Settings(model="scripted", executor="local", data_dir=str(tmp_path))
    ui = GradioUI(lambda: None, settings=settings, model_label=lambda: "scripted")
    demo = ui.create_app()
    yield demo
    ui.close()


def chain_from(demo, first) -> list:
    """The event `first` and every step it triggers after it, in order."""
    fns = list(demo.fns.values())
    chain = [first]
    while True:
        following = [fn for fn in fns if fn.trigger_after == chain[-1]._id]
        if not following:
            return chain
        chain.append(following[0])


def test_the_turn_of_a_sent_message_takes_no_chat_from_the_page(built):
    chatbot = next(block for block in built.blocks.values() if block.elem_id == "chat")
    box = next(block for block in built.blocks.values() if block.elem_id == "message")
    sent = [fn for fn in built.fns.values() if (box._id, "submit") in fn.targets]
    assert len(sent) == 1
    steps = chain_from(built, sent[0])
    turns = [step for step in steps if step.queue and step.fn is not None]
    assert turns, "the sent message starts no queued turn"
    for step in turns:  # the chat it needs is on the server already
        assert chatbot not in step.inputs, f"{step.name} takes the whole chat from the page"
    # The one step that still reads it is the echo, outside the queue.
    reading = [step for step in steps if chatbot in step.inputs]
    assert [step.name for step in reading] == ["echo"]
