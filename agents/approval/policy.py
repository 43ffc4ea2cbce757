"""Which actions need a person's approval: the `approve=` argument of an agent, read once.

The shapes `approve=` takes:

- `"never"` (default): nothing is asked; the agent runs as it always did.
- `"code"`: every code block of a CodeAgent (and calls to a `python_interpreter` tool).
- `"tools"`: calls to tools marked `requires_approval = True`.
- a list of tool names, e.g. `["send_email"]`: those tools, and the marked ones.
- `"all"`: code blocks and every tool call.
- a dict combining them: `{"code": True, "tools": ["send_email"]}`; `"tools"` takes True (the
  marked tools), a list of names (those and the marked ones) or "all".

`final_answer` is never held: it runs nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from agents.errors import AgentConfigError
from tools.base import Tool

NEVER_HELD = "final_answer"
CODE_TOOLS = ("python_interpreter",)  # a tool that runs code is held as code is
SHAPES = (
    'approve= takes "never", "code", "tools", "all", a list of tool names, or a dict '
    '{"code": bool, "tools": True | "all" | [names]}'
)


@dataclass(frozen=True)
class ApprovalPolicy:
    """What an agent holds for approval.

    Args:
        code: Code blocks (and code-running tools).
        marked: Tools marked `requires_approval = True`.
        named: Tools held by name.
        every_tool: Every tool call.
    """

    code: bool = False
    marked: bool = False
    named: frozenset[str] = frozenset()
    every_tool: bool = False

    @property
    def active(self) -> bool:
        """Whether anything is held at all (False: the agent asks nothing, at no cost)."""
        return self.code or self.marked or self.every_tool or bool(self.named)

    def holds_tool(self, name: str, tool: Any) -> bool:
        """Whether a call to this tool waits for approval.

        Args:
            name: The name the tool is called by.
            tool: The tool (or managed agent).
        """
        if name == NEVER_HELD:
            return False
        return (
            self.every_tool
            or name in self.named
            or (self.code and name in CODE_TOOLS)
            or (self.marked and isinstance(tool, Tool) and tool.requires_approval)
        )

    @classmethod
    def parse(cls, approve: Any, tool_names: Iterable[str]) -> ApprovalPolicy:
        """Read `approve=` against the agent's tools.

        Args:
            approve: See the module's docstring.
            tool_names: The tools (and managed agents) the agent has.

        Raises:
            AgentConfigError: An unknown shape, or a name that is not one of the tools.
        """
        if approve is None or approve == "never":
            return cls()
        if isinstance(approve, str):
            if approve not in ("code", "tools", "all"):
                raise AgentConfigError(f"{SHAPES}; got {approve!r}.")
            return cls(
                code=approve in ("code", "all"),
                marked=approve != "code",
                every_tool=approve == "all",
            )
        if isinstance(approve, dict):
            return cls._from_dict(approve, tool_names)
        if isinstance(approve, list | tuple | set | frozenset):
            return cls(marked=True, named=_names(approve, tool_names))
        raise AgentConfigError(f"{SHAPES}; got {approve!r}.")

    @classmethod
    def _from_dict(cls, approve: dict[str, Any], tool_names: Iterable[str]) -> ApprovalPolicy:
        unknown = sorted(set(approve) - {"code", "tools"})
        code, tools = approve.get("code", False), approve.get("tools", False)
        if unknown or not isinstance(code, bool):
            raise AgentConfigError(f"{SHAPES}; got {approve!r}.")
        if tools is False:
            return cls(code=code)
        if tools is True or tools == "all":
            return cls(code=code, marked=True, every_tool=tools == "all")
        if isinstance(tools, list | tuple | set | frozenset):
            return cls(code=code, marked=True, named=_names(tools, tool_names))
        raise AgentConfigError(f"{SHAPES}; got {approve!r}.")


def _names(names: Iterable[Any], tool_names: Iterable[str]) -> frozenset[str]:
    known = set(tool_names)
    wanted = list(names)
    wrong = sorted(str(n) for n in wanted if not isinstance(n, str) or n not in known)
    if wrong:
        raise AgentConfigError(
            f"approve= names {', '.join(wrong)}, which is not one of the agent's tools "
            f"({', '.join(sorted(known)) or 'none'})."
        )
    return frozenset(wanted)
