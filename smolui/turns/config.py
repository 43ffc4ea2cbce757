"""What the chat handlers need to know about the app (`HandlerConfig`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from smolui.uploads import UploadPolicy


@dataclass(frozen=True)
class HandlerConfig:
    """What the handlers need to know about the app.

    Args:
        policy: Upload limits.
        max_files: Most files per message.
        max_steps: Steps per turn (None: the agent's own).
        executor_type: "sandbox" or "local", for the side panel.
        model_label: Returns the model's display name.
        reset_agent_memory: Start each turn with an empty memory (smolagents' GradioUI flag).
        model_available: Whether a model spec stored with a conversation is one this app
            runs now (`--model` or one of `--models`); a resumed conversation whose model
            is gone falls back to the default model.
        approvals: The app's `smolui.approvals.ChatApprovals` (None: turns never wait for a
            person's approval).
        upload_room: Whether an owner may store this many more bytes of uploads: None, or
            the refusal for them (their quota); None here: uploads are not held to a quota.
    """

    policy: UploadPolicy
    max_files: int = 10
    max_steps: int | None = None
    executor_type: str = "sandbox"
    model_label: Callable[[], str] = lambda: "model"
    reset_agent_memory: bool = False
    model_available: Callable[[str], bool] = lambda spec: True
    approvals: Any = None
    upload_room: Callable[[str, int], str | None] | None = None
