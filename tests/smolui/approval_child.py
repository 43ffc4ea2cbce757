"""An app process that starts a turn held for approval, says so, and waits to be stopped.

`python -m tests.smolui.approval_child URL DATA KIND` (KIND "code" or "tool"): one
`AppProcess` with approval on sends a message; once its action waits in the store it prints
the conversation's id and blocks. The test kills it with SIGKILL (the pending action and the
memory stay in the store, and nothing of this process answers them any more), or stops it
with SIGTERM: it closes as the app does on SIGTERM (`GradioUI.close`), the waiting turn left
waiting, and exits.
"""

from __future__ import annotations

import signal
import sys
import threading
from pathlib import Path

from agents.loop.code_agent import CodeAgent
from agents.loop.tool_calling_agent import ToolCallingAgent
from agents.models.scripted import ScriptedModel, ScriptedReply
from smolui.approvals import ChatApprovals
from smolui.handlers.chat import HandlerConfig
from smolui.sessions import SessionRegistry
from smolui.store import open_store
from smolui.uploads import UploadPolicy
from tests.smolui.app_process import AppProcess
from tests.waiting import wait_for

# Step 1's action is the one held; the killed process never runs it.
HELD_CODE = (
    "Thought: multiply.\n<code>\nresult = 6 * 7\nfinal_answer(f'The answer is {result}.')\n</code>"
)
HELD_CALL = ScriptedReply("Mail the team.", tool_calls=[("count_call", {"note": "hello"})])


def main(url: str, data: Path, kind: str) -> None:
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda number, frame: stop.set())
    app, approvals, conversation_id = waiting_app(url, data, kind)
    print(conversation_id, flush=True)
    stop.wait()  # until SIGTERM (or killed)
    app.registry.close_all(wait_s=30, held=approvals.held_here)
    app.keeper.store.close()


def waiting_app(url: str, data: Path, kind: str) -> tuple[AppProcess, ChatApprovals, str]:
    """An app process whose turn holds an action, once it waits, kept in the store: the app,
    its approvals and the conversation's id."""
    from tests.smolui.approval_tools import count_call

    store = open_store(data, url, data / "uploads")
    approvals = ChatApprovals("code" if kind == "code" else "count_call", lambda: store)
    config = HandlerConfig(policy=UploadPolicy(), max_steps=3, executor_type="local",
                           approvals=approvals)  # fmt: skip

    def agent():
        if kind == "code":
            return CodeAgent([], ScriptedModel([HELD_CODE]), executor_type="local",
                             verbosity_level=-1)  # fmt: skip
        return ToolCallingAgent([count_call(data)], ScriptedModel([HELD_CALL]),
                                verbosity_level=-1)  # fmt: skip

    registry = SessionRegistry(agent, data / "uploads", media_root=data / "media")
    app = AppProcess(registry, store, config=config)
    conversation_id, chat, _, _ = app.pages.load(None, page="p1")
    shown, pending = app.chat.echo({"text": "What is six times seven?", "files": []}, chat)
    threading.Thread(
        target=lambda: list(app.chat.run_turn(pending, shown, conversation_id)), daemon=True
    ).start()
    owner = app.registry.get(conversation_id).owner

    def kept() -> bool:  # the pending action is kept with its step, the chat and the memory
        record = store.get(owner, conversation_id)
        shown = str(record.messages) if record is not None else ""
        return "Waiting for your approval" in shown and "Step 1 · " in shown  # its title

    wait_for(kept, "the action waits, kept with its step, the chat and memory", timeout=120)
    return app, approvals, conversation_id


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]), sys.argv[3])
