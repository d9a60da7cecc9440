"""Sizes as people read them."""

from __future__ import annotations

import pytest

from common.sizes import KIB, MIB, human_size


@pytest.mark.parametrize(
    ("size", "said"),
    [
        (0, "0 bytes"),
        (1, "1 byte"),
        (2, "2 bytes"),
        (KIB - 1, "1023 bytes"),
        (KIB, "1 KiB"),
        (KIB + KIB // 2, "1.5 KiB"),
        (512 * KIB, "512 KiB"),
        (MIB, "1 MiB"),
        (10 * MIB + 512 * KIB, "10.5 MiB"),
        (20 * MIB, "20 MiB"),
    ],
)
def test_sizes_read_in_bytes_kib_or_mib_without_a_trailing_zero(size: int, said: str) -> None:
    assert human_size(size) == said
