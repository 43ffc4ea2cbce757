"""Final-answer checks: functions that accept or reject an answer before the run ends.

A rejected answer is a model mistake: it becomes an error the model sees, and the run goes on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.errors import AgentError
from agents.loop.callbacks import takes_agent


def check_final_answer(
    checks: list[Callable[..., Any]], answer: Any, memory: Any, agent: Any
) -> None:
    """Run each check on `answer`; raise for the first that fails or raises.

    Args:
        checks: Functions `(answer, memory) -> bool`, or taking `agent=` too.
        answer: The answer the model gave.
        memory: The agent's memory.
        agent: The agent, for checks that take it.

    Raises:
        AgentError: A check failed; the message tells the model to fix its answer.
    """
    for check in checks:
        label = getattr(check, "__name__", "check")  # a user's callable: a partial has none
        try:
            ok = check(answer, memory, agent=agent) if takes_agent(check) else check(answer, memory)
        except Exception as error:
            raise AgentError(
                f"Your final answer failed the check '{label}': {error}. Fix it and retry."
            ) from error
        if not ok:
            raise AgentError(f"Your final answer failed the check '{label}'. Fix it and retry.")
