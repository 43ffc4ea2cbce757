"""The side panel's text: model, sandbox isolation, limits and the conversation's files."""

from __future__ import annotations

from typing import Any

from agents.small_model import is_small_model_id
from smolui.uploads.describe import human_size

HOW_TO_CHANGE_MODEL = "Change it with `--model` or `SMOLUI_MODEL` (see `python app.py --help`)."
TINY_MODEL_NOTE = (
    "This offline model is tiny: simple sums, strings and dates only. For real work, run "
    "`python app.py --model hf:Qwen/Qwen2.5-Coder-32B-Instruct` with an `HF_TOKEN`."
)


def isolation_label(agent: Any, executor_type: str) -> str:
    """The sandbox's isolation level in words.

    Args:
        agent: The conversation's agent, or None before it exists.
        executor_type: The configured executor ("sandbox" or "local").
    """
    executor = getattr(agent, "executor", None) if agent is not None else None
    isolation = getattr(executor, "isolation", None)
    if isinstance(isolation, dict) and isolation.get("level"):
        return str(isolation["level"])
    if agent is None:
        return f"{executor_type} (starts with your first message)"
    return "no code executor" if executor is None else executor_type


def _where_title(executor_type: str) -> str:
    from agents.executors import REMOTE_EXECUTOR_TYPES

    return "Code runs in" if executor_type in REMOTE_EXECUTOR_TYPES else "Sandbox"


def files_table(files: list[Any]) -> str:
    """A Markdown table of uploaded files: name, size, pages.

    Args:
        files: `AcceptedFile`s of the conversation.
    """
    if not files:
        return "_No files yet. Attach PDF, DOCX, text, CSV/XLSX or images (paperclip button)._"
    rows = ["| file | size | pages |", "|---|---|---|"]
    for item in files:
        name = str(item.display_name).replace("|", "\\|")
        pages = "" if item.pages is None else str(item.pages)
        rows.append(f"| {name} | {human_size(item.size)} | {pages} |")
    return "\n".join(rows)


def side_panel(
    model_label: str, agent: Any, executor_type: str, max_steps: int | None, files: list[Any]
) -> str:
    """The whole side panel as Markdown.

    Args:
        model_label: The model's id (or its loading state).
        agent: The conversation's agent, or None before it exists.
        executor_type: The configured executor.
        max_steps: Steps per turn.
        files: The conversation's uploaded files.
    """
    steps = max_steps if max_steps is not None else getattr(agent, "max_steps", "?")
    tiny = is_small_model_id(model_label) or model_label.startswith("local")
    return "\n".join([
        f"**Model:** `{model_label}`  ",
        f"<sub>{TINY_MODEL_NOTE if tiny else HOW_TO_CHANGE_MODEL}</sub>",
        "",
        f"**{_where_title(executor_type)}:** {isolation_label(agent, executor_type)}  ",
        f"**Max steps per message:** {steps}",
        "",
        "**Files in this conversation**",
        "",
        files_table(files),
    ])  # fmt: skip
