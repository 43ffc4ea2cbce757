"""Executors take variables back to a checkpoint: what Retry in the chat app relies on."""

from __future__ import annotations

import sys

import pytest

from agents.executors.local import LocalPythonExecutor
from agents.executors.sandbox import SandboxExecutor


@pytest.fixture(params=["local", "sandbox"])
def executor(request):
    if request.param == "sandbox" and not sys.platform.startswith("linux"):
        pytest.skip("Linux sandbox")
    made = LocalPythonExecutor() if request.param == "local" else SandboxExecutor(timeout=10)
    yield made
    made.close()


def test_rollback_unbinds_new_names_and_rebinds_old_ones(executor):
    executor("kept = 1\nitems = [1]")
    executor.checkpoint()
    executor("kept = 2\nextra = 'x'\nitems.append(2)")
    assert executor.rollback() is True
    result = executor("(kept, 'extra' in globals(), items)")
    assert result.output[:2] == (1, False)
    assert list(result.output[2]) == [1, 2], "changes inside objects are not undone"


def test_rollback_without_a_checkpoint_changes_nothing(executor):
    executor("kept = 1")
    assert executor.rollback() is False
    assert executor("kept").output == 1


def test_a_checkpoint_is_used_once(executor):
    executor("kept = 1")
    executor.checkpoint()
    executor("kept = 2")
    assert executor.rollback() is True
    executor("kept = 3")
    assert executor.rollback() is False
    assert executor("kept").output == 3


def test_a_checkpoint_before_any_code_rolls_back_to_a_fresh_state():
    executor = SandboxExecutor(timeout=10)
    try:
        executor.checkpoint()
        executor("made = 1")
        assert executor.rollback() is True
        assert executor("'made' in globals()").output is False
    finally:
        executor.close()


def test_a_replaced_worker_has_nothing_to_roll_back():
    executor = SandboxExecutor(timeout=10)
    try:
        executor("kept = 1")
        executor.checkpoint()
        executor.reset()  # as after a crash: a new worker, the old state is gone
        executor("kept = 5")
        assert executor.rollback() is False
        assert executor("kept").output == 5
    finally:
        executor.close()
