"""Scripted models for demos: a canned CodeAgent script, or replies read from a JSON file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agents.errors import AgentConfigError
from agents.models.scripted import ScriptedModel, ScriptedReply

_DEMO_REPLIES = [
    "Thought: I am the scripted demo model, not a language model. I will show what a step "
    "looks like by running a little Python.\n"
    "<code>\nimport math\n\nvalue = round(2 * math.pi, 4)\nprint(f'2 * pi = {value}')\n</code>",
    "Thought: The code ran and printed its result. I will give the final answer now.\n"
    "<code>\nfinal_answer(f'This is the scripted demo: 2 * pi is about {value}. '\n"
    "             'Pick a real model (for example --model local) for real answers.')\n</code>",
]

_JSON_HELP = (
    'The file must hold a JSON list of replies (strings, or objects {"content": "...", '
    '"tool_calls": [{"name": "...", "arguments": {...}}], "delay": 0.5}), or an object '
    '{"replies": [...], "loop": true, "delay": 0.2}.'
)


def demo_model(**kwargs: Any) -> ScriptedModel:
    """A `ScriptedModel` playing a two-step CodeAgent demo, again and again.

    Args:
        **kwargs: `ScriptedModel` options (`delay`, `chunk_size`, ...).
    """
    kwargs.setdefault("delay", 0.2)
    kwargs.setdefault("loop", True)
    kwargs.setdefault("model_id", "scripted:demo")
    return ScriptedModel(list(_DEMO_REPLIES), **kwargs)


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
