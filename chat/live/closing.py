"""Why the server closes a chat socket, by code, in one list: the consumer and
draining close with these, the workspace page is given them (chat/connection.js reads the
restart code and the words per code from it: daphne drops a close frame's
reason), and the tests compare against them."""

from __future__ import annotations

from typing import Final


class Close:
    """The codes, as plain ints: autobahn (under daphne) refuses a close code
    whose type is not exactly int, an IntEnum's included, and drops the
    connection instead (the page then sees 1006 and retries)."""

    # This process is shutting down (chat.live.draining): the page reconnects at
    # once, through the proxy, to one that is staying. It is 1012 (Service
    # Restart) in the range an application may send: autobahn, under daphne,
    # refuses 1012 itself.
    SERVICE_RESTART: Final = 4012
    SESSION_ENDED: Final = 4401
    SIGNED_OUT_EVERYWHERE: Final = 4402
    # The owner removed the person from the project (projects.signals.access_changed).
    REMOVED: Final = 4403
    PROJECT_GONE: Final = 4404
    # This address holds as many chat sockets as it may (chat.live.socket_limit).
    TOO_MANY_SOCKETS: Final = 4429


REASONS: dict[int, str] = {
    Close.SESSION_ENDED: (
        "Your session ended (signed out, or the password changed). "
        "Reload the page to sign in again."
    ),
    Close.SIGNED_OUT_EVERYWHERE: (
        "You signed out everywhere: every session and access token of yours has ended. "
        "Reload the page to sign in again."
    ),
    Close.REMOVED: "The owner removed you from this project.",
    Close.PROJECT_GONE: (
        "This project was moved to the trash. Restore it from the Trash to go on."
    ),
    Close.TOO_MANY_SOCKETS: (
        "Too many Built-It tabs are open from your internet address (on this device, or "
        "on others that share it). Close some of them, then reload this page."
    ),
}


def for_the_page() -> dict[str, object]:
    """What chat/connection.js needs to tell a person why their socket closed."""
    return {
        "restart": Close.SERVICE_RESTART,
        "reasons": {str(code): text for code, text in REASONS.items()},
    }
