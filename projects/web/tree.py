"""Turn a flat list of canonical paths into nested folders for the file tree."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from projects.files.results import FileInfo


@dataclass
class Folder:
    name: str
    path: str
    folders: list[Folder] = field(default_factory=list)
    files: list[FileInfo] = field(default_factory=list)


def build_tree(files: Iterable[FileInfo]) -> Folder:
    root = Folder(name="", path="/")
    index: dict[str, Folder] = {"/": root}
    for info in sorted(files, key=lambda f: f.path.lower()):
        parent = root
        parts = info.path.strip("/").split("/")
        for depth in range(len(parts) - 1):
            folder_path = "/" + "/".join(parts[: depth + 1])
            folder = index.get(folder_path)
            if folder is None:
                folder = Folder(name=parts[depth], path=folder_path)
                index[folder_path] = folder
                parent.folders.append(folder)
            parent = folder
        parent.files.append(info)
    _sort(root)
    return root


def _sort(folder: Folder) -> None:
    folder.folders.sort(key=lambda f: f.name.lower())
    for child in folder.folders:
        _sort(child)
