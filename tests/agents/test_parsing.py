"""Finding code in model answers."""

from __future__ import annotations

import pytest

from agents.errors import AgentParsingError
from agents.loop.parsing import extract_code, extract_structured_code


@pytest.mark.parametrize(
    "answer",
    [
        "Thought: x\n<code>\nprint(1)\n</code>",
        "Thought: x\n```py\nprint(1)\n```<end_code>",
        "Thought: x\n```python\nprint(1)\n```",
        "Thought: x\n<code>\nprint(1)\n",  # cut by the stop sequence
        "Thought: x\n```py\nprint(1)\n",
        "print(1)",
    ],
)
def test_common_formats(answer):
    assert extract_code(answer) == "print(1)"


def test_several_blocks_are_joined():
    answer = "<code>\na = 1\n</code> then <code>\nprint(a)\n</code>"
    assert extract_code(answer) == "a = 1\n\nprint(a)"


def test_prose_is_refused_with_guidance():
    with pytest.raises(AgentParsingError, match="no code block"):
        extract_code("The answer is 42.")


def test_structured():
    thought, code = extract_structured_code('noise {"thought": "t", "code": "x = 1"} noise')
    assert (thought, code) == ("t", "x = 1")
    with pytest.raises(AgentParsingError):
        extract_structured_code("no json here")
