"""A file's bytes answered as a static host answers them: an ETag from the
content and 304 when the browser has it, single byte ranges (video and audio
players ask for them), gzip when the browser takes it. The preview's binary
files and every file of a published site go through here."""

from __future__ import annotations

import re

from django.http import HttpRequest, HttpResponse, HttpResponseNotModified

# 18 digits: past that a number is no file's size (and int() of thousands of
# digits raises).
_RANGE = re.compile(r"bytes=(\d{0,18})-(\d{0,18})")


def content_response(
    request: HttpRequest,
    data: bytes,
    content_type: str,
    digest: str,
    *,
    gzipped: bytes | None = None,
) -> HttpResponse:
    """`data` with its type and an ETag of `digest`; `gzipped`, when given, is
    `data` compressed, sent to a browser that accepts it."""
    packed = gzipped is not None and _accepts_gzip(request)
    # The gzipped body is another representation: its own validator.
    etag = f'"{digest}-gz"' if packed else f'"{digest}"'
    asked = _etags(request.headers.get("If-None-Match", ""))
    if etag in asked or "*" in asked:
        unchanged = HttpResponseNotModified()
        unchanged["ETag"] = etag
        if gzipped is not None:
            unchanged["Vary"] = "Accept-Encoding"
        return unchanged
    wanted = _RANGE.fullmatch(request.headers.get("Range", "").strip())
    if_range = request.headers.get("If-Range")
    if wanted and (wanted.group(1) or wanted.group(2)) and if_range in {None, f'"{digest}"'}:
        first, last = _span(wanted.group(1), wanted.group(2), len(data))
        if first >= len(data) or last < 0:
            response = HttpResponse(status=416)
            response["Content-Range"] = f"bytes */{len(data)}"
            return response
        if first <= last:
            response = HttpResponse(data[first : last + 1], status=206, content_type=content_type)
            response["Content-Range"] = f"bytes {first}-{last}/{len(data)}"
            response["ETag"] = f'"{digest}"'
            response["Accept-Ranges"] = "bytes"
            return response
    if packed and gzipped is not None:
        response = HttpResponse(gzipped, content_type=content_type)
        response["Content-Encoding"] = "gzip"
    else:
        response = HttpResponse(data, content_type=content_type)
    response["ETag"] = etag
    response["Accept-Ranges"] = "bytes"
    if gzipped is not None:
        response["Vary"] = "Accept-Encoding"
    return response


def _accepts_gzip(request: HttpRequest) -> bool:
    for part in request.headers.get("Accept-Encoding", "").lower().split(","):
        coding, _, quality = part.strip().partition(";")
        if coding.strip() in {"gzip", "*"}:
            return quality.replace(" ", "") not in {"q=0", "q=0.0", "q=0.00", "q=0.000"}
    return False


def _etags(header: str) -> set[str]:
    tags = {tag.strip() for tag in header.split(",")}
    return tags | {tag[2:] for tag in tags if tag.startswith("W/")}


def _span(start: str, end: str, size: int) -> tuple[int, int]:
    """The first and last byte of a `bytes=start-end` range: first past the end,
    or last below 0, cannot be served (416); first > last is no range at all
    (ignored, as the standard says: the whole file)."""
    if not start:  # the last `end` bytes
        count = int(end)
        return (max(size - count, 0), size - 1) if count else (size, -1)
    first = int(start)
    if end and int(end) < first:
        return first, first - 1
    return first, min(int(end), size - 1) if end else size - 1
