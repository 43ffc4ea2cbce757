"""The console approver: y runs, e edits (typed lines, or $EDITOR on a terminal), q or the
end of input stops, anything else skips with a reason; fed through text streams."""

from __future__ import annotations

import io
import sys

from agents import ApprovalDecision, ApprovalRequest, CodeAgent, ScriptedModel
from agents.approval import ConsoleApprover

CODE = ApprovalRequest("code", "print(1)", None, None, 2, "Thought: print.")
CALL = ApprovalRequest("tool", None, "send_email", {"to": "a"}, 3, None)


def answer(request: ApprovalRequest, typed: str) -> tuple[ApprovalDecision, str]:
    out = io.StringIO()
    decision = ConsoleApprover(stdin=io.StringIO(typed), stdout=out)(request)
    return decision, out.getvalue()


def test_it_shows_the_request_and_y_runs_it():
    decision, shown = answer(CODE, "y\n")
    assert decision == ApprovalDecision.run()
    assert "Step 2" in shown and "    print(1)" in shown and "Thought: print." in shown
    assert "[y/N/e/q]" in shown
    _, shown = answer(CALL, "y\n")
    assert 'call send_email with {"to": "a"}' in shown


def test_no_or_nothing_skips_with_the_reason_typed():
    assert answer(CODE, "n\nnot on prod\n")[0] == ApprovalDecision.skip("not on prod")
    assert answer(CODE, "\n\n")[0] == ApprovalDecision.skip("")


def test_q_or_the_end_of_input_stops():
    assert answer(CODE, "q\n")[0].action == "stop"
    assert answer(CODE, "")[0].action == "stop"


def test_e_takes_new_code_typed_up_to_a_lone_dot():
    decision, _ = answer(CODE, "e\nx = 2\nprint(x)\n.\n")
    assert decision == ApprovalDecision.edit(code="x = 2\nprint(x)")


def test_e_takes_new_arguments_as_json_and_asks_again_when_it_is_not():
    decision, shown = answer(CALL, 'e\n{"to": \n.\n{"to": "b"}\n.\n')
    assert decision == ApprovalDecision.edit(arguments={"to": "b"})
    assert "not JSON" in shown


def test_e_opens_the_editor_on_a_terminal(tmp_path):
    editor = tmp_path / "editor.py"  # an "editor" that rewrites the file it is given
    editor.write_text("import sys\nopen(sys.argv[1], 'w').write('print(2)\\n')\n")

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    approver = ConsoleApprover(
        stdin=Terminal("e\n"), stdout=io.StringIO(), editor=f"{sys.executable} {editor}"
    )
    assert approver(CODE) == ApprovalDecision.edit(code="print(2)")


def test_an_agent_asks_on_stdin(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("e\nfinal_answer(3)\n.\n"))
    from agents import console_approver

    model = ScriptedModel(["Thought: go.\n<code>\nfinal_answer(1)\n</code>"])
    agent = CodeAgent([], model, executor_type="local", approve="code", approver=console_approver)
    assert agent.run("three") == 3
    assert "final_answer(1)" in capsys.readouterr().out
