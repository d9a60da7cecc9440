"""The eight file tools (DESIGN §5): thin handlers over the projects file service.

They never touch the ORM: reads go through `projects.selectors`, writes through
`projects.services`, and every `FileError` becomes an error result carrying
the context that helps the model recover. The writes of text refuse a line
standing for content left out (chat.tools.placeholders), and every write
leaves the owner's instructions alone unless the person asked to remember
something (chat.tools.instructions).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any

from pydantic import Field

from chat.tools.instructions import instructions_refusal
from chat.tools.placeholders import no_placeholder_check
from chat.tools.registry import Arguments, ToolContext, ToolOutcome
from common.jsontypes import JSONObject, JSONValue
from common.sizes import human_size
from projects import selectors, services
from projects.files.limits import current_limits
from projects.files.paths import PathError, normalize_path
from projects.files.results import BinaryInfo, ErrorCode, FileError, FileInfo, FileWrite

_PATH = Field(description="File path from the project root, e.g. /index.html.")

# A file service write that takes `expected_version` (update, edit, rename, delete).
_Write = Callable[..., FileWrite | FileError]


class ListArgs(Arguments):
    pass


class ReadArgs(Arguments):
    path: str = _PATH
    start_line: int | None = Field(
        default=None, ge=1, description="First line to return (from 1). Omit to read all."
    )
    end_line: int | None = Field(
        default=None, ge=1, description="Last line to return, inclusive. Omit for the end."
    )


class WriteArgs(Arguments):
    path: str = _PATH
    content: str = Field(description="The complete content of the file.")


class EditBlock(Arguments):
    search: str = Field(
        min_length=1,
        description="Text copied exactly from the file (with its indentation); "
        "it must occur exactly once. Include a few surrounding lines to make it unique.",
    )
    replace: str = Field(description="The text to put in its place; empty to delete it.")


class EditArgs(Arguments):
    path: str = _PATH
    edits: list[EditBlock] = Field(
        min_length=1,
        max_length=50,
        description="Search/replace blocks applied in order; all apply or none do.",
    )


class RenameArgs(Arguments):
    path: str = Field(description="The file's current path.")
    new_path: str = Field(description="The new path (may move it to another folder).")


class DeleteArgs(Arguments):
    path: str = _PATH


class SearchArgs(Arguments):
    query: str = Field(min_length=1, max_length=500, description="Plain text to find (one line).")
    case_sensitive: bool = Field(default=False, description="Match letter case exactly.")


def list_project_files(args: ListArgs, context: ToolContext) -> ToolOutcome:
    files = selectors.file_list(context.project)
    limits = current_limits()
    total = sum(info.size for info in files)
    return ToolOutcome(
        True,
        {
            "success": True,
            "files": [_listed(info) for info in files],
            "count": len(files),
            "total_size": total,
            "limits": {
                "max_files": limits.max_files,
                "max_file_bytes": limits.max_file_bytes,
                "max_project_bytes": limits.max_project_bytes,
            },
        },
        f"Listed {_count(len(files), 'file')} ({human_size(total)})",
    )


def read_file(args: ReadArgs, context: ToolContext) -> ToolOutcome:
    read = selectors.file_read(
        context.project, args.path, start_line=args.start_line, end_line=args.end_line
    )
    if isinstance(read, FileError):
        return _failure(read)
    if read.binary is not None:
        return _binary_read(read.path, read.binary)
    whole = read.start_line <= 1 and read.end_line >= read.total_lines
    shown = "" if whole else f", lines {read.start_line}-{read.end_line}"
    return ToolOutcome(
        True,
        {
            "success": True,
            "path": read.path,
            "content": read.content,
            "total_lines": read.total_lines,
            "start_line": read.start_line,
            "end_line": read.end_line,
            "size": read.size,
        },
        f"Read {read.path} ({_count(read.total_lines, 'line')}{shown})",
        path=read.path,
        seen={read.path: read.version},
    )


def create_file(args: WriteArgs, context: ToolContext) -> ToolOutcome:
    if refused := instructions_refusal(context, args.path):
        return refused
    written = services.file_create(
        project=context.project,
        path=args.path,
        content=args.content,
        author=context.author,
        check=no_placeholder_check(tool="create_file"),
    )
    if isinstance(written, FileError) and written.code == ErrorCode.ALREADY_EXISTS:
        return _same_as_written(context, written, args.content) or _failure(written)
    return _written(written, "Created {path} ({size})")


def update_file(args: WriteArgs, context: ToolContext) -> ToolOutcome:
    if refused := instructions_refusal(context, args.path):
        return refused
    written = _guarded(
        context,
        args.path,
        services.file_update,
        content=args.content,
        check=no_placeholder_check(tool="update_file"),
    )
    return _content_written(written, "Replaced {path} ({size})")


def edit_file(args: EditArgs, context: ToolContext) -> ToolOutcome:
    if refused := instructions_refusal(context, args.path):
        return refused
    edits = [services.Edit(block.search, block.replace) for block in args.edits]
    # The file as the edits leave it is judged, not the replacement texts: a
    # placeholder the file already shows may be moved or kept, but not added.
    written = _guarded(
        context,
        args.path,
        services.file_edit,
        edits=edits,
        check=no_placeholder_check(tool="edit_file"),
    )
    return _content_written(written, f"Edited {{path}} ({_count(len(edits), 'change')})")


def rename_file(args: RenameArgs, context: ToolContext) -> ToolOutcome:
    if refused := instructions_refusal(context, args.path, args.new_path):
        return refused
    written = _guarded(context, args.path, services.file_rename, new_path=args.new_path)
    return _written(written, "Renamed {old_path} to {path}")


def delete_file(args: DeleteArgs, context: ToolContext) -> ToolOutcome:
    if refused := instructions_refusal(context, args.path):
        return refused
    written = _guarded(context, args.path, services.file_delete)
    return _written(written, "Deleted {path}")


def search_files(args: SearchArgs, context: ToolContext) -> ToolOutcome:
    found = selectors.file_search(context.project, args.query, case_sensitive=args.case_sensitive)
    if isinstance(found, FileError):
        return _failure(found)
    files = len({match.path for match in found.matches})
    summary = f"Found {_count(found.total_matches, 'match', 'matches')}"
    if found.truncated:  # the files of the matches not shown are unknown
        summary += f" (showing {len(found.matches)})"
    elif found.total_matches:
        summary += f" in {_count(files, 'file')}"
    return ToolOutcome(
        True,
        {
            "success": True,
            "query": found.query,
            "matches": [
                {"path": match.path, "line": match.line, "text": match.text}
                for match in found.matches
            ],
            "total_matches": found.total_matches,
            "files_searched": found.files_searched,
            "truncated": found.truncated,
        },
        summary,
    )


# --- helpers ---------------------------------------------------------------


def _guarded(
    context: ToolContext, path: str, write: _Write, **fields: Any
) -> FileWrite | FileError:
    """Run a write that must start from the version the model knows.

    A file the model has not read in this turn must be as it was when the turn
    began; one it has read must be as it read it. Anything else was changed by
    someone else meanwhile, and writing would overwrite their work unseen."""
    canonical = normalize_path(path)
    if isinstance(canonical, PathError):
        return selectors.path_error(canonical)
    # 0 matches no version: a file that appeared during the turn was never seen.
    result = write(
        project=context.project,
        path=path,
        author=context.author,
        expected_version=context.known_versions.get(canonical, 0),
        **fields,
    )
    if isinstance(result, FileError) and result.code == ErrorCode.CONFLICT:
        return FileError(
            ErrorCode.CONFLICT,
            f"{canonical} changed since you read it (someone else edited it during this turn). "
            "Read it again with read_file, then make your change to the new content.",
            path=canonical,
            shown=f"Not changed: someone else changed {canonical} during this turn.",
            current_version=result.current_version,
        )
    return result


def _content_written(result: FileWrite | FileError, template: str) -> ToolOutcome:
    """An update or edit; one that leaves the file as it was is a success saying so."""
    if isinstance(result, FileError) and _unchanged_file(result):
        return _unchanged(result.path or "", result.current_version)
    return _written(result, template)


def _written(result: FileWrite | FileError, template: str) -> ToolOutcome:
    if isinstance(result, FileError):
        return _failure(result)
    payload: JSONObject = {
        "success": True,
        "path": result.path,
        "action": str(result.action),
        "size": result.size,
    }
    seen: dict[str, int | None] = {result.path: result.version}
    changed = [result.path]
    if result.old_path:
        payload["old_path"] = result.old_path
        seen[result.old_path] = None
        changed.insert(0, result.old_path)
    summary = template.format(
        path=result.path, old_path=result.old_path, size=human_size(result.size)
    )
    return ToolOutcome(True, payload, summary, result.path, tuple(changed), seen)


def _unchanged_file(error: FileError) -> bool:
    # The whole file came out as it was. One edit block whose search and
    # replacement are the same (it has an `edit_index`) is a slip to point out.
    return error.code == ErrorCode.NO_CHANGE and error.edit_index is None and bool(error.path)


def _same_as_written(context: ToolContext, error: FileError, content: str) -> ToolOutcome | None:
    """Creating a file that already holds exactly `content` changes nothing: a
    success that says so, not a failed step (the demo and models rewrite whole
    sites). Any other existing file is a refusal."""
    if error.path is None or error.suggestion is not None:  # a clash, not the same path
        return None
    there = selectors.file_read(context.project, error.path)
    if isinstance(there, FileError) or there.binary is not None or there.content != content:
        return None
    return _unchanged(there.path, there.version)


def _unchanged(path: str, version: int | None) -> ToolOutcome:
    """A write whose content the file already had: nothing changed, and the
    model is told so plainly (its text is what the file holds)."""
    return ToolOutcome(
        True,
        {
            "success": True,
            "path": path,
            "unchanged": True,
            "note": f"{path} already had exactly this content, so nothing was changed.",
        },
        "Unchanged: it already had this content",
        path=path,
        seen={path: version} if version is not None else {},
    )


def _listed(info: FileInfo) -> JSONObject:
    entry: JSONObject = {"path": info.path, "size": info.size}
    if info.binary is not None:
        entry["type"] = info.binary.content_type
        if info.binary.width and info.binary.height:
            entry["width"], entry["height"] = info.binary.width, info.binary.height
    return entry


def _binary_read(path: str, binary: BinaryInfo) -> ToolOutcome:
    """A binary file is described, never returned as bytes."""
    result: JSONObject = {
        "success": True,
        "path": path,
        "binary": True,
        "type": binary.content_type,
        "size": binary.size,
        "note": "A binary file: it has no text to read. Reference it by its path from HTML "
        'or CSS (e.g. <img src="' + path.lstrip("/") + '" alt="…">).',
    }
    if binary.width and binary.height:
        result["width"], result["height"] = binary.width, binary.height
    return ToolOutcome(True, result, f"{path} is a binary file ({binary.describe()})", path=path)


def _failure(error: FileError) -> ToolOutcome:
    context: dict[str, JSONValue] = {"code": str(error.code)}
    for item in fields(error):
        if item.name in ("code", "message", "shown"):
            continue
        value = getattr(error, item.name)
        context[item.name] = list(value) if isinstance(value, tuple) else value
    return ToolOutcome.failure(error.message, summary=error.for_people, context=context)


def _count(number: int, singular: str, plural: str | None = None) -> str:
    return f"{number} {singular if number == 1 else (plural or singular + 's')}"
