"""The sidebar's model picker: which model a new conversation is built with (`--models`)."""

from __future__ import annotations

from typing import Any

# The picker's value for the app's default model (`--model`): no spec, the factory's own.
DEFAULT_CHOICE = ""


def model_choices(default: str, models: tuple[str, ...] | list[str]) -> list[tuple[str, str]]:
    """The picker's (label, value) pairs: the default model first, then the other specs.

    Args:
        default: The app's default model spec (`settings.model`).
        models: The specs a visitor may pick (`settings.models`).
    """
    choices = [(f"{default} (default)", DEFAULT_CHOICE)]
    choices += [(spec, spec) for spec in dict.fromkeys(models) if spec != default]
    return choices


def model_picker(choices: list[tuple[str, str]]) -> Any:
    """The picker (inside a Blocks context); hidden when there is nothing to choose.

    Args:
        choices: From `model_choices` (empty: no picker is offered).
    """
    import gradio as gr

    return gr.Dropdown(
        choices=choices or [("default", DEFAULT_CHOICE)],
        value=DEFAULT_CHOICE,
        label="Model for new chats",
        interactive=True,
        visible=len(choices) >= 2,
        elem_classes="model-picker",
    )
