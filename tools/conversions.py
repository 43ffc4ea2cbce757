"""Tools made from other things: source code, a dict, a Gradio Space, a LangChain tool, a
gradio_tools tool. `Tool.from_code`, `from_dict`, `from_space`, `from_langchain` and
`from_gradio` call these."""

from __future__ import annotations

import inspect
import tempfile
from pathlib import Path
from typing import Any

from agents.errors import AgentConfigError
from tools.base import Tool

# Python annotations and gradio_client type names -> tool input types.
_PYTHON_TYPES = {
    str: "string", int: "integer", float: "number", bool: "boolean", list: "array", dict: "object",
    "str": "string", "int": "integer", "float": "number", "bool": "boolean",
    "list": "array", "dict": "object", "filepath": "string",
}  # fmt: skip


def tool_from_code(tool_code: str, **kwargs: Any) -> Tool:
    """Run source code that defines a tool (a `Tool` subclass or a `@tool` function).

    Code written for smolagents (`from smolagents import Tool`) works unchanged.

    Args:
        tool_code: The source.
        **kwargs: Passed to the tool class's `__init__`.
    """
    from tools.hub import tool_from_file

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "tool.py"
        path.write_text(tool_code, encoding="utf-8")
        return tool_from_file(path, **kwargs)


def tool_from_dict(tool_dict: dict[str, Any], **kwargs: Any) -> Tool:
    """Rebuild a tool from smolagents' `Tool.to_dict()` output (`{"name", "code", ...}`).

    Args:
        tool_dict: The dict; its "code" is run.
        **kwargs: Passed to the tool class's `__init__`.
    """
    code = tool_dict.get("code")
    if not isinstance(code, str) or not code.strip():
        raise AgentConfigError(
            "Tool.from_dict needs a dict with the tool's source under 'code', as "
            "Tool.to_dict() writes it."
        )
    return tool_from_code(code, **kwargs)


class SpaceTool(Tool):
    """A Gradio app (a Hub Space or a URL) called through `gradio_client`.

    Args:
        space_id: "user/space", or the app's URL.
        name: The tool's name.
        description: What it does, for the model.
        api_name: The endpoint, e.g. "/predict" (default: the app's first one).
        token: A Hugging Face token for private Spaces.
    """

    skip_forward_signature_validation = True
    output_type = "any"

    def __init__(
        self,
        space_id: str,
        name: str,
        description: str,
        api_name: str | None = None,
        token: str | None = None,
    ):
        super().__init__()
        client_module = _optional("gradio_client", "gradio_client", "Tool.from_space")
        try:
            self.client = client_module.Client(space_id, token=token, verbose=False)
            api = self.client.view_api(return_format="dict", print_info=False)
        except Exception as error:
            raise AgentConfigError(
                f"Tool.from_space could not reach {space_id!r} ({type(error).__name__}: "
                f"{error}). Check the Space id or URL and the network."
            ) from error
        endpoints = api.get("named_endpoints") or {}
        if not endpoints:
            raise AgentConfigError(f"{space_id!r} exposes no named API endpoint.")
        self.api_name = api_name or next(iter(endpoints))
        if self.api_name not in endpoints:
            raise AgentConfigError(
                f"{space_id!r} has no endpoint {self.api_name!r}; it has {', '.join(endpoints)}."
            )
        self.name, self.description = name, description
        self.inputs = {
            p["parameter_name"]: _space_input(p)
            for p in endpoints[self.api_name].get("parameters", [])
        }

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.client.predict(*args, api_name=self.api_name, **kwargs)


def _space_input(parameter: dict[str, Any]) -> dict[str, Any]:
    component = str(parameter.get("component", "")).lower()
    python_type = (parameter.get("python_type") or {}).get("type", "")
    kind = component if component in ("image", "audio") else _PYTHON_TYPES.get(python_type, "any")
    spec = {"type": kind, "description": parameter.get("label") or parameter["parameter_name"]}
    if parameter.get("parameter_has_default"):
        spec["nullable"] = True
    return spec


class LangChainTool(Tool):
    """A LangChain tool (`langchain_core.tools.BaseTool`) as a tool.

    Args:
        langchain_tool: The LangChain tool.
    """

    skip_forward_signature_validation = True
    output_type = "string"

    def __init__(self, langchain_tool: Any):
        super().__init__()
        core = _optional("langchain_core.tools", "langchain-core", "Tool.from_langchain")
        if not isinstance(langchain_tool, core.BaseTool):
            raise AgentConfigError(
                f"Tool.from_langchain needs a LangChain BaseTool, got {type(langchain_tool).__name__}."
            )
        self.langchain_tool = langchain_tool
        self.name = langchain_tool.name.lower().replace(" ", "_").replace("-", "_")
        self.description = langchain_tool.description
        self.inputs = {
            arg: {"type": spec.get("type", "any"), "description": spec.get("description", arg)}
            for arg, spec in langchain_tool.args.items()
        }

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        values = dict(zip(self.inputs, args, strict=False))
        values.update(kwargs)
        return self.langchain_tool.run(values)


class GradioTool(Tool):
    """A `gradio_tools` tool (anything with `name`, `description` and a typed `run`).

    Args:
        gradio_tool: The tool.
    """

    skip_forward_signature_validation = True
    output_type = "string"

    def __init__(self, gradio_tool: Any):
        super().__init__()
        self.gradio_tool = gradio_tool
        self.name = gradio_tool.name.lower().replace(" ", "_")
        self.description = gradio_tool.description
        parameters = inspect.signature(gradio_tool.run).parameters
        self.inputs = {
            arg: {"type": _PYTHON_TYPES.get(p.annotation, "any"), "description": arg}
            for arg, p in parameters.items()
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        }

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.gradio_tool.run(*args, **kwargs)


def _optional(module: str, package: str, who: str) -> Any:
    from agents.models.optional import optional_import

    return optional_import(module, package, who)
