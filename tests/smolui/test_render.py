"""The renderer: every stream event kind becomes the right chat messages, with no server."""

from __future__ import annotations

from agents.errors import AgentExecutionError, AgentParsingError
from agents.events import SubAgentEvent
from agents.memory.steps import (
    ActionOutput,
    ActionStep,
    FinalAnswerStep,
    PlanningStep,
    Timing,
    ToolCall,
    ToolOutput,
)
from agents.models.messages import ChatMessage, ChatMessageStreamDelta, TokenUsage
from smolui.render.durations import plain_title
from smolui.render.messages import (
    fenced,
    render_action_step,
    render_final_answer,
    render_footer,
    render_planning_step,
    thought_text,
)
from smolui.turns.view import TurnView

CODE = "x = 6 * 7\nprint(x)"
OUTPUT = f"Thought: I multiply.\n<code>\n{CODE}\n</code>"


def code_step(number: int = 1, **overrides) -> ActionStep:
    values = dict(
        step_number=number,
        timing=Timing(start_time=100.0, end_time=101.25),
        model_output=OUTPUT,
        code_action=CODE,
        tool_calls=[ToolCall("python_interpreter", CODE, f"call_{number}")],
        observations="Execution logs:\n42\nLast output from code snippet:\nNone",
        token_usage=TokenUsage(100, 20),
    )
    values.update(overrides)
    return ActionStep(**values)


def meta(message: dict) -> dict:
    return message.get("metadata") or {}


def test_action_step_parent_has_title_id_status_and_a_log_with_tokens_and_time():
    parent, *children = render_action_step(code_step(2), "t-1")
    assert meta(parent)["title"] == "Step 2 · ran code"
    assert meta(parent)["id"] == "t-1"
    assert meta(parent)["status"] == "done"
    assert "duration" not in meta(parent), "gradio would write it its own way: (20.0ms), (0s)"
    assert meta(parent)["log"].endswith("120 tokens · 1.2 s")
    assert all(meta(c)["parent_id"] == "t-1" for c in children)
    titles = [meta(c)["title"] for c in children]
    assert titles == ["Thought", "Code", "Execution logs"]


def test_thought_has_no_code_and_code_is_a_python_block():
    _, thought, code, logs = render_action_step(code_step(), "b")
    assert thought["content"] == "I multiply."
    assert code["content"] == f"```python\n{CODE}\n```"
    assert "42" in logs["content"] and logs["content"].startswith("```text")


def test_every_tool_call_is_shown_with_its_arguments():
    step = ActionStep(
        step_number=1,
        timing=Timing(0.0, 1.0),
        model_output="",
        tool_calls=[
            ToolCall("web_search", {"query": "gradio 6"}, "a"),
            ToolCall("visit_webpage", {"url": "http://x.test"}, "b"),
        ],
        observations="result one\nresult two",
    )
    parent, first, second, observations = render_action_step(step, "b")
    assert meta(parent)["title"] == "Step 1 · called web_search, visit_webpage"
    assert (
        meta(first)["title"] == "Called `web_search`" and '"query": "gradio 6"' in first["content"]
    )
    assert (
        meta(second)["title"] == "Called `visit_webpage`" and "http://x.test" in second["content"]
    )
    assert meta(observations)["title"] == "Observations"


def test_errors_are_a_distinct_child_and_mark_the_title():
    error = AgentExecutionError("Code execution failed: NameError: name 'y' is not defined")
    parent, *children = render_action_step(code_step(error=error, observations=None), "b")
    assert meta(parent)["title"].endswith("⚠ error")
    (err,) = [c for c in children if meta(c)["title"].startswith("✕")]
    assert meta(err)["title"] == "✕ The code raised an error"
    assert "NameError" in err["content"]
    assert "raised an error" not in err["content"], "the title is not repeated in the body"


def test_error_messages_are_redacted(monkeypatch):
    monkeypatch.setenv("MY_SERVICE_TOKEN", "supersecretvalue123")
    error = AgentParsingError("bad output near supersecretvalue123 and hf_abcdefghijklmnop")
    _, *children = render_action_step(code_step(error=error), "b")
    text = children[-1]["content"]
    assert "supersecretvalue123" not in text and "hf_abcdefghijklmnop" not in text
    assert "***" in text


