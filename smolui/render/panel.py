"""The side panel's text: the model's plain name, the turn's state and the conversation's files;
folded under "About this server" (`smolui.render.about`), what the person using the chat may
want to know about the server. What the model can do (`capability_line`) is the header's line,
said once on the first screen. `describe_isolation` and `runs_under` put a sandbox's report in
words for those who run the server (the tests of its layers)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.loop.agent import MultiStepAgent
from agents.small_model.profile import is_small_model_id
from smolui.render.about import ABOUT_SERVER as ABOUT_SERVER
from smolui.render.about import ServerFacts, about_lines
from smolui.render.downloads import file_lines
from smolui.render.model_names import is_demo_model, model_name, scripted_file
from smolui.uploads.describe import human_size

RUNNING = "answering (Stop or Esc ends it)"
# The turn holds an action for the person: the agent does nothing until they answer it.
AWAITING_APPROVAL = (
    "waiting for your approval, not working: the action it wants to run is shown in the chat; "
    "answer it with the buttons under the chat (Run, Edit, Skip, or Stop the turn)"
)
IDLE = "ready"
DEMO_LINE = "Demo mode: canned answers"
TINY_LINE = "Tiny offline model: simple tasks; connect a real model for more"
DEMO_NAME = "scripted demo"
WRITTEN_HEADING = "Written by the code"


# The configured executor before its agent exists, in plain words.
_PLANNED = {
    "sandbox": "isolated worker process",
    "local": "none: code runs inside the app's own process (trusted models only)",
}


def is_tiny_model(model_label: str) -> bool:
    """Whether the model is the bundled tiny offline model (or another tiny one).

    Args:
        model_label: The model's id or label.
    """
    return is_small_model_id(model_label) or model_label.startswith("local")


def capability_line(model_label: str) -> str:
    """One plain line on what the model can do, for someone who has never seen the app.

    Args:
        model_label: The model's id or label.
    """
    if is_demo_model(model_label):
        return DEMO_LINE
    scripted = scripted_file(model_label)
    if scripted is not None:  # someone's own replies, named without the server's path
        return f"Scripted replies ({scripted})"
    if is_tiny_model(model_label):
        return TINY_LINE
    return f"Model: {shown_name(model_label)}"


def panel_model_line(model_label: str) -> str:
    """The side panel's first line: which model answers, by name (what it can do is the
    header's line, `capability_line`, not said twice).

    Args:
        model_label: The model's id or label.
    """
    return f"**Model:** {DEMO_NAME if is_demo_model(model_label) else shown_name(model_label)}"


def shown_name(model_label: str) -> str:
    """The model's name as the page shows it: no server path, and no address after `@` (a
    server of the operator's, or a provider's; "About this server" says where it answers).

    Args:
        model_label: The model's id or label.
    """
    return model_name(model_label).partition("@")[0]


def describe_isolation(report: dict[str, Any], executor_type: str) -> str:
    """An executor's isolation report (`CodeExecutor.isolation`) in plain words.

    Args:
        report: The report: layer flags, "notes" and "level".
        executor_type: The configured executor, named when the report says nothing.
    """
    if report.get("remote"):
        return str(report.get("level") or report.get("where") or executor_type)
    if report.get("started") is False:  # no worker yet (see `SandboxExecutor.isolation`)
        return (
            f"{_PLANNED.get(executor_type, 'isolated worker process')} (starts with the first code)"
        )
    if not report.get("process"):
        return _PLANNED["local"]
    layers = [name for key, name in _LAYER_WORDS if report.get(key)]
    notes = report.get("notes") if isinstance(report.get("notes"), dict) else {}
    if report.get("namespaces") and "net" in str(notes.get("namespaces", "")):
        layers.append("no network")
    text = "separate process" + (": " + ", ".join(_joined(layers)) if layers else "")
    missing = [name for key, name in _LAYER_WORDS if key in _EXPECTED and not report.get(key)]
    if report.get("downgraded"):  # namespaces asked for, refused by the kernel (see `slot`)
        missing.append("own user/IPC/network namespaces")
    if "own_uid" in (report.get("missing") or ()):  # a root app's worker did not get it
        missing.append("own uid")
    return f"{text} (missing: {', '.join(missing)})" if missing else text


def runs_under(report: dict[str, Any]) -> str:
    """Whom a sandbox worker's code runs as and what it cannot reach, in one plain sentence,
    with where to read how to restore what a container took away ("" for other executors).

    Args:
        report: The sandbox's isolation report (`CodeExecutor.isolation`).
    """
    if report.get("remote") or report.get("started") is False or not report.get("process"):
        return ""
    missing = report.get("missing") or ()
    if report.get("own_uid"):
        who = "a user of its own"
    elif "own_uid" in missing:
        who = "root without capabilities"
    else:
        who = "the app's user"
    text = f"Your code runs as {who}"
    if report.get("seccomp") and report.get("landlock"):
        # Both refuse sockets, signals to others, /proc and files outside the grants, with
        # or without the namespaces (tests/deploy/test_container_isolation.py tries them).
        text += ", with no network, no other process in reach and no files but its folder, your uploads and Python's"
    lacking = [name for key, name in _STAND_INS if not report.get(key)]
    if "own_uid" in missing:
        lacking.insert(0, "a uid of its own")
    if lacking:
        text += (
            f'. Not here: {", ".join(lacking)} (README, "Isolation in a container": the run '
            "flags that restore them)"
        )
    return text + "."


# Layers a container may take away, named when absent (the others are `_EXPECTED`).
_STAND_INS = (("namespaces", "own namespaces"), ("pid_namespace", "own PID namespace"))


def _joined(layers: list[str]) -> list[str]:
    """The layers with Landlock and seccomp as one item ("Landlock + seccomp") when both are on."""
    if layers[:2] == ["Landlock", "seccomp"]:
        return ["Landlock + seccomp", *layers[2:]]
    return layers


# Sandbox layers as a person reads them; the expected ones are named when missing.
_LAYER_WORDS = (
    ("landlock", "Landlock"),
    ("seccomp", "seccomp"),
    ("own_uid", "own uid"),
    ("pid_namespace", "own PID namespace"),
    ("rlimits", "memory/CPU limits"),
)
_EXPECTED = ("landlock", "seccomp", "rlimits")


def files_table(files: list[Any], reading: Sequence[str] = ()) -> str:
    """A Markdown table of uploaded files: name, size, pages.

    Args:
        files: `AcceptedFile`s of the conversation.
        reading: Names of files just sent and being read now (shown as such).
    """
    if not files and not reading:
        return "_No files yet. Attach PDF, DOCX, text, CSV/XLSX or images (paperclip button)._"
    rows = ["| file | size | pages |", "|---|---|---|"]
    for item in files:
        pages = "" if item.pages is None else str(item.pages)
        rows.append(f"| {_cell(item.display_name)} | {human_size(item.size)} | {pages} |")
    rows += [f"| {_cell(name)} | reading… | |" for name in reading]
    return "\n".join(rows)


def files_section(
    files: list[Any], reading: Sequence[str], written: Sequence[Any], url_prefix: str
) -> list[str]:
    """The panel's files: the uploads' table, then the files the code wrote as download links
    (the uploads' "no files yet" hint only when there is neither).

    Args:
        files: `AcceptedFile`s of the conversation.
        reading: Names of files just sent and being read now.
        written: Stored files the conversation's code wrote (`OutputFile`s).
        url_prefix: The download route's prefix.
    """
    lines = [files_table(files, reading)] if files or reading or not written else []
    if written:
        lines += ["", f"_{WRITTEN_HEADING}_", "", *file_lines(list(written), url_prefix)]
    return lines


def _cell(name: str) -> str:
    return str(name).replace("|", "\\|")


def now_line(running: bool, awaiting_approval: bool = False) -> str:
    """What the conversation's turn does now, for the panel's "Now:" line.

    Args:
        running: A turn runs.
        awaiting_approval: An action waits for the person's answer (the turn does nothing
            until then; an action a restart left waiting resumes its turn when answered).
    """
    if awaiting_approval:
        return AWAITING_APPROVAL
    return RUNNING if running else IDLE


def side_panel(
    model_label: str,
    agent: MultiStepAgent | None,
    executor_type: str,
    max_steps: int | None,
    files: list[Any],
    running: bool = False,
    reading: Sequence[str] = (),
    written: Sequence[Any] = (),
    url_prefix: str = "",
    awaiting_approval: bool = False,
    facts: ServerFacts | None = None,
) -> str:
    """The whole side panel as Markdown.

    Args:
        model_label: The model's id (or its loading state).
        agent: The conversation's agent, or None before it exists.
        executor_type: The configured executor.
        max_steps: Steps per turn.
        files: The conversation's uploaded files.
        running: Whether a turn runs now.
        reading: Names of the files sent with the running turn, not read yet.
        written: Stored files the conversation's code wrote (`OutputFile`s), listed with
            their download links.
        url_prefix: The download route's prefix (`smolui.api.file_routes`).
        awaiting_approval: The conversation's turn waits for the person to answer an
            action (it says so instead of "answering").
        facts: How this server keeps conversations, for "About this server" (None: kept
            here until deleted, no sign-in, no sharing).
    """
    if max_steps is not None:
        steps: int | str = max_steps
    else:
        steps = agent.max_steps if agent is not None else "?"
    return "\n".join(
        [
            f"{panel_model_line(model_label)}  ",
            f"**Now:** {now_line(running, awaiting_approval)}",
            "",
            "**Files in this conversation**",
            "",
            *files_section(files, reading, written, url_prefix),
            "",
            *about_lines(model_label, agent, executor_type, steps, facts or ServerFacts()),
        ]
    )
