"""Which model a new conversation is built with: the default one, one of `--models`, or one
that a model server on this machine offers (found at start)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from smolui.sessions import Session

logger = logging.getLogger(__name__)

# The picker's value for the app's default model (`--model`): no spec, the factory's own.
DEFAULT_CHOICE = ""


def model_choices(
    default: str,
    models: tuple[str, ...] | list[str],
    found: Sequence[tuple[str, str]] = (),
) -> list[tuple[str, str]]:
    """The picker's (label, value) pairs: the default model first, then the other specs, then
    the models found on local servers.

    Args:
        default: The app's default model spec (`settings.model`).
        models: The specs a visitor may pick (`settings.models`).
        found: (label, spec) of each model a local server offers, e.g.
            ("qwen2.5-coder:7b (Ollama)", "ollama:qwen2.5-coder:7b@http://127.0.0.1:11434").
    """
    choices = [(f"{default} (default)", DEFAULT_CHOICE)]
    choices += [(spec, spec) for spec in dict.fromkeys(models) if spec != default]
    listed = {default, *models}
    by_spec = {spec: label for label, spec in found if spec not in listed}
    choices += [(label, spec) for spec, label in by_spec.items()]
    return choices


def model_offered(
    spec: str,
    default: str | None,
    models: tuple[str, ...] | list[str],
    found: Collection[str] = (),
) -> bool:
    """Whether this app runs the model `spec` now: its default model, one of `--models`, or
    one a local server offers.

    Args:
        spec: A model spec stored with a conversation.
        default: The app's default model spec (`settings.model`; None: "local").
        models: The specs a visitor may pick (`settings.models`).
        found: The specs of the models found on local servers.
    """
    return spec == (default or "local") or spec in models or spec in found


def unavailable_model_notice(spec: str, default_label: str) -> str:
    """The chat's notice for a resumed conversation whose model is gone.

    Args:
        spec: The model spec stored with the conversation.
        default_label: The default model's display name.
    """
    return f"The model `{spec}` used here is not available now; using `{default_label}`."


def fall_back_if_gone(
    session: Session, available: Callable[[str], bool], default_label: str
) -> str | None:
    """Switch a resumed conversation whose model this app no longer runs to the default.

    Only before its agent is built (a built agent already runs some model). The store
    keeps the switch with the conversation's next save.

    Args:
        session: The conversation (`smolui.sessions.Session`).
        available: `(spec) -> bool`: whether the app runs `spec` now.
        default_label: The default model's display name, for the notice.

    Returns:
        The notice to show, or None when nothing changed.
    """
    spec = session.model
    if spec is None or session.built_agent is not None or available(spec):
        return None
    logger.warning("a resumed conversation's model %r is not configured; using the default", spec)
    session.model = None
    return unavailable_model_notice(spec, default_label)