def test_images_become_file_children_through_the_sink():
    saved = []

    def sink(image):
        saved.append(image)
        return {"path": f"/tmp/img{len(saved)}.png", "mime_type": "image/png"}

    step = code_step(observations_images=["IMAGE-A", "IMAGE-B"])
    messages = render_action_step(step, "b", files=sink)
    files = [m["content"] for m in messages if isinstance(m["content"], dict)]
    assert saved == ["IMAGE-A", "IMAGE-B"]
    titles = [meta(m)["title"] for m in messages if isinstance(m["content"], dict)]
    assert titles == ["Image", "Image"]  # plain words: no emoji font needed
    assert files == [
        {"path": "/tmp/img1.png", "mime_type": "image/png"},
        {"path": "/tmp/img2.png", "mime_type": "image/png"},
    ]


def test_planning_step_is_distinct():
    plan = PlanningStep(
        model_input_messages=[],
        model_output_message=ChatMessage(role="assistant", content="1. search"),
        plan="1. search\n2. answer",
        timing=Timing(0.0, 0.5),
        token_usage=TokenUsage(10, 5),
    )
    (message,) = render_planning_step(plan, "p")
    assert meta(message)["title"] == "Plan"
    assert message["content"] == "1. search\n2. answer"
    assert meta(message)["status"] == "done" and "15 tokens" in meta(message)["log"]


def test_final_answer_is_a_plain_message():
    assert render_final_answer("42") == {"role": "assistant", "content": "42"}
    assert "metadata" not in render_final_answer({"a": 1})
    assert render_final_answer({"a": 1})["content"].startswith("```json")
    assert render_final_answer(None)["content"] == "The agent finished without an answer."


def test_final_image_answer_goes_through_the_sink():
    from PIL import Image

    image = Image.new("RGB", (4, 4), "red")
    message = render_final_answer(
        image, files=lambda value: {"path": "/tmp/a.png", "mime_type": "image/png"}
    )
    assert message == {
        "role": "assistant",
        "content": {"path": "/tmp/a.png", "mime_type": "image/png"},
    }


def test_footer_sums_steps_tokens_and_time():
    footer = render_footer(3, TokenUsage(1000, 234), 4.21)
    assert footer["content"] == "<sub>✓ answered · 3 steps · 1,234 tokens · 4.2 s</sub>"
    assert "stopped" in render_footer(1, TokenUsage(), 1.0, "stopped")["content"]


def test_fence_outgrows_backticks_in_the_content():
    assert fenced("a ``` b").startswith("````\n")


def test_thought_text_strips_markdown_fences_and_markers():
    text = "Thought: look\n```py\nprint(1)\n```<end_code>"
    assert thought_text(text, "print(1)") == "look"
    assert thought_text("Thought: only words") == "only words"


# -- the turn view: streaming and the whole turn -----------------------------------------------


def test_a_turn_shows_pending_then_done_steps_then_answer_and_footer():
    view = TurnView("t")
    assert [meta(m)["status"] for m in view.messages] == ["pending"]
    view.apply(ChatMessageStreamDelta(content="Thought: I "))
    view.apply(ChatMessageStreamDelta(content="multiply."))
    assert view.messages[1]["content"] == "Thought: I multiply."
    view.apply(ToolCall("python_interpreter", CODE, "call_1"))
    assert plain_title(meta(view.messages[0])["title"]) == "Step 1 · running code…"
    assert meta(view.messages[0])["status"] == "pending"
    view.apply(ActionOutput(None, False))
    view.apply(code_step(1))
    assert meta(view.messages[0])["status"] == "done"
    # the next step is already shown as pending
    assert {**meta(view.messages[-1]), "title": plain_title(meta(view.messages[-1])["title"])} == {
        "title": "Step 2 · thinking…",
        "id": "t-2",
        "status": "pending",
    }
    final = code_step(
        2,
        is_final_answer=True,
        code_action="final_answer(42)",
        tool_calls=[ToolCall("python_interpreter", "final_answer(42)", "c2")],
    )
    view.apply(final)
    view.apply(FinalAnswerStep(42))
    view.finish("done", 2.0)
    statuses = [
        meta(m).get("status") for m in view.messages if meta(m).get("title", "").startswith("Step")
    ]
    assert statuses == ["done", "done"]
    assert view.messages[-2] == {"role": "assistant", "content": "42"}
    assert (
        "2 steps" in view.messages[-1]["content"] and "240 tokens" in view.messages[-1]["content"]
    )


def test_streamed_text_is_not_duplicated_when_the_step_completes():
    view = TurnView("t")
    for piece in ["Thought: I ", "multiply.\n<code>\n", CODE, "\n</code>"]:
        view.apply(ChatMessageStreamDelta(content=piece))
    view.apply(code_step(1))
    step_messages = [m for m in view.messages if meta(m).get("id", "").startswith("t-1")]
    thoughts = [m for m in step_messages if meta(m).get("title") == "Thought"]
    assert len(thoughts) == 1 and thoughts[0]["content"] == "I multiply."
    assert sum(CODE in str(m["content"]) for m in step_messages) == 1


