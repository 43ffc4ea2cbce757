"""The gate before a turn: sign-in required, limits checked, a queue slot, tokens counted."""

from __future__ import annotations

import threading

import pytest

from agents.memory.steps import ActionStep, PlanningStep
from agents.models.messages import TokenUsage
from smolui.auth import AuthConfig, Identity, SignIn
from smolui.turns.admission import Admission, TurnAdmission
from smolui.turns.limits import Limits, UsageLimiter
from smolui.turns.pending import PendingTurn
from smolui.turns.queue import TurnQueue
from smolui.turns.usage_ledger import MemoryLedger

ALICE = Identity(provider="hf", name="alice", client="10.0.0.1")
BOB = Identity(provider="hf", name="bob", client="10.0.0.2")


def gate(slots: int = 4, sign_in: SignIn | None = None, **limits) -> TurnAdmission:
    return TurnAdmission(
        sign_in,
        UsageLimiter(Limits(**limits), MemoryLedger()),
        TurnQueue(slots=slots, max_waiting=4, user_slots=1),
    )


def test_hf_mode_refuses_visitors_who_did_not_sign_in():
    sign_in = SignIn(AuthConfig(mode="hf"), environ={"HF_TOKEN": "hf_x"})
    refusal = gate(sign_in=sign_in).enter(
        Identity(client="10.0.0.3"), "k" * 43, PendingTurn.message("hi")
    )
    assert isinstance(refusal, str) and "Sign in with Hugging Face" in refusal
    assert isinstance(
        gate(sign_in=sign_in).enter(ALICE, None, PendingTurn.message("hi")), Admission
    )


def test_a_turn_over_the_limit_is_refused_before_anything_runs():
    admission = gate(turns_per_hour=1)
    first = admission.enter(ALICE, None, PendingTurn.message("one"))
    assert isinstance(first, Admission) and first.admitted
    first.turn_started()
    first.turn_finished("done", 1.0, None)
    refusal = admission.enter(ALICE, None, PendingTurn.message("two"))
    assert isinstance(refusal, str) and "1 turns this hour" in refusal
    assert isinstance(admission.enter(BOB, None, PendingTurn.message("one")), Admission)


def test_tokens_the_model_reported_are_counted_for_the_user():
    admission = gate(tokens_per_day=100)
    turn = admission.enter(ALICE, None, PendingTurn.message("count"))
    turn.turn_started()
    turn.event(
        PlanningStep(
            model_input_messages=[],
            model_output_message=None,
            plan="p",
            token_usage=TokenUsage(20, 10),
        )
    )
    turn.event(ActionStep(step_number=1, token_usage=TokenUsage(60, 15)))
    turn.event("a token delta")  # no usage: ignored
    turn.turn_finished("done", 2.0, None)
    assert admission.limiter.usage("hf:alice")["tokens_today"] == 105
    refusal = admission.enter(ALICE, None, PendingTurn.message("more"))
    assert isinstance(refusal, str) and "model tokens" in refusal and "used 105" in refusal


def test_uploaded_bytes_are_read_from_the_files_on_disk(tmp_path):
    file = tmp_path / "data.csv"
    file.write_bytes(b"x" * 3000)
    admission = gate(upload_bytes_per_day=4000)
    first = admission.enter(ALICE, None, PendingTurn.message("", [str(file)]))
    assert first.upload_bytes == 3000
    first.turn_started()
    first.turn_finished("done", 0.1, None)
    refusal = admission.enter(ALICE, None, PendingTurn.message("", [str(file)]))
    assert isinstance(refusal, str) and "MB of uploads" in refusal


def test_a_waiting_turn_sees_its_position_and_starts_when_a_slot_frees():
    admission = gate(slots=1)
    running = admission.enter(ALICE, None, PendingTurn.message("long"))
    waiting = admission.enter(BOB, None, PendingTurn.message("next"))
    assert running.admitted and not waiting.admitted
    said = []
    stopped = threading.Event()
    for message in waiting.wait(stopped, poll_s=0.01):
        said.append(message)
        if len(said) == 2:
            running.turn_finished("done", 0.5, None)
    assert waiting.admitted
    assert "number 1 of 1 in the queue" in said[0]
    assert admission.queue.waiting == 0 and admission.queue.running == 1


def test_stop_takes_a_waiting_turn_out_of_the_queue():
    admission = gate(slots=1)
    admission.enter(ALICE, None, PendingTurn.message("long"))
    waiting = admission.enter(BOB, None, PendingTurn.message("next"))
    stopped = threading.Event()
    said = []
    for message in waiting.wait(stopped, poll_s=0.01):
        said.append(message)
        stopped.set()
    assert len(said) == 1 and not waiting.admitted
    assert admission.queue.waiting == 0
    # Bob may send again at once: his place was given back.
    assert isinstance(admission.enter(BOB, None, PendingTurn.message("again")), Admission)


