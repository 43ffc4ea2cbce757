"""`Tool`: plain data (name, description, inputs, output type) plus a `forward` function.

The types its inputs may declare and their checks live in `tools.schema`, its errors in
`tools.errors`; both stay importable from here.
"""

from __future__ import annotations

import inspect
import json
import textwrap
from typing import Any

from tools.errors import ToolArgumentError, ToolDefinitionError, ToolExecutionError
from tools.schema import (
    AUTHORIZED_TYPES,
    bind_arguments,
    check_input,
    check_value,
    json_type,
    python_type,
)

# Importers take these from here: the errors and `AUTHORIZED_TYPES` stay where they were.
__all__ = [
    "AUTHORIZED_TYPES",
    "Tool",
    "ToolArgumentError",
    "ToolDefinitionError",
    "ToolExecutionError",
    "format_output",
]

# Told to the model for a tool with an `output_schema` (small models print results otherwise).
_STRUCTURED_NOTE = (
    "\n    Important: this tool returns structured output: read fields directly, e.g. "
    "result['field_name'], following the JSON schema below; no need to print it first."
)


class Tool:
    """A function an agent can call, described for the model.

    Subclasses set the class attributes and implement `forward`:

    Args:
        name: A Python identifier the model calls the tool by.
        description: What the tool does, for the model.
        inputs: `{arg: {"type": ..., "description": ..., "nullable": bool}}`.
        output_type: One of `AUTHORIZED_TYPES`.
    """

    name: str = ""
    description: str = ""
    inputs: dict[str, dict[str, Any]] = {}
    output_type: str = "any"
    output_schema: dict[str, Any] | None = None
    skip_forward_signature_validation: bool = False
    requires_approval: bool = False  # held for a person's answer when an agent's approve= asks
    # False until `setup` ran; a class default too, for subclasses that skip `super().__init__`.
    is_initialized: bool = False
    # The file a loaded tool came from (see `tools.hub.tool_from_file`), to save it again.
    source_code: str | None = None

    def __init__(self, *args: Any, **kwargs: Any):
        self.is_initialized = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        original_init = cls.__init__

        def init_then_validate(self: Tool, *args: Any, **kw: Any) -> None:
            original_init(self, *args, **kw)
            if type(self).__init__ is init_then_validate:
                self.validate()

        init_then_validate.__wrapped__ = original_init  # type: ignore[attr-defined]
        cls.__init__ = init_then_validate  # type: ignore[method-assign]

    # -- definition --------------------------------------------------------------------

    def validate(self) -> None:
        """Check the definition; raise `ToolDefinitionError` saying what to fix."""
        label = f"Tool {type(self).__name__}"
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise ToolDefinitionError(f"{label}: name {self.name!r} must be a Python identifier.")
        if not isinstance(self.description, str) or not self.description.strip():
            raise ToolDefinitionError(f"{label} ({self.name}): give it a non-empty description.")
        if not isinstance(self.inputs, dict):
            raise ToolDefinitionError(f"{label} ({self.name}): inputs must be a dict.")
        for arg, spec in self.inputs.items():
            check_input(self.name, arg, spec)
        if self.output_type not in AUTHORIZED_TYPES:
            raise ToolDefinitionError(
                f"{label} ({self.name}): output_type {self.output_type!r} is not one of "
                f"{', '.join(AUTHORIZED_TYPES)}."
            )
        if not self.skip_forward_signature_validation:
            self._check_forward_signature()

    def _check_forward_signature(self) -> None:
        params = inspect.signature(self.forward).parameters
        if any(p.kind is p.VAR_KEYWORD for p in params.values()):
            return
        names = [n for n, p in params.items() if p.kind is not p.VAR_POSITIONAL]
        if set(names) != set(self.inputs):
            raise ToolDefinitionError(
                f"Tool {self.name}: forward() takes {sorted(names)} but inputs declares "
                f"{sorted(self.inputs)}; make them the same."
            )

    # -- use ---------------------------------------------------------------------------

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"Tool {self.name} must implement forward().")

    def setup(self) -> None:
        """Run once before first use: load heavy things here, not in `__init__`."""
        self.is_initialized = True

    def close(self) -> None:
        """Release what the tool holds (a worker, a session); `agent.close()` calls it.
        Tools that hold nothing need not override it."""

    def __call__(self, *args: Any, sanitize_inputs_outputs: bool = False, **kwargs: Any) -> Any:
        if not self.is_initialized:
            self.setup()
            self.is_initialized = True
        if len(args) == 1 and not kwargs and isinstance(args[0], dict):
            candidate = args[0]
            if candidate and set(candidate) <= set(self.inputs) and len(self.inputs) != 1:
                args, kwargs = (), candidate
        if sanitize_inputs_outputs:
            self.validate_arguments(bind_arguments(self, args, kwargs))
        return self.forward(*args, **kwargs)

    def validate_arguments(self, arguments: dict[str, Any]) -> None:
        """Check a call's arguments against `inputs`; raise `ToolArgumentError` if wrong."""
        if not isinstance(arguments, dict):
            raise ToolArgumentError(
                f"Tool {self.name} takes named arguments as an object, got {arguments!r}. "
                + self.usage()
            )
        unknown = sorted(set(arguments) - set(self.inputs))
        if unknown:
            raise ToolArgumentError(
                f"Tool {self.name} has no argument {', '.join(unknown)}. " + self.usage()
            )
        for arg, spec in self.inputs.items():
            if arg not in arguments:
                if not spec.get("nullable"):
                    raise ToolArgumentError(
                        f"Tool {self.name} needs argument '{arg}'. " + self.usage()
                    )
                continue
            check_value(self, arg, spec, arguments[arg])

    def usage(self) -> str:
        return f"Usage: {self.signature()}: {self.description}"

    # -- how the model sees it ---------------------------------------------------------

    def signature(self) -> str:
        """A readable Python signature, e.g. `search(query: string, limit?: integer) -> string`."""
        args = ", ".join(
            f"{arg}{'?' if spec.get('nullable') else ''}: {spec['type']}"
            for arg, spec in self.inputs.items()
        )
        return f"{self.name}({args}) -> {self.output_type}"

    def to_code_prompt(self) -> str:
        """The tool as a Python function stub for code agents' system prompts; with an
        `output_schema`, it returns `dict` and its docstring shows that JSON schema."""
        args = ", ".join(
            f"{arg}: {python_type(spec['type'])}{' = None' if spec.get('nullable') else ''}"
            for arg, spec in self.inputs.items()
        )
        schema = self.output_schema
        doc = [self.description.strip()]
        if schema is not None:
            doc.append(_STRUCTURED_NOTE)
        if self.inputs:
            doc.append("\n    Args:")
            doc.extend(
                f"        {arg}: {spec.get('description', '')}" for arg, spec in self.inputs.items()
            )
        if schema is not None:
            shown = textwrap.indent(json.dumps(schema, indent=4), " " * 12)
            doc.append(
                f"\n    Returns:\n        dict (structured output), this JSON schema:\n{shown}"
            )
        body = "\n".join(doc)
        returns = "dict" if schema is not None else python_type(self.output_type)
        return f'def {self.name}({args}) -> {returns}:\n    """{body}\n    """'

    def to_tool_calling_prompt(self) -> str:
        """The tool as a readable entry for tool-calling agents' system prompts."""
        lines = [f"- {self.signature()}", f"    {self.description.strip()}"]
        lines += [f"    {arg}: {spec.get('description', '')}" for arg, spec in self.inputs.items()]
        return "\n".join(lines)

    def to_tool_schema(self) -> dict[str, Any]:
        """An OpenAI-style function schema for native tool calling."""
        properties = {}
        for arg, spec in self.inputs.items():
            prop = {k: v for k, v in spec.items() if k != "nullable"}
            prop["type"] = json_type(spec["type"])
            properties[arg] = prop
        required = [a for a, s in self.inputs.items() if not s.get("nullable")]
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": {"type": "object", "properties": properties, "required": required},
            },
        }

    def to_dict(self) -> dict[str, Any]:
        """The tool as JSON-ready data: its definition, plus its self-contained source
        (`code`, which `Tool.from_code` and `Tool.from_dict` load) and `requirements` (the
        third-party modules that source imports), as smolagents' `Tool.to_dict()` gives them.

        Raises:
            ToolDefinitionError: The tool's source cannot stand alone (see `tools.tool_source`).
        """
        from tools.tool_source import third_party_modules, tool_source

        code = tool_source(self)
        data = {
            "name": self.name,
            "description": self.description,
            "inputs": self.inputs,
            "output_type": self.output_type,
            "code": code,
            "requirements": third_party_modules(code),
        }
        if self.output_schema is not None:
            data["output_schema"] = self.output_schema
        return data

    # -- sharing -----------------------------------------------------------------------

    def save(
        self, output_dir: str, tool_file_name: str = "tool", make_gradio_app: bool = True
    ) -> None:
        """Write the tool's source (`tool.py`), `requirements.txt` and `app.py` to a folder.

        Args:
            output_dir: The folder to write to (created if needed).
            tool_file_name: Name of the source file, without `.py`.
            make_gradio_app: Also write an `app.py` that serves the tool with Gradio.
        """
        from tools.hub import save_tool

        save_tool(self, output_dir, tool_file_name=tool_file_name, make_gradio_app=make_gradio_app)

    def push_to_hub(
        self,
        repo_id: str,
        commit_message: str = "Upload tool",
        private: bool | None = None,
        token: bool | str | None = None,
        create_pr: bool = False,
    ) -> str:
        """Upload the saved tool to a Space on the Hugging Face Hub; returns the commit URL.

        Args:
            repo_id: The Space, e.g. `"user/my-tool"`.
            commit_message: The commit message.
            private: Create the Space private.
            token: A Hugging Face token (default: the logged-in one).
            create_pr: Open a pull request instead of committing.
        """
        from tools.hub import push_folder_to_hub

        return push_folder_to_hub(self.save, repo_id, commit_message, private, token, create_pr)

    @classmethod
    def from_hub(
        cls, repo_id: str, token: str | None = None, trust_remote_code: bool = False, **kwargs: Any
    ) -> Tool:
        """Load a tool from a Hub Space or a local folder (runs its code: needs trust).

        Args:
            repo_id: The Space id, or a local folder written by `save`.
            token: A Hugging Face token for private Spaces.
            trust_remote_code: Must be True: loading runs the tool's Python code.
            **kwargs: Passed to the tool's `__init__`.
        """
        from tools.hub import load_tool

        return load_tool(repo_id, token=token, trust_remote_code=trust_remote_code, **kwargs)

    @classmethod
    def from_code(cls, tool_code: str, **kwargs: Any) -> Tool:
        """The tool defined by source code (smolagents' `from smolagents import` works)."""
        from tools.conversions import tool_from_code

        return tool_from_code(tool_code, **kwargs)

    @classmethod
    def from_dict(cls, tool_dict: dict[str, Any], **kwargs: Any) -> Tool:
        """The tool in smolagents' `Tool.to_dict()` output (its "code" is run)."""
        from tools.conversions import tool_from_dict

        return tool_from_dict(tool_dict, **kwargs)

    @classmethod
    def from_space(
        cls,
        space_id: str,
        name: str,
        description: str,
        api_name: str | None = None,
        token: str | None = None,
    ) -> Tool:
        """A Gradio app (Hub Space id or URL) as a tool, through `gradio_client`."""
        from tools.conversions import SpaceTool

        return SpaceTool(space_id, name, description, api_name, token)

    @classmethod
    def from_langchain(cls, langchain_tool: Any) -> Tool:
        """A LangChain tool as a tool (needs `langchain-core`)."""
        from tools.conversions import LangChainTool

        return LangChainTool(langchain_tool)

    @classmethod
    def from_gradio(cls, gradio_tool: Any) -> Tool:
        """A `gradio_tools` tool as a tool."""
        from tools.conversions import GradioTool

        return GradioTool(gradio_tool)

    def __repr__(self) -> str:
        return f"<Tool {self.signature()}>"


def format_output(value: Any, limit: int = 20000) -> str:
    """Turn a tool's result into observation text for the model."""
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            text = repr(value)
    if len(text) > limit:
        return text[:limit] + f"\n[... {len(text) - limit} more characters cut]"
    return text
