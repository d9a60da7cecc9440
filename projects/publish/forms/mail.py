"""Mail to a site's owner about what its forms received: each submission once
the visitor has their answer (a thread of its own, tried a few times), or a
daily digest (`manage.py purge_trash`), which also takes what could not be
sent at once. Nothing is mailed without EMAIL_HOST, for spam, or for tests."""

from __future__ import annotations

import logging
import smtplib
import time
from collections.abc import Iterable
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.mail import BadHeaderError, EmailMessage
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from common.threads import Background
from projects.models import FormSettings, FormSubmission, Project
from projects.publish.forms.fields import Fields

logger = logging.getLogger(__name__)

Mail = FormSubmission.Mail
WAITS = (2.0, 10.0)  # seconds before the second and third tries
DIGEST_LISTED = 100  # submissions written out in one digest; the rest are counted
_REPLY_FIELDS = ("email", "e-mail", "mail", "your-email")
_background = Background(name="builtit-mail", workers=2, pending=500)


def mail_later(*, submission_id: int, mail: str) -> None:
    """Once the submission is committed, mail it in the background (if it is due)."""
    if mail != Mail.DUE:
        return
    transaction.on_commit(lambda: _queue(submission_id))


def _queue(submission_id: int) -> None:
    if not _background.submit(submission_mail, submission_id=submission_id):
        # Too much waiting already: the day's digest takes it.
        FormSubmission.objects.filter(pk=submission_id).update(mail=Mail.FAILED)


def submission_mail(*, submission_id: int, waits: Iterable[float] = WAITS) -> bool:
    """Mail one submission to its project's owner, trying again after each of
    `waits`; marked sent, or failed (for the digest to take)."""
    found = (
        FormSubmission.objects.select_related("project__owner")
        .filter(pk=submission_id, mail=Mail.DUE)
        .first()
    )
    if found is None:  # deleted meanwhile, or the owner turned mail off
        return False
    message = _message(found.project, [found], digest=False)
    for wait in [*waits, None]:
        if _sent(message, found.project):
            _mark([found.pk], Mail.SENT)
            return True
        if wait is not None:
            time.sleep(wait)
    _mark([found.pk], Mail.FAILED)
    return False


def digests_send() -> int:
    """One mail per project with submissions waiting (for the digest, or after
    failing at once, or left by a restart); the number of mails sent."""
    stale = timezone.now() - timedelta(hours=1)
    waiting = Q(mail__in=[Mail.DIGEST, Mail.FAILED]) | Q(mail=Mail.DUE, created_at__lt=stale)
    project_ids = (
        FormSubmission.objects.filter(waiting).values_list("project_id", flat=True).distinct()
    )
    sent = 0
    for project in Project.objects.select_related("owner").filter(pk__in=list(project_ids)):
        rows = list(FormSubmission.objects.filter(waiting, project=project).order_by("created_at"))
        if _sent(_message(project, rows, digest=True), project):
            _mark([row.pk for row in rows], Mail.SENT)
            FormSettings.objects.filter(project=project).update(digest_sent_at=timezone.now())
            sent += 1
    return sent


def _sent(message: EmailMessage, project: Project) -> bool:
    try:
        message.send()
    except (smtplib.SMTPException, OSError, BadHeaderError) as error:
        # A mail server that is down or refuses: said in one line, tried again later.
        logger.warning("Form mail for project %s not sent: %s", project.pk, error)
        return False
    return True


def _mark(ids: list[int], state: str) -> None:
    FormSubmission.objects.filter(pk__in=ids).exclude(mail=Mail.NONE).update(mail=state)


def _message(project: Project, rows: list[FormSubmission], *, digest: bool) -> EmailMessage:
    inbox = f"{settings.BUILTIT_APP_URL.rstrip('/')}/projects/{project.pk}/forms/"
    if digest:
        subject = f"{project.name}: {len(rows)} form submission{'s' if len(rows) != 1 else ''}"
    else:
        subject = f"{project.name}: a new {rows[0].form} form"
    parts = [_written(row) for row in rows[:DIGEST_LISTED]]
    if len(rows) > DIGEST_LISTED:
        parts.append(f"… and {len(rows) - DIGEST_LISTED} more in the inbox.")
    parts.append(f"Read them all in the inbox: {inbox}")
    reply_to = _reply_to(rows[0]) if not digest else []
    return EmailMessage(
        subject=subject.replace("\n", " ")[:200],
        body="\n\n".join(parts) + "\n",
        to=[project.owner.email],
        reply_to=reply_to,
    )


def _written(row: FormSubmission) -> str:
    fields = Fields.stored(row.fields)
    head = f"{row.form} form, {row.created_at:%Y-%m-%d %H:%M %Z}" + (
        f", from {row.page}" if row.page else ""
    )
    lines = [head, "-" * min(len(head), 60)]
    for name in fields.names():
        lines.append(f"{name}: {fields.joined(name)}")
    return "\n".join(lines)


def _reply_to(row: FormSubmission) -> list[str]:
    """The visitor's address, when the form asked for one: the owner's reply reaches them."""
    fields = Fields.stored(row.fields)
    for name in fields.names():
        if name.lower() in _REPLY_FIELDS:
            value = fields.joined(name).strip()
            try:
                validate_email(value)
            except ValidationError:
                return []
            return [value]
    return []
