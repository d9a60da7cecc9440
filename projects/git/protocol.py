"""Git's smart HTTP protocol over a project's repository, with dulwich's own
handlers: refs advertised, a pack sent for a clone or fetch (upload-pack), a
pack received for a push (receive-pack, whose ref updates projects.git.push
decides). Everything is in memory and bounded by the request's body limit and
the project's size; nothing touches a disk."""

from __future__ import annotations

from collections.abc import Callable
from io import BytesIO
from typing import Any, cast

from dulwich.protocol import ReceivableProtocol
from dulwich.refs import DictRefsContainer, Ref
from dulwich.repo import MemoryRepo
from dulwich.server import Backend, BackendRepo, Handler, UploadPackHandler

from projects.git.repository import MAIN, Opened

UPLOAD = "git-upload-pack"
RECEIVE = "git-receive-pack"
SERVICES = (UPLOAD, RECEIVE)


class _OneRepository(Backend):
    def __init__(self, repo: MemoryRepo) -> None:
        self._repo = repo

    def open_repository(self, path: str) -> BackendRepo:
        return cast(BackendRepo, self._repo)


def served(opened: Opened) -> MemoryRepo:
    """The repository as dulwich's handlers read it: HEAD names main."""
    repo = MemoryRepo()
    repo.object_store = opened.repository.store
    refs = DictRefsContainer({Ref(name): sha for name, sha in opened.refs.items()})
    refs.set_symbolic_ref(Ref(b"HEAD"), Ref(MAIN))
    repo.refs = refs
    return repo


HandlerFactory = Callable[..., Handler]


def advertisement(repo: MemoryRepo, service: str, handler: HandlerFactory) -> bytes:
    """The answer to `info/refs?service=…`: the refs and what the server can do."""
    out = BytesIO()
    proto = ReceivableProtocol(BytesIO().read, _writer(out))
    proto.write_pkt_line(b"# service=" + service.encode("ascii") + b"\n")
    proto.write_pkt_line(None)
    handler(_OneRepository(repo), ["/"], proto, stateless_rpc=True, advertise_refs=True).handle()
    return out.getvalue()


def exchange(
    repo: MemoryRepo, read: Callable[[int], bytes], handler: HandlerFactory, **extra: Any
) -> bytes:
    """The answer to one request of `handler`'s service, reading its body with `read`."""
    out = BytesIO()
    proto = ReceivableProtocol(read, _writer(out))
    handler(_OneRepository(repo), ["/"], proto, stateless_rpc=True, **extra).handle()
    return out.getvalue()


def upload_handler(*args: Any, **kwargs: Any) -> Handler:
    return UploadPackHandler(*args, **kwargs)


def _writer(out: BytesIO) -> Callable[[bytes], int]:
    def write(data: bytes) -> int:
        return out.write(data)

    return write
