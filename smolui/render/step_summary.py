"""One-line summaries of what a step did, tidy observations and an honest turn outcome. No gradio.

A finished step collapses to its title plus this line ("3 lines · printed 2 lines ·
120 tokens"), so a folded turn still reads like a notebook. Icons are plain text glyphs
found in ordinary fonts (DejaVu, Liberation, the system UI fonts), never emoji that need
an emoji font to render.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agents.errors import AgentMaxStepsError
from agents.loop.repair import strip_note
from agents.memory.approvals import edited_code_note
from agents.memory.steps import ActionStep

# Text glyphs (Dingbats / Geometric Shapes / Misc Symbols without the emoji selector).
ICONS = {
    "answered": "✓",
    "step_limit": "⚠",
    "error": "✕",
    "stopped": "■",
    "info": "i",
    "warning": "⚠",
    "file": "+",
}
# Emoji some callers still pass to `render_notice`, mapped to their font-free glyphs; the
# information sign becomes a word (its circled-i glyph has no font on many systems either).
EMOJI_GLYPHS = {"⚠️": "⚠", "ℹ️": "Note:", "📎": "⊕", "⏹️": "■", "❌": "✕", "✅": "✓"}
_LOGS_HEADER = re.compile(r"^Execution logs:[ \t]*(?:\(none\))?[ \t]*\n?")
_NONE_OUTPUT = re.compile(r"\n?Last output from code snippet:\s*\n?None\s*$")


def plural(count: int, noun: str) -> str:
    """`1 line`, `3 lines`.

    Args:
        count: How many.
        noun: The singular noun.
    """
    return f"{count} {noun}{'' if count == 1 else 's'}"


def shown_notes(step: ActionStep) -> list[str]:
    """Notes to the model in the step's observations that the page shows in another form:
    the code a person edited (the step's code block shows what ran).

    Args:
        step: A finished step.
    """
    edited = [r.ran for r in step.approvals or [] if r.kind == "code" and r.decision == "edit"]
    return [edited_code_note(code) for code in edited if isinstance(code, str)]


def clean_observations(text: str | None, shown: Sequence[str] = ()) -> str:
    """The step's observations without the protocol noise the model needs but a reader does
    not: the notes to the model before them (a repair's, a small model's drafts: they stay
    in the agent's memory and the logs; and `shown`), the "Execution logs:" header (the
    block's title says it) and a `None` last output.

    Args:
        text: `ActionStep.observations`.
        shown: `shown_notes` of the step.
    """
    text = _without_notes(text, shown)
    text = _NONE_OUTPUT.sub("", text)
    return _LOGS_HEADER.sub("", text, count=1).strip()


def printed_lines(observations: str | None, shown: Sequence[str] = ()) -> int:
    """Lines the code printed (the execution logs before "Last output from code snippet").

    Args:
        observations: `ActionStep.observations`.
        shown: `shown_notes` of the step.
    """
    text = _without_notes(observations, shown)
    if not text.startswith("Execution logs:"):
        return 0
    logs = _LOGS_HEADER.sub("", text, count=1).split("Last output from code snippet:")[0]
    return len([line for line in logs.strip().splitlines() if line.strip()])


def _without_notes(text: str | None, shown: Sequence[str]) -> str:
    text = strip_note((text or "").strip()).strip()
    for note in shown:
        text = text.removeprefix(note).strip()
    return text


def step_summary(step: ActionStep) -> str:
    """What a finished step did, in a few words: `3 lines · printed 2 lines`.

    Args:
        step: The finished step.
    """
    parts: list[str] = []
    code = (step.code_action or "").strip()
    if code:
        parts.append(plural(len([ln for ln in code.splitlines() if ln.strip()]), "line"))
        printed = printed_lines(step.observations, shown_notes(step))
        if printed:
            parts.append("printed " + plural(printed, "line"))
    images = len(step.observations_images or [])
    if images:
        parts.append(plural(images, "image"))
    if step.error is not None:
        parts.append("step limit" if isinstance(step.error, AgentMaxStepsError) else "error")
    return " · ".join(parts)


def turn_outcome(state: str, steps: list[ActionStep], answered: bool) -> tuple[str, str]:
    """The footer's icon and word for a finished turn: answered, step limit, error or stopped.

    Args:
        state: How the run ended: "done", "stopped" or "failed".
        steps: The turn's finished action steps.
        answered: Whether a final answer was shown.
    """
    if state == "stopped":
        return ICONS["stopped"], "stopped"
    if state == "failed":
        return ICONS["error"], "failed"
    if any(isinstance(step.error, AgentMaxStepsError) for step in steps):
        return ICONS["step_limit"], "step limit reached"
    if steps and all(step.error is not None for step in steps):
        return ICONS["error"], "every step failed"
    if not answered:
        return ICONS["warning"], "no answer"
    return ICONS["answered"], "answered"


def glyph(icon: str) -> str:
    """A font-free glyph for an emoji icon (other text is returned as it is).

    Args:
        icon: An emoji such as "⚠️", or a glyph.
    """
    return EMOJI_GLYPHS.get(icon, icon)
