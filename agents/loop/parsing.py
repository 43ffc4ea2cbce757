"""Find the code a model wrote in its answer."""

from __future__ import annotations

import ast
import json
import re

from agents.errors import AgentParsingError

_TAGGED = re.compile(r"<code>\s*\n?(.*?)</code>", re.DOTALL)
_FENCED = re.compile(r"```(?:py|python|python3)?[ \t]*\n(.*?)```", re.DOTALL)
_OPEN_TAG = re.compile(r"<code>\s*\n?(.*)$", re.DOTALL)
_OPEN_FENCE = re.compile(r"```(?:py|python|python3)?[ \t]*\n(.*)$", re.DOTALL)


def extract_code(text: str, code_open: str = "<code>", code_close: str = "</code>") -> str:
    """Return the Python code in a model answer.

    Accepts `<code>...</code>` blocks, ```py / ```python fences, a block left open because
    a stop sequence ended generation, and an answer that is nothing but Python.

    Raises:
        AgentParsingError: When no code can be found (a model mistake).
    """
    text = text.replace("<end_code>", "")
    blocks = _custom_blocks(text, code_open, code_close)
    blocks = blocks or _TAGGED.findall(text) or _FENCED.findall(text)
    if not blocks:
        for pattern in (_OPEN_TAG, _OPEN_FENCE):
            match = pattern.search(text)
            if match and match.group(1).strip():
                blocks = [match.group(1)]
                break
    if not blocks and _is_bare_python(text):
        blocks = [text]
    code = "\n\n".join(block.strip("\n") for block in blocks if block.strip())
    if not code.strip():
        raise AgentParsingError(
            "Your answer held no code block. Write a Thought:, then your code between "
            f"{code_open} and {code_close}, for example:\n"
            f"Thought: I will compute the answer.\n{code_open}\nfinal_answer(42)\n{code_close}\n"
            f"Your answer was:\n{text[:2000]}"
        )
    return _dedent(code)


def _custom_blocks(text: str, code_open: str, code_close: str) -> list[str]:
    """Blocks between custom `code_block_tags` (the default tags are matched below)."""
    if code_open in ("<code>", "```python", "```py") or not code_open or not code_close:
        return []
    pattern = re.escape(code_open) + r"[ \t]*\n?(.*?)(?:" + re.escape(code_close) + "|$)"
    return re.findall(pattern, text, re.DOTALL)


def extract_structured_code(text: str) -> tuple[str, str]:
    """Parse `{"thought": ..., "code": ...}` answers (structured outputs); return (thought, code)."""
    start, end = text.find("{"), text.rfind("}")
    try:
        data = json.loads(text[start : end + 1]) if start != -1 else None
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict) or not isinstance(data.get("code"), str):
        raise AgentParsingError(
            'Answer with a JSON object {"thought": "...", "code": "..."}. Your answer was:\n'
            + text[:2000]
        )
    code = data["code"]
    if "```" in code or "<code>" in code:
        code = extract_code(code)
    return str(data.get("thought", "")), code


def _is_bare_python(text: str) -> bool:
    stripped = text.strip()
    if not stripped or "\n" not in stripped and "(" not in stripped:
        return False
    try:
        tree = ast.parse(stripped)
    except SyntaxError:
        return False
    return any(
        not isinstance(node, ast.Expr) or isinstance(node.value, ast.Call) for node in tree.body
    )


def _dedent(code: str) -> str:
    import textwrap

    return textwrap.dedent(code).strip()
