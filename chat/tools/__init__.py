"""Tools the model can call (DESIGN §5): the registry and the eight file tools."""

from chat.tools.definitions import FILE_TOOLS, PATH_RULES, file_tools, tool_label
from chat.tools.registry import Arguments, Tool, ToolContext, ToolOutcome, ToolRegistry, tool_schema

__all__ = [
    "FILE_TOOLS",
    "PATH_RULES",
    "Arguments",
    "Tool",
    "ToolContext",
    "ToolOutcome",
    "ToolRegistry",
    "file_tools",
    "tool_label",
    "tool_schema",
]
