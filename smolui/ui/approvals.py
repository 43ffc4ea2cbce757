"""The approval panel: the action a turn waits on, with Run, Edit, Skip, Stop and "Always allow
this tool", and the per-conversation switch beside the controls.

`approval_panel` and `approval_switch` make the components (in `smolui.ui.layout`);
`wire_approvals` attaches their events (from `smolui.ui.wiring`). The chat itself shows the
pending action as a step (`smolui.render.approval`); the panel is where the person answers.
Whenever the chat changes (a turn publishes, a conversation opens, a page reloads) the panel
asks the store whether this conversation has an action waiting, so every tab and replica
shows it, and the side panel's "Now:" line says the turn waits for the person's approval
while it does; of two answers only the first is taken, the other tab is told. An answer to an
action whose turn is gone (the app restarted) resumes that turn (in a turn slot of the person
who answered), and the answering page follows it as a page reopened mid-turn does (the
page's own follow, chained after each answer: its chat window, message box, Stop and side
panel, while it shows that conversation). Where the server requires approval (`--approve-required`) the switch shows on,
cannot be changed, and says why.
"""

# No `from __future__ import annotations`: gradio reads the adapters' annotations at runtime.

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from smolui.auth import Identity
from smolui.sessions import is_conversation_id
from smolui.ui.endpoints import INTERNAL

SWITCH_LABEL = "Ask me before running code or tools"
REQUIRED_LABEL = "Ask me before running code or tools (required by this server)"
RUN, RUN_EDITED = "Run", "Run edited"


@dataclass
class ApprovalPanel:
    """The panel's components (`shown`: the id of the approval the panel shows)."""

    group: Any
    heading: Any
    editor: Any
    reason: Any
    run: Any
    edit: Any
    skip: Any
    stop: Any
    always: Any
    shown: Any
    seen: Any  # the conversation whose switch the checkbox shows
    switch: Any = None


def approval_switch() -> Any:
    """The per-conversation switch (inside the controls row of a Blocks context)."""
    import gradio as gr

    return gr.Checkbox(
        label=SWITCH_LABEL, value=False, elem_id="approval-switch", container=False, scale=0
    )


def approval_panel(switch: Any = None) -> ApprovalPanel:
    """The panel, hidden until an action waits (inside a Blocks context).

    Args:
        switch: The per-conversation switch (`approval_switch`).
    """
    import gradio as gr

    with gr.Group(visible=False, elem_classes="smolui-approval") as group:
        heading = gr.Markdown("", elem_id="approval-heading")
        editor = gr.Textbox(
            label="Code to run", lines=6, max_lines=24, interactive=False, elem_id="approval-editor"
        )
        reason = gr.Textbox(
            label="Reason (for Skip or Stop; the agent reads why it was skipped)",
            max_lines=3,
            elem_id="approval-reason",
        )
        with gr.Row():
            run = gr.Button(RUN, size="sm", elem_id="approval-run")
            edit = gr.Button("Edit before running", size="sm", elem_id="approval-edit")
            skip = gr.Button("Skip", size="sm", elem_id="approval-skip")
            stop = gr.Button("Stop the turn", size="sm", elem_id="approval-stop")
            always = gr.Button(
                "Always allow this tool", size="sm", visible=False, elem_id="approval-always"
            )
    shown, seen = gr.State(None), gr.State(None)
    return ApprovalPanel(group, heading, editor, reason, run, edit, skip, stop, always, shown,
                         seen, switch)  # fmt: skip


def _heading(pending: Any) -> str:
    if pending.kind == "code":
        return f"**Waiting for your approval** · step {pending.step_number}: code"
    return (
        f"**Waiting for your approval** · step {pending.step_number}: call to `{pending.tool_name}`"
    )


