"""A tool answer larger than the worker accepts is refused as an error the code reads."""

from __future__ import annotations

from agents.executors.sandbox import SandboxExecutor
from agents.executors.sandbox.channel import DEFAULT_MAX_MESSAGE_BYTES
from tools.decorator import tool


@tool
def huge_text() -> str:
    """A text larger than the sandbox channel carries."""
    return "x" * (DEFAULT_MAX_MESSAGE_BYTES + 1_000_000)


def test_a_too_large_tool_answer_is_an_error_in_the_code_and_the_worker_lives_on():
    executor = SandboxExecutor(timeout=120)
    try:
        executor.send_tools({"huge_text": huge_text})
        executor("kept = 41")
        out = executor(
            "try:\n    huge_text()\n    got = 'answer'\nexcept Exception as error:\n"
            "    got = str(error)\nprint(got)"
        )
        assert "too large to hand to the code" in out.logs
        assert executor("kept + 1").output == 42  # the same worker: variables kept
    finally:
        executor.close()
