"""What the approval tests share: a scripted approver, tools that record their calls."""

from __future__ import annotations

import json

from agents import ApprovalDecision, ApprovalRequest
from tools import tool

EXECUTORS = ["local", "sandbox"]


def code(body: str, thought: str = "Thought: go.") -> str:
    return f"{thought}\n<code>\n{body}\n</code>"


class Approver:
    """Answers from a list, in order, and keeps every request it was asked."""

    def __init__(self, *answers: ApprovalDecision):
        self.answers = list(answers)
        self.requests: list[ApprovalRequest] = []

    def __call__(self, request: ApprovalRequest) -> ApprovalDecision:
        self.requests.append(request)
        return self.answers.pop(0)


def make_tools(sent: list):
    """A marked `send_email` (recording what it sent) and an unmarked `shout`."""

    @tool
    def send_email(to: str, body: str) -> str:
        """Sends an email.

        Args:
            to: Who gets it.
            body: What it says.
        """
        sent.append((to, body))
        return f"sent to {to}"

    @tool
    def shout(text: str) -> str:
        """Returns the text in capitals.

        Args:
            text: What to shout.
        """
        return text.upper()

    send_email.requires_approval = True
    return send_email, shout


def texts(messages: list[dict]) -> str:
    """The messages a model call got, as one text (the scripted model passes dicts)."""
    return json.dumps(messages, default=str)
