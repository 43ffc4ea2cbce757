"""A turn's run span carries its conversation id and, when signed in, the user (never the
anonymous visitor's browser key), through the real turn handlers and a real OTLP receiver."""

from __future__ import annotations

import pytest

from agents import CodeAgent, ScriptedModel
from smolui.auth import Identity
from tests.agents.test_tracing import by_name, otlp_tracer
from tests.otlp_receiver import OtlpReceiver

ANSWER = "<code>\nfinal_answer('hi there')\n</code>"


@pytest.fixture
def traced_handlers(tmp_path):
    from smolui.handlers.chat import ChatHandlers, HandlerConfig
    from smolui.sessions import SessionRegistry
    from smolui.uploads import UploadPolicy

    with OtlpReceiver() as receiver:
        tracer, provider = otlp_tracer(receiver.endpoint)

        def factory() -> CodeAgent:
            agent = CodeAgent([], ScriptedModel([ANSWER], loop=True), executor_type="local",
                              verbosity_level=-1, name="chat")  # fmt: skip
            agent.tracing.tracer = tracer
            return agent

        registry = SessionRegistry(factory, tmp_path / "uploads", media_root=tmp_path / "media")
        config = HandlerConfig(policy=UploadPolicy(), max_steps=3, executor_type="local")
        yield ChatHandlers(registry, config), receiver
        provider.shutdown()


def run_span(handlers, receiver, identity: Identity) -> tuple[dict, str]:
    shown, pending = handlers.echo({"text": "hello", "files": []}, [])
    chat, conversation_id = list(handlers.run_turn(pending, shown, None, None, identity))[-1]
    assert any("hi there" in str(message["content"]) for message in chat)
    (run,) = by_name(receiver.wait_for("invoke_agent chat"))["invoke_agent chat"]
    return run, conversation_id


def test_a_signed_in_user_s_turn_is_traced_with_the_user_and_the_conversation(
    traced_handlers,
):
    handlers, receiver = traced_handlers
    run, conversation_id = run_span(handlers, receiver, Identity(provider="hf", name="alice"))
    assert run["attributes"]["user.id"] == "hf:alice"
    assert run["attributes"]["gen_ai.conversation.id"] == conversation_id


def test_an_anonymous_turn_is_traced_with_its_conversation_and_no_user(traced_handlers):
    handlers, receiver = traced_handlers
    run, conversation_id = run_span(handlers, receiver, Identity(client="10.0.0.7"))
    assert run["attributes"]["gen_ai.conversation.id"] == conversation_id
    assert "user.id" not in run["attributes"]
