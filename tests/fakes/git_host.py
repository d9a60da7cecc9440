"""A Git host on 127.0.0.1 for tests of a project's remote: dulwich's own
smart-HTTP server over bare repositories in a folder, in a thread. It takes
any token (a real host checks it; here the path is what matters)."""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from wsgiref.simple_server import make_server

from dulwich.server import BackendRepo, FileSystemBackend
from dulwich.web import WSGIRequestHandlerLogger, WSGIServerLogger, make_wsgi_chain


@dataclass(frozen=True)
class GitHost:
    root: Path
    port: int

    def repository(self, name: str) -> str:
        """A new empty bare repository `name`; its address."""
        subprocess.run(  # noqa: S603
            ["git", "init", "--bare", "-q", "-b", "main", str(self.root / name)],  # noqa: S607
            check=True,
        )
        return self.url(name)

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.port}/{name}"


class _Folder(FileSystemBackend):
    """Repositories by their path under the folder (the URL's path is absolute)."""

    def open_repository(self, path: str | bytes) -> BackendRepo:
        name = os.fsdecode(path).lstrip("/")
        return super().open_repository(name)


@contextmanager
def git_host(root: Path) -> Iterator[GitHost]:
    app = make_wsgi_chain(_Folder(str(root)))
    server = make_server(
        "127.0.0.1",
        0,
        app,
        server_class=WSGIServerLogger,
        handler_class=WSGIRequestHandlerLogger,
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield GitHost(root, server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()
