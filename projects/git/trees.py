"""A project's files at a point as Git sees them: a blob for each file's bytes
(a binary file's from its stored blob) and a tree for each folder, rebuilt only
where something changed, so walking two hundred steps costs what they changed.

Every file is a plain file (mode 100644), its path the project's without the
leading slash; the same files always make the same trees, so the same history
always makes the same commits."""

from __future__ import annotations

from collections.abc import Callable

from dulwich.objects import Blob, ObjectID, ShaFile, Tree

FILE_MODE = 0o100644
TREE_MODE = 0o040000


class TreeState:
    def __init__(self) -> None:
        # folder ("" for the top, "css", "css/parts") -> name -> (mode, sha)
        self._folders: dict[str, dict[bytes, tuple[int, bytes]]] = {"": {}}
        self._changed: set[str] = set()
        self._root: bytes | None = None
        self.files: dict[str, bytes] = {}  # project path -> blob sha

    def put(self, path: str, sha: bytes) -> None:
        folder, name = _split(path)
        self._ensure(folder)[name] = (FILE_MODE, sha)
        self.files[path] = sha
        self._touch(folder)

    def remove(self, path: str) -> None:
        folder, name = _split(path)
        entries = self._folders.get(folder)
        if entries is not None and entries.pop(name, None) is not None:
            self._touch(folder)
        self.files.pop(path, None)

    def root(self, add: Callable[[ShaFile], None]) -> bytes:
        """The top tree's sha; each tree made anew is given to `add`."""
        if self._root is not None and not self._changed:
            return self._root
        for folder in sorted(self._changed, key=lambda name: -name.count("/") - bool(name)):
            entries = self._folders.get(folder)
            if entries is None:
                continue
            parent, name = _split("/" + folder) if folder else ("", b"")
            if not entries and folder:
                del self._folders[folder]
                self._folders.get(parent, {}).pop(name, None)
                continue
            tree = Tree()
            for entry_name, (mode, sha) in entries.items():
                tree.add(entry_name, mode, ObjectID(sha))
            add(tree)
            if folder:
                self._folders[parent][name] = (TREE_MODE, tree.id)
            else:
                self._root = tree.id
        self._changed.clear()
        assert self._root is not None
        return self._root

    def _ensure(self, folder: str) -> dict[bytes, tuple[int, bytes]]:
        entries = self._folders.get(folder)
        if entries is None:
            entries = self._folders[folder] = {}
            if folder:
                self._ensure(folder.rpartition("/")[0])
        return entries

    def _touch(self, folder: str) -> None:
        while True:
            self._changed.add(folder)
            if not folder:
                return
            folder = folder.rpartition("/")[0]


def _split(path: str) -> tuple[str, bytes]:
    folder, _, name = path.lstrip("/").rpartition("/")
    return folder, name.encode("utf-8")


def blob_of(data: bytes) -> Blob:
    return Blob.from_string(data)
