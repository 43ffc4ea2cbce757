"""Read agents saved by smolagents (`agent.to_dict()`, `agent.save(folder)`).

smolagents writes the model as `{"class", "data"}`, the full import list as
`authorized_imports`, tools as dicts with their code, and managed agents as a list of agent
dicts; this module rewrites such a dict into this project's shape before it is built.
"""

from __future__ import annotations

from typing import Any

# Keys smolagents writes that have no constructor argument here (or are recomputed).
_DROPPED = ("requirements", "grammar", "max_print_outputs_length", "managed_agents_folder")


def is_smolagents_dict(data: dict[str, Any]) -> bool:
    """Whether `data` was written by smolagents rather than by this project.

    Args:
        data: An agent dict (from `to_dict()` or a saved `agent.json`).
    """
    from agents.persistence.serialization import FORMAT

    return data.get("format") != FORMAT and ("authorized_imports" in data or _wrapped(data))


def _wrapped(data: dict[str, Any]) -> bool:
    model = data.get("model")
    return isinstance(model, dict) and "data" in model


def from_smolagents_dict(data: dict[str, Any]) -> dict[str, Any]:
    """This project's agent dict for a smolagents one (other dicts are returned as they are).

    Args:
        data: The agent dict.
    """
    if not is_smolagents_dict(data):
        return data
    from agents.executors.python_runner import BASE_AUTHORIZED_IMPORTS

    out = {k: v for k, v in data.items() if k not in _DROPPED}
    model = data.get("model")
    if _wrapped(data):
        out["model"] = {"class": model["class"], **(model.get("data") or {})}
    if "authorized_imports" in data:
        imports = out.pop("authorized_imports") or []
        out["additional_authorized_imports"] = [
            name for name in imports if name not in BASE_AUTHORIZED_IMPORTS
        ]
    if out.get("executor_type") == "local":
        # smolagents' "local" is its confined interpreter; here that role is the sandbox's.
        del out["executor_type"]
    tools = data.get("tools") or []
    if tools and all(isinstance(t, dict) for t in tools):
        out["tool_code"] = {t["name"]: t["code"] for t in tools if t.get("name") != "final_answer"}
        out["tools"] = list(out["tool_code"])
    else:  # a saved folder lists names; this project adds its own final_answer
        out["tools"] = [name for name in tools if name != "final_answer"]
    managed = data.get("managed_agents")
    if isinstance(managed, list):
        out["managed_agent_dicts"] = {
            entry.get("name") or f"agent_{i}": from_smolagents_dict(entry)
            for i, entry in enumerate(managed)
        }
        out["managed_agents"] = {
            name: d.get("class") for name, d in out["managed_agent_dicts"].items()
        }
    return out