def test_tool_outputs_show_while_running_and_are_replaced_by_the_step():
    view = TurnView("t")
    call = ToolCall("web_search", {"query": "q"}, "a")
    view.apply(call)
    view.apply(ToolOutput("a", "found it", False, "found it", call))
    assert [meta(m)["title"] for m in view.messages[1:]] == [
        "Called `web_search`",
        "Output of web_search",
    ]
    view.apply(
        ActionStep(
            step_number=1, timing=Timing(0.0, 1.0), tool_calls=[call], observations="found it"
        )
    )
    titles = [meta(m).get("title") for m in view.messages]
    assert titles.count("Called `web_search`") == 1
    assert "Output of web_search" not in titles


def test_planning_then_action_steps_get_their_own_blocks():
    view = TurnView("t")
    view.apply(ChatMessageStreamDelta(content="1. do it"))
    view.apply(PlanningStep([], ChatMessage(role="assistant", content="1. do it"), "1. do it"))
    assert meta(view.messages[0])["title"] == "Plan"
    assert meta(view.messages[-1])["status"] == "pending"
    view.apply(code_step(1))
    ids = [meta(m)["id"] for m in view.messages if "parent_id" not in meta(m)]
    assert len(ids) == len(set(ids)) == 3  # plan, step 1, pending step 2


def test_stopped_turn_marks_the_running_step_and_says_so():
    view = TurnView("t")
    view.apply(ChatMessageStreamDelta(content="thinking hard"))
    view.finish("stopped", 0.5, note="Stopped.")
    assert meta(view.messages[0]) == {"title": "Step 1 · stopped", "id": "t-1", "status": "done"}
    assert view.messages[-2]["content"].startswith("■")
    assert "stopped" in view.messages[-1]["content"]


def test_unstarted_pending_step_is_dropped_at_the_end():
    view = TurnView("t")
    view.apply(code_step(1))
    view.apply(FinalAnswerStep("done"))
    view.finish("done", 1.0)
    assert not any(meta(m).get("status") == "pending" for m in view.messages)
    assert [m["content"] for m in view.messages[-2:-1]] == ["done"]


def test_managed_agent_steps_nest_live_under_the_call():
    view = TurnView("t")
    view.apply(ToolCall("python_interpreter", "helper(task='x')", "call_1"))
    view.apply(SubAgentEvent("helper", ChatMessageStreamDelta(content="inner thinking")))
    call_child = next(m for m in view.messages if meta(m).get("title") == "Code")
    nested = [m for m in view.messages if meta(m).get("parent_id") == meta(call_child)["id"]]
    assert plain_title(meta(nested[0])["title"]) == "helper · Step 1 · thinking…"
    assert meta(nested[0])["status"] == "pending"
    view.apply(SubAgentEvent("helper", code_step(1)))
    view.apply(SubAgentEvent("helper", FinalAnswerStep("inner answer")))
    view.apply(
        code_step(1, tool_calls=[ToolCall("python_interpreter", "helper(task='x')", "call_1")])
    )
    call_child = next(m for m in view.messages if meta(m).get("title") == "Code")
    nested = [m for m in view.messages if meta(m).get("parent_id") == meta(call_child)["id"]]
    assert [meta(m).get("title") for m in nested] == ["helper · Step 1 · ran code", None]
    assert nested[1]["content"] == "**helper answered:** inner answer"
    inner_children = [m for m in view.messages if meta(m).get("parent_id") == meta(nested[0])["id"]]
    assert [meta(m)["title"] for m in inner_children] == [
        "Thought",
        "Code",
        "Execution logs",
    ]
    # each nested message appears once, and the outer step is done
    ids = [meta(m).get("id") for m in view.messages if meta(m).get("id")]
    assert len(ids) == len(set(ids))
    assert meta(view.messages[0])["status"] == "done"


def test_unknown_events_are_ignored():
    view = TurnView("t")
    before = [dict(m) for m in view.messages]
    view.apply(object())
    assert view.messages == before


def test_streamed_code_leaves_the_thought_once_the_code_runs():
    view = TurnView("t")
    view.apply(ChatMessageStreamDelta(content=OUTPUT))
    assert CODE in view.messages[1]["content"]
    view.apply(ToolCall("python_interpreter", CODE, "call_1"))
    thought, code = view.messages[1], view.messages[2]
    assert thought["content"] == "I multiply." and CODE in code["content"]
