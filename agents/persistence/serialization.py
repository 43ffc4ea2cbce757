"""Save and load agents: a dict, a folder, a Hub Space.

A saved agent is a folder:

```
agent.json          class, settings, model, tool names, managed agent names
                    (`to_dict()` holds each tool's dict with its code instead)
prompts.yaml        the prompt templates
tools/<name>.py     one self-contained file per tool
managed_agents/<name>/   each managed agent, saved the same way
requirements.txt    third-party modules the tools import
app.py              serves the agent with smolui's chat UI
```

Loading a dict or a folder runs the tools' code, as smolagents does, with a warning that
names them; a download from the Hub refuses unless `trust_remote_code=True`.
`MultiStepAgent.to_dict/from_dict/save/from_folder/push_to_hub/from_hub` call these functions.
"""

from __future__ import annotations

import json
import logging
import tempfile
from pathlib import Path
from typing import Any

from agents.errors import AgentConfigError
from agents.models.base import Model

logger = logging.getLogger(__name__)

FORMAT = "smolui-agent/1"

# constructor arguments a saved agent may set (`saved_settings()` says which it has)
_COMMON = (
    "max_steps",
    "planning_interval",
    "name",
    "description",
    "provide_run_summary",
    "return_full_result",
    "stream_outputs",
    "max_context_tokens",
    "instructions",
)
_CODE_AGENT = (
    "additional_authorized_imports",
    "executor_type",
    "executor_kwargs",
    "use_structured_outputs_internally",
    "code_block_tags",
)

_APP = '''"""Serves the agent saved in this folder with smolui's chat UI (one agent per chat)."""

from pathlib import Path

from agents.persistence.serialization import agent_from_folder
from smolui import GradioUI
from smolui.app.settings import settings_from_args

FOLDER = Path(__file__).resolve().parent


def new_agent():
    return agent_from_folder(FOLDER, trust_remote_code=True)


# host, port and limits come from flags and the environment (Spaces sets GRADIO_SERVER_NAME)
ui = GradioUI(new_agent, settings=settings_from_args())

if __name__ == "__main__":
    ui.launch()
'''


# -- dict ----------------------------------------------------------------------------------


def agent_to_dict(agent: Any) -> dict[str, Any]:
    """Describe an agent as JSON-ready data: its settings, model, prompts, each tool as
    `Tool.to_dict()` gives it (with its code, smolagents' shape) and each managed agent's
    own dict.

    Args:
        agent: A `MultiStepAgent`.
    """
    data: dict[str, Any] = {"format": FORMAT, "class": type(agent).__name__}
    for key, value in agent.saved_settings().items():
        data[key] = _plain(_without_secrets(value) if key == "executor_kwargs" else value, key)
    data["verbosity_level"] = int(agent.logger.level)
    data["model"] = agent.model.to_dict()
    data["prompt_templates"] = agent.prompt_templates
    data["tools"] = [tool.to_dict() for tool in agent.tools.values()]  # final_answer too
    managed = {name: entry.agent for name, entry in agent.managed_agents.items()}
    data["managed_agents"] = {name: type(sub).__name__ for name, sub in managed.items()}
    data["managed_agent_dicts"] = {n: agent_to_dict(sub) for n, sub in managed.items()}
    data["requirements"] = sorted({r for t in data["tools"] for r in t["requirements"]})
    return data


def agent_from_dict(
    agent_dict: dict[str, Any], trust_remote_code: bool = False, **kwargs: Any
) -> Any:
    """Build an agent from `agent_to_dict`'s output (or smolagents' `agent.to_dict()`).

    The tools' code runs, as in smolagents: without `trust_remote_code=True` a warning
    names those tools. Only load dicts you made yourself or whose code you have read.

    Args:
        agent_dict: The description; its tools as a list of tool dicts, or (older saves)
            names with their code under "tool_code".
        trust_remote_code: Set it to say you know the tools' code runs (no warning).
        **kwargs: Constructor arguments that replace the saved ones (e.g. `model=`).
    """
    from agents.persistence.smolagents_format import from_smolagents_dict

    agent_dict = from_smolagents_dict(agent_dict)
    codes = _tool_codes(agent_dict)
    warn_tool_code("the agent dict", list(codes), trust_remote_code)
    tools = [_tool_from_source(name, code) for name, code in codes.items()]
    managed = [
        agent_from_dict(sub, trust_remote_code=trust_remote_code)
        for sub in agent_dict.get("managed_agent_dicts", {}).values()
    ]
    return _build(agent_dict, tools, managed, kwargs)


