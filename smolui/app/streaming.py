"""`stream_to_gradio`: one turn of an agent as chat messages, for people who build their own
Blocks instead of serving `GradioUI` (smolagents' helper of that name, on this app's turns).

It runs the same `AgentTurn` (`smolui.turns.turn`) as the app's chat.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agents.loop.agent import MultiStepAgent
from smolui.render.media import MediaSink, media_root
from smolui.render.messages import Message


def stream_to_gradio(
    agent: MultiStepAgent,
    task: str,
    task_images: list[Any] | None = None,
    reset_agent_memory: bool = False,
    additional_args: dict[str, Any] | None = None,
    media_folder: str | Path | None = None,
) -> Iterator[list[Message]]:
    """Run `agent` on `task` and yield the turn's chat messages as they change.

    Each item is the full list of this turn's messages so far (dicts `gr.Chatbot`
    accepts): yield `history + messages` from your own handler. Closing the generator
    early interrupts the agent at its next step.

    Args:
        agent: The agent.
        task: The user's request.
        task_images: PIL images sent with the task.
        reset_agent_memory: Start a new conversation instead of continuing.
        additional_args: Values given to the agent (variables for code).
        media_folder: Where produced images are written (default: a temp folder).
    """
    from smolui.turns.turn import AgentTurn, TurnRequest

    folder = Path(media_folder) if media_folder else media_root() / f"stream-{secrets.token_hex(6)}"
    turn = AgentTurn(MediaSink(folder))
    yield list(turn.messages)
    request = TurnRequest(task, list(task_images or []), additional_args)
    for messages in turn.start(agent, request, reset=reset_agent_memory).follow():
        yield list(messages)
    yield list(turn.messages)
