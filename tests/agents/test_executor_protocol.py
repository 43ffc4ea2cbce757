"""Every executor offers the whole `CodeExecutor` seam, and its parts behave as documented."""

from __future__ import annotations

import inspect
import sys

import pytest

from agents.errors import AgentExecutionError
from agents.executors.base import CodeExecutor
from agents.executors.local import LocalPythonExecutor
from agents.executors.remote import remote_executor_class
from agents.executors.remote.jupyter import JupyterExecutor
from agents.executors.sandbox import SandboxExecutor

PROPERTIES = {"isolation", "running"}
METHODS = {
    "send_variables",
    "send_tools",
    "__call__",
    "start",
    "checkpoint",
    "rollback",
    "interrupt",
    "set_read_paths",
    "reset",
    "close",
}
CLASSES = [
    LocalPythonExecutor,
    SandboxExecutor,
    *(remote_executor_class(kind) for kind in ("jupyter", "docker", "e2b", "modal")),
]
LINUX = sys.platform.startswith("linux")


def test_the_protocol_lists_exactly_these_members():
    declared = {
        name for name in vars(CodeExecutor) if not name.startswith("_") or name == "__call__"
    }
    assert declared == PROPERTIES | METHODS


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__name__)
def test_each_executor_class_has_every_member_with_the_protocols_parameters(cls):
    for name in METHODS:
        method = getattr(cls, name, None)
        assert callable(method), f"{cls.__name__}.{name} is missing"
        wanted = list(inspect.signature(getattr(CodeExecutor, name)).parameters)
        assert list(inspect.signature(method).parameters)[: len(wanted)] == wanted, name
    assert isinstance(inspect.getattr_static(cls, "running"), property), cls.__name__
    assert hasattr(cls, "isolation"), cls.__name__


@pytest.fixture(params=["local", "sandbox"])
def executor(request):
    if request.param == "sandbox" and not LINUX:
        pytest.skip("Linux sandbox")
    made = LocalPythonExecutor() if request.param == "local" else SandboxExecutor(timeout=10)
    yield made
    made.close()


def test_local_and_sandbox_satisfy_the_protocol_at_run_time(executor, tmp_path):
    assert isinstance(executor, CodeExecutor)
    assert isinstance(executor.isolation, dict) and executor.isolation["level"]
    executor.start()
    assert executor.running is isinstance(executor, SandboxExecutor)
    executor.interrupt()  # nothing is running: a no-op, not a failure of the next call
    executor.set_read_paths([tmp_path])
    executor.send_variables({"given": 2})
    executor.send_tools({})
    assert executor("given * 3").output == 6
    executor.checkpoint()
    executor("given = 5\nnew = 1")
    assert executor.rollback() is True
    assert executor("(given, 'new' in globals())").output == (2, False)
    executor.reset()
    with pytest.raises(AgentExecutionError, match="NameError"):
        executor("new")


def test_a_sandbox_reads_only_the_folders_it_was_last_given(tmp_path):
    if not LINUX:
        pytest.skip("Linux sandbox")
    (tmp_path / "data.txt").write_text("hello")
    path = str(tmp_path / "data.txt")
    with SandboxExecutor(timeout=10) as executor:
        executor.set_read_paths([tmp_path])
        assert executor(f"open({path!r}).read()").output == "hello"
        executor.set_read_paths([])
        with pytest.raises(AgentExecutionError, match="Permission|denied"):
            executor(f"open({path!r}).read()")
        executor.close()
        assert not executor.running


def test_a_remote_executor_starts_nothing_until_asked(tmp_path):
    executor = JupyterExecutor("http://127.0.0.1:9", "t", timeout=5, request_timeout=2)
    try:
        assert isinstance(executor, CodeExecutor)
        assert executor.running is False
        executor.set_read_paths([tmp_path])
        assert executor.uploads.folders == [str(tmp_path)]
        executor.checkpoint()  # before any kernel: a rollback goes back to a fresh state
        assert executor.rollback() is True
        executor.interrupt()
        assert executor.running is False
    finally:
        executor.close()
