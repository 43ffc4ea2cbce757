"""What a person answered when asked to approve an action, as a step keeps it.

`agents.approval` asks; each answer is recorded on its `ActionStep` (`step.approvals`), so the
step's data, a stored conversation and an export show what was proposed, what was decided and
what actually ran.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class ApprovalRecord:
    """One answer to an approval request.

    Args:
        kind: "code" (a code block) or "tool" (a tool call, from the model or from code).
        decision: "run", "edit", "skip" or "stop".
        proposed: The code, or the tool call's arguments, as the model proposed them.
        ran: What ran: the proposed or the edited code or arguments; None when nothing ran.
        tool_name: The tool, for a tool call.
        reason: The person's reason for a skip or a stop.
        waited: Seconds the answer took.
    """

    kind: str
    decision: str
    proposed: Any
    ran: Any = None
    tool_name: str | None = None
    reason: str | None = None
    waited: float = 0.0

    def dict(self) -> dict[str, Any]:
        """The record as JSON-ready data (arguments that are not JSON become their repr)."""
        data = asdict(self)
        data["proposed"], data["ran"] = _plain(self.proposed), _plain(self.ran)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ApprovalRecord:
        """A record read back from `dict()` output.

        Args:
            data: What `dict()` returned (after a JSON round trip).
        """
        return cls(
            kind=str(data["kind"]),
            decision=str(data["decision"]),
            proposed=data.get("proposed"),
            ran=data.get("ran"),
            tool_name=data.get("tool_name"),
            reason=data.get("reason"),
            waited=float(data.get("waited") or 0.0),
        )


def _plain(value: Any) -> Any:
    try:
        json.dumps(value, allow_nan=False)
        return value
    except (TypeError, ValueError):
        return repr(value)


def edited_code_note(code: str) -> str:
    """What the model reads before the logs of code a person edited: the code that ran (its
    own message still holds what it proposed). A page showing the step leaves it out: the
    step's code block already shows what ran.

    Args:
        code: The edited code, as it ran.
    """
    return f"The person reviewing your code edited it before it ran; this ran:\n{code}"
