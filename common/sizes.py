"""Sizes as people read them, in one format everywhere: the settings are in
bytes and the guide speaks in KiB and MiB, so messages do too."""

from __future__ import annotations

KIB = 1024
MIB = 1024 * KIB


def human_size(size: int) -> str:
    """`size` bytes as "512 bytes", "1.5 KiB" or "20 MiB" (no ".0")."""
    if size < KIB:
        return f"{size} byte{'' if size == 1 else 's'}"
    if size < MIB:
        return f"{size / KIB:.1f} KiB".replace(".0 ", " ")
    return f"{size / MIB:.1f} MiB".replace(".0 ", " ")
