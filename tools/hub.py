"""Share tools: save to a folder, load from a folder or a Hub Space, push to the Hub.

A saved tool is a folder with `tool.py` (self-contained source), `requirements.txt` and an
`app.py` that serves it with Gradio. Loading runs `tool.py`, so it needs
`trust_remote_code=True`; the Hub calls are thin layers over `huggingface_hub`.
"""

from __future__ import annotations

import importlib.util
import logging
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents.errors import AgentConfigError
from tools.base import Tool
from tools.smolagents_imports import smolagents_builtins
from tools.tool_source import third_party_modules, tool_source

logger = logging.getLogger(__name__)

_HUB_KWARGS = ("cache_dir", "revision", "force_download", "local_files_only", "repo_type")

_APP_TEMPLATE = '''"""Serves the tool in {file_name}.py with a simple Gradio form."""

import gradio as gr

from tools.hub import load_tool

COMPONENTS = {{"string": gr.Textbox, "integer": gr.Number, "number": gr.Number,
              "boolean": gr.Checkbox, "image": gr.Image, "audio": gr.Audio}}

tool = load_tool(".", tool_file_name={file_name!r}, trust_remote_code=True)
demo = gr.Interface(
    fn=lambda *args: tool(*args),
    inputs=[COMPONENTS.get(spec["type"], gr.Textbox)(label=name)
            for name, spec in tool.inputs.items()],
    outputs=COMPONENTS.get(tool.output_type, gr.Textbox)(label="result"),
    title=tool.name,
    description=tool.description,
)

if __name__ == "__main__":
    demo.launch()
'''


class TrustRemoteCodeError(AgentConfigError):
    """Loading would run code from a file or the Hub, and `trust_remote_code` is False."""


def require_trust(what: str, trust_remote_code: bool) -> None:
    """Raise `TrustRemoteCodeError` unless the caller opted in to running `what`'s code.

    Args:
        what: What would be loaded, for the message.
        trust_remote_code: The caller's choice.
    """
    if not trust_remote_code:
        raise TrustRemoteCodeError(
            f"Loading {what} runs Python code from it. Read that code first; if you trust "
            "it, pass trust_remote_code=True."
        )


def save_tool(
    tool: Tool, output_dir: str | Path, tool_file_name: str = "tool", make_gradio_app: bool = True
) -> Path:
    """Write `tool` to a folder: `<tool_file_name>.py`, `requirements.txt`, `app.py`.

    Args:
        tool: The tool.
        output_dir: The folder (created if needed).
        tool_file_name: Name of the source file, without `.py`.
        make_gradio_app: Also write `app.py`.
    """
    folder = Path(output_dir)
    folder.mkdir(parents=True, exist_ok=True)
    source = tool_source(tool)
    (folder / f"{tool_file_name}.py").write_text(source, encoding="utf-8")
    requirements = third_party_modules(source)
    if make_gradio_app:
        (folder / "app.py").write_text(
            _APP_TEMPLATE.format(file_name=tool_file_name), encoding="utf-8"
        )
        requirements = sorted({*requirements, "gradio"})
    (folder / "requirements.txt").write_text("".join(f"{r}\n" for r in requirements))
    return folder


def tool_from_file(path: str | Path, **kwargs: Any) -> Tool:
    """Run a tool's source file and return the tool it defines (no trust check here).

    Args:
        path: The `.py` file.
        **kwargs: Passed to the tool class's `__init__` when the file defines a class.
    """
    path = Path(path)
    module_name = f"_smolui_loaded_tool_{uuid.uuid4().hex[:12]}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise AgentConfigError(f"Cannot load a tool from {path}: not a Python file.")
    module = importlib.util.module_from_spec(spec)
    # Tools saved by smolagents import from it: resolve those names to ours.
    module.__dict__["__builtins__"] = smolagents_builtins()
    spec.loader.exec_module(module)
    instances = [v for v in vars(module).values() if isinstance(v, Tool)]
    if instances:
        loaded = instances[-1]
    else:
        classes = [
            v
            for v in vars(module).values()
            if isinstance(v, type) and issubclass(v, Tool) and v.__module__ == module_name
        ]
        if not classes:
            raise AgentConfigError(f"{path} defines no Tool (no @tool function, no Tool subclass).")
        loaded = classes[-1](**kwargs)
    loaded.source_code = path.read_text(encoding="utf-8")  # to save it again, file or not
    return loaded