def test_one_user_cannot_hold_two_slots():
    admission = gate(slots=4)
    assert isinstance(admission.enter(ALICE, None, PendingTurn.message("one")), Admission)
    refusal = admission.enter(ALICE, None, PendingTurn.message("two"))
    assert isinstance(refusal, str) and "each user may run 1 at a time" in refusal


def test_one_browser_key_runs_one_turn_but_an_address_is_not_a_user():
    admission = gate(slots=4)
    visitor = Identity(client="10.0.0.5")  # API clients without an owner key share an address
    assert isinstance(admission.enter(visitor, None, PendingTurn.message("a"), "c1"), Admission)
    assert isinstance(admission.enter(visitor, None, PendingTurn.message("b"), "c2"), Admission)
    browser = "k" * 43
    assert isinstance(admission.enter(visitor, browser, PendingTurn.message("a"), "c3"), Admission)
    refusal = admission.enter(visitor, browser, PendingTurn.message("b"), "c4")
    assert isinstance(refusal, str) and "1 at a time" in refusal


def test_only_admins_read_everyone_s_usage():
    admission = gate(turns_per_day=5)
    admission.limiter.count_turn(["hf:alice"])
    with pytest.raises(PermissionError, match="Only admins"):
        admission.usage_report(ALICE)
    admin = Identity(provider="hf", name="root", admin=True)
    assert admission.usage_report(admin)[0]["subject"] == "hf:alice"
    assert TurnAdmission().usage_report(admin) == []  # no limits: nothing is counted


# -- through the real turn handlers (CodeAgent, in-process executor, scripted model) ---------


def chat_app(tmp_path, admission: TurnAdmission):
    from agents.loop.code_agent import CodeAgent
    from agents.models.scripted import ScriptedModel
    from smolui.handlers.chat import ChatHandlers, HandlerConfig
    from smolui.observability.metrics import AppMetrics
    from smolui.sessions import SessionRegistry
    from smolui.uploads import UploadPolicy

    calls = []

    def factory() -> CodeAgent:
        model = ScriptedModel(["<code>\nfinal_answer('hi there')\n</code>"], loop=True)
        calls.append(model)
        return CodeAgent([], model, executor_type="local", verbosity_level=-1)

    registry = SessionRegistry(factory, tmp_path / "uploads", media_root=tmp_path / "media")
    config = HandlerConfig(policy=UploadPolicy(), max_steps=3, executor_type="local")
    metrics = AppMetrics(registry, queue=admission.queue)
    handlers = ChatHandlers(registry, config, observer=metrics, admission=admission)
    return handlers, registry, metrics, calls


def send(handlers, text, conversation_id=None, identity=ALICE):
    shown, pending = handlers.echo({"text": text, "files": []}, [])
    return handlers.run_turn(pending, shown, conversation_id, None, identity)


def words(chat) -> str:
    return "\n".join(m["content"] for m in chat if isinstance(m.get("content"), str))


def test_over_the_limit_the_chat_says_so_and_the_model_is_not_called(tmp_path):
    admission = gate(turns_per_hour=1, tokens_per_day=100_000)
    handlers, _, _, _ = chat_app(tmp_path, admission)
    first, conversation_id = list(send(handlers, "hello"))[-1]
    assert "hi there" in words(first)
    assert admission.limiter.usage("hf:alice")["tokens_today"] > 0  # counted from the model
    updates = list(send(handlers, "again", conversation_id))
    chat = updates[-1][0]
    assert "Limit reached" in words(chat) and "1 turns this hour" in words(chat)
    assert "hi there" not in words(chat)
    session = handlers.registry.get(conversation_id)
    assert not session.busy  # the conversation is free again
    assert "hi there" in words(list(send(handlers, "bob's turn", identity=BOB))[-1][0])


def test_a_queued_turn_shows_its_place_stop_leaves_and_a_free_slot_runs_it(tmp_path):
    admission = gate(slots=1)
    handlers, _, metrics, _ = chat_app(tmp_path, admission)
    busy = admission.queue.join("someone-else")  # the only slot is taken
    turn = send(handlers, "wait for me")
    chat, conversation_id = next(turn)
    while "in the queue" not in words(chat):
        chat, conversation_id = next(turn)
    assert "number 1 of 1 in the queue" in words(chat)
    assert b"smolui_queue_length 1.0" in metrics.render()[0]
    handlers.stop(conversation_id)
    rest = list(turn)
    assert "left the queue" in words(rest[-1][0])
    assert admission.queue.waiting == 0 and b"smolui_queue_length 0.0" in metrics.render()[0]

    waiting = send(handlers, "now please", conversation_id)
    chat, _ = next(waiting)
    while "in the queue" not in words(chat):  # the slot frees only once this turn waits for it
        chat, _ = next(waiting)
    busy.release()
    final = list(waiting)[-1][0]
    assert "hi there" in words(final)
    assert admission.queue.running == 0  # the slot went back when the turn ended
