"""`AgentTurn`, the one turn implementation of the handlers and `stream_to_gradio`: a real
CodeAgent with its in-process executor and a scripted model."""

from __future__ import annotations

import threading

from agents.loop.code_agent import CodeAgent
from agents.memory.steps import ActionStep
from agents.models.scripted import ScriptedModel, ScriptedReply
from smolui.app.streaming import stream_to_gradio
from smolui.turns.turn import STOPPED_NOTE, AgentTurn, TurnRequest
from tests.waiting import wait_for

STEP = "Thought: again.\n<code>\nprint('step')\n</code>"
ANSWER = "<code>\nfinal_answer(sum(values))\n</code>"


def agent_for(replies: list, max_steps: int = 10) -> CodeAgent:
    model = ScriptedModel(replies)
    return CodeAgent([], model, executor_type="local", max_steps=max_steps, verbosity_level=-1)


def held_step() -> tuple[ScriptedReply, threading.Event, threading.Event]:
    """A step whose model call stays open until the test sets the returned gate."""
    reached, gate = threading.Event(), threading.Event()
    return ScriptedReply(STEP, reached=reached, gate=gate), reached, gate


def noting_the_end(agent: CodeAgent) -> threading.Event:
    """An event set once the agent's run has ended, however it ended."""
    ended = threading.Event()
    run = agent.run

    def run_then_note(*args, **kwargs):
        try:
            yield from run(*args, **kwargs)
        finally:
            ended.set()

    agent.run = run_then_note  # the turn asks for a stream, so a generator stands in well
    return ended


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
    first, reached, gate = held_step()
    agent = agent_for([first] + [STEP] * 8 + [ANSWER])
    stop = threading.Event()
    turn = AgentTurn().start(agent, TurnRequest("loop"))

    def press_stop() -> None:  # the Stop button, pressed while the first model call is open
        if reached.wait(60):
            stop.set()
            agent.interrupt()

    threading.Thread(target=press_stop, daemon=True).start()
    try:
        list(turn.follow(stop))
        assert not turn.wait(0), "following ended while the step was still running"
    finally:
        gate.set()
    assert turn.state == "stopped"
    assert any(m.get("content") and STOPPED_NOTE in m["content"] for m in turn.messages)
    assert turn.wait(60), "the run ends at its next step boundary"
    assert len(agent.model.calls) <= 2


def test_closing_stream_to_gradio_early_interrupts_the_agent(tmp_path):
    second, _, gate = held_step()  # the run cannot get past step 2 before the close
    agent = agent_for([STEP, second] + [STEP] * 7 + [ANSWER])
    ended = noting_the_end(agent)
    stream = stream_to_gradio(agent, "loop", media_folder=tmp_path)
    try:
        next(stream)  # the pending first step
        next(stream)  # the first events
        stream.close()
        steps = [s for s in agent.memory.steps if isinstance(s, ActionStep)]
    finally:
        gate.set()  # let the step running at the close end, so the run meets its boundary
    wait_for(ended.is_set, "the agent's run ended after the stream was closed")
    later = [s for s in agent.memory.steps if isinstance(s, ActionStep)]
    assert len(later) <= len(steps) + 1, "no step starts after the one running at the close"
