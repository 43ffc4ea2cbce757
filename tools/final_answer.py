"""`final_answer`: the tool every agent has, which ends the run with its argument."""

from __future__ import annotations

from typing import Any

from tools.base import Tool


class FinalAnswerTool(Tool):
    """Ends the run and returns its argument as the answer."""

    name = "final_answer"
    description = "Gives the final answer to the task and ends the run."
    inputs = {"answer": {"type": "any", "description": "The final answer to the task."}}
    output_type = "any"

    def forward(self, answer: Any) -> Any:
        return answer
