"""The file tools as the model meets them: names, descriptions, metadata.

Descriptions are written for a model: when to use the tool, the path rules,
the limits, and what comes back.
"""

from __future__ import annotations

from typing import Any

from chat.tools import check_site, files
from chat.tools.registry import Tool, ToolCategory, ToolRegistry, Visibility
from projects.files.paths import BINARY_EXTENSIONS, MAX_DEPTH, MAX_LENGTH, TEXT_EXTENSIONS

PATH_RULES = (
    "Paths start at the project root, like /index.html or /css/site.css: ASCII letters, "
    "digits, '.', '_' and '-' only (no spaces), no '..' and no segment starting with '.', "
    f"at most {MAX_DEPTH} folders deep and {MAX_LENGTH} characters. Text files you may "
    f"write: {', '.join(TEXT_EXTENSIONS)}. Binary files ({', '.join(BINARY_EXTENSIONS)}) "
    "are uploaded by the person: you cannot write or edit them, but you can rename, delete "
    "and reference them by path from HTML and CSS (write images you make as .svg text). "
    "Folders exist only through the files in them."
)

_LIST = (
    "List every file in the project with its size in bytes, and the project's limits. "
    "Call this first in a turn to see what exists before reading or changing anything."
)
_READ = (
    "Read a file's current content. Read a file before editing or replacing it: writes to a "
    "file are refused if it changed since you last read it. For a long file you may ask for "
    "a line range (start_line, end_line; numbered from 1); the result gives total_lines."
)
# Said to all three writers of text (chat.tools.placeholders holds the rule).
_NO_PLACEHOLDERS = (
    "Every line is saved as written: a write holding a line that stands for content left "
    "out (a comment or line such as '// ... rest of the code remains the same', "
    "'<!-- existing sections unchanged -->' or a lone '...') is refused."
)
_CREATE = (
    "Create a NEW file with its complete content. Fails if the path already exists (then use "
    "edit_file or update_file). Write the whole file in one call, never a placeholder or a "
    "part to be continued. " + _NO_PLACEHOLDERS + " " + PATH_RULES
)
_UPDATE = (
    "Replace the WHOLE content of an existing file. Use it to rewrite most of a file; for "
    "small changes prefer edit_file, which is cheaper and safer. The content must be the "
    "complete file, not a fragment. " + _NO_PLACEHOLDERS
)
_EDIT = (
    "Change part of an existing file with exact search/replace blocks, applied in order; "
    "either all apply or none do. Each search text must be copied exactly from the file as "
    "you last read it and must occur exactly once; include a few neighbouring lines to make "
    "it unique. On failure the result shows the closest text that does exist, or the lines "
    "where an ambiguous search text occurs. Prefer this tool for small changes. Each "
    "replacement is written as it is: put the real text in it. " + _NO_PLACEHOLDERS
)
_RENAME = (
    "Rename or move a file to a new path (the content is kept). Remember to update links to "
    "it in other files. " + PATH_RULES
)
_DELETE = "Delete a file. Only when the person asked for it or it is clearly no longer needed."
_SEARCH = (
    "Search all files for a line of plain text (not a regular expression); returns the "
    "matching lines with their paths and line numbers, at most 100."
)

FILE_TOOLS: tuple[Tool[Any], ...] = (
    Tool(
        "list_project_files",
        _LIST,
        files.ListArgs,
        files.list_project_files,
        writes=False,
        category="list",
        visibility="quiet",
        label="List files",
    ),
    Tool(
        "read_file",
        _READ,
        files.ReadArgs,
        files.read_file,
        writes=False,
        category="read",
        visibility="quiet",
        label="Read",
    ),
    Tool(
        "create_file",
        _CREATE,
        files.WriteArgs,
        files.create_file,
        writes=True,
        category="write",
        visibility="primary",
        label="Create",
    ),
    Tool(
        "update_file",
        _UPDATE,
        files.WriteArgs,
        files.update_file,
        writes=True,
        category="write",
        visibility="primary",
        label="Rewrite",
    ),
    Tool(
        "edit_file",
        _EDIT,
        files.EditArgs,
        files.edit_file,
        writes=True,
        category="write",
        visibility="primary",
        label="Edit",
    ),
    Tool(
        "rename_file",
        _RENAME,
        files.RenameArgs,
        files.rename_file,
        writes=True,
        category="move",
        visibility="primary",
        label="Rename",
    ),
    Tool(
        "delete_file",
        _DELETE,
        files.DeleteArgs,
        files.delete_file,
        writes=True,
        category="delete",
        visibility="primary",
        label="Delete",
    ),
    Tool(
        "search_files",
        _SEARCH,
        files.SearchArgs,
        files.search_files,
        writes=False,
        category="search",
        visibility="quiet",
        label="Search",
    ),
)


_CHECK = (
    "Check the whole site as a browser and a visitor would meet it: links and files that "
    "lead nowhere, markup browsers read differently from how it is written, CSS that does "
    "not parse, ids used twice, images without alt, pages without a title, a language or a "
    "viewport, text left from a template, anything that looks like a secret. It answers at "
    "once and runs beside your other calls; the findings (each with its file and line) "
    "come in your next round. Use it after a set of changes, before you tell the person "
    "you are done."
)

FILE_TOOLS += (
    Tool(
        "check_site",
        _CHECK,
        check_site.CheckArgs,
        check_site.check_site,
        writes=False,
        category="check",
        visibility="primary",
        label="Check the site",
    ),
)

_FILE_TOOLS = ToolRegistry(FILE_TOOLS)

# What a plan turn may do: look around and check the site, never change a file.
PLAN_CATEGORIES: frozenset[ToolCategory] = frozenset({"list", "read", "search", "check"})
# Kept, as the full set is: a registry builds its schemas once.
_PLAN_TOOLS = _FILE_TOOLS.only(PLAN_CATEGORIES)


def file_tools() -> ToolRegistry:
    return _FILE_TOOLS


def plan_tools(tools: ToolRegistry) -> ToolRegistry:
    """The part of `tools` a plan turn is given."""
    return _PLAN_TOOLS if tools is _FILE_TOOLS else tools.only(PLAN_CATEGORIES)


def tool_label(name: str) -> str:
    """A tool's name as a person reads it (a name no tool has, as it is)."""
    tool = _FILE_TOOLS.get(name)
    return tool.label if tool is not None and tool.label else name


def tool_category(name: str) -> ToolCategory:
    tool = _FILE_TOOLS.get(name)
    return tool.category if tool is not None else "other"


def tool_visibility(name: str) -> Visibility:
    """Whether a call to `name` is a step of its own in the chat. A name no tool
    has is: the call fails, and a failure is worth seeing."""
    tool = _FILE_TOOLS.get(name)
    return tool.visibility if tool is not None else "primary"
