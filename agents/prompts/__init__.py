"""Prompt templates shipped as YAML, and the tiny renderer that fills them."""

from __future__ import annotations

import copy
import re
from functools import cache
from importlib import resources
from typing import Any

from agents.errors import AgentConfigError

REQUIRED_KEYS = ("system_prompt", "planning", "managed_agent", "final_answer")
_PLACEHOLDER = re.compile(r"\{\{\s*(\w+)\s*\}\}")


@cache
def _load(name: str) -> dict[str, Any]:
    import yaml

    text = resources.files("agents.prompts").joinpath(f"{name}.yaml").read_text("utf-8")
    return yaml.safe_load(text)


def load_prompt_templates(name: str, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """The packaged templates `name` ("code_agent" or "toolcalling_agent"), with overrides.

    Args:
        name: Which packaged file to start from.
        overrides: A dict with the same shape; its keys replace the packaged ones.
    """
    templates = copy.deepcopy(_load(name))
    for key, value in (overrides or {}).items():
        if key not in REQUIRED_KEYS:
            raise AgentConfigError(
                f"prompt_templates has an unknown key {key!r}; known keys: {', '.join(REQUIRED_KEYS)}."
            )
        if isinstance(value, dict) and isinstance(templates.get(key), dict):
            templates[key].update(value)
        else:
            templates[key] = value
    return templates


def render(template: str, **values: Any) -> str:
    """Fill `{{ name }}` placeholders; unknown placeholders are left for the reader to see."""

    def fill(match: re.Match[str]) -> str:
        key = match.group(1)
        return str(values[key]) if key in values else match.group(0)

    return _PLACEHOLDER.sub(fill, template)