def warn_tool_code(what: str, names: list[str], trust_remote_code: bool) -> None:
    """Log a warning naming the tools whose code loading `what` runs, unless trusted.

    Args:
        what: What is being loaded, for the message.
        names: The tools whose code runs.
        trust_remote_code: The caller said it knows (no warning).
    """
    if names and not trust_remote_code:
        logger.warning(
            "Loading %s runs the Python code of its tools: %s. Load only agents you saved "
            "yourself or whose code you have read (pass trust_remote_code=True to say so).",
            what,
            ", ".join(names),
        )


def _tool_codes(data: dict[str, Any]) -> dict[str, str]:
    """`{tool name: source}` from a dict's tool dicts, or from its older "tool_code"."""
    codes = dict(data.get("tool_code") or {})
    for entry in data.get("tools") or []:
        if isinstance(entry, dict) and not _default_final_answer(entry):
            name, code = entry.get("name"), entry.get("code")
            if not (isinstance(name, str) and isinstance(code, str)):
                raise AgentConfigError(
                    "Each tool in the agent dict needs a 'name' and its 'code' "
                    "(as Tool.to_dict() writes them)."
                )
            codes[name] = code
    return codes


def _build(data: dict[str, Any], tools: list[Any], managed: list[Any], overrides: dict) -> Any:
    cls = agent_class(data.get("class", "CodeAgent"))
    keys = (*_COMMON, *_CODE_AGENT, "verbosity_level")
    init: dict[str, Any] = {k: data[k] for k in keys if k in data}
    if "code_block_tags" in init:
        init["code_block_tags"] = tuple(init["code_block_tags"])
    init["prompt_templates"] = data.get("prompt_templates")
    init.update(tools=tools, managed_agents=managed or None)
    if "model" not in overrides:
        init["model"] = model_from_dict(data["model"])
    init.update(overrides)
    return cls(**init)


# -- folder --------------------------------------------------------------------------------


def save_agent(agent: Any, output_dir: str | Path) -> Path:
    """Write the agent to a folder (see the module docstring for the layout).

    Args:
        agent: A `MultiStepAgent`.
        output_dir: The folder (created if needed).
    """
    import yaml

    folder = Path(output_dir)
    (folder / "tools").mkdir(parents=True, exist_ok=True)
    data = agent_to_dict(agent)
    saved = [entry for entry in data["tools"] if not _default_final_answer(entry)]
    for entry in saved:
        (folder / "tools" / f"{entry['name']}.py").write_text(entry["code"], encoding="utf-8")
    data["tools"] = [entry["name"] for entry in saved]  # the code is in tools/
    data.pop("managed_agent_dicts")
    requirements = set(data["requirements"])
    for name, entry in agent.managed_agents.items():
        save_agent(entry.agent, folder / "managed_agents" / name)
        sub = (folder / "managed_agents" / name / "requirements.txt").read_text().split()
        requirements.update(sub)
    prompts = data.pop("prompt_templates")
    (folder / "prompts.yaml").write_text(
        yaml.safe_dump(prompts, sort_keys=False, allow_unicode=True, width=100), encoding="utf-8"
    )
    (folder / "agent.json").write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    (folder / "requirements.txt").write_text("".join(f"{r}\n" for r in sorted(requirements)))
    (folder / "app.py").write_text(_APP, encoding="utf-8")
    return folder


def agent_from_folder(folder: str | Path, trust_remote_code: bool = False, **kwargs: Any) -> Any:
    """Load an agent saved by `save_agent` (or smolagents' `agent.save`).

    The tools' files run, as in smolagents: without `trust_remote_code=True` a warning
    names those tools. `agent_from_hub`, for folders from elsewhere, requires the flag.

    Args:
        folder: The folder.
        trust_remote_code: Set it to say you know the tools' code runs (no warning).
        **kwargs: Constructor arguments that replace the saved ones (e.g. `model=`).
    """
    import yaml

    from tools.hub import tool_from_file

    folder = Path(folder)
    if not (folder / "agent.json").is_file():
        raise AgentConfigError(f"{folder} has no agent.json; it is not a saved agent.")
    from agents.persistence.smolagents_format import from_smolagents_dict

    data = from_smolagents_dict(json.loads((folder / "agent.json").read_text(encoding="utf-8")))
    prompts = folder / "prompts.yaml"
    if prompts.is_file():
        data["prompt_templates"] = yaml.safe_load(prompts.read_text(encoding="utf-8"))
    files = [folder / "tools" / f"{name}.py" for name in data.get("tools", [])]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise AgentConfigError(f"The saved agent lacks tool files: {', '.join(missing)}.")
    warn_tool_code(f"the agent in {folder}", [f.stem for f in files], trust_remote_code)
    tools = [tool_from_file(f) for f in files]
    managed = [
        agent_from_folder(folder / "managed_agents" / name, trust_remote_code)
        for name in data.get("managed_agents", {})
    ]
    return _build(data, tools, managed, kwargs)


