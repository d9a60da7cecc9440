"""What the server answers, itself, to a request it ends before Django sees it
(builtit.server.bodylimit): a whole HTTP response, written to the connection, which
then closes. Each says that nothing was saved and what to do."""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse
from django.utils.html import escape

from common.sizes import human_size


def too_large(limit: int) -> bytes:
    return _answer(
        "413 Content Too Large",
        "Request too large",
        f"This address accepts at most {_size(limit)}. Nothing was saved. Send something smaller.",
    )


def sign_in_first(limit: int) -> bytes:
    """A body past what a visitor who is not signed in may send (an ended session too)."""
    return _answer(
        "413 Content Too Large",
        "Sign in to send this",
        f"Without a signed-in session this address accepts at most {_size(limit)}: "
        "you are not signed in, or your session has ended. Nothing was saved. "
        "Sign in, then send it again.",
        link=(reverse(settings.LOGIN_URL), "Sign in"),
    )


def too_slow(timeout: float, rate: int) -> bytes:
    return _answer(
        "408 Request Timeout",
        "Request too slow",
        f"The request stopped arriving (less than {rate} bytes a second over "
        f"{timeout:g} seconds), so it was ended. Nothing was saved. "
        "Check the connection and send it again.",
    )


def check_failed() -> bytes:
    """The sign-in could not be checked (the database did not answer)."""
    return _answer(
        "503 Service Unavailable",
        "Try again in a moment",
        "The server could not check your sign-in just now. Nothing was saved. "
        "Send it again in a moment.",
    )


def _size(limit: int) -> str:
    return human_size(limit)


def _answer(status: str, title: str, text: str, link: tuple[str, str] | None = None) -> bytes:
    """The page: its first paragraph is what the upload boxes show (workspace/uploads.js)."""
    more = f'<p><a href="{escape(link[0])}">{escape(link[1])}</a></p>' if link else ""
    page = (
        f"<!doctype html><meta charset=utf-8><title>{escape(title)}</title>"
        '<body style="font-family:system-ui;padding:2rem;color:#374151">'
        f"<h1>{escape(title)}</h1><p>{escape(text)}</p>{more}"
    ).encode()
    head = (
        f"HTTP/1.1 {status}\r\n"
        "Content-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(page)}\r\n"
        "Connection: close\r\n\r\n"
    ).encode()
    return head + page
