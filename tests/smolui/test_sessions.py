"""The conversation registry: isolation, lazy agents, grace period, idle and cap eviction."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from agents.executors.local import LocalPythonExecutor
from agents.loop.code_agent import CodeAgent
from agents.memory.steps import TaskStep
from agents.models.scripted import ScriptedModel
from smolui.app.factory import SingleAgentFactory, as_factory
from smolui.sessions import (
    SessionCapacityError,
    SessionRegistry,
    is_conversation_id,
    new_conversation_id,
)


class FakeAgent(CodeAgent):
    """A real agent (in-process executor, scripted model) that counts what the registry asks
    of it: reset, interrupt, close."""

    def __init__(self, upload_dir: Path | None = None, **kwargs):
        super().__init__([], ScriptedModel([]), executor_type="local", verbosity_level=-1, **kwargs)
        self.upload_dir = upload_dir
        self.resets = 0
        self.interrupted = 0
        self.closed = False

    def reset(self):
        self.resets += 1
        super().reset()

    def interrupt(self):
        self.interrupted += 1
        super().interrupt()

    def close(self):
        self.closed = True
        super().close()


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def made() -> list[FakeAgent]:
    return []


@pytest.fixture
def registry(tmp_path: Path, clock: Clock, made: list[FakeAgent]) -> SessionRegistry:
    def factory(upload_dir: Path) -> FakeAgent:
        agent = FakeAgent(upload_dir)
        made.append(agent)
        return agent

    return SessionRegistry(
        factory,
        tmp_path / "uploads",
        idle_s=100,
        grace_s=10,
        max_sessions=3,
        clock=clock,
        media_root=tmp_path / "media",
    )


def test_ids_are_128_random_bits_url_safe():
    ids = {new_conversation_id() for _ in range(200)}
    assert len(ids) == 200
    assert all(is_conversation_id(i) and len(i) == 22 for i in ids)
    assert not is_conversation_id("../../etc/passwd") and not is_conversation_id(None)


def test_open_finds_the_same_conversation_by_id(registry: SessionRegistry):
    first = registry.open(None, page="p1")
    again = registry.open(first.id, page="p2")
    assert again is first
    assert len(registry) == 1


def test_unknown_or_malformed_ids_get_a_fresh_conversation(registry: SessionRegistry):
    mine = registry.open(None)
    forged = registry.open(new_conversation_id())
    malformed = registry.open("x'; drop table")
    assert forged is not mine and malformed is not mine
    assert forged.id != mine.id and is_conversation_id(malformed.id)
    assert registry.get("not-an-id") is None


def test_agents_are_created_lazily_once_per_conversation(registry: SessionRegistry, made: list):
    a = registry.open(None)
    b = registry.open(None)
    assert made == []  # nothing built until a turn needs it
    assert a.agent is a.agent
    assert b.agent is not a.agent
    assert len(made) == 2
    assert a.agent.upload_dir != b.agent.upload_dir
    assert a.id not in str(a.upload_dir), "the secret id must not appear in paths"


def test_concurrent_first_access_builds_one_agent(registry: SessionRegistry, made: list):
    session = registry.open(None)
    threads = [threading.Thread(target=lambda: session.agent) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(made) == 1


def test_closing_the_page_starts_a_grace_period(registry: SessionRegistry, clock: Clock):
    session = registry.open(None, page="p1")
    agent = session.agent
    registry.page_closed("p1")
    clock.now += 5
    assert registry.sweep() == []
    assert registry.open(session.id, page="p2") is session  # a reload within the grace period
    registry.page_closed("p2")
    clock.now += 11
    assert registry.sweep() == [session.id]
    assert agent.closed and registry.get(session.id) is None


def test_a_page_still_open_keeps_the_conversation(registry: SessionRegistry, clock: Clock):
    session = registry.open(None, page="p1")
    registry.open(session.id, page="p2")
    registry.page_closed("p1")
    clock.now += 50
    assert registry.sweep() == []


def test_idle_conversations_are_evicted_but_busy_ones_stay(registry: SessionRegistry, clock: Clock):
    idle = registry.open(None)
    busy = registry.open(None)
    assert busy.begin_turn()
    clock.now += 101
    assert registry.sweep() == [idle.id]
    assert registry.get(busy.id) is busy
    busy.end_turn()
    clock.now += 101
    assert registry.sweep() == [busy.id]


def test_beyond_the_cap_the_least_recently_used_is_evicted(registry: SessionRegistry, clock: Clock):
    sessions = []
    for _ in range(3):
        sessions.append(registry.open(None))
        clock.now += 1
    registry.open(sessions[0].id)  # touch the oldest: the second becomes least recent
    fourth = registry.open(None)
    assert len(registry) == 3
    assert registry.get(sessions[1].id) is None
    assert registry.get(sessions[0].id) is sessions[0] and registry.get(fourth.id) is fourth


def test_when_every_slot_is_busy_new_conversations_are_refused(registry: SessionRegistry):
    for _ in range(3):
        assert registry.open(None).begin_turn()
    with pytest.raises(SessionCapacityError):
        registry.open(None)


def test_eviction_closes_the_executor_and_deletes_folders(registry: SessionRegistry):
    session = registry.open(None)
    agent = session.agent
    assert session.upload_dir.is_dir(), "the folder exists before the agent"
    (session.upload_dir / "doc.txt").write_text("secret")
    session.media_dir.mkdir(parents=True)
    assert registry.evict(session.id)
    assert agent.closed
    assert not session.upload_dir.exists() and not session.media_dir.exists()
    assert not registry.evict(session.id)


def test_reset_forgets_memory_variables_and_files(registry: SessionRegistry):
    session = registry.open(None)
    agent = session.agent
    agent.memory.steps.append(TaskStep("hello"))
    agent.executor("kept = 1")
    (session.upload_dir / "a.txt").write_text("x")
    (session.upload_dir / "sub").mkdir()
    (session.upload_dir / "sub" / "b.txt").write_text("y")
    session.files.append("a.txt")
    folder = session.upload_dir.stat()
    session.reset()
    assert agent.memory.steps == [] and agent.resets == 1
    assert "kept" not in agent.executor.namespace, "the code's variables are gone too"
    assert list(session.upload_dir.iterdir()) == [] and session.files == []
    kept = session.upload_dir.stat()
    assert (kept.st_ino, kept.st_dev) == (folder.st_ino, folder.st_dev), (
        "the same folder stays, so a running sandbox worker keeps its access to it"
    )


def test_stop_interrupts_the_agent_and_flags_the_turn(registry: SessionRegistry):
    session = registry.open(None)
    agent = session.agent
    assert session.begin_turn()
    session.request_stop()
    assert agent.interrupted == 1 and session.stop_requested.is_set()
    assert not session.begin_turn(), "one turn at a time per conversation"
    session.end_turn()
    assert session.begin_turn() and not session.stop_requested.is_set()
    session.end_turn()


def test_close_all_evicts_everything(registry: SessionRegistry, made: list):
    for _ in range(2):
        registry.open(None).agent  # noqa: B018 - builds the agent
    registry.close_all()
    assert len(registry) == 0 and all(agent.closed for agent in made)


def test_a_single_agent_instance_serves_one_conversation_at_a_time(tmp_path: Path):
    # A ready executor cannot be shared by a clone, so the agent serves one conversation.
    agent = FakeAgent(executor=LocalPythonExecutor([]))
    factory = as_factory(agent)
    assert isinstance(factory, SingleAgentFactory)
    registry = SessionRegistry(factory, tmp_path, max_sessions=5)
    first = registry.open(None)
    assert first.agent is agent
    agent.memory.steps.append(TaskStep("private"))
    second = registry.open(None)
    with pytest.raises(SessionCapacityError):
        second.agent  # noqa: B018
    registry.evict(first.id)
    assert agent.memory.steps == [] and not agent.closed, "released and wiped, not closed"
    third = registry.open(None)
    assert third.agent is agent


def test_two_real_agents_do_not_share_variables(tmp_path: Path):
    def factory() -> CodeAgent:
        model = ScriptedModel(
            [
                "<code>\nsecret = 41\nfinal_answer(secret)\n</code>",
                "<code>\nfinal_answer(secret + 1)\n</code>",
            ]
        )
        return CodeAgent([], model, executor_type="local", verbosity_level=-1)

    registry = SessionRegistry(factory, tmp_path)
    alice, bob = registry.open(None), registry.open(None)
    assert alice.agent.run("set it", reset=False) == 41
    bob_model = ScriptedModel(
        ["<code>\nfinal_answer(secret)\n</code>", "<code>\nfinal_answer('none')\n</code>"]
    )
    bob.agent.model = bob_model
    assert bob.agent.run("read it", reset=False) == "none", "bob cannot see alice's variable"
    assert "secret" in str(bob.agent.memory.steps[-2].error)
    assert alice.agent.run("again", reset=False) == 42
    registry.close_all()


class WarmAgent(FakeAgent):
    def __init__(self, upload_dir: Path | None = None):
        super().__init__(upload_dir)
        self.warmed = threading.Event()

    def warm_up(self):
        self.warmed.set()


def test_prepare_builds_the_agent_and_warms_it_in_the_background(tmp_path: Path):
    registry = SessionRegistry(WarmAgent, tmp_path / "uploads")
    session = registry.open(None)
    thread = session.prepare()
    assert thread is not None
    thread.join(5)
    assert session.has_agent and session.agent.warmed.is_set()
    assert session.prepare() is None, "an agent that exists is not prepared again"


def test_a_failed_preparation_is_left_for_the_first_turn(tmp_path: Path, caplog):
    calls = []

    def factory():
        calls.append(1)
        raise RuntimeError("model missing")

    session = SessionRegistry(factory, tmp_path / "uploads").open(None)
    session.prepare().join(5)
    assert not session.has_agent
    assert "preparing a conversation's agent failed" in caplog.text
    with pytest.raises(RuntimeError, match="model missing"):
        _ = session.agent  # the turn builds it again and shows the error
    assert len(calls) == 2


def test_a_closed_conversation_builds_no_agent(registry: SessionRegistry, made: list):
    session = registry.open(None)
    registry.evict(session.id)
    assert session.prepare() is None
    with pytest.raises(RuntimeError, match="closed"):
        _ = session.agent
    assert made == []


def test_only_agents_and_factories_are_accepted(tmp_path: Path):
    with pytest.raises(TypeError, match="MultiStepAgent"):
        as_factory(42)
    session = SessionRegistry(lambda: "not an agent", tmp_path / "uploads").open(None)
    with pytest.raises(TypeError, match="must return an agent"):
        _ = session.agent
