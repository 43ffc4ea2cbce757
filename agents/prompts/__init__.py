"""Prompt templates shipped as YAML files of Jinja2 templates, and the renderer that fills them.

The templates use smolagents' variable names, so a smolagents `prompt_templates` dict (or its
YAML file) works unchanged:

- `system_prompt`: `tools` and `managed_agents` (dicts name -> object with `name`,
  `description`, `inputs`, `output_type`, `to_code_prompt()`, `to_tool_calling_prompt()`),
  `authorized_imports`, `custom_instructions`, `code_block_opening_tag`,
  `code_block_closing_tag` (code agents), `structured_note`.
- `planning`: `initial_plan` and `update_plan_post_messages` get `task`, `tools`,
  `managed_agents` (and `remaining_steps`); `update_plan_pre_messages` gets `task`.
- `managed_agent`: `task` gets `name`, `task`; `report` gets `name`, `final_answer`.
- `final_answer`: `pre_messages` (no variables), `post_messages` gets `task`.

Rendering is strict: a template that uses a variable the agent does not provide raises an
`AgentConfigError` naming it.

May import: agents.errors.
"""

from __future__ import annotations

import copy
from functools import cache, lru_cache
from importlib import resources
from typing import Any, TypedDict

from agents.errors import AgentConfigError

REQUIRED_KEYS = ("system_prompt", "planning", "managed_agent", "final_answer")


class PlanningPromptTemplate(TypedDict):
    """Templates of the planning step: `initial_plan`, `update_plan_pre_messages`,
    `update_plan_post_messages`."""

    initial_plan: str
    update_plan_pre_messages: str
    update_plan_post_messages: str


class ManagedAgentPromptTemplate(TypedDict):
    """Templates of a managed agent: its `task` and its `report` to the manager."""

    task: str
    report: str


class FinalAnswerPromptTemplate(TypedDict):
    """Templates of the last answer after `max_steps`: `pre_messages`, `post_messages`."""

    pre_messages: str
    post_messages: str


class PromptTemplates(TypedDict):
    """All the prompt templates of an agent."""

    system_prompt: str
    planning: PlanningPromptTemplate
    managed_agent: ManagedAgentPromptTemplate
    final_answer: FinalAnswerPromptTemplate


@cache
def _load(name: str) -> dict[str, Any]:
    import yaml

    folder = resources.files("agents.prompts")
    path = folder.joinpath(f"{name}.yaml")
    if not path.is_file():
        known = sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".yaml"))
        raise AgentConfigError(
            f"No packaged prompt templates named {name!r}; known: {', '.join(known)}."
        )
    return yaml.safe_load(path.read_text("utf-8"))


def load_prompt_templates(name: str, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """The packaged templates `name` (a YAML file in this folder), with overrides.

    Args:
        name: Which packaged file to start from, e.g. "code_agent" or "toolcalling_agent".
        overrides: A dict with the same shape (a smolagents `prompt_templates` dict works);
            its keys replace the packaged ones.
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


@lru_cache(maxsize=256)
def _compile(template: str) -> Any:
    import jinja2

    environment = jinja2.Environment(undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    try:
        return environment, environment.from_string(template)
    except jinja2.TemplateSyntaxError as error:
        raise AgentConfigError(
            f"A prompt template is not valid Jinja2 (line {error.lineno}): {error.message}"
        ) from error


def populate_template(template: str, variables: dict[str, Any]) -> str:
    """Render a Jinja2 prompt template (smolagents' name for this function).

    Args:
        template: The template text.
        variables: The values it may use.

    Raises:
        AgentConfigError: The template uses a variable that is not given, or is not valid.
    """
    import jinja2
    from jinja2 import meta

    environment, compiled = _compile(template)
    try:
        return compiled.render(**variables)
    except jinja2.UndefinedError as error:
        used = meta.find_undeclared_variables(environment.parse(template))
        missing = sorted(used - set(variables))
        given = ", ".join(sorted(variables)) or "none"
        what = (
            f"the variable(s) {', '.join(missing)}, which this prompt does not provide"
            if missing
            else f"something undefined ({error.message})"
        )
        raise AgentConfigError(
            f"The prompt template uses {what}. Variables available here: {given}."
        ) from error


def render(template: str, **values: Any) -> str:
    """`populate_template` with keyword arguments.

    Args:
        template: The template text.
        **values: The values it may use.
    """
    return populate_template(template, values)


def additional_args_note(additional_args: dict[str, Any], limit: int = 200) -> str:
    """The text added to a task that comes with values (`run(additional_args=...)`).

    Args:
        additional_args: Name -> value, made available to the agent.
        limit: Characters of each value's repr shown.
    """

    def preview(value: Any) -> str:
        text = repr(value)
        return text if len(text) <= limit else text[:limit] + "..."

    return (
        "\nYou have been given these additional arguments, available as variables "
        f"in your code: {', '.join(sorted(additional_args))}.\n"
        + "\n".join(f"{k}: {preview(v)}" for k, v in additional_args.items())
    )


__all__ = [
    "FinalAnswerPromptTemplate",
    "ManagedAgentPromptTemplate",
    "PlanningPromptTemplate",
    "PromptTemplates",
    "additional_args_note",
    "load_prompt_templates",
    "populate_template",
    "render",
]
