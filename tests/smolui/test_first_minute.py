"""The first-minute fixes of issue 31, without a browser (an example's click:
tests/smolui/test_example_send.py): step images are lifted where the page can draw them, a
stop keeps the step the person saw begin and says it stopped, the panel follows a turn a
reloaded page joins, and one upload size limit."""

from __future__ import annotations

import re
from pathlib import Path

from agents.loop.code_agent import CodeAgent
from agents.memory.steps import ActionStep, Timing, ToolCall
from agents.models.messages import ChatMessageStreamDelta
from agents.models.scripted import ScriptedModel
from smolui.app.settings import Settings
from smolui.handlers.chat import STOP_NOTE, ChatHandlers, HandlerConfig
from smolui.render.messages import IMAGE_TITLE, render_action_step
from smolui.render.step_images import lift_step_images
from smolui.sessions import SessionRegistry
from smolui.turns.live import LiveTurn
from smolui.turns.view import STOPPED_WAITING, TurnView
from smolui.uploads import UploadPolicy
from smolui.uploads.policy import MB

README = Path(__file__).resolve().parents[2] / "README.md"


def meta(message: dict) -> dict:
    return message.get("metadata") or {}


def image_step(images: int) -> list[dict]:
    step = ActionStep(
        step_number=1,
        timing=Timing(0.0, 1.0),
        model_output="Thought: plot.\n<code>\nplot()\n</code>",
        code_action="plot()",
        tool_calls=[ToolCall("python_interpreter", "plot()", "call_1")],
        observations_images=[f"IMAGE-{n}" for n in range(images)],
    )
    sink = iter(range(images))
    return render_action_step(
        step, "t-1", files=lambda _: {"path": f"/m/{next(sink)}.png", "mime_type": "image/png"}
    )


def test_a_steps_first_image_becomes_the_step_blocks_content():
    lifted = lift_step_images(image_step(2))
    parent = lifted[0]
    assert parent["content"] == {"path": "/m/0.png", "mime_type": "image/png"}
    assert meta(parent)["title"] == "Step 1 · ran code" and "parent_id" not in meta(parent)
    children = [m for m in lifted if meta(m).get("parent_id") == "t-1"]
    assert [meta(c)["title"] for c in children] == ["Thought", "Code", IMAGE_TITLE]
    assert children[-1]["content"]["path"] == "/m/1.png", "the second image stays a child"
    assert lift_step_images(lifted) == lifted, "lifting twice changes nothing"


def test_steps_without_images_and_nested_steps_are_left_as_they_are():
    plain = image_step(0)
    assert lift_step_images(plain) is plain
    nested = [
        {**m, "metadata": {**meta(m), "parent_id": meta(m).get("parent_id") or "call"}}
        for m in image_step(1)
    ]
    assert lift_step_images(nested) == nested, "a nested step cannot load the image either"


def test_a_chat_as_the_page_sends_it_back_is_lifted_too():
    """gradio hands handlers every content as a list of blocks."""
    chat = [
        {"role": "user", "content": [{"type": "text", "text": "plot"}]},
        {
            "role": "assistant",
            "content": [{"type": "text", "text": ""}],
            "metadata": {"title": "Step 1 · ran code", "id": "a-1", "status": "done"},
        },
        {
            "role": "assistant",
            "content": [{"type": "file", "file": {"path": "/m/0.png"}}],
            "metadata": {"title": IMAGE_TITLE, "id": "a-1.i0", "parent_id": "a-1"},
        },
    ]
    lifted = lift_step_images(chat)
    assert len(lifted) == 2
    assert lifted[1]["content"] == [{"type": "file", "file": {"path": "/m/0.png"}}]


def test_a_finished_step_in_the_live_view_carries_its_image():
    view = TurnView("t", files=lambda _: {"path": "/m/p.png", "mime_type": "image/png"})
    view.apply(ChatMessageStreamDelta(content="Thought: plot."))
    view.apply(
        ActionStep(
            step_number=1, timing=Timing(0.0, 1.0), code_action="plot()",
            tool_calls=[ToolCall("python_interpreter", "plot()", "c1")],
            observations_images=["IMAGE"],
        )
    )  # fmt: skip
    step = next(m for m in view.messages if meta(m).get("id") == "t-1")
    assert step["content"] == {"path": "/m/p.png", "mime_type": "image/png"}


def test_a_stop_before_the_model_wrote_anything_keeps_the_step_and_counts_it():
    view = TurnView("t")  # the first step shows as "thinking…" before any token
    view.finish("stopped", 12.0, note=STOP_NOTE)
    titles = [meta(m).get("title") for m in view.messages]
    assert titles[0] == "Step 1 · stopped"
    assert meta(view.messages[0])["log"] == STOPPED_WAITING
    assert "stopped · 1 step ·" in view.messages[-1]["content"]


def test_a_stop_mid_step_keeps_its_streamed_text_and_counts_it():
    view = TurnView("t")
    view.apply(ChatMessageStreamDelta(content="Thought: weigh every box"))
    view.finish("stopped", 3.0, note=STOP_NOTE)
    assert meta(view.messages[0])["title"] == "Step 1 · stopped"
    assert "log" not in meta(view.messages[0])
    assert view.messages[1]["content"] == "Thought: weigh every box"
    assert "1 step ·" in view.messages[-1]["content"]


def test_a_failed_turn_still_drops_a_step_that_showed_nothing():
    view = TurnView("t")
    view.finish("failed", 1.0, note="The model is unreachable.")
    assert not any(meta(m).get("title", "").startswith("Step") for m in view.messages)


def test_the_stop_note_says_the_turn_stopped():
    assert STOP_NOTE.startswith("Stopped.")
    assert "boundary" not in STOP_NOTE and "halts" not in STOP_NOTE


def test_the_panel_says_a_turn_runs_while_a_reloaded_page_follows_it(tmp_path: Path):
    def factory(*_) -> CodeAgent:
        return CodeAgent([], ScriptedModel(["x"]), executor_type="local", verbosity_level=-1)

    registry = SessionRegistry(factory, tmp_path / "uploads")
    config = HandlerConfig(policy=UploadPolicy(), max_steps=2, executor_type="local")
    chat = ChatHandlers(registry, config)
    session = registry.open(None, "page")
    try:
        assert "Now:** ready" in chat.side_panel(session.id)
        assert session.begin_turn()
        session.live_turn = LiveTurn([{"role": "user", "content": "hi"}])
        assert "Now:** answering" in chat.side_panel(session.id), "a reloaded page, mid-turn"
        session.live_turn.publish([], done=True)  # stopped: the page's turn is over...
        assert "Now:** ready" in chat.side_panel(session.id), "...while its agent ends its step"
        session.end_turn()
    finally:
        registry.close_all()


def test_one_upload_size_limit_in_the_settings_the_checks_and_the_readme():
    limit_mb = Settings().max_file_size_mb
    assert limit_mb * MB == UploadPolicy().max_file_bytes
    uploads = README.read_text(encoding="utf-8").split("## Uploads", 1)[1].split("\n## ", 1)[0]
    assert re.search(rf"\b{limit_mb:g} MB per file\b", uploads), "the README says another limit"
