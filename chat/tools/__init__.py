"""Tools the model can call (DESIGN §5): the registry, the eight file tools and check_site."""

from chat.tools.definitions import (
    FILE_TOOLS,
    PATH_RULES,
    file_tools,
    plan_tools,
    tool_category,
    tool_label,
    tool_visibility,
)
from chat.tools.instructions import asks_to_remember
from chat.tools.registry import (
    Arguments,
    Tool,
    ToolCategory,
    ToolContext,
    ToolOutcome,
    ToolRegistry,
    Visibility,
    tool_schema,
)

__all__ = [
    "FILE_TOOLS",
    "PATH_RULES",
    "Arguments",
    "Tool",
    "ToolCategory",
    "ToolContext",
    "ToolOutcome",
    "ToolRegistry",
    "Visibility",
    "asks_to_remember",
    "file_tools",
    "plan_tools",
    "tool_category",
    "tool_label",
    "tool_schema",
    "tool_visibility",
]
