"""An approver that asks on a terminal: `agents.console_approver`.

It shows the action and asks `Run it? [y/N/e/q]`: y runs it, e edits it, q stops the run, and
anything else skips it (asking for a reason the model will read). Editing opens `$EDITOR` on
a file when the input is a terminal and `$EDITOR` is set; otherwise the new code (or the new
arguments, as JSON) is typed as lines ended by a line holding a single ".". It reads its input
with `readline` on a stream, so feeding it text (a test, a pipe) answers it.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
from typing import TextIO

from agents.approval.types import ApprovalDecision, ApprovalRequest

END_OF_EDIT = "."


class ConsoleApprover:
    """Asks about each action on a terminal (or any pair of text streams).

    Args:
        stdin: Where answers are read from (default: `sys.stdin` at the time of asking).
        stdout: Where the action and questions are written (default: `sys.stdout`).
        editor: The editor command for "e" (default: `$EDITOR`, used on a terminal only).
    """

    def __init__(
        self, stdin: TextIO | None = None, stdout: TextIO | None = None, editor: str | None = None
    ):
        self.stdin, self.stdout, self.editor = stdin, stdout, editor

    def __call__(self, request: ApprovalRequest) -> ApprovalDecision:
        """Show the request and read the answer; an empty input (EOF) stops the run."""
        self._write(_describe(request))
        answer = self._read("Run it? [y/N/e/q] ")
        if answer is None or answer.strip().lower() in ("q", "quit", "stop"):
            return ApprovalDecision.stop("stopped at the console")
        choice = answer.strip().lower()
        if choice in ("y", "yes"):
            return ApprovalDecision.run()
        if choice in ("e", "edit"):
            return self._edit(request)
        reason = self._read("Reason for the model (optional): ")
        return ApprovalDecision.skip((reason or "").strip())

    def _edit(self, request: ApprovalRequest) -> ApprovalDecision:
        is_code = request.kind == "code"
        while True:
            text = self._edited_text(
                request.code if is_code else json.dumps(request.arguments, indent=2, default=str)
            )
            if text is None:
                return ApprovalDecision.stop("stopped at the console")
            if is_code:
                return ApprovalDecision.edit(code=text)
            try:
                arguments = json.loads(text)
            except ValueError as error:
                self._write(f"That is not JSON ({error}); try again.\n")
                continue
            if isinstance(arguments, dict):
                return ApprovalDecision.edit(arguments=arguments)
            self._write("The arguments must be a JSON object; try again.\n")

    def _edited_text(self, current: str | None) -> str | None:
        """The new text: from the editor, or typed lines up to a lone "."; None at EOF."""
        editor = self.editor or os.environ.get("EDITOR")
        stdin = self.stdin or sys.stdin
        if editor and stdin.isatty():
            return _in_editor(editor, current or "")
        self._write(f"Type the new version, then a line with a single {END_OF_EDIT!r}:\n")
        lines = []
        while True:
            line = self._read("")
            if line is None:
                return None
            if line.rstrip("\r\n") == END_OF_EDIT:
                return "".join(lines).rstrip("\n")
            lines.append(line if line.endswith("\n") else line + "\n")

    def _read(self, prompt: str) -> str | None:
        if prompt:
            self._write(prompt)
        line = (self.stdin or sys.stdin).readline()
        return line or None  # "" is EOF; an empty answer is "\n"

    def _write(self, text: str) -> None:
        out = self.stdout or sys.stdout
        out.write(text)
        out.flush()


def _describe(request: ApprovalRequest) -> str:
    lines = [f"\nStep {request.step_number}: approval needed."]
    if request.thought:
        lines.append(f"Thought: {request.thought.strip()}")
    if request.kind == "code":
        lines += ["The agent wants to run this code:", _indent(request.code or "")]
    else:
        arguments = json.dumps(request.arguments, default=str)
        lines.append(f"The agent wants to call {request.tool_name} with {arguments}")
        if request.code:
            lines += ["(called from this code:)", _indent(request.code)]
    return "\n".join(lines) + "\n"


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


def _in_editor(editor: str, text: str) -> str:
    with tempfile.NamedTemporaryFile("w+", suffix=".txt", delete=False) as handle:
        handle.write(text)
        path = handle.name
    try:
        subprocess.run([*shlex.split(editor), path], check=False)
        with open(path, encoding="utf-8") as edited:
            return edited.read().rstrip("\n")
    finally:
        os.unlink(path)


# The approver for Python users at a terminal: `CodeAgent(..., approve="code",
# approver=agents.console_approver)`.
console_approver = ConsoleApprover()
