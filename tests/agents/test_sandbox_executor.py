"""The sandbox executor as a code executor: state, output, tools, images, limits, lifecycle.

These run the real worker process (no mocks): each executor starts a confined Python.
"""

from __future__ import annotations

import os
import sys
import threading

import pytest

from agents.errors import AgentConfigError, AgentExecutionError
from agents.executors import create_executor
from agents.executors.sandbox import SandboxExecutor
from agents.executors.sandbox import execution as sandbox_execution
from agents.executors.values import ReprValue, decode_value, encode_value
from tests.agents.moved_clock import MovedClock
from tools.base import Tool
from tools.decorator import tool

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux sandbox")


@pytest.fixture(scope="module")
def sandbox():
    executor = SandboxExecutor(timeout=20)
    yield executor
    executor.close()


@tool
def add(a: int, b: int) -> int:
    """Adds two integers.

    Args:
        a: First number.
        b: Second number.
    """
    return a + b


class Boom(Tool):
    name = "boom"
    description = "Always fails."
    inputs = {"why": {"type": "string", "description": "Reason."}}
    output_type = "string"

    def forward(self, why: str) -> str:
        raise RuntimeError(f"boom because {why}")


def test_state_persists_across_calls_like_a_notebook(sandbox):
    sandbox("import math\ndef area(r):\n    return math.pi * r * r\ncount = 1")
    out = sandbox("count += 1\nround(area(2), 3), count")
    assert out.output == (12.566, 2)
    assert out.is_final_answer is False


def test_print_is_captured_and_last_expression_is_the_output(sandbox):
    out = sandbox("for i in range(3):\n    print('line', i)\n'done'")
    assert out.logs == "line 0\nline 1\nline 2\n"
    assert out.output == "done"


def test_final_answer_ends_the_snippet(sandbox):
    out = sandbox("final_answer({'total': 3, 'items': [1, 2]})\nprint('never')")
    assert out.is_final_answer is True
    assert out.output == {"total": 3, "items": [1, 2]}
    assert out.logs == ""


def test_an_exception_in_code_is_reported_with_its_line_and_logs(sandbox):
    with pytest.raises(AgentExecutionError) as info:
        sandbox("print('before')\nx = 1\n1 / 0")
    assert "ZeroDivisionError (line 3)" in info.value.message
    assert info.value.logs == "before\n"
    assert info.value.state_lost is False
    assert sandbox("x").output == 1  # assignments before the error were kept


def test_imports_outside_the_policy_are_refused(sandbox):
    with pytest.raises(AgentExecutionError, match="Import of 'os' is not allowed"):
        sandbox("import os")
    with pytest.raises(AgentExecutionError, match="not allowed"):
        sandbox("__import__('subprocess')")
    assert sandbox("import json\njson.dumps([1])").output == "[1]"


def test_star_allows_every_import():
    with SandboxExecutor(additional_authorized_imports=["*"]) as executor:
        assert executor("import os, xml.dom\nos.sep").output == "/"


def test_non_plain_values_cross_as_their_repr(sandbox):
    out = sandbox("class Point:\n    def __repr__(self):\n        return 'Point(1, 2)'\nPoint()")
    assert isinstance(out.output, ReprValue)
    assert str(out.output) == "Point(1, 2)"
    assert sandbox("{(1, 2): {3}}").output == {(1, 2): ReprValue("{3}")}


def test_tools_run_in_the_host_with_validated_arguments(sandbox):
    seen_threads = []

    @tool
    def where() -> int:
        """Returns the id of the process the tool runs in."""
        seen_threads.append(threading.get_ident())
        return os.getpid()

    sandbox.send_tools({"add": add, "boom": Boom(), "where": where})
    assert sandbox("add(2, b=40)").output == 42
    assert sandbox("where()").output == os.getpid()  # the host's pid, not the worker's
    with pytest.raises(AgentExecutionError, match="should be integer"):
        sandbox("add('2', 3)")
    with pytest.raises(AgentExecutionError, match="boom because tests"):
        sandbox("boom('tests')")
    caught = sandbox("try:\n    boom(why='x')\nexcept Exception as e:\n    r = str(e)\nr").output
    assert "boom because x" in caught


def test_plain_callables_and_host_objects_reach_the_code(sandbox):
    class Report:
        def __init__(self, text):
            self.text = text

    sandbox.send_tools({"fetch": lambda key: {"key": key, "when": (2024, 1)}})
    assert sandbox("fetch('k')").output == {"key": "k", "when": (2024, 1)}
    sandbox.send_variables({"config": {"depth": 2}, "report": Report("hello")})
    assert sandbox("config['depth'] * 2").output == 4
    # A class the worker cannot import arrives as its repr, not as an error.
    assert "Report object" in sandbox("str(report)").output


def test_tool_calls_from_threads_in_the_code_are_served(sandbox):
    sandbox.send_tools({"add": add})
    code = (
        "from concurrent.futures import ThreadPoolExecutor\n"
        "with ThreadPoolExecutor(4) as pool:\n"
        "    results = list(pool.map(lambda i: add(i, i), range(8)))\n"
        "results"
    )
    with SandboxExecutor(additional_authorized_imports=["concurrent"]) as executor:
        executor.send_tools({"add": add})
        assert executor(code).output == [0, 2, 4, 6, 8, 10, 12, 14]