# -- Hub -----------------------------------------------------------------------------------


def agent_from_hub(
    repo_id: str, token: str | None = None, trust_remote_code: bool = False, **kwargs: Any
) -> Any:
    """Download a saved agent from a Space and load it.

    Args:
        repo_id: The Space id.
        token: A Hugging Face token for private Spaces.
        trust_remote_code: Must be True: loading runs the agent's tool code.
        **kwargs: Hub download options (`revision`, `cache_dir`, ...); the rest replace the
            saved constructor arguments.
    """
    from tools.hub import _HUB_KWARGS, download_from_hub, require_trust

    require_trust(f"the agent {repo_id!r}", trust_remote_code)
    hub_kwargs = {k: kwargs.pop(k) for k in _HUB_KWARGS if k in kwargs}
    folder = download_from_hub(repo_id, token=token, **hub_kwargs)
    return agent_from_folder(folder, trust_remote_code=True, **kwargs)


# -- pieces --------------------------------------------------------------------------------


def agent_class(name: str) -> type:
    """The agent class saved under `name` (CodeAgent, ToolCallingAgent, ...).

    Args:
        name: The class name.
    """
    import agents

    if name not in ("CodeAgent", "ToolCallingAgent", "MultiStepAgent"):
        raise AgentConfigError(f"Unknown agent class {name!r} in the saved agent.")
    return getattr(agents, name)  # a lazy export of the package, by its saved name


def model_from_dict(data: dict[str, Any]) -> Any:
    """Rebuild a model from `Model.to_dict()` output (`{"class": ..., "model_id": ...}`).

    Args:
        data: The model description.
    """
    import agents

    data = dict(data)
    name = data.pop("class", None)
    cls = getattr(agents, name, None) if isinstance(name, str) else None  # a lazy export
    if not (isinstance(cls, type) and issubclass(cls, Model)):
        raise AgentConfigError(
            f"The saved agent's model class {name!r} is unknown; pass model=... when loading."
        )
    return cls.from_dict(data)


def _default_final_answer(tool_dict: dict[str, Any]) -> bool:
    """Whether a tool dict is the default `final_answer`, which every agent adds back
    (a custom one is saved and loaded like any tool)."""
    from tools.final_answer import FinalAnswerTool

    return tool_dict.get("code") == FinalAnswerTool().to_dict()["code"]


def _tool_from_source(name: str, code: str) -> Any:
    from tools.hub import tool_from_file

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{name}.py"
        path.write_text(code, encoding="utf-8")
        return tool_from_file(path)


_SECRET_NAMES = ("token", "api_key", "key", "secret", "password")


def _without_secrets(executor_kwargs: dict[str, Any]) -> dict[str, Any]:
    """`executor_kwargs` less its credentials: a saved folder is shared (Hub, Spaces, git).

    Args:
        executor_kwargs: The agent's executor arguments.
    """
    kept, dropped = {}, []
    for name, value in executor_kwargs.items():
        if any(name == word or name.endswith("_" + word) for word in _SECRET_NAMES):
            dropped.append(name)
        else:
            kept[name] = value
    if dropped:
        logger.warning(
            "Not saved with the agent: executor_kwargs %s (credentials). Where the agent is "
            "loaded, give them through the environment (SMOLUI_EXECUTOR_TOKEN for a Jupyter "
            "gateway, E2B_API_KEY, MODAL_TOKEN_ID/MODAL_TOKEN_SECRET) or pass them again.",
            ", ".join(sorted(dropped)),
        )
    return kept


def _plain(value: Any, key: str) -> Any:
    try:
        json.dumps(value)
    except (TypeError, ValueError) as error:
        raise AgentConfigError(
            f"Cannot save the agent: its {key} ({value!r}) is not plain JSON data."
        ) from error
    return list(value) if isinstance(value, tuple) else value
