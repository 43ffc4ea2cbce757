"""The agent factory a `SessionRegistry` is given, and how the registry calls it.

A factory builds each conversation's agent: `adapt_factory` calls it with the conversation's
upload folder (and the model spec the conversation picked) when it takes an argument, else with
none. An `AgentLender` is a factory that wants its agents back: the registry hands each one to
`release` when its conversation ends, instead of closing it.
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path

from agents.loop.agent import MultiStepAgent


class AgentLender(ABC):
    """A factory that lends agents it wants back: the registry hands each conversation's
    agent to `release` when the conversation ends, instead of closing it."""

    @abstractmethod
    def __call__(self, upload_dir: Path | None = None) -> MultiStepAgent:
        """An agent for a new conversation.

        Args:
            upload_dir: The conversation's upload folder.
        """

    @abstractmethod
    def release(self, agent: MultiStepAgent) -> None:
        """Take back the agent of a conversation that ended.

        Args:
            agent: The agent the conversation used.
        """


def adapt_factory(factory: Callable[..., MultiStepAgent]) -> Callable[..., MultiStepAgent]:
    """Call `factory(upload_dir)` if it takes an argument, else `factory()`.

    Args:
        factory: The factory the registry was given.

    Returns:
        A callable taking the upload folder and, when the conversation picked one, its
        model spec (`factory(upload_dir, model)`; a factory taking nothing gets neither).
    """
    positional = (
        inspect.Parameter.POSITIONAL_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        inspect.Parameter.VAR_POSITIONAL,
    )
    try:
        params = [p for p in inspect.signature(factory).parameters.values() if p.kind in positional]
    except (TypeError, ValueError):
        params = []
    if params:  # a model spec follows the folder when the conversation picked one
        return lambda upload_dir, *model: factory(upload_dir, *model)
    return lambda upload_dir: factory()


__all__ = ["AgentLender", "adapt_factory"]
