"""What a pushed commit's files are, checked as an upload or import checks
them before anything is written: each path by the project's path rules (never
repaired), text as UTF-8, binary files by their bytes; what cannot be kept is
named with the reason."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from dulwich.objects import Blob, ShaFile, Tree

from common.sizes import human_size
from projects.files.binaries import Sniffed
from projects.files.limits import current_limits
from projects.files.paths import PathError, is_binary_path, normalize_path
from projects.files.results import FileError
from projects.write_checks import upload_checked

_SYMLINK = 0o120000
_SUBMODULE = 0o160000
_TREE = 0o040000
MAX_DEPTH = 16  # folders deep a pushed tree is read (the path rules allow 8)


@dataclass(frozen=True)
class Binary:
    data: bytes
    sniffed: Sniffed


@dataclass
class PushedFiles:
    files: dict[str, str | Binary] = field(default_factory=dict)  # by project path
    problems: list[str] = field(default_factory=list)  # "name: why"
    whole: str = ""  # why none of them can be kept (too many, too large)


Getter = Callable[[bytes], ShaFile]


def pushed_files(get: Getter, tree_id: bytes) -> PushedFiles:
    """The files of tree `tree_id`, and what is wrong with the others (a push is
    refused for any; an import keeps the rest)."""
    found = PushedFiles()
    entries = _entries(get, tree_id, "", found, depth=0)
    limits = current_limits()
    if len(entries) > limits.max_files:
        found.whole = (
            f"The commit holds {len(entries)} files; a project may hold at most {limits.max_files}."
        )
        found.problems.append(found.whole)
        return found
    total = 0
    for name, mode, sha in entries:
        total += _file(get, name, mode, sha, found)
        if total > limits.max_project_bytes:
            found.whole = (
                f"The commit's files are larger than {human_size(limits.max_project_bytes)}, "
                "the most a project may hold."
            )
            found.problems.append(found.whole)
            return found
    return found


def _entries(
    get: Getter, tree_id: bytes, prefix: str, found: PushedFiles, *, depth: int
) -> list[tuple[str, int, bytes]]:
    tree = get(tree_id)
    if not isinstance(tree, Tree):
        found.problems.append(f"{prefix or '/'}: not a folder.")
        return []
    entries: list[tuple[str, int, bytes]] = []
    for entry in tree.iteritems():
        name = prefix + entry.path.decode("utf-8", "replace")
        if entry.mode == _TREE:
            if depth >= MAX_DEPTH:
                found.problems.append(f"{name}/: folders nested too deep.")
            else:
                entries += _entries(get, entry.sha, name + "/", found, depth=depth + 1)
        elif entry.mode == _SYMLINK:
            found.problems.append(f"{name}: symbolic links are not kept; commit the file itself.")
        elif entry.mode == _SUBMODULE:
            found.problems.append(f"{name}: submodules are not kept; commit its files instead.")
        else:
            entries.append((name, entry.mode, entry.sha))
    return entries


def _file(get: Getter, name: str, mode: int, sha: bytes, found: PushedFiles) -> int:
    """Add the file `name` to `found` (or its problem); the bytes it holds."""
    path = normalize_path(name)
    if isinstance(path, PathError) or path != "/" + name:
        why = path.message if isinstance(path, PathError) else "a name Built-It would change"
        found.problems.append(f"{name}: {why.split(': ', 1)[-1]}")
        return 0
    blob = get(sha)
    if not isinstance(blob, Blob):
        found.problems.append(f"{name}: not a file.")
        return 0
    data = blob.as_raw_string()
    if is_binary_path(path):
        checked = upload_checked(path, data)
        if isinstance(checked, FileError):
            found.problems.append(_named(name, path, checked.message))
        else:
            found.files[path] = Binary(data, checked[1])
        return len(data)
    try:
        found.files[path] = data.decode("utf-8")
    except UnicodeDecodeError:
        found.problems.append(f"{name}: not UTF-8 text.")
    return len(data)


def _named(name: str, path: str, message: str) -> str:
    message = message.replace(path, name)
    return message if message.startswith(name) else f"{name}: {message}"
