"""`user_input`: ask the person at the terminal a question (smolagents' `UserInputTool`)."""

from __future__ import annotations

from tools.base import Tool


class UserInputTool(Tool):
    """Asks the user a question on the console and returns the typed answer."""

    name = "user_input"
    description = (
        "Asks the user a question and returns their answer. Use it for details only they know."
    )
    inputs = {"question": {"type": "string", "description": "The question to ask the user."}}
    output_type = "string"

    def forward(self, question: str) -> str:
        return input(f"{question} => Type your answer here: ")
