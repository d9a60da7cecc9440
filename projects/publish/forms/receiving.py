"""A visitor's form, received: from an origin allowed to send it, within the
bounds, its fields read and kept; then where the visitor goes next.

Refusals are values with a status and words for the visitor; the view
(projects.views.site_forms) answers them as a page or as JSON."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from django.db import DatabaseError, IntegrityError
from django.http import QueryDict

from projects.models import FormSubmission
from projects.publish.addresses import link_target
from projects.publish.forms.fields import FieldsRefused, fields_read
from projects.publish.forms.mail import mail_later
from projects.publish.forms.services import InboxFull, submission_made, submissions_receive
from projects.publish.forms.targets import THANKS_PAGE, Target
from projects.publish.forms.throttle import address_hash, submission_allowed
from projects.publish.forms.writer import submission_queue_async

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Posted:
    """A form's request, as far as receiving it needs."""

    form: str
    data: QueryDict
    has_files: bool
    origin: str | None  # its Origin header, if any
    own_origin: str  # scheme://host[:port] of this request
    referer: str
    address: str | None  # the visitor's, as the edge decided


@dataclass(frozen=True)
class Received:
    submission_id: int | None  # None: spam past the inbox's bounds, not kept
    spam: bool
    page: str  # the page it came from, from the site's root ("" unknown)
    goes_to: str | None  # a page of the site, from its root; None: the plain thank-you


@dataclass(frozen=True)
class Refused:
    status: int
    title: str
    message: str
    retry_after: int | None = None


NOT_HERE = Refused(404, "No form here", "This address takes no form from another site.")
# 507 Insufficient Storage: the owner's inbox is at its bounds (BUILTIT_FORMS_MAX_KEPT).
INBOX_FULL = Refused(
    507,
    "This site's form inbox is full",
    "This site's form inbox is full; nothing was kept. "
    "Try again later or contact the site another way.",
)


GONE = Refused(404, "No form here", "This site is gone. Nothing was kept.")
# The writer's queue is at its bound (BUILTIT_FORMS_QUEUE), or the process is stopping.
BUSY = Refused(
    503,
    "Too many forms at once",
    "This server is receiving more forms than it can keep right now. Nothing was kept: "
    "send the form again in a few seconds.",
    retry_after=5,
)
NOT_KEPT = Refused(
    503,
    "The form could not be kept",
    "The server could not store this form just now. Nothing was kept: "
    "send it again in a few seconds.",
    retry_after=5,
)


@dataclass(frozen=True)
class Checked:
    """A form allowed in and read: the row to keep, and where the visitor goes."""

    submission: FormSubmission  # not saved yet
    page: str
    goes_to: str | None


def form_receive(*, target: Target, posted: Posted) -> Received | Refused:
    """Keep what the visitor sent to `target`, or say why not."""
    checked = form_check(target=target, posted=posted)
    if isinstance(checked, Refused):
        return checked
    try:
        [kept] = submissions_receive(submissions=[checked.submission])
    except IntegrityError:
        # The project was deleted for good a moment ago (what this process
        # kept of its site had not heard yet).
        return GONE
    if isinstance(kept, FormSubmission) and kept.pk is not None:
        mail_later(submission_id=kept.pk, mail=kept.mail)
    return form_kept(checked, kept)


async def form_receive_queued(*, checked: Checked) -> Received | Refused:
    """Keep `checked` through the process's writer (which mails it), from the event loop."""
    future = submission_queue_async(checked.submission)
    if future is None:
        return BUSY
    try:
        # A visitor gone meanwhile (or a server stopping) does not take the row
        # back from the writer: what was received whole is kept.
        kept = await asyncio.shield(future)
    except IntegrityError:
        return GONE
    except DatabaseError as error:
        logger.warning("A form submission was not kept: %s", error)
        return NOT_KEPT
    return form_kept(checked, kept)


def form_check(*, target: Target, posted: Posted) -> Checked | Refused:
    """Whether what the visitor sent to `target` may be kept: its origin, the
    bounds (counted here), its fields; the row it makes, or why not."""
    if not _origin_allowed(target, posted):
        return NOT_HERE
    visitor = address_hash(posted.address)
    throttled = submission_allowed(visitor=visitor, target=target.key)
    if throttled is not None:
        minded = "from your address" if throttled.whose == "address" else "to this site"
        return Refused(
            429,
            "Too many forms sent",
            f"Too many forms were sent {minded} in the last minute. Nothing was kept: "
            f"try again in {throttled.retry_after} seconds.",
            retry_after=throttled.retry_after,
        )
    if posted.has_files:
        return Refused(
            415,
            "Files cannot be sent",
            "This form tried to send a file, and forms here do not take files yet. "
            "Nothing was kept: send the form without the file.",
        )
    sent = fields_read(posted.data)
    if isinstance(sent, FieldsRefused):
        return Refused(400, "The form could not be kept", sent.message + " Nothing was kept.")
    page = _page(target, posted)
    submission = submission_made(
        project_id=target.project_id,
        form=posted.form,
        sent=sent,
        page=page,
        address_hash=visitor,
        test=target.test,
    )
    return Checked(submission=submission, page=page, goes_to=_next(target, posted, sent.next, page))


def form_kept(checked: Checked, kept: FormSubmission | InboxFull) -> Received | Refused:
    if isinstance(kept, InboxFull):
        return INBOX_FULL
    # Spam past the bounds is not kept (pk None), and answered the same.
    return Received(
        submission_id=kept.pk, spam=kept.spam, page=checked.page, goes_to=checked.goes_to
    )


def _origin_allowed(target: Target, posted: Posted) -> bool:
    """No Origin (an older browser, a script), this host's own, or, where pages
    run in an opaque origin (`/s/<name>/`, the preview), "null"."""
    origin = posted.origin
    if origin is None:
        return True
    return origin == posted.own_origin or (target.shared and origin == "null")


def _page(target: Target, posted: Posted) -> str:
    """The page the form was on, from the site's root, read from the Referer
    when it is of this host and under the site's root."""
    try:
        parts = urlsplit(posted.referer)
    except ValueError:
        return ""
    if f"{parts.scheme}://{parts.netloc}" != posted.own_origin:
        return ""
    path = unquote(parts.path)
    if not path.startswith(target.prefix):
        return ""
    return "/" + path[len(target.prefix) :]


def _next(target: Target, posted: Posted, asked: str, page: str) -> str | None:
    """Where the visitor goes: `_next` if it is a page of this site, else the
    site's own thanks page, else None (the plain thank-you page)."""
    if asked:
        address = _next_address(target, posted.own_origin, asked, page)
        if address is not None and target.pages.page_for(address) is not None:
            return address
    return THANKS_PAGE if target.pages.page_for(THANKS_PAGE) is not None else None


def _next_address(target: Target, own_origin: str, asked: str, page: str) -> str | None:
    try:
        parts = urlsplit(asked)
    except ValueError:
        return None
    if parts.scheme or parts.netloc:
        # A full address must name this very site's root.
        path = unquote(parts.path)
        if f"{parts.scheme}://{parts.netloc}" != own_origin or not path.startswith(target.prefix):
            return None
        return "/" + path[len(target.prefix) :]
    if asked.startswith("//"):
        return None
    # From the site's root when it starts with "/", as the site's forms do.
    return link_target(page or "/index.html", parts.path) if parts.path else None
