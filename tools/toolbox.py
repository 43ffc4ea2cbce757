"""The default tools: the toolbox that `add_base_tools=True` gives an agent, and the tools
the app gives every conversation's agent, whatever its model."""

from __future__ import annotations

import os

from tools.base import Tool


def base_tools(
    include_python_interpreter: bool, documents_dir: str | os.PathLike[str] | None = None
) -> list[Tool]:
    """The default tools: web search, page visits, speech to text, and optionally Python and
    the document tools. `final_answer` is added by the agent itself.

    Nothing heavy happens here: each tool loads what it needs on first use.

    Args:
        include_python_interpreter: Add `python_interpreter` (for tool-calling agents; code
            agents already run Python).
        documents_dir: A folder of uploaded documents: adds `list_documents`,
            `read_document` and `search_document` restricted to it, and lets the Python
            interpreter read it.
    """
    from tools.transcriber import SpeechToTextTool
    from tools.visit_webpage import VisitWebpageTool
    from tools.web_search import WebSearchTool

    toolbox: list[Tool] = []
    if include_python_interpreter:
        from tools.python_interpreter import PythonInterpreterTool, default_executor_type

        kwargs = {}
        if documents_dir is not None and default_executor_type() == "sandbox":
            kwargs["read_only_paths"] = (str(documents_dir),)
        toolbox.append(PythonInterpreterTool(executor_kwargs=kwargs))
    toolbox += [WebSearchTool(), VisitWebpageTool(), SpeechToTextTool()]
    if documents_dir is not None:
        from tools.documents import document_tools

        toolbox += document_tools(documents_dir)
    return toolbox


def app_tools(documents_dir: str | os.PathLike[str]) -> list[Tool]:
    """The tools the app gives every agent, whatever its model: `convert_units` and the
    document tools of its conversation's upload folder (`--tools` adds others).

    Args:
        documents_dir: The conversation's upload folder.
    """
    from tools.convert_units import ConvertUnitsTool
    from tools.documents import document_tools

    return [ConvertUnitsTool(), *document_tools(documents_dir)]