def load_tool(
    repo_id: str | Path,
    trust_remote_code: bool = False,
    token: str | None = None,
    tool_file_name: str = "tool",
    model_repo_id: str | None = None,
    **kwargs: Any,
) -> Tool:
    """Load a tool from a local folder (written by `Tool.save`) or a Hub Space.

    Tools saved by smolagents load too: their `from smolagents import ...` lines resolve to
    this project's names.

    Args:
        repo_id: A folder, or a Space id such as `"user/my-tool"`.
        trust_remote_code: Must be True: loading runs the tool's Python code.
        token: A Hugging Face token for private Spaces.
        tool_file_name: The source file's name, without `.py`.
        model_repo_id: Passed to the tool's `__init__` as `model_repo_id` when given (the
            checkpoint a smolagents tool should use).
        **kwargs: Hub download options (`revision`, `cache_dir`, ...); the rest go to
            the tool class's `__init__`.
    """
    require_trust(f"the tool {str(repo_id)!r}", trust_remote_code)
    hub_kwargs = {k: kwargs.pop(k) for k in _HUB_KWARGS if k in kwargs}
    if model_repo_id is not None:
        kwargs["model_repo_id"] = model_repo_id
    folder = Path(repo_id)
    if not folder.is_dir():
        folder = download_from_hub(str(repo_id), token=token, **hub_kwargs)
    source = folder / f"{tool_file_name}.py"
    if not source.is_file():
        raise AgentConfigError(f"{folder} has no {tool_file_name}.py; it is not a saved tool.")
    return tool_from_file(source, **kwargs)


def download_from_hub(repo_id: str, token: str | None = None, **kwargs: Any) -> Path:
    """Download a Hub repository (a Space by default) and return its local folder.

    Args:
        repo_id: The repository id.
        token: A Hugging Face token.
        **kwargs: Passed to `huggingface_hub.snapshot_download`.
    """
    from huggingface_hub import snapshot_download

    kwargs.setdefault("repo_type", "space")
    return Path(snapshot_download(repo_id, token=token, **kwargs))


def upload_folder_to_hub(
    folder: str | Path,
    repo_id: str,
    commit_message: str,
    private: bool | None = None,
    token: bool | str | None = None,
    create_pr: bool = False,
) -> str:
    """Create the Space if needed and upload a folder to it; returns the commit URL.

    Args:
        folder: What to upload.
        repo_id: The Space id.
        commit_message: The commit message.
        private: Create the Space private.
        token: A Hugging Face token.
        create_pr: Open a pull request instead of committing.
    """
    from huggingface_hub import HfApi

    api = HfApi(token=token)
    api.create_repo(repo_id, repo_type="space", space_sdk="gradio", private=private, exist_ok=True)
    info = api.upload_folder(
        repo_id=repo_id,
        repo_type="space",
        folder_path=str(folder),
        commit_message=commit_message,
        create_pr=create_pr,
    )
    return str(getattr(info, "commit_url", info))  # why: older huggingface_hub returns a URL


def push_folder_to_hub(
    save: Callable[[str], object],
    repo_id: str,
    commit_message: str,
    private: bool | None = None,
    token: bool | str | None = None,
    create_pr: bool = False,
) -> str:
    """Save something to a temporary folder with `save`, then upload that folder to a Space.

    The one upload path for `Tool.push_to_hub` and the agent's `push_to_hub`.

    Args:
        save: Writes what to share into the folder it is given (e.g. `tool.save`).
        repo_id: The Space id, e.g. `"user/my-tool"`.
        commit_message: The commit message.
        private: Create the Space private.
        token: A Hugging Face token (default: the logged-in one).
        create_pr: Open a pull request instead of committing.
    """
    with tempfile.TemporaryDirectory() as folder:
        save(folder)
        return upload_folder_to_hub(folder, repo_id, commit_message, private, token, create_pr)
