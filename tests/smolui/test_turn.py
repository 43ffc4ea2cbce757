"""`AgentTurn`, the one turn implementation of the handlers and `stream_to_gradio`: a real
CodeAgent with its in-process executor and a scripted model."""

from __future__ import annotations

import threading

from agents.loop.code_agent import CodeAgent
from agents.memory.steps import ActionStep
from agents.models.scripted import ScriptedModel
from smolui.app.gradio_ui import stream_to_gradio
from smolui.turns.turn import STOPPED_NOTE, AgentTurn, TurnRequest

STEP = "Thought: again.\n<code>\nprint('step')\n</code>"
ANSWER = "<code>\nfinal_answer(sum(values))\n</code>"


def agent_for(replies: list[str], delay: float = 0.0, max_steps: int = 10) -> CodeAgent:
    model = ScriptedModel(replies, delay=delay)
    return CodeAgent([], model, executor_type="local", max_steps=max_steps, verbosity_level=-1)


class Recorder:
    """A `TurnObserver` that keeps what it heard."""

    def __init__(self):
        self.heard: list[object] = []

    def turn_started(self) -> None:
        self.heard.append("started")

    def event(self, event: object) -> None:
        self.heard.append(type(event).__name__)

    def turn_finished(self, state: str, seconds: float, error: BaseException | None) -> None:
        self.heard.append(("finished", state, error))


def test_a_turn_renders_the_run_and_tells_its_observer(tmp_path):
    agent = agent_for([ANSWER])
    recorder = Recorder()
    turn = AgentTurn(observer=recorder)
    request = TurnRequest("add them", additional_args={"values": [1, 2, 3]})
    versions = [list(m) for m in turn.start(agent, request).follow()]
    assert versions and turn.state == "done" and turn.error is None
    assert any(m.get("content") == "6" for m in turn.messages)
    assert "answered" in turn.messages[-1]["content"], "the footer ends the turn"
    assert recorder.heard[0] == "started" and "ActionStep" in recorder.heard
    assert recorder.heard[-1] == ("finished", "done", None)


def test_a_failing_agent_ends_the_turn_as_failed():
    agent = agent_for([ANSWER])
    turn = AgentTurn()
    list(turn.start(agent, TurnRequest("   ")).follow())  # an empty task is refused
    assert turn.state == "failed" and turn.error is not None
    assert "failed" in turn.messages[-1]["content"]


def test_stop_ends_following_at_once_and_the_agent_at_its_step():
    agent = agent_for([STEP] * 9 + [ANSWER], delay=0.3)
    stop = threading.Event()
    turn = AgentTurn().start(agent, TurnRequest("loop"))
    threading.Timer(0.1, stop.set).start()
    threading.Timer(0.1, agent.interrupt).start()
    list(turn.follow(stop))
    assert turn.state == "stopped"
    assert any(m.get("content") and STOPPED_NOTE in m["content"] for m in turn.messages)
    assert turn.wait(5), "the run ends at its next step boundary"
    assert len(agent.model.calls) <= 2


def test_closing_stream_to_gradio_early_interrupts_the_agent(tmp_path):
    agent = agent_for([STEP] * 9 + [ANSWER], delay=0.2)
    stream = stream_to_gradio(agent, "loop", media_folder=tmp_path)
    next(stream)  # the pending first step
    next(stream)  # the first events
    stream.close()
    steps = [s for s in agent.memory.steps if isinstance(s, ActionStep)]
    deadline = threading.Event()
    deadline.wait(1.5)
    later = [s for s in agent.memory.steps if isinstance(s, ActionStep)]
    assert len(later) <= len(steps) + 1, "no step starts after the one running at the close"
