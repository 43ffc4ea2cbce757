"""Scripted models for demos: a canned CodeAgent script, or replies read from a JSON file."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from agents.errors import AgentConfigError
from agents.models.messages import content_text
from agents.models.scripted import ScriptedModel, ScriptedReply

_INTRO = "Thought: I am the scripted demo model, not a language model. "
_SQUARES_STEP = (
    _INTRO + "I will show what a step looks like by running a little Python and drawing a plot.\n"
    "<code>\nimport matplotlib.pyplot as plt\n\n"
    "numbers = list(range(1, 11))\nsquares = [n * n for n in numbers]\n"
    "fig, ax = plt.subplots(figsize=(6, 3.5))\nax.bar(numbers, squares, color='#4C72B0')\n"
    "ax.set_title('Squares of 1 to 10')\nprint('sum of the squares:', sum(squares))\n</code>"
)
_SQUARES_ANSWER = (
    "Thought: The code ran and drew its plot. I will give the final answer now.\n"
    "<code>\nfinal_answer(f'This is the scripted demo: the squares of 1 to 10 add up to '\n"
    "             f'{sum(squares)} (plotted above). Pick a real model (for example '\n"
    "             '--model local) for real answers.')\n</code>"
)
# Monthly totals of an uploaded CSV: the first column holds dates, the last numeric one values.
_TABLE_STEP = (
    _INTRO + "A table is attached: I will load it with pandas, add up each month and plot "
    "the totals.\n<code>\nimport pandas as pd\nimport matplotlib.pyplot as plt\n\n"
    "table = pd.read_csv({path!r})\n"
    "months = pd.to_datetime(table.iloc[:, 0], errors='coerce').dt.strftime('%Y-%m')\n"
    "column = table.select_dtypes('number').columns[-1]\n"
    "totals = table.groupby(months)[column].sum().round(2)\n"
    "best = totals.idxmax()\n"
    "fig, ax = plt.subplots(figsize=(8, 4))\ntotals.plot(kind='bar', ax=ax, color='#4C72B0')\n"
    "ax.set_title(f'Monthly {{column}}: best month {{best}} ({{totals.max():,.2f}})')\n"
    "fig.tight_layout()\nprint(f'Best month: {{best}} with {{totals.max():,.2f}} of {{column}}')\n"
    "totals\n</code>"
)
_TABLE_ANSWER = (
    "Thought: The plot shows every month's total; the best month is in its title. "
    "I will answer with the plot.\n<code>\nfinal_answer(fig)\n</code>"
)
# A document attached to the task: what it is and where (the upload note's line for it).
_DOCUMENT_STEP = (
    _INTRO + "A document is attached: I cannot read it as a language model would, but I can "
    "show a step that opens it with the read_document tool and counts its words.\n<code>\n"
    "name = {name!r}\ntext = read_document({path!r})\n"
    "words = len(text.split())\n"
    "print(text[:1500])\n"
    "print('...')\nprint(f'{{words:,}} words read.')\n</code>"
)
_DOCUMENT_ANSWER = (
    "Thought: The document was read. As a scripted demo I cannot summarize it or compute from "
    "it, so I will say so.\n<code>\n"
    "final_answer(f'This is the scripted demo, not a language model: it cannot summarize '\n"
    "             f'{name} or work out what you asked. It opened the document and read '\n"
    "             f'{words:,} words (its start is in the step above). Pick a real model '\n"
    "             '(for example --model local) for a real answer.')\n</code>"
)
_CSV_PATH = re.compile(r"pd\.read_csv\((['\"])(?P<path>[^'\"]+?\.csv)\1")
_DOCUMENT = re.compile(
    r'^- "(?P<name>[^"\n]+)": (?:PDF|Word document|[^,\n]*text file),[^\n]*?; '
    r"path: (?P<path>[^\n]+?)\.(?: |$)",
    re.MULTILINE,
)


def _attached_csv(messages: list[dict[str, Any]]) -> str | None:
    """The path of the latest CSV the upload note offered to load, if any."""
    for item in reversed(messages):
        found = _CSV_PATH.findall(content_text(item.get("content")))
        if found:
            return found[-1][1]
    return None


def _attached_document(messages: list[dict[str, Any]]) -> tuple[str, str] | None:
    """The name and path of the latest document (PDF, Word, text) the upload note lists."""
    for item in reversed(messages):
        found = list(_DOCUMENT.finditer(content_text(item.get("content"))))
        if found:
            return found[-1]["name"], found[-1]["path"]
    return None


def _first_step(messages: list[dict[str, Any]]) -> str:
    path = _attached_csv(messages)
    if path:
        return _TABLE_STEP.format(path=path)
    document = _attached_document(messages)
    if document:
        return _DOCUMENT_STEP.format(name=document[0], path=document[1])
    return _SQUARES_STEP


def _second_step(messages: list[dict[str, Any]]) -> str:
    if _attached_csv(messages):
        return _TABLE_ANSWER
    if _attached_document(messages):
        return _DOCUMENT_ANSWER
    return _SQUARES_ANSWER


_JSON_HELP = (
    'The file must hold a JSON list of replies (strings, or objects {"content": "...", '
    '"tool_calls": [{"name": "...", "arguments": {...}}], "delay": 0.5}), or an object '
    '{"replies": [...], "loop": true, "delay": 0.2}.'
)


def demo_model(**kwargs: Any) -> ScriptedModel:
    """A `ScriptedModel` playing a two-step CodeAgent demo, again and again: it plots the
    monthly totals of an attached CSV (and answers with the plot), opens an attached document
    and counts its words (and says it cannot summarize it), or else plots squares.

    Args:
        **kwargs: `ScriptedModel` options (`delay`, `chunk_size`, ...).
    """
    kwargs.setdefault("delay", 0.2)
    kwargs.setdefault("loop", True)
    kwargs.setdefault("model_id", "scripted:demo")
    return ScriptedModel([_first_step, _second_step], **kwargs)


def model_from_json(path: str, **kwargs: Any) -> ScriptedModel:
    """A `ScriptedModel` replaying the replies of a JSON file.

    Args:
        path: The JSON file (see `_JSON_HELP` for its shape).
        **kwargs: `ScriptedModel` options; they override the file's.

    Raises:
        AgentConfigError: When the file is missing or malformed.
    """
    file = Path(path).expanduser()
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except OSError as err:
        raise AgentConfigError(
            f"scripted:{path}: cannot read the file ({err}). Use scripted:demo or a JSON file."
        ) from err
    except json.JSONDecodeError as err:
        raise AgentConfigError(f"scripted:{path} is not valid JSON ({err}). {_JSON_HELP}") from err
    options: dict[str, Any] = {}
    if isinstance(data, dict):
        options = {k: data[k] for k in ("loop", "delay", "chunk_size") if k in data}
        data = data.get("replies")
    if not isinstance(data, list) or not data:
        raise AgentConfigError(f"scripted:{path} holds no replies. {_JSON_HELP}")
    replies = [_reply(item, path) for item in data]
    options.update(kwargs)
    options.setdefault("model_id", f"scripted:{file.name}")
    return ScriptedModel(replies, **options)


def _reply(item: Any, path: str) -> ScriptedReply:
    if isinstance(item, str):
        return ScriptedReply(item)
    if not isinstance(item, dict):
        raise AgentConfigError(f"scripted:{path}: a reply is a {type(item).__name__}. {_JSON_HELP}")
    calls = []
    for call in item.get("tool_calls") or []:
        if isinstance(call, dict) and "name" in call:
            calls.append((call["name"], call.get("arguments", {})))
        elif isinstance(call, list) and len(call) == 2:
            calls.append((call[0], call[1]))
        else:
            raise AgentConfigError(f"scripted:{path}: bad tool call {call!r}. {_JSON_HELP}")
    return ScriptedReply(
        content=str(item.get("content", "")),
        tool_calls=calls,
        delay=float(item.get("delay", 0.0)),
        chunk_size=item.get("chunk_size"),
    )