def panel_adapters(
    approvals: Any,
    side_text: Callable[[str], str] | None = None,
    identify: Callable[[Any, Any], Identity] | None = None,
) -> dict[str, Callable]:
    """The panel's handlers in the shape gradio calls them.

    Args:
        approvals: The app's `smolui.approvals.ChatApprovals`.
        side_text: The side panel's Markdown for a conversation, given again whenever an
            action starts or stops waiting (its "Now:" line says so); None: not given.
        identify: Who answers, `identify(request, profile)`: a resumed turn counts against
            their limits (None: an anonymous visitor).
    """
    import gradio as gr

    from smolui.approvals.service import (
        ALREADY_ANSWERED,
        GONE,
        NO_LONGER_WAITING,
        REQUIRED,
        editor_text,
    )

    def shows(pending: Any) -> tuple:
        label = "Code to run" if pending.kind == "code" else "Arguments (JSON)"
        return (
            gr.Group(visible=True),
            _heading(pending),
            gr.Textbox(value=editor_text(pending), label=label, interactive=False),
            gr.Textbox(value=""),
            gr.Button(value=RUN),
            gr.Button(visible=pending.kind == "tool"),
            pending.id,
        )

    hidden = (gr.Group(visible=False), gr.skip(), gr.skip(), gr.skip(), gr.skip(), gr.skip(), None)
    unchanged = tuple(gr.skip() for _ in hidden)

    def side(conversation_id: str) -> Any:
        # The side panel follows the wait: "waiting for your approval", then "answering".
        return side_text(conversation_id) if side_text is not None else gr.skip()

    def refresh(conversation_id: Any, shown: Any, seen: Any) -> tuple:
        if not is_conversation_id(conversation_id):  # a new chat, before its first message
            switch = (_default_switch(approvals), None) if seen is not None else (gr.skip(),) * 2
            return (*unchanged, *switch, gr.skip())
        switch = (gr.skip(), gr.skip())
        if conversation_id != seen:  # another conversation: its own switch
            switch = (_switch(approvals, conversation_id), conversation_id)
        pending = approvals.waiting(conversation_id)
        if pending is None:
            if shown:  # answered elsewhere, or the turn ended
                return (*hidden, *switch, side(conversation_id))
            return (*unchanged, *switch, gr.skip())
        if pending.id == shown:  # keep what the person may be typing
            return (*unchanged, *switch, gr.skip())
        return (*shows(pending), *switch, side(conversation_id))

    def answer(action: str) -> Callable:
        def answered(
            conversation_id: Any,
            shown: Any,
            text: Any,
            reason: Any,
            request: gr.Request,
            profile: gr.OAuthProfile | None,
        ) -> tuple:
            if not shown or not is_conversation_id(conversation_id):
                return (*hidden, gr.skip())
            who = identify(request, profile) if identify is not None else None
            result = approvals.answer(conversation_id, shown, action, str(text or ""),
                                      str(reason or ""), _page(request), who)  # fmt: skip
            if result.ok or result.message in (ALREADY_ANSWERED, GONE, NO_LONGER_WAITING):
                if not result.ok:
                    gr.Warning(result.message)
                return (*hidden, side(conversation_id))
            gr.Warning(result.message)  # e.g. arguments that are not JSON: fix and answer again
            return (*unchanged, gr.skip())

        return answered

    def edit() -> tuple:
        return gr.Textbox(interactive=True), gr.Button(value=RUN_EDITED)

    def toggle(enabled: Any, conversation_id: Any) -> None:
        if not is_conversation_id(conversation_id):
            return
        if not approvals.set_enabled(conversation_id, bool(enabled)):
            gr.Warning(REQUIRED)
            return
        gr.Info(
            "From the next action on, the agent asks before it runs code or tools."
            if enabled
            else "From the next action on, the agent runs code and tools without asking.",
            duration=4,
        )

    handlers = {"refresh": refresh, "edit": edit, "toggle": toggle}
    handlers.update({action: answer(action) for action in ("run", "skip", "stop", "always")})
    return handlers


def _default_switch(approvals: Any) -> Any:
    """The switch as a conversation without its own setting has it (a new chat)."""
    import gradio as gr

    if approvals.required:
        return gr.Checkbox(value=True, interactive=False, label=REQUIRED_LABEL)
    return gr.Checkbox(value=approvals.default_enabled(), interactive=True, label=SWITCH_LABEL)


