"""A binary file's type from its first bytes: cheap, so a file named like one type
and holding another is refused before anything decodes it."""

from __future__ import annotations

_SIGNATURES = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"\x00\x00\x01\x00", "image/x-icon"),
    (b"wOFF", "font/woff"),
    (b"wOF2", "font/woff2"),
    (b"\x00\x01\x00\x00", "font/ttf"),
    (b"true", "font/ttf"),
    (b"OTTO", "font/otf"),
    (b"%PDF-", "application/pdf"),
    (b"\x1a\x45\xdf\xa3", "video/webm"),
)
# HEIF brands whose files may be AVIF (the compatible brands then say so).
_HEIF_BRANDS = (b"mif1", b"msf1")
_AVIF_BRANDS = (b"avif", b"avis")


def sniff(data: bytes) -> str | None:
    """The type `data`'s signature says, or None for none Built-It keeps."""
    if data.startswith(b"RIFF") and data[8:12] == b"WEBP":
        return "image/webp"
    if data[4:8] == b"ftyp":
        return "image/avif" if _is_avif(data) else "video/mp4"
    for signature, content_type in _SIGNATURES:
        if data.startswith(signature):
            return content_type
    return None


def _is_avif(data: bytes) -> bool:
    major = data[8:12]
    if major in _AVIF_BRANDS:
        return True
    if major not in _HEIF_BRANDS:
        return False
    size = int.from_bytes(data[:4], "big")
    compatible = data[16 : min(size, 64)]
    return any(compatible[at : at + 4] in _AVIF_BRANDS for at in range(0, len(compatible), 4))
