"""The app as its own process (so a test can `kill -9` it), with a scripted model that answers
by task and appends every call's messages to a JSON-lines file.

    python -m tests.e2e.restart_app PORT DATA_DIR CALLS_FILE [DATABASE_URL]
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

RULES = {
    "teal": "<code>\nfavourite = 'teal'\nfinal_answer('Noted teal.')\n</code>",
    "Which colour": "<code>\nfinal_answer('You named a colour earlier.')\n</code>",
    "my notes": "<code>\nfinal_answer(read_document('notes.txt'))\n</code>",
    # Held for approval in tests/e2e/test_approvals_restart_e2e.py, answered after a restart.
    "six times seven": "<code>\nresult = 6 * 7\nfinal_answer(f'The answer is {result}.')\n</code>",
}


def scripted_reply(calls_file: Path):
    """A reply function: records the messages, answers by the latest task."""
    from agents.models.messages import content_text

    def reply(messages: list[dict[str, Any]]) -> str:
        texts = [content_text(m.get("content")) for m in messages]
        with calls_file.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(texts) + "\n")
        latest = next((t for t in reversed(texts) if "New task:" in t), "")
        for keyword, answer in RULES.items():
            if keyword in latest:
                return answer
        return "<code>\nfinal_answer('no rule')\n</code>"

    return reply


def main(argv: list[str]) -> None:
    port, data_dir, calls_file = int(argv[0]), Path(argv[1]), Path(argv[2])
    database_url = argv[3] if len(argv) > 3 else None
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    from agents.loop.code_agent import CodeAgent
    from agents.models.scripted import ScriptedModel
    from smolui.app.gradio_ui import GradioUI
    from smolui.app.settings import Settings
    from tools.documents import document_tools

    def make_agent(upload_dir: Path) -> CodeAgent:
        model = ScriptedModel([scripted_reply(calls_file)], loop=True)
        tools = document_tools(upload_dir)  # they read the conversation's uploads
        return CodeAgent(tools, model, executor_type="local", verbosity_level=-1)

    settings = Settings(model="scripted", executor="local", host="127.0.0.1", port=port,
                        data_dir=str(data_dir), database_url=database_url)  # fmt: skip
    GradioUI(make_agent, settings=settings, model_label=lambda: "scripted").launch(quiet=True)


if __name__ == "__main__":
    main(sys.argv[1:])
