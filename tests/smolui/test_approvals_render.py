"""The approval setting (`--approve` / `SMOLUI_APPROVE`) and approvals as chat messages:
the pending action, and each answer kept on its step (which the export shows)."""

from __future__ import annotations

import pytest

from agents import ApprovalDecision, CodeAgent, ScriptedModel
from agents.memory.approvals import ApprovalRecord
from agents.memory.steps import ActionStep, Timing
from smolui.app.settings import settings_from_args
from smolui.approvals.setting import approve_value, default_on
from smolui.render.approval import (
    PAUSED_LOG,
    WAITING_LOG,
    WAITING_TITLE,
    before_the_wait,
    paused,
    render_approvals,
    render_pending_approval,
    waits_for_answer,
    withdrawn,
)
from smolui.render.export import to_json, to_markdown
from smolui.render.messages import message, render_action_step, step_log
from tests.agents.approval_helpers import Approver, code


def test_the_setting_reads_keywords_and_tool_names_from_the_flag_or_the_environment():
    assert settings_from_args([]).approve == "never"
    assert settings_from_args(["--approve", "code"]).approve == "code"
    environment = {"SMOLUI_APPROVE": "send_email, web_search"}
    assert settings_from_args([], environment).approve == "send_email, web_search"
    assert approve_value("send_email, web_search") == ["send_email", "web_search"]
    assert approve_value("never") == "all"  # a conversation switched on holds everything
    assert approve_value("tools") == "tools"
    assert not default_on("never") and default_on("code")


def test_a_bad_setting_stops_the_start_with_a_clear_message(capsys):
    with pytest.raises(SystemExit):
        settings_from_args(["--approve", "sometimes maybe"])
    assert "--approve takes never, code, tools, all" in capsys.readouterr().err


def test_the_pending_code_or_call_is_shown_open_with_what_it_would_do():
    code = render_pending_approval(
        "a1", "code", 2, "import os\nos.remove('x')", None, None, "Tidy."
    )
    # Open without a spinner: a spinner (and the page's timer on it) would say it works.
    assert code["metadata"]["title"] == WAITING_TITLE and "status" not in code["metadata"]
    assert code["metadata"]["log"] == WAITING_LOG
    assert "```python\nimport os" in code["content"] and "_Tidy._" in code["content"]
    call = render_pending_approval("a2", "tool", 3, None, "send_email", {"to": "a@b.c"})
    assert "**send_email**" in call["content"] and '"to": "a@b.c"' in call["content"]


def test_the_words_need_no_symbol_font():
    # A pause sign or a check-mark emoji shows as an empty box where no font has it.
    step = ActionStep(step_number=1)
    step.approvals = [ApprovalRecord("code", decision, "print(1)", "print(2)")
                      for decision in ("run", "edit", "skip", "stop")]  # fmt: skip
    answers = [m["content"].split(":")[0] for m in render_approvals(step, "t-1")]
    assert answers == ["Approved", "Edited, then approved", "Skipped", "Stopped"]
    for text in [WAITING_TITLE, WAITING_LOG, PAUSED_LOG]:
        assert text.isascii(), text


def test_while_an_action_waits_the_running_step_stops_spinning_and_says_it_waits():
    step = {"role": "assistant", "content": "", "metadata": {"title": "Step 1 · thinking…",
            "id": "t-1", "status": "pending", "log": "1 image"}}  # fmt: skip
    child = {"role": "assistant", "content": "x", "metadata": {"title": "Output", "id": "t-1.o",
             "parent_id": "t-1", "status": "pending"}}  # fmt: skip
    done = {"role": "assistant", "content": "", "metadata": {"title": "Step 0", "status": "done"}}
    user = {"role": "user", "content": "go"}
    shown = paused([user, done, step, child])
    assert shown[:2] == [user, done]
    assert shown[2]["metadata"] == {"title": "Step 1 · waits for your approval", "id": "t-1",
                                    "log": PAUSED_LOG}  # fmt: skip
    assert shown[3]["metadata"] == {"title": "Output", "id": "t-1.o", "parent_id": "t-1"}
    assert step["metadata"]["status"] == "pending", "the turn's own chat is left as it was"


def test_a_waiting_step_shows_its_thought_and_code_once_in_the_card_without_raw_markers():
    code = "result = 6 * 7\nfinal_answer(result)"
    said = f"Thought: I multiply.\n<code>\n{code}\n</code>"
    stamp = '<span class="step-clock since-1700000000000"></span>'
    step = message("", title=f"Step 1 · thinking…{stamp}", id="t-1", status="pending")
    thought = message(said, title="Thought", id="t-1.t", parent_id="t-1")
    block = message(f"```python\n{code}\n```", title="Code", id="t-1.c0", parent_id="t-1")
    card = render_pending_approval("a1", "code", 1, code, None, None, said)
    shown = paused([step, thought, block]) + [card]
    assert [m["metadata"]["title"] for m in shown] == ["Step 1 · waits for your approval",
                                                       WAITING_TITLE]  # fmt: skip
    text = "\n".join(m["content"] for m in shown)
    assert text.count("result = 6 * 7") == 1, text
    assert "Thought:" not in text and "<code>" not in text and "I multiply." in text


