"""Decoding what sandboxed code sends (tool arguments, results) costs the host linear time.

Python's dict is quadratic when every key has the same hash. String hashes are randomized
per process, but ints, floats and tuples of them are not: the multiples of 2**61 - 1 all
hash to 0. Code talked into sending thousands of them as a dict's keys must be refused
before the host builds the dict, not after minutes of CPU.
"""

from __future__ import annotations

import time

import pytest

from agents.executors.sandbox import SandboxExecutor
from agents.executors.tool_calls import run_tool_call
from agents.executors.values import (
    MAX_EQUAL_HASHES,
    MAX_KEYED_ENTRIES,
    TAG,
    decode_value,
    encode_value,
)
from tools.base import Tool

_MODULUS = 2**61 - 1  # CPython reduces int hashes modulo this prime
_KEYS = 40_000  # 1.4 MB on the wire, under every size cap; seconds of CPU if quadratic


class EchoTool(Tool):
    name = "echo"
    description = "Returns how many entries its argument has."
    inputs = {"data": {"type": "object", "description": "Anything."}}
    output_type = "integer"

    def forward(self, data):
        return len(data)


def _colliding_dict(count: int, key=lambda k: k) -> dict:
    """The tree of a dict whose `count` keys all hash alike, as a worker would send it."""
    return {TAG: "dict", "v": [[key(n * _MODULUS), 0] for n in range(1, count + 1)]}


def test_colliding_int_keys_are_refused_in_linear_time() -> None:
    assert len({hash(n * _MODULUS) for n in range(1, 100)}) == 1  # the attack is real
    message = {"t": "call", "name": "echo", "args": [], "kwargs": {"data": _colliding_dict(_KEYS)}}
    started = time.process_time()
    reply = run_tool_call({"echo": EchoTool()}, message)
    spent = time.process_time() - started
    assert not reply["ok"]
    assert "hash" in reply["error"]
    assert spent < 2, f"decoding took {spent:.1f} CPU-s"


@pytest.mark.parametrize(
    "key",
    [lambda k: [k, 1], lambda k: [[k], "a"]],
    ids=["tuple-keys", "nested-tuple-keys"],
)
def test_colliding_tuple_keys_are_refused(key) -> None:
    with pytest.raises(ValueError, match="hash"):
        decode_value(_colliding_dict(MAX_EQUAL_HASHES * 50, key))


def test_too_many_keyed_entries_in_one_value_are_refused() -> None:
    # Split over many small dicts: the count is per value, not per dict.
    chunk = [{TAG: "dict", "v": [[n, n] for n in range(1000)]}]
    tree = chunk * (MAX_KEYED_ENTRIES // 1000 + 1)
    with pytest.raises(ValueError, match="entries"):
        decode_value(tree)


def test_ordinary_keyed_dicts_still_cross() -> None:
    value = {n: str(n) for n in range(5000)}
    value.update({(1, "a"): [1, 2], -1: "minus one", -2: "minus two", None: {"x": 1}})
    assert decode_value(encode_value(value)) == value
    merged = decode_value({TAG: "dict", "v": [[1, "int"], [1.0, "float"], [True, "bool"]]})
    assert merged == {1: "bool"}


def test_hostile_code_in_the_sandbox_gets_a_refusal_it_can_read() -> None:
    code = (
        f"keys = {{n * {_MODULUS}: 0 for n in range(1, {_KEYS + 1})}}\n"
        "try:\n"
        "    echo(data=keys)\n"
        "except Exception as error:\n"
        "    answer = str(error)\n"
        "answer"
    )
    with SandboxExecutor(timeout=60) as sandbox:
        sandbox.send_tools({"echo": EchoTool()})
        started = time.process_time()  # the host's CPU: the worker's is its own
        answer = sandbox(code).output
        spent = time.process_time() - started
        assert "same hash" in answer
        assert sandbox("echo(data={1: 'a', 2: 'b'})").output == 2  # the tool still works
    assert spent < 2, f"the host spent {spent:.1f} CPU-s on one call"
