"""A pushed pack is bounded by what it would unpack to, read from its own
entries before dulwich holds any of them whole."""

from __future__ import annotations

from io import BytesIO

from dulwich.object_format import SHA1
from dulwich.objects import Blob
from dulwich.pack import write_pack_objects

from projects.git.packs import MAX_OBJECTS, pack_problem


def _pack(*blobs: bytes) -> bytes:
    out = BytesIO()
    write_pack_objects(out, [(Blob.from_string(data), None) for data in blobs], SHA1)
    return out.getvalue()


def test_a_pack_that_unpacks_past_the_bound_is_refused() -> None:
    bomb = _pack(b"\0" * 2_000_000)  # a few KB on the wire
    assert len(bomb) < 10_000
    problem = pack_problem(bomb, limit=1_000_000)
    assert problem is not None
    assert "unpack to more than" in problem


def test_a_pack_within_the_bound_passes() -> None:
    assert pack_problem(_pack(b"<p>Home</p>\n", b"p{}\n"), limit=1_000_000) is None


def test_a_pack_declaring_too_many_objects_is_refused() -> None:
    header = b"PACK" + (2).to_bytes(4, "big") + (MAX_OBJECTS + 1).to_bytes(4, "big")
    problem = pack_problem(header, limit=1_000_000)
    assert problem is not None
    assert "objects" in problem
