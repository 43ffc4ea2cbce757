"""The suite's rule on time, checked in its source: no test asserts how long something took.

A test waits for the event it stands for (`tests/waiting.py`: a condition with a generous
timeout, or a gate it releases); speed belongs in `bench/`. This scan fails on any `assert`
that reads the clock, directly or through a name assigned from a clock reading in the same
function.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
# Wall clocks. `time.process_time()` (this process's CPU time) is allowed: a few tests bound the
# CPU a defence against a resource bomb may spend, which a busy machine does not inflate.
CLOCKS = {"time", "monotonic", "perf_counter", "time_ns", "monotonic_ns", "perf_counter_ns"}


def _reads_clock(node: ast.AST, timed: set[str]) -> bool:
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call):
            func = inner.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            owner = func.value if isinstance(func, ast.Attribute) else None
            if name in CLOCKS and (owner is None or getattr(owner, "id", None) == "time"):
                return True
        if isinstance(inner, ast.Name) and inner.id in timed:
            return True
    return False


def clock_assertions(source: str, filename: str = "<test>") -> list[int]:
    """Lines of `assert` statements that compare clock readings."""
    lines = []
    for function in ast.walk(ast.parse(source, filename)):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        timed: set[str] = set()
        for node in ast.walk(function):  # first the names that hold durations or readings
            if (
                isinstance(node, ast.Assign)
                and isinstance(node.value, ast.BinOp)
                and _reads_clock(node.value, set())
            ):  # `started = time.monotonic()` alone is a start mark, not a duration
                timed |= {t.id for t in node.targets if isinstance(t, ast.Name)}
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "append"
                and isinstance(node.func.value, ast.Name)
                and any(_reads_clock(arg, set()) for arg in node.args)
            ):
                timed.add(node.func.value.id)  # a list of clock readings
        lines += [
            node.lineno
            for node in ast.walk(function)
            if isinstance(node, ast.Assert) and _reads_clock(node.test, timed)
        ]
    return sorted(set(lines))


def test_no_test_asserts_elapsed_wall_time():
    found = [
        f"{path.relative_to(TESTS)}:{line}"
        for path in sorted(TESTS.rglob("*.py"))
        if path.name != Path(__file__).name
        for line in clock_assertions(path.read_text(), str(path))
    ]
    assert not found, "wait for the event instead (tests/waiting.py):\n" + "\n".join(found)


def test_the_scan_sees_a_clock_assertion():
    sample = (
        "import time\n"
        "def test_x():\n"
        "    started = time.monotonic()\n"
        "    assert time.monotonic() - started < 1\n"
        "    took = time.perf_counter() - started\n"
        "    assert took < 2\n"
        "    assert started\n"
        "    seen = []\n"
        "    seen.append(time.monotonic())\n"
        "    assert seen[-1] - seen[0] > 0.1\n"
    )
    assert clock_assertions(sample) == [4, 6, 10]
