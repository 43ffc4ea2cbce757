"""The side panel's "About this server", written for the person using the chat: which model
answers and where their messages go, what runs the agent's code and what that code cannot
reach, where their conversations are kept and for how long, and who can see them.

Operator details (flags, environment variables, sandbox layers, kernel and container ids)
stay out of it: the README has them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from agents.loop.agent import MultiStepAgent
from agents.small_model.profile import is_small_model_id
from smolui.render.model_names import is_demo_model, model_name, scripted_file

ABOUT_SERVER = "About this server"
# Where each kind of model answers from, by the spec's prefix (`agents.models.spec`).
_ON_THIS_SERVER = "a model that runs on this server: your messages stay here"
_WHERE_MODELS_RUN = {
    "local": _ON_THIS_SERVER,
    "llamacpp": _ON_THIS_SERVER,
    "transformers": _ON_THIS_SERVER,
    "hf": "Hugging Face's inference service: your messages and the text of your files are "
    "sent there to be answered",
    "openai": "OpenAI's service: your messages and the text of your files are sent there to "
    "be answered",
    "azure": "Microsoft Azure's OpenAI service: your messages and the text of your files are "
    "sent there to be answered",
}
_ELSEWHERE = (
    "a model server chosen by the people who run this server: your messages and the text "
    "of your files are sent to it to be answered"
)
_SERVED = ("litellm", "ollama", "openai-local")  # a model server, here or elsewhere
_UNKNOWN = "a model chosen by the people who run this server"
# What runs the code, for executors that run it away from this server (`agents.executors`).
_AWAY = {
    "e2b": "a cloud sandbox at E2B, which can reach the internet",
    "modal": "a cloud sandbox at Modal, which can reach the internet",
    "jupyter": "a separate code server run by the people who run this server",
}
SEALED = (
    "a locked-down process on this server: it cannot reach the internet, other people's "
    "conversations, or any file but its own folder, your uploads and Python's"
)
SEPARATE = "a separate process on this server, with limits on memory and time"
IN_THE_APP = "the app itself, with the app's own access to this server: it is not sealed off"


@dataclass(frozen=True)
class ServerFacts:
    """What the page says about how this server keeps conversations.

    Args:
        retention_days: Conversations untouched this long are deleted (0: kept until deleted).
        own_database: Kept in a database server the operators run, not in a file here.
        accounts: Visitors sign in (conversations belong to an account, not a browser).
        anonymous_too: Visitors who did not sign in may chat too (their conversations belong
            to their browser).
        sharing: Read-only share links: "off", "signed-in" or "public".
    """

    retention_days: float = 0.0
    own_database: bool = False
    accounts: bool = False
    anonymous_too: bool = True
    sharing: str = "off"


def server_facts(settings: Any, sign_in: Any) -> ServerFacts:
    """The facts out of the app's settings and sign-in.

    Args:
        settings: The app's `Settings` (retention_days, database_url, sharing).
        sign_in: The app's `SignIn` (its `mode` and whether it is `required`).
    """
    return ServerFacts(
        retention_days=float(settings.retention_days or 0),
        own_database=bool(settings.database_url),
        accounts=sign_in.mode != "none",
        anonymous_too=not sign_in.required,
        sharing=str(settings.sharing),
    )


def model_sentence(model_label: str) -> str:
    """Which model answers and where the person's messages go for that.

    Args:
        model_label: The model's id or label (its spec).
    """
    if is_demo_model(model_label):
        return "no model: canned demo answers, written in advance"
    if scripted_file(model_label) is not None:
        return f"`{model_name(model_label)}`: replies written in advance, on this server"
    if is_small_model_id(model_label) or model_label.startswith("local"):
        return f"`{model_label}`, {_ON_THIS_SERVER}"
    kind, colon, rest = model_label.partition(":")
    kind = kind.lower() if colon else ""
    name = (rest or model_label).partition("@")[0]  # an address after @ is the operator's
    if name.startswith(("/", "~", ".")):  # weights on the server's disk: their file name
        name = PurePath(name).name or name
    where = _WHERE_MODELS_RUN.get(kind, _ELSEWHERE if kind in _SERVED else _UNKNOWN)
    if kind == "openai" and "@" in rest:
        where = _ELSEWHERE  # an OpenAI-compatible server of the operator's, not OpenAI
    return f"`{name or model_label}`, {where}"


def code_sentence(agent: MultiStepAgent | None, executor_type: str) -> str:
    """What runs the agent's code and what that code cannot reach.

    Args:
        agent: The conversation's agent, or None before it exists.
        executor_type: The configured executor ("sandbox", "local", "docker", ...).
    """
    if executor_type == "local":
        return IN_THE_APP
    if executor_type == "docker":
        level = str(_report(agent).get("level") or "")
        if not level:  # no agent yet: its network is not known
            return "a container of its own, started with the first code"
        reach = "no internet" if "no network" in level else "network access"
        return f"a container of its own, with {reach}"
    if executor_type in _AWAY:
        return _AWAY[executor_type]
    report = _report(agent)
    if not report or report.get("started") is False:
        return "its own process on this server, started with the first code"
    if report.get("seccomp") and report.get("landlock"):
        return SEALED
    return SEPARATE if report.get("process") else IN_THE_APP


def _report(agent: MultiStepAgent | None) -> dict[str, Any]:
    executor = agent.executor if agent is not None else None
    return executor.isolation if executor is not None else {}


def kept_sentence(facts: ServerFacts) -> str:
    """Where the conversations are kept and for how long.

    Args:
        facts: How this server keeps conversations.
    """
    where = "on this server"
    if facts.own_database:
        where = "in a database of the people who run this server"
    days = facts.retention_days
    if days <= 0:
        return f"{where}, until you delete them (with Delete, in the list's menu)"
    span = "1 day" if days == 1 else f"{days:g} days"
    return f"{where}; one you have not used for {span} is deleted"


def who_sentence(facts: ServerFacts) -> str:
    """Who can open the person's conversations.

    Args:
        facts: How this server keeps conversations.
    """
    if not facts.accounts:
        who = "whoever uses this browser (nobody signs in here)"
    elif facts.anonymous_too:
        who = "you, signed in, from any browser (without signing in: whoever uses this browser)"
    else:
        who = "you, signed in, from any browser"
    text = f"{who}, and the people who run this server"
    if facts.sharing == "public":
        text += "; a share link you make shows a read-only copy to anyone who has it"
    elif facts.sharing == "signed-in":
        text += "; a share link you make shows a read-only copy to signed-in people who have it"
    return text + "."


def about_lines(
    model_label: str,
    agent: MultiStepAgent | None,
    executor_type: str,
    steps: int | str,
    facts: ServerFacts,
) -> list[str]:
    """The folded "About this server" part of the side panel, as Markdown lines.

    Args:
        model_label: The model's id or label.
        agent: The conversation's agent, or None before it exists.
        executor_type: The configured executor.
        steps: The agent's steps per message.
        facts: How this server keeps conversations.
    """
    # `<details>` with blank lines around its Markdown: the folded part still renders it.
    return [
        f"<details><summary>{ABOUT_SERVER}</summary>",
        "",
        f"**Answers come from:** {model_sentence(model_label)}.  ",
        f"**Code runs in:** {code_sentence(agent, executor_type)}.  ",
        f"**Max steps per message:** {steps}  ",
        f"**Your conversations are kept** {kept_sentence(facts)}.  ",
        f"**Who can see them:** {who_sentence(facts)}",
        "",
        "</details>",
    ]
