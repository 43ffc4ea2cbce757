"""NaN and ±Infinity in a conversation's chat and memory, saved and resumed on real databases
(a SQLite file and a real PostgreSQL server): they come back as the same floats."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from agents.memory.io import steps_from_data, steps_to_data
from agents.memory.steps import ActionStep, TaskStep, Timing
from agents.models.messages import ChatMessage, ChatMessageToolCall, ToolCallFunction
from smolui.store import open_store
from smolui.store.json_codec import MARKER, dumps, loads

NAN, INF = float("nan"), float("inf")

# What a step can hold: a final answer of NaN, the mean of an empty column, numpy values,
# nested at any depth; and dicts of the conversation's own that look like the store's markers.
OUTPUTS = {
    "answer": NAN,
    "stats": {"mean": np.float64("nan"), "max": INF, "min": -INF, "n": 0},
    "rows": [[1.5, NAN], [-INF, {"deep": [INF]}]],
    "own": {MARKER: "NaN"},
    "wrapped": {MARKER: "dict", "items": {"x": 1}},
    "text": f"the words {MARKER} in a string",
}
CHAT = [
    {"role": "user", "content": "What is the mean of the empty column?"},
    {"role": "assistant", "content": "nan", "metadata": {"value": NAN, "bounds": [-INF, INF]}},
]


@pytest.fixture
def store(store_url, tmp_path):
    store = open_store(tmp_path / "data", store_url)
    yield store
    store.close()


def same(a, b) -> bool:
    """Equal, with NaN equal to NaN, and of the same kind (a float stays a float)."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def memory(*outputs) -> dict:
    steps = [{"type": "TaskStep", "task": "mean?", "images": []}]
    steps += [{"type": "FinalAnswerStep", "output": output} for output in outputs]
    return {"version": 1, "steps": steps}


def test_non_finite_floats_survive_save_and_resume(store):
    saved = memory(OUTPUTS, NAN)
    assert store.save("alice", "c1", folder="f1", messages=CHAT, memory=saved)
    got = store.get("alice", "c1")
    assert same(got.messages, CHAT) and same(got.memory, saved)
    assert math.isnan(got.memory["steps"][2]["output"])
    assert got.memory["steps"][1]["output"]["own"] == {MARKER: "NaN"}

    # Resumed and saved again with one more step: the older rows are compared, not rewritten.
    more = {"version": 1, "steps": [*got.memory["steps"], *memory(-INF)["steps"][1:]]}
    assert store.save("alice", "c1", folder="f1", messages=got.messages, memory=more)
    again = store.get("alice", "c1")
    assert same(again.memory, more) and again.memory["steps"][-1]["output"] == -INF
    assert [c.id for c in store.list("alice", "empty column")] == ["c1"]


def test_numpy_floats_of_other_widths_come_back_as_plain_floats(store):
    chat = [{"role": "user", "content": "hi"},
            {"role": "assistant", "content": "x", "metadata": {"a": np.float32("inf"),
                                                                "b": np.float32(0.5),
                                                                "n": np.int64(3)}}]  # fmt: skip
    assert store.save("alice", "c2", folder="f2", messages=chat, memory=None)
    metadata = store.get("alice", "c2").messages[1]["metadata"]
    assert same(metadata, {"a": INF, "b": 0.5, "n": 3})


def test_a_tool_call_with_nan_arguments_resumes_as_agent_memory(store):
    """A model's tool call arguments reach memory as parsed JSON, where NaN is allowed."""
    arguments = json.loads('{"values": [1.0, NaN], "limit": Infinity}')
    call = ChatMessageToolCall(ToolCallFunction("average", arguments), id="call_1")
    steps = [TaskStep(task="average?"),
             ActionStep(step_number=1, timing=Timing(start_time=1.0, end_time=2.0),
                        model_output_message=ChatMessage(role="assistant", content="",
                                                         tool_calls=[call]),
                        observations="nan")]  # fmt: skip
    data = steps_to_data(steps)
    assert store.save("alice", "c3", folder="f3", messages=CHAT[:1], memory=data)
    resumed = steps_from_data(store.get("alice", "c3").memory)
    back = resumed[1].model_output_message.tool_calls[0].function.arguments
    assert same(back, {"values": [1.0, NAN], "limit": INF})


def test_the_codec_writes_strict_json_and_reads_back_exactly():
    def refuse(token):
        raise AssertionError(f"{token} is not JSON")

    text = dumps(OUTPUTS)
    json.loads(text, parse_constant=refuse)  # no NaN or Infinity token
    assert same(loads(text), {**OUTPUTS, "stats": {**OUTPUTS["stats"], "mean": NAN}})
    assert same(loads(text.encode()), loads(text))
    plain = {"a": [1, 2.5, "b", None, True]}
    assert dumps(plain) == json.dumps(plain) and loads(dumps(plain)) == plain
    assert same(loads('{"old": NaN}'), {"old": NAN})  # rows written before still read
    with pytest.raises(TypeError):
        dumps({"x": object()})
