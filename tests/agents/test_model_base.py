"""The Model base: message conversion, stream assembly, stop sequences, tool-call parsing."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from agents import ChatMessage, ScriptedModel, ScriptedReply
from agents.errors import AgentParsingError, ProviderAuthenticationError
from agents.models import scripted
from agents.models.messages import (
    ChatMessageStreamDelta,
    ToolCallFunction,
    ToolCallStreamDelta,
    agglomerate_stream_deltas,
)
from agents.models.stop_sequences import cut_stop_sequences
from agents.models.tool_call_text import parse_json_tool_call


def test_roles_are_converted_and_runs_merged():
    model = ScriptedModel(["ok"], custom_role_conversions={"system": "user"})
    prepared = model.prepare_messages(
        [
            ChatMessage(role="system", content="rules"),
            {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            {"role": "tool-call", "content": "calling"},
            {"role": "tool-response", "content": "result"},
        ]
    )
    assert [m["role"] for m in prepared] == ["user", "assistant", "user"]
    assert [b["text"] for b in prepared[0]["content"]] == ["rules", "hi"]


def test_flattened_messages_are_strings():
    model = ScriptedModel(["ok"], flatten_messages_as_text=True)
    prepared = model.prepare_messages(
        [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]
    )
    assert prepared == [{"role": "user", "content": "a\nb"}]


def test_stream_is_cut_at_stop_sequences_split_across_deltas():
    model = ScriptedModel([ScriptedReply("print(1)\n</co" + "de> and more", chunk_size=3)])
    deltas = list(
        model.generate_stream([{"role": "user", "content": "x"}], stop_sequences=["</code>"])
    )
    text = "".join(d.content or "" for d in deltas)
    assert text == "print(1)\n"
    assert agglomerate_stream_deltas(deltas).token_usage.output_tokens > 0


def test_generate_cuts_stop_sequences():
    model = ScriptedModel(["answer Observation: junk"])
    assert (
        model.generate([{"role": "user", "content": "x"}], stop_sequences=["Observation:"]).content
        == "answer "
    )
    assert cut_stop_sequences("abc", None) == "abc"


def test_tool_call_deltas_are_assembled_by_index():
    deltas = [
        ChatMessageStreamDelta(
            tool_calls=[ToolCallStreamDelta(0, "c1", "function", ToolCallFunction("sea", '{"q": '))]
        ),
        ChatMessageStreamDelta(
            tool_calls=[ToolCallStreamDelta(0, None, None, ToolCallFunction("rch", '"cats"}'))]
        ),
        ChatMessageStreamDelta(
            tool_calls=[
                ToolCallStreamDelta(1, "c2", "function", ToolCallFunction("final_answer", "{}"))
            ]
        ),
    ]
    message = agglomerate_stream_deltas(deltas)
    assert [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls] == [
        ("c1", "search", '{"q": "cats"}'),
        ("c2", "final_answer", "{}"),
    ]


@pytest.mark.parametrize(
    "text",
    [
        'Action: {"name": "search", "arguments": {"q": "a {b}"}}',
        '```json\n{"name": "search", "arguments": {"q": "a {b}"}}\n```',
        'I will call {"name": "search", "parameters": {"q": "a {b}"}} now',
    ],
)
def test_json_tool_calls_are_found_in_text(text):
    assert parse_json_tool_call(text) == ("search", {"q": "a {b}"})


def test_text_without_tool_call_is_a_parsing_error():
    with pytest.raises(AgentParsingError, match="no tool call"):
        parse_json_tool_call("no call here")


def test_non_retryable_errors_are_not_retried():
    model = ScriptedModel(
        [ScriptedReply(error=ProviderAuthenticationError("bad key")), "never"], max_retries=3
    )
    with pytest.raises(ProviderAuthenticationError):
        model.generate([{"role": "user", "content": "x"}])
    assert model.remaining == 1


def test_chat_message_round_trips_through_dict():
    message = ChatMessage(role="assistant", content="hi")
    assert ChatMessage.from_dict(message.dict()).content == "hi"


def test_scripted_pieces_can_arrive_over_time_like_generated_tokens(monkeypatch):
    # The pause between pieces is read from the model's clock, not measured: each piece is
    # handed over before the next pause begins, as a model generating tokens would.
    seen = []
    pause = SimpleNamespace(sleep=lambda seconds: seen.append(("pause", seconds)))
    monkeypatch.setattr(scripted, "time", pause)
    model = ScriptedModel([ScriptedReply("one two three four")], chunk_size=4, piece_delay=0.05)
    for delta in model.generate_stream([{"role": "user", "content": "go"}]):
        if delta.content:
            seen.append(("piece", delta.content))
    pieces = [("piece", text) for text in ("one ", "two ", "thre", "e fo", "ur")]
    assert seen == [pieces[0], *[item for piece in pieces[1:] for item in (("pause", 0.05), piece)]]


def _conversation(length: int) -> list[ChatMessage]:
    roles = ["user", "assistant", "tool-call", "tool-response", "user"]
    return [
        ChatMessage(role=roles[i % len(roles)], content=[{"type": "text", "text": f"m{i}"}])
        for i in range(length)
    ]


@pytest.mark.parametrize("flatten", [False, True])
def test_a_growing_conversation_converts_as_if_new_each_time(flatten):
    """Messages converted for the previous call are reused; the result is what a model that
    never saw them makes, with same-role runs merged across the old and new parts."""
    model = ScriptedModel([], flatten_messages_as_text=flatten)
    messages = _conversation(3)
    for length in range(3, 40):
        messages = messages + _conversation(length + 1)[length:]
        fresh = ScriptedModel([], flatten_messages_as_text=flatten).prepare_messages(messages)
        assert model.prepare_messages(messages) == fresh
    messages[5].content = [{"type": "text", "text": "changed"}]  # noticed, though reused
    assert "changed" in str(model.prepare_messages(messages))
    messages[6] = ChatMessage(role="user", content="replaced")
    assert "replaced" in str(model.prepare_messages(messages))
    assert model.prepare_messages(messages[:4]) == ScriptedModel(
        [], flatten_messages_as_text=flatten
    ).prepare_messages(messages[:4])


def test_dict_messages_are_converted_each_time():
    model = ScriptedModel([])
    messages = [{"role": "user", "content": "first"}]
    model.prepare_messages(messages)
    messages[0]["content"] = "edited in place"
    assert model.prepare_messages(messages)[0]["content"][0]["text"] == "edited in place"