def test_time_in_tools_does_not_count_against_the_timeout(monkeypatch):
    clock = MovedClock()  # the step's deadline and its tool accounting both read it
    monkeypatch.setattr(sandbox_execution, "time", clock)

    def slow(seconds: float) -> str:
        clock.advance(seconds)  # the tool "takes" this long, on the step's clock
        return "slept"

    with SandboxExecutor(timeout=20) as executor:
        executor.send_tools({"slow": slow})
        assert executor("slow(30) + slow(30)").output == "sleptslept"  # 60 s in tools


def test_images_returned_or_shown_reach_the_host():
    pil = pytest.importorskip("PIL.Image")
    with SandboxExecutor(additional_authorized_imports=["PIL"]) as executor:
        out = executor("from PIL import Image\nImage.new('RGB', (4, 3), 'red')")
        assert out.images and out.images[0].size == (4, 3)
        assert out.output is out.images[0]
        shown = executor("Image.new('L', (2, 2)).show()\ndisplay(Image.new('RGB', (5, 5)))\n1")
        assert [im.size for im in shown.images] == [(2, 2), (5, 5)]
        executor.send_variables({"photo": pil.new("RGB", (7, 8), "blue")})
        assert executor("photo.size").output == (7, 8)
        executor.send_tools({"measure": lambda image: image.size})
        assert executor("measure(photo)").output == (7, 8)  # image went worker -> host as PNG


def test_output_is_capped():
    with SandboxExecutor(max_print_outputs_length=1000, max_output_chars=5000) as executor:
        out = executor("for i in range(5000):\n    print('row', i)\n'y' * 100_000")
        assert len(out.logs) < 2000
        assert out.logs.startswith("row 0\n") and "row 4999" in out.logs
        assert "cut" in out.logs
        assert len(out.output) < 6000 and "output cut" in out.output


def test_isolation_report_names_every_layer(sandbox):
    sandbox.start()  # reading `isolation` starts nothing
    report = sandbox.isolation
    for layer in ("process", "clean_env", "rlimits", "landlock", "seccomp"):
        assert layer in report
    assert report["process"] is True and report["clean_env"] is True
    missing = [layer for layer in ("rlimits", "landlock", "seccomp") if not report[layer]]
    assert report["level"] == (
        "full" if not missing else f"partial (missing: {', '.join(missing)})"
    )


def test_reset_forgets_variables_and_scratch_files():
    with SandboxExecutor(timeout=20) as executor:
        executor("secret = 7\nopen('notes.txt', 'w').write('x')")
        first_pid = executor.worker_pid
        executor.reset()
        with pytest.raises(AgentExecutionError, match="NameError"):
            executor("secret")
        assert executor.worker_pid != first_pid
        assert not os.path.exists(os.path.join(executor.scratch, "notes.txt"))


def test_close_stops_the_worker_and_removes_its_folder():
    executor = SandboxExecutor()
    executor("1")
    pid, folder = executor.worker_pid, executor.scratch
    executor.close()
    assert not os.path.exists(folder)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_interrupt_stops_a_step_and_keeps_state():
    started = threading.Event()
    # A generous timeout: the step ends as "Interrupted", never as "timed out".
    with SandboxExecutor(timeout=120, additional_authorized_imports=["time"]) as executor:
        executor.send_tools({"started": lambda: started.set()})
        executor("kept = 'yes'")
        stopper = threading.Thread(target=lambda: started.wait(60) and executor.interrupt())
        stopper.start()
        with pytest.raises(AgentExecutionError, match="Interrupted") as info:
            executor("import time\nstarted()\nwhile True:\n    time.sleep(0.01)")
        stopper.join()
        assert info.value.state_lost is False
        assert executor("kept").output == "yes"


def test_create_executor_builds_the_sandbox_and_rejects_bad_limits():
    executor = create_executor("sandbox", additional_authorized_imports=["json"], timeout=5)
    try:
        assert isinstance(executor, SandboxExecutor)
        assert executor("import json\njson.loads('[2]')").output == [2]
    finally:
        executor.close()
    with pytest.raises(AgentConfigError):
        SandboxExecutor(timeout=0)


def test_the_host_never_unpickles_worker_data():
    import pickle

    forged = {"$t": "pickle", "v": "gASVBAAAAAAAAACMAXiULg==", "repr": "<forged>"}
    assert pickle.loads(__import__("base64").b64decode(forged["v"])) == "x"
    decoded = decode_value(forged)  # what the host does with worker data
    assert isinstance(decoded, ReprValue) and decoded == "<forged>"
    assert decode_value(encode_value({"k": (1, b"\x00")})) == {"k": (1, b"\x00")}


def test_extra_read_only_folders_replace_the_worker_only_when_they_change(tmp_path):
    (tmp_path / "a.txt").write_text("readable")
    executor = SandboxExecutor(timeout=10)
    try:
        executor("kept = 1")
        pid = executor.worker_pid
        executor.set_read_paths([])
        assert executor.worker_pid == pid, "no change, same worker"
        executor.set_read_paths([str(tmp_path)])
        assert executor(f"open({str(tmp_path / 'a.txt')!r}).read()").output == "readable"
        assert executor.worker_pid != pid and executor("'kept' in globals()").output is False
    finally:
        executor.close()