def test_a_resumed_turn_goes_on_from_the_kept_chat_without_the_paused_step_and_its_card():
    user = {"role": "user", "content": "go"}
    done = message("", title="Step 1", id="t-1")
    output = message("42", title="Output", id="t-1.o", parent_id="t-1")
    step = message("", title="Step 2 · thinking…", id="t-2", status="pending")
    call = message("", title="helper", id="t-2.s", parent_id="t-2")
    nested = message("x", title="helper · Step 1", id="t-2.s-1", parent_id="t-2.s")
    card = render_pending_approval("a1", "code", 2, "print(1)", None, None)
    kept = paused([user, done, output, step, call, nested]) + [card]
    assert waits_for_answer(kept) and not waits_for_answer(kept[:-1])
    assert before_the_wait(kept) == [user, done, output]


def test_a_new_message_after_a_gone_turn_leaves_its_action_shown_as_not_run():
    user = {"role": "user", "content": "go"}
    step = message("", title="Step 1 · thinking…", id="t-1", status="pending")
    card = render_pending_approval("a1", "code", 1, "print(1)", None, None)
    then = {"role": "user", "content": "start again"}
    shown = withdrawn([*paused([user, step]), card, then])
    assert not waits_for_answer(shown[:3]), "the card no longer asks"
    assert shown[0] == user and shown[-1] == then
    assert shown[1]["metadata"]["title"] == "Step 1 · not answered"
    assert "print(1)" in shown[2]["content"] and "did not run" in shown[2]["content"]
    assert "buttons under the chat" not in shown[2]["content"]
    assert withdrawn([user, then]) == [user, then], "nothing else changes"


def test_each_answer_shows_on_its_step_and_in_the_exports():
    step = ActionStep(step_number=1)
    step.approvals = [
        ApprovalRecord("code", "edit", "print(1)", "print(2)", waited=3.0),
        ApprovalRecord("tool", "skip", {"to": "x"}, None, "send_email", "Not today."),
    ]
    shown = render_approvals(step, "t-1")
    assert [m["metadata"]["parent_id"] for m in shown] == ["t-1", "t-1"]
    assert "Edited, then approved" in shown[0]["content"] and "print(1)" in shown[0]["content"]
    assert "print(2)" not in shown[0]["content"], "the step's code block shows what ran"
    assert shown[0]["metadata"]["log"] == "3.0 s waiting"
    assert "Skipped" in shown[1]["content"] and "Not today." in shown[1]["content"]
    parent = {"role": "assistant", "content": "", "metadata": {"title": "Step 1", "id": "t-1"}}
    chat = [{"role": "user", "content": "go"}, parent, *shown]
    assert "Not today." in to_markdown(chat) and "Edited, then approved" in to_json(chat)
    assert render_approvals(ActionStep(step_number=2), "t-2") == []


def test_named_tools_an_agent_lacks_are_left_out_and_told():
    from smolui.approvals.setting import missing_tools

    assert approve_value("send_email, web_search", ["web_search"]) == ["web_search"]
    assert missing_tools("send_email, web_search", ["web_search"]) == ["send_email"]
    assert missing_tools("tools", []) == [] and approve_value("code", []) == "code"


def test_edited_code_shows_once_as_what_ran_and_the_proposal_in_its_answer():
    approver = Approver(ApprovalDecision.edit(code="print('edited')\nfinal_answer(2 + 2)"))
    model = ScriptedModel([code("print('proposed')\nfinal_answer(1 + 1)")])
    agent = CodeAgent([], model, executor_type="local", approve="code", approver=approver)
    try:
        assert agent.run("add") == 4
    finally:
        agent.close()
    step = agent.memory.steps[1]
    assert "edited it before it ran" in step.observations, "the model still reads what ran"
    shown = render_action_step(step, "t-1") + render_approvals(step, "t-1")  # as a turn does
    assert shown[0]["metadata"]["log"].startswith("2 lines · printed 1 line · ")
    texts = {m["metadata"].get("title"): str(m["content"]) for m in shown[1:]}
    everything = "\n".join(texts.values())
    assert everything.count("print('edited')") == 1, "in the call's code only"
    assert "edited" in texts["Execution logs"] and "print(" not in texts["Execution logs"]
    assert "print('proposed')" in texts["Approval"] and "The model proposed" in texts["Approval"]


def test_a_steps_time_leaves_out_the_wait_for_approval_and_says_it_apart():
    step = ActionStep(step_number=1, timing=Timing(start_time=100.0, end_time=106.3))
    step.approvals = [ApprovalRecord("code", "run", "print(1)", "print(1)", waited=6.0)]
    line = step_log(step)
    assert line == "300 ms · 6.0 s waiting for approval"
    step.approvals = None
    assert "6.3 s" in step_log(step) and "waiting" not in step_log(step)