def show_default(switch: Any, approvals: Any) -> None:
    """Paint the switch as the app's default from the page's first paint (before the
    conversation's own setting arrives), instead of unticked while `--approve` asks anyway.

    Args:
        switch: The checkbox (`approval_switch`), not yet rendered.
        approvals: The app's `smolui.approvals.ChatApprovals`.
    """
    switch.value = approvals.required or approvals.default_enabled()
    if approvals.required:
        switch.interactive, switch.label = False, REQUIRED_LABEL


def _switch(approvals: Any, conversation_id: str) -> Any:
    """The switch as the conversation has it; on and fixed where the server requires it."""
    import gradio as gr

    if approvals.required:
        return gr.Checkbox(value=True, interactive=False, label=REQUIRED_LABEL)
    return gr.Checkbox(
        value=approvals.enabled(conversation_id), interactive=True, label=SWITCH_LABEL
    )


def _page(request: Any) -> str | None:
    return request.session_hash if request is not None else None


def wire_approvals(panel: ApprovalPanel | None, chatbot: Any, conversation_id: Any,
                   approvals: Any, safe: Callable, side_panel: Any = None,
                   side_text: Callable[[str], str] | None = None,
                   identify: Callable[[Any, Any], Identity] | None = None,
                   follow: tuple | None = None) -> None:  # fmt: skip
    """Attach the panel's events (call inside the Blocks).

    Args:
        panel: The panel (None: the page has none).
        chatbot: The chat: each change looks for an action waiting.
        conversation_id: The page's conversation id (a `gr.State`).
        approvals: The app's `smolui.approvals.ChatApprovals` (None: a script's app without
            them; the panel stays hidden and the switch does nothing).
        safe: Turns a handler's failure into a readable toast.
        side_panel: The side panel (its "Now:" line says when an action waits); None: the
            panel is not touched.
        side_text: The side panel's Markdown for a conversation (with `side_panel`).
        identify: Who answers, `identify(request, profile)` (None: an anonymous visitor).
        follow: The page's follow of its conversation's running turn, as `(fn, inputs,
            outputs)`, chained after each answer: a turn the answer resumed (the app had
            restarted) shows on the page as it runs. None: the page does not follow it.
    """
    if panel is None or approvals is None:
        return
    import gradio as gr

    if panel.switch is not None:
        show_default(panel.switch, approvals)

    handlers = panel_adapters(approvals, side_text if side_panel is not None else None,
                              identify)  # fmt: skip
    fn = {name: safe(handler) for name, handler in handlers.items()}
    shows = [panel.group, panel.heading, panel.editor, panel.reason, panel.run, panel.always,
             panel.shown]  # fmt: skip
    # Without a side panel its output is a State nobody reads (every handler returns it).
    side = side_panel if side_panel is not None else gr.State(None)
    quiet = dict(queue=False, show_progress="hidden")
    refresh = (fn["refresh"], [conversation_id, panel.shown, panel.seen],
               [*shows, panel.switch, panel.seen, side])  # fmt: skip
    # A turn's update, an opened conversation, a reload: look for an action waiting.
    chatbot.change(*refresh, trigger_mode="always_last", **quiet, api_visibility=INTERNAL)
    conversation_id.change(*refresh, **quiet, api_visibility=INTERNAL)
    # Queued (without a limit) so their notices ("already answered") can reach the page.
    told = dict(concurrency_limit=None, show_progress="hidden")
    answer_inputs = [conversation_id, panel.shown, panel.editor, panel.reason]
    for action in ("run", "skip", "stop", "always"):
        answered = getattr(panel, action).click(fn[action], answer_inputs, [*shows, side],
                                                **told, api_visibility=INTERNAL)  # fmt: skip
        if follow is not None:
            answered.then(*follow, **told, api_visibility=INTERNAL)
    panel.edit.click(fn["edit"], None, [panel.editor, panel.run], **quiet, api_visibility=INTERNAL)
    if panel.switch is not None:
        panel.switch.input(
            fn["toggle"], [panel.switch, conversation_id], None, **told, api_visibility=INTERNAL
        )
