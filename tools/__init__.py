"""Tools an agent can call: `Tool`, `@tool`, and the default toolbox."""

from tools.base import Tool, ToolArgumentError, ToolDefinitionError
from tools.decorator import tool
from tools.final_answer import FinalAnswerTool

__all__ = ["FinalAnswerTool", "Tool", "ToolArgumentError", "ToolDefinitionError", "tool"]
