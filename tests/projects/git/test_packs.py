"""A pushed pack is bounded by what it would unpack to, read from its own
entries before dulwich holds any of them whole."""

from __future__ import annotations

import hashlib
import zlib
from io import BytesIO

from dulwich.object_format import SHA1
from dulwich.object_store import MemoryObjectStore
from dulwich.objects import Blob
from dulwich.pack import PackData, write_pack_objects

from projects.git.packs import MAX_OBJECTS, pack_problem

_BIG = 1 << 40  # a bound a test does not mean to reach


def _pack(*blobs: bytes, deltify: bool = False) -> bytes:
    out = BytesIO()
    objects = [(Blob.from_string(data), None) for data in blobs]
    write_pack_objects(out, objects, SHA1, deltify=deltify)
    return out.getvalue()


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _entry(kind: int, data: bytes, between: bytes = b"") -> bytes:
    size = len(data)
    head = bytearray([(kind << 4) | (size & 0x0F) | (0x80 if size >> 4 else 0)])
    size >>= 4
    while size:
        head.append((size & 0x7F) | (0x80 if size >> 7 else 0))
        size >>= 7
    return bytes(head) + between + zlib.compress(data, 9)


def _delta_pack(base: bytes, copies: int) -> bytes:
    """A pack of `base` and a REF_DELTA on it that copies all 64 KiB of it
    `copies` times: one instruction byte (0x80: offset 0, size 0 meaning 0x10000)
    per copy."""
    assert len(base) == 0x10000
    delta = _varint(len(base)) + _varint(copies * len(base)) + b"\x80" * copies
    body = (
        b"PACK"
        + (2).to_bytes(4, "big")
        + (2).to_bytes(4, "big")
        + _entry(3, base)
        + _entry(7, delta, _sha(base))
    )
    return body + hashlib.sha1(body, usedforsecurity=False).digest()  # the pack's checksum


def _sha(blob: bytes) -> bytes:
    return bytes.fromhex(Blob.from_string(blob).id.decode())


def _sizes(pack: bytes) -> list[int]:
    """The size of each object the pack resolves to, as dulwich builds them."""
    store = MemoryObjectStore()
    out, commit, _abort = store.add_pack()
    out.write(pack)
    commit()
    return sorted(len(store[sha].as_raw_string()) for sha in store)


def _kinds(pack: bytes) -> set[int]:
    """The entry types the pack holds, deltas unresolved."""
    with PackData.from_file(BytesIO(pack), SHA1, size=len(pack)) as data:
        return {unpacked.pack_type_num for unpacked in data.iter_unpacked()}


def test_a_pack_that_unpacks_past_the_bound_is_refused() -> None:
    bomb = _pack(b"\0" * 2_000_000)  # a few KB on the wire
    assert len(bomb) < 10_000
    problem = pack_problem(bomb, limit=1_000_000, object_limit=_BIG)
    assert problem is not None
    assert "unpack to more than" in problem


def test_a_delta_that_builds_past_the_bound_is_refused() -> None:
    # 80 copies of 64 KiB: a 5 MiB object from a delta whose own size is 83 bytes.
    bomb = _delta_pack(b"a" * 0x10000, copies=80)
    assert len(bomb) < 1_000
    problem = pack_problem(bomb, limit=1_000_000, object_limit=_BIG)
    assert problem is not None
    assert "unpack to more than" in problem


def test_one_object_past_its_bound_is_refused() -> None:
    problem = pack_problem(_delta_pack(b"a" * 0x10000, copies=80), limit=_BIG, object_limit=1 << 21)
    assert problem is not None
    assert "one object of the push would unpack to more than 2 MiB" in problem
    problem = pack_problem(_pack(b"\0" * 3_000_000), limit=_BIG, object_limit=1 << 21)
    assert problem is not None
    assert "one object" in problem


def test_a_small_hand_built_delta_passes_and_is_what_dulwich_builds() -> None:
    pack = _delta_pack(b"a" * 0x10000, copies=3)
    assert _kinds(pack) == {3, 7}
    assert _sizes(pack) == [0x10000, 3 * 0x10000]  # the delta resolved
    assert pack_problem(pack, limit=4 * 0x10000 + 100, object_limit=_BIG) is None
    # Counting what the delta builds is what refuses it one byte under that.
    assert pack_problem(pack, limit=4 * 0x10000 - 1, object_limit=_BIG) is not None


def test_a_pack_of_an_edited_file_with_deltas_passes() -> None:
    page = b"".join(b"<p>Paragraph %d of the page.</p>\n" % n for n in range(400))
    versions = [page + b"<p>Edit %d</p>\n" % n for n in range(4)]
    pack = _pack(*versions, deltify=True)
    assert {6, 7} & _kinds(pack)  # it does hold deltas
    assert pack_problem(pack, limit=1_000_000, object_limit=100_000) is None


def test_a_pack_within_the_bound_passes() -> None:
    assert (
        pack_problem(_pack(b"<p>Home</p>\n", b"p{}\n"), limit=1_000_000, object_limit=_BIG) is None
    )


def test_a_pack_declaring_too_many_objects_is_refused() -> None:
    header = b"PACK" + (2).to_bytes(4, "big") + (MAX_OBJECTS + 1).to_bytes(4, "big")
    problem = pack_problem(header, limit=1_000_000, object_limit=_BIG)
    assert problem is not None
    assert "objects" in problem
