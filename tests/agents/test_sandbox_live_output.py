"""What the code prints shows while it runs (issue 31): the real sandbox reports its output so
far before the code ends (throttled, capped), and `CodeAgent`'s stream yields it before the
step ends; memory keeps only the final output."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from agents import CodeAgent, ScriptedModel
from agents.errors import AgentExecutionError
from agents.events import ActionStep, CodeOutputSoFar
from agents.executors.base import CodeExecutor, ReportsOutput
from agents.executors.sandbox import SandboxExecutor
from agents.executors.sandbox.live import LIVE_CHARS
from tests.agents.test_sandbox_hardening import FORGE
from tests.waiting import GENEROUS_S, wait_for
from tools import tool

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux sandbox")

# The code waits for a file the test writes once it has seen the output: no sleep in the test.
WAIT_FOR_GO = """
import time
while True:
    try:
        open('go').close()
        break
    except FileNotFoundError:
        time.sleep(0.01)
"""


class Runner:
    """Runs one snippet in a thread, collecting what `on_output` receives."""

    def __init__(self, executor: SandboxExecutor, code: str):
        self.seen: list[str] = []
        self.result = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(executor, code), daemon=True)
        self.thread.start()

    def _run(self, executor: SandboxExecutor, code: str) -> None:
        try:
            self.result = executor.run_reporting(code, on_output=self.seen.append)
        except BaseException as error:  # shown by the test
            self.error = error

    def finish(self):
        self.thread.join(GENEROUS_S)
        assert not self.thread.is_alive(), "the code ended"
        if self.error is not None:
            raise self.error
        return self.result


@pytest.fixture
def executor():
    with SandboxExecutor(timeout=120, spare_worker=False) as sandbox:
        yield sandbox


def test_the_sandbox_reports_output_before_the_code_ends(executor):
    assert isinstance(executor, CodeExecutor) and isinstance(executor, ReportsOutput)
    go = Path(executor.scratch) / "go"
    runner = Runner(
        executor, f"print('counting', 1)\nprint('counting', 2)\n{WAIT_FOR_GO}\nprint('done')"
    )
    wait_for(lambda: any("counting 2" in text for text in runner.seen), "the output so far came")
    assert runner.thread.is_alive() and not go.exists(), "while the code still ran"
    assert runner.seen[-1] == "counting 1\ncounting 2\n"
    go.write_text("")
    result = runner.finish()
    assert result.logs == "counting 1\ncounting 2\ndone\n"


def test_output_printed_before_a_tool_call_shows_while_the_tool_runs(executor):
    released, reached = threading.Event(), threading.Event()

    @tool
    def fetch(name: str) -> str:
        """Waits until the test lets it answer.

        Args:
            name: What to fetch.
        """
        reached.set()
        assert released.wait(GENEROUS_S), "the test released the tool"
        return f"{name} fetched"

    executor.send_tools({"fetch": fetch})
    runner = Runner(executor, "print('fetching the prices')\nprint(fetch('prices'))")
    assert reached.wait(GENEROUS_S), "the tool runs"
    wait_for(lambda: runner.seen, "the output printed before the call came")
    assert runner.seen[-1] == "fetching the prices\n"
    released.set()
    assert runner.finish().logs == "fetching the prices\nprices fetched\n"


def test_a_print_loop_is_throttled_and_capped(executor):
    go = Path(executor.scratch) / "go"
    code = f"for i in range(20000):\n    print('line', i)\n{WAIT_FOR_GO}"
    runner = Runner(executor, code)
    wait_for(lambda: runner.seen and runner.seen[-1].endswith("line 19999\n"), "the last line came")
    # Unthrottled, every print would be a frame: 20,000 of them.
    assert len(runner.seen) < 100
    assert all(len(text) <= LIVE_CHARS for text in runner.seen)
    go.write_text("")
    logs = runner.finish().logs
    assert logs.startswith("line 0\n") and "characters of output cut" in logs


def test_the_live_output_thread_does_not_make_retry_restart_the_worker(executor):
    executor("kept = 'before'")
    executor.checkpoint()
    pid = executor.worker_pid
    executor.run_reporting("kept = 'after'\nprint('hello')", on_output=lambda _: None)
    assert executor.rollback(), "variables restored in the same worker"
    assert executor.worker_pid == pid
    assert executor("kept").output == "before"


def test_without_a_callback_the_code_runs_as_before(executor):
    assert executor("print('quiet')\n7 * 6").output == 42


def test_the_host_refuses_output_it_did_not_ask_for():
    with SandboxExecutor(additional_authorized_imports=["*"], spare_worker=False) as executor:
        forged = FORGE + "frame({'t': 'output', 'text': 'FORGED', 'id': me.request_id})\n1"
        with pytest.raises(AgentExecutionError) as lost:
            executor(forged)
        assert lost.value.state_lost and "protocol" in lost.value.message


def test_the_host_throttles_and_caps_a_flood_of_forged_output():
    with SandboxExecutor(
        additional_authorized_imports=["*"], timeout=120, spare_worker=False
    ) as executor:
        flood = "for i in range(2000):\n    frame({'t': 'output', 'text': 'x' * 10_000, 'id': me.request_id})"
        runner = Runner(executor, f"{FORGE}\n{flood}\nprint('after the flood')\n{WAIT_FOR_GO}")
        wait_for(lambda: any("after" in text for text in runner.seen), "the real output came")
        (Path(executor.scratch) / "go").write_text("")
        assert runner.finish().logs == "after the flood\n"
    # Unthrottled, the callback would have seen 2,000 texts of 10,000 characters.
    assert len(runner.seen) < 100
    assert all(len(text) <= LIVE_CHARS for text in runner.seen)


@tool
def wait_for_test(name: str) -> None:
    """Waits until the test opens the gate of this name.

    Args:
        name: The gate's name.
    """
    GATES[name].set()
    assert OPENED[name].wait(GENEROUS_S), f"the test opened {name}"


GATES: dict[str, threading.Event] = {}
OPENED: dict[str, threading.Event] = {}


def test_the_agent_streams_the_output_so_far_before_the_step_ends():
    GATES["loop"], OPENED["loop"] = threading.Event(), threading.Event()
    script = "print('reading part 1')\nwait_for_test('loop')\nprint('reading part 2')\n'read'"
    agent = CodeAgent(
        tools=[wait_for_test],
        model=ScriptedModel(
            [f"Thought: read.\n<code>\n{script}\n</code>", "<code>\nfinal_answer('ok')\n</code>"]
        ),
        executor_type="sandbox",
        executor_kwargs={"timeout": 120, "spare_worker": False},
        verbosity_level=-1,
    )
    try:
        seen: list[object] = []
        for event in agent.run("Read the file.", stream=True):
            seen.append(event)
            if isinstance(event, CodeOutputSoFar) and not OPENED["loop"].is_set():
                assert GATES["loop"].wait(GENEROUS_S), "the code runs on, held by the test"
                assert not any(isinstance(e, ActionStep) for e in seen), "before the step ends"
                assert event.text == "reading part 1\n"
                OPENED["loop"].set()
        assert OPENED["loop"].is_set(), "the stream yielded the output so far"
        step = next(e for e in seen if isinstance(e, ActionStep))
        assert "reading part 1\nreading part 2" in step.observations
        assert not any(isinstance(s, CodeOutputSoFar) for s in agent.memory.steps)
    finally:
        OPENED["loop"].set()
        agent.close()
