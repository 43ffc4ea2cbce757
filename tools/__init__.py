"""Tools an agent can call: `Tool`, `@tool`, the default toolbox, Hub and MCP loading.

Modules with heavy dependencies (Hub, MCP, the default tools) load on first use.
"""

from __future__ import annotations

from tools.base import Tool, ToolArgumentError, ToolDefinitionError, ToolExecutionError
from tools.decorator import tool
from tools.final_answer import FinalAnswerTool
from tools.lazy_exports import lazy_exports

# name -> module that defines it; loaded on first attribute access.
_LAZY = {
    "AgentAudio": "tools.agent_types",
    "AgentImage": "tools.agent_types",
    "AgentText": "tools.agent_types",
    "base_tools": "tools.toolbox",
    "app_tools": "tools.toolbox",
    "ConvertUnitsTool": "tools.convert_units",
    "PythonInterpreterTool": "tools.python_interpreter",
    "WebSearchTool": "tools.web_search",
    "DuckDuckGoSearchTool": "tools.web_search",
    "GoogleSearchTool": "tools.search_apis",
    "ApiWebSearchTool": "tools.search_apis",
    "WikipediaSearchTool": "tools.wikipedia_search",
    "UserInputTool": "tools.user_input",
    "VisitWebpageTool": "tools.visit_webpage",
    "ListDocumentsTool": "tools.documents",
    "ReadDocumentTool": "tools.documents",
    "SearchDocumentTool": "tools.documents",
    "document_tools": "tools.documents",
    "SpeechToTextTool": "tools.transcriber",
    "load_tool": "tools.hub",
    "ToolCollection": "tools.collection",
    "MCPClient": "tools.mcp",
}


__getattr__, __dir__ = lazy_exports("tools", _LAZY, globals())  # lazy exports


__all__ = [
    "FinalAnswerTool",
    "Tool",
    "ToolArgumentError",
    "ToolDefinitionError",
    "ToolExecutionError",
    "tool",
    *_LAZY,
]
