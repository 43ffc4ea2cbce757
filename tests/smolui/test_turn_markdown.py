"""A turn copied as Markdown (`turn_markdown`, "Copy turn as Markdown" on each answer): the
messages of real turns (a CodeAgent and a ToolCallingAgent, scripted models, rendered by
`AgentTurn`), in the shape the page sends them back to the server."""

from __future__ import annotations

from typing import Any

from agents.loop.code_agent import CodeAgent
from agents.loop.tool_calling_agent import ToolCallingAgent
from agents.models.scripted import ScriptedModel, ScriptedReply
from smolui.render.export import turn_markdown, turn_messages
from smolui.turns.turn import AgentTurn, TurnRequest
from smolui.ui.turn_copy import NO_TURN, copied_turn
from tools import tool

CODE_STEP = "Thought: I add the numbers first.\n<code>\ntotal = sum(values)\nprint('total is', total)\n</code>"
ANSWER = "Thought: I have it.\n<code>\nfinal_answer(f'The total is {total}')\n</code>"
PATH = "/tmp/gradio/3fa9/plot.png"
ROUTE = f"/gradio_api/file={PATH}"
ROOT = "http://127.0.0.1:7860"


@tool
def weather(city: str) -> str:
    """The weather in a city.

    Args:
        city: The city's name.
    """
    return f"Sunny in {city}"


def turn_of(agent: Any, task: str, **args: Any) -> list[dict[str, Any]]:
    """A real turn's chat messages, as the page shows them (gradio's normalized blocks)."""
    turn = AgentTurn()
    list(turn.start(agent, TurnRequest(task, additional_args=args or None)).follow())
    assert turn.state == "done", turn.messages
    return [{**message, "content": as_page_sends(message["content"])} for message in turn.messages]


def as_page_sends(content: Any) -> list[dict[str, Any]]:
    """gradio 6 hands handlers each message's content as a list of blocks."""
    return [{"type": "text", "text": content}] if isinstance(content, str) else [content]


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def code_turn() -> list[dict[str, Any]]:
    model = ScriptedModel([CODE_STEP, ANSWER])
    agent = CodeAgent([], model, executor_type="local", max_steps=4, verbosity_level=-1)
    return turn_of(agent, "Add the values", values=[20, 22])


def tool_turn() -> list[dict[str, Any]]:
    model = ScriptedModel(
        [
            ScriptedReply(tool_calls=[("weather", {"city": "Paris"})]),
            ScriptedReply(tool_calls=[("final_answer", {"answer": "Paris is sunny."})]),
        ]
    )
    return turn_of(ToolCallingAgent([weather], model, max_steps=4, verbosity_level=-1), "Paris?")


def test_a_code_turn_has_its_steps_as_headings_code_fenced_logs_fenced_and_the_answer():
    chat = [user("Add the values"), *code_turn(), user("Thanks"), *tool_turn()]
    text = turn_markdown(turn_messages(chat, 1))
    assert "### Step 1 · ran code" in text
    assert "#### Thought\n\nI add the numbers first." in text
    assert "```python\ntotal = sum(values)\nprint('total is', total)\n```" in text
    assert "#### Execution logs\n\n```text\n" in text and "total is 42" in text
    assert "\nThe total is 42\n" in text, "the final answer, as plain text"
    assert "answered · 2 steps" in text, "the footer's words stay"
    assert "<sub>" not in text and "</sub>" not in text
    assert "<details>" not in text
    assert "Paris" not in text, "nothing of the next turn"
    assert text.index("Step 1") < text.index("Step 2") < text.index("The total is 42")


def test_a_tool_turn_has_each_call_with_its_arguments_as_json_and_its_observations():
    chat = [user("Add the values"), *code_turn(), user("Paris?"), *tool_turn()]
    text = turn_markdown(turn_messages(chat, 2))
    assert '#### Called `weather`\n\n```json\n{\n  "city": "Paris"\n}\n```' in text
    assert "#### Observations" in text and "Sunny in Paris" in text
    assert "Paris is sunny." in text
    assert "total" not in text, "nothing of the turn before"


def test_images_are_linked_by_the_url_the_page_has_and_never_by_a_server_path():
    chat = [user("Plot it"), *code_turn()]
    image = {
        "type": "file",
        "file": {"path": PATH, "url": ROUTE, "orig_name": None, "mime_type": "image/png"},
    }
    step_id = next(m["metadata"]["id"] for m in chat if (m.get("metadata") or {}).get("title"))
    figure = {"role": "assistant", "content": [image], "metadata": {"parent_id": step_id}}
    chat.insert(2, figure)
    turn = turn_messages(chat, 1)
    # gradio sends the file's link under the server's root; the page adds its own root.
    text = turn_markdown(turn, ROOT)
    assert f"![plot.png]({ROOT}{ROUTE})" in text
    assert "data:image" not in text and "Attached file" not in text
    assert (
        f"![plot.png]({ROOT}{ROUTE})"
        in copied_turn(chat, {"answered": 1, "root": ROOT})["markdown"]
    )
    for root in ("", "file:///etc", "javascript:alert(1)"):
        text = turn_markdown(turn, root)
        assert "plot.png" in text and "](" not in text, "not a web address: named only"
        assert PATH not in text and "/tmp/" not in text, "never by its path"


def test_the_handler_answers_the_turn_asked_and_refuses_one_not_shown():
    chat = [user("Add the values"), *code_turn()]
    assert "The total is 42" in copied_turn(chat, {"answered": 1})["markdown"]
    assert copied_turn(chat, {"answered": 5}) == {"error": NO_TURN}
    assert copied_turn(chat, None) == {"error": NO_TURN}
    assert copied_turn(chat, {"answered": True}) == {"error": NO_TURN}


def test_a_picture_the_agent_drew_is_described_by_its_step_not_by_its_random_file_name(tmp_path):
    from PIL import Image

    from agents.memory.steps import ActionStep
    from smolui.render.export import to_markdown
    from smolui.render.media import MediaSink, named_by_the_app
    from smolui.render.messages import render_action_step

    step = ActionStep(step_number=2, code_action="plot()", observations="Execution logs:\n")
    step.observations_images = [Image.new("RGB", (4, 3), (10, 20, 30))]
    shown = render_action_step(step, "s2", MediaSink(tmp_path))
    (figure,) = [m for m in shown if isinstance(m["content"], dict)]
    name = figure["content"]["path"].rsplit("/", 1)[1]
    assert named_by_the_app(name) and not named_by_the_app("plot.png")
    exported = to_markdown([user("Plot it"), *shown])
    assert "![Image from Step 2](data:image/png;base64," in exported
    assert name not in exported
    url = f"/gradio_api/file={figure['content']['path']}"
    sent = {"type": "file", "file": {**figure["content"], "url": url, "orig_name": name}}
    page = [user("Plot it"), *[{**m, "content": [sent]} if m is figure else m for m in shown]]
    copied = turn_markdown(turn_messages(page, 1), ROOT)
    assert f"![Image from Step 2]({ROOT}{url})" in copied
