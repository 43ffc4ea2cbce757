"""The OpenAI wire format, read and written once for every backend that speaks it."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from agents.errors import ProviderServerError
from agents.models.messages import TokenUsage, agglomerate_stream_deltas
from agents.models.openai_format import (
    completion_params,
    delta_from_chunk,
    message_from_completion,
    to_wire_messages,
)
from agents.models.scripted import ScriptedModel


def test_text_only_content_is_sent_as_one_string_and_images_as_blocks():
    model = ScriptedModel()
    prepared = model.prepare_messages(
        [
            {"role": "system", "content": "Be brief."},
            {
                "role": "user",
                "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
            },
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "look"},
                    {"type": "image", "image": b"\x89PNG"},
                ],
            },
        ]
    )
    wire = to_wire_messages(prepared)
    assert wire[0] == {"role": "system", "content": "Be brief."}
    # The two user messages were merged by the base; the image keeps the content a list.
    blocks = wire[1]["content"]
    assert isinstance(blocks, list)
    assert [b["type"] for b in blocks] == ["text", "text", "text", "image_url"]
    assert blocks[3]["image_url"]["url"].startswith("data:image/png;base64,")


def test_models_that_cannot_see_get_the_text_without_the_images():
    prepared = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "look"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}},
            ],
        }
    ]
    assert to_wire_messages(prepared, images=False) == [{"role": "user", "content": "look"}]
    assert isinstance(to_wire_messages(prepared)[0]["content"], list)


def test_tool_call_arguments_go_out_as_json_text():
    wire = to_wire_messages(
        [
            {
                "role": "assistant",
                "content": [],
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "f", "arguments": {"x": 1}},
                    }
                ],
            }
        ]
    )
    call = wire[0]["tool_calls"][0]
    assert call["id"] == "c1"
    assert json.loads(call["function"]["arguments"]) == {"x": 1}


def test_response_as_dict_and_as_object_give_the_same_message():
    as_dict = {
        "choices": [
            {
                "message": {
                    "role": "assistant",
                    "content": "hi",
                    "tool_calls": [
                        {
                            "id": "t1",
                            "type": "function",
                            "function": {"name": "f", "arguments": "{}"},
                        }
                    ],
                }
            }
        ],
        "usage": {"prompt_tokens": 7, "completion_tokens": 3},
    }
    as_object = json.loads(json.dumps(as_dict), object_hook=lambda d: SimpleNamespace(**d))
    for response in (as_dict, as_object):
        message = message_from_completion(response)
        assert message.content == "hi"
        assert message.tool_calls[0].function.name == "f"
        assert message.tool_calls[0].id == "t1"
        assert message.token_usage == TokenUsage(7, 3)


def test_response_without_choices_is_a_server_error():
    with pytest.raises(ProviderServerError, match="without any choice"):
        message_from_completion({"choices": []})


def test_stream_chunks_assemble_into_text_tool_calls_and_usage():
    chunks = [
        {"choices": [{"delta": {"role": "assistant"}}]},
        {"choices": [{"delta": {"content": "Hel"}}]},
        {"choices": [{"delta": {"content": "lo"}}]},
        {
            "choices": [
                {
                    "delta": {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "c",
                                "type": "function",
                                "function": {"name": "add", "arguments": '{"a"'},
                            }
                        ]
                    }
                }
            ]
        },
        {"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": ": 1}"}}]}}]},
        {"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 4}},
    ]
    deltas = [d for d in (delta_from_chunk(c) for c in chunks) if d is not None]
    assert len(deltas) == 5  # the role-only chunk carries nothing
    message = agglomerate_stream_deltas(deltas)
    assert message.content == "Hello"
    assert message.tool_calls[0].function.name == "add"
    assert json.loads(message.tool_calls[0].function.arguments) == {"a": 1}
    assert message.token_usage == TokenUsage(5, 4)


def test_completion_params_cap_stop_sequences_and_leave_out_empty_options():
    params = completion_params(
        "m", [{"role": "user", "content": "x"}], ["a", "b", "c", "d", "e"], None, None, 4
    )
    assert params["stop"] == ["a", "b", "c", "d"]
    assert params["model"] == "m"
    assert "tools" not in params and "response_format" not in params
    unlimited = completion_params(None, [], ["a", "b", "c", "d", "e"], None, [{"type": "function"}])
    assert unlimited["stop"] == ["a", "b", "c", "d", "e"]
    assert "model" not in unlimited and unlimited["tools"] == [{"type": "function"}]
