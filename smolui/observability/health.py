"""Liveness and readiness: what `/healthz` and `/readyz` answer.

A readiness check is a function that returns None when its part is ready and raises with
the reason when not (the conversation database unreachable, the model still loading or
failed). `/readyz` runs them all and answers 200 only when every one passes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

logger = logging.getLogger(__name__)

ReadinessCheck = Callable[[], None]
MAX_REASON_CHARS = 300


class NotReadyError(RuntimeError):
    """A part of the app is not ready yet (the message says which and why)."""


def liveness() -> tuple[int, dict[str, Any]]:
    """The `/healthz` answer: the process is up and serving requests."""
    return 200, {"status": "ok"}


def readiness(checks: dict[str, ReadinessCheck]) -> tuple[int, dict[str, Any]]:
    """The `/readyz` answer: 200 when every check passes, else 503 with the reasons.

    Args:
        checks: Name -> check; a check raises when its part is not ready.
    """
    results: dict[str, str] = {}
    for name, check in checks.items():
        try:
            check()
            results[name] = "ok"
        except Exception as error:  # any failure means "not ready"; the reason is shown
            logger.info("readiness check %s failed: %s", name, error)
            results[name] = f"{type(error).__name__}: {error}"[:MAX_REASON_CHARS]
    ready = all(value == "ok" for value in results.values())
    return (200 if ready else 503), {"status": "ready" if ready else "not ready", "checks": results}


def store_check(store: Any) -> ReadinessCheck:
    """A check that the conversation database answers a query.

    Args:
        store: The app's `smolui.store.ConversationStore`.
    """

    def check() -> None:
        from smolui.store.database import check_reachable

        check_reachable(store.engine)

    return check


def model_check(loader: Any) -> ReadinessCheck:
    """A check that the model has loaded (local weights) or been set up (a remote client).

    Args:
        loader: The app's `smolui.app.model_loader.ModelLoader`.
    """

    def check() -> None:
        if not loader.ready:
            raise NotReadyError(f"the model is not ready: {loader.label}")

    return check
