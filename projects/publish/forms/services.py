"""Writing submissions: received from a visitor, read, deleted by the owner,
and let go past the retention the server keeps them for."""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from collections import OrderedDict
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from projects.models import FormSettings, FormSubmission, Project
from projects.publish.forms.fields import Sent
from projects.publish.forms.selectors import InboxSize, inbox_size, mail_configured

Mail = FormSubmission.Mail


# On SQLite one process's writers queue here rather than in SQLite's busy
# handler, which sleeps in growing steps while the write lock is held: at 200
# submissions a second the threads slept more than they wrote (bench/forms.py).
# PostgreSQL takes concurrent inserts as they come.
_SQLITE_WRITES = threading.Lock()


class InboxFull:
    """A real submission was not kept: the project's inbox is at its bounds and
    holds no spam to make room with."""


INBOX_FULL = InboxFull()
# Spam deleted at most to make room for one real submission (a big one may
# need many small ones gone); past it, the submission is refused.
_MAKE_ROOM_AT_MOST = 500


def submission_receive(
    *, project_id: uuid.UUID, form: str, sent: Sent, page: str, address_hash: str, test: bool
) -> FormSubmission | InboxFull:
    """Keep what a visitor sent; whether and how it is mailed is decided now,
    from the owner's choice, and done after the answer (projects.publish.forms.mail).

    Within the bounds on what a project keeps (BUILTIT_FORMS_MAX_KEPT and
    _MAX_KEPT_BYTES), spam is never kept at the cost of a real submission:
    past them, spam is not kept (returned unsaved, its pk None, and answered as
    if it were: a robot learns nothing), and a real one takes the place of the
    oldest spam, or is refused (INBOX_FULL) when there is none to delete."""
    made = submission_made(
        project_id=project_id, form=form, sent=sent, page=page, address_hash=address_hash, test=test
    )
    return submissions_receive(submissions=[made])[0]


def submission_made(
    *, project_id: uuid.UUID, form: str, sent: Sent, page: str, address_hash: str, test: bool
) -> FormSubmission:
    """The row a visitor's form becomes, not saved yet (submissions_receive keeps it)."""
    text = sent.fields.text()
    return FormSubmission(
        project_id=project_id,
        form=form,
        fields=sent.fields.for_storing(),
        text=text,
        size=len(text),
        page=page[:500],
        address_hash=address_hash,
        spam=sent.spam,
        test=test,
    )


def submissions_receive(*, submissions: list[FormSubmission]) -> list[FormSubmission | InboxFull]:
    """Keep `submissions` (submission_made's) in one transaction, each as
    submission_receive says, in order: one commit for all of them (the forms'
    writer, projects.publish.forms.writer, hands over what queued meanwhile).
    Raises what the database raised; nothing is kept then."""
    mails: dict[uuid.UUID, str] = {}  # the owner's choice, read once a project, only if mailed
    for submission in submissions:
        if submission.spam or submission.test:
            submission.mail = Mail.NONE
            continue
        if submission.project_id not in mails:
            mails[submission.project_id] = _owners_mail(submission.project_id)
        submission.mail = mails[submission.project_id]
    # Counted, then inserted, without a lock across processes: on PostgreSQL two
    # batches to one site may both see room for one, so the bounds can be passed
    # by the submissions being received at that moment (a few: the per-site rate
    # bounds them). One process on SQLite queues its writers here, and is exact.
    # What another process keeps is seen when this one counts again (_INBOX_FRESH):
    # until then the bounds may also be passed by what the others kept meanwhile,
    # at most BUILTIT_FORMS_PER_SITE a minute for a site (its rate, in the shared cache).
    grown: dict[uuid.UUID, InboxSize] = {}
    with (
        _SQLITE_WRITES if connection.vendor == "sqlite" else contextlib.nullcontext(),
        transaction.atomic(),
    ):
        results = _kept(submissions, grown)
    _inboxes_grown(grown)  # committed: this process counts what it kept
    return results


def _kept(
    submissions: list[FormSubmission], grown: dict[uuid.UUID, InboxSize]
) -> list[FormSubmission | InboxFull]:
    """Insert what fits, counting by what this process knows of each inbox
    (_inbox_known); one that seems not to fit is decided by an exact count.
    `grown` gets what was inserted for each project, to be counted once committed."""
    results: list[FormSubmission | InboxFull] = []
    sizes: dict[uuid.UUID, InboxSize] = {}
    inserting: list[FormSubmission] = []
    for submission in submissions:
        project_id = submission.project_id
        size = sizes.get(project_id) or _inbox_known(project_id)
        if size.fits(count=1, size=submission.size):
            inserting.append(submission)
            sizes[project_id] = InboxSize(count=size.count + 1, size=size.size + submission.size)
            was = grown.get(project_id, InboxSize(count=0, size=0))
            if was is not _FORGET:
                grown[project_id] = InboxSize(count=was.count + 1, size=was.size + submission.size)
            results.append(submission)
            continue
        # Past the bounds as far as this process knows (rare, or the owner
        # deleted some meanwhile): what came before is inserted, and this one
        # decided as if it came alone, by a count of the rows.
        FormSubmission.objects.bulk_create(inserting)
        inserting = []
        results.append(_past_the_bounds(submission))
        # The process's count is behind what this batch has inserted: the
        # project's next one in the batch goes by the rows, counted again.
        sizes[project_id] = inbox_size(project_id=project_id)
        grown[project_id] = _FORGET
    FormSubmission.objects.bulk_create(inserting)
    return results


# What each project's inbox holds, as this process last counted it (one
# aggregate over all its rows: 15% of the server's busy time at 200 forms a
# second when counted for every batch, bench/forms.py) plus what it kept
# since. Counted again past _INBOX_FRESH seconds, and whenever a submission
# seems not to fit: an inbox the owner emptied takes the next one at once, and
# a full one refuses by an exact count.
_INBOX_FRESH = 1.0
_INBOXES_KEPT = 10_000  # projects; the least recently received from go first
_FORGET = InboxSize(count=-1, size=-1)  # in `grown`: count again next time
_inboxes: OrderedDict[uuid.UUID, tuple[InboxSize, float]] = OrderedDict()
_inboxes_lock = threading.Lock()


def _inbox_known(project_id: uuid.UUID) -> InboxSize:
    with _inboxes_lock:
        known = _inboxes.get(project_id)
    if known is not None and time.monotonic() - known[1] < _INBOX_FRESH:
        return known[0]
    counted_at = time.monotonic()
    size = inbox_size(project_id=project_id)
    with _inboxes_lock:
        _inboxes[project_id] = (size, counted_at)
        _inboxes.move_to_end(project_id)
        while len(_inboxes) > _INBOXES_KEPT:
            _inboxes.popitem(last=False)
    return size


def _inboxes_grown(grown: dict[uuid.UUID, InboxSize]) -> None:
    with _inboxes_lock:
        for project_id, more in grown.items():
            known = _inboxes.get(project_id)
            if known is None:
                continue  # forgotten meanwhile: counted again next time
            if more is _FORGET:
                del _inboxes[project_id]
                continue
            was, counted_at = known
            _inboxes[project_id] = (
                InboxSize(count=was.count + more.count, size=was.size + more.size),
                counted_at,
            )


def _past_the_bounds(submission: FormSubmission) -> FormSubmission | InboxFull:
    size = inbox_size(project_id=submission.project_id)
    if not size.fits(count=1, size=submission.size):
        if submission.spam:
            return submission
        if not _room_made(submission.project_id, size, submission.size):
            return INBOX_FULL
    submission.save(force_insert=True)
    return submission


def _room_made(project_id: uuid.UUID, size: InboxSize, needed: int) -> bool:
    """Delete the oldest spam, as much as it takes to fit `needed` more
    characters in one more row; nothing when that much spam is not there."""
    count_over = size.count + 1 - settings.BUILTIT_FORMS_MAX_KEPT
    size_over = size.size + needed - settings.BUILTIT_FORMS_MAX_KEPT_BYTES
    oldest = (
        FormSubmission.objects.filter(project_id=project_id, spam=True)
        .order_by("created_at", "pk")
        .values_list("pk", "size")[:_MAKE_ROOM_AT_MOST]
    )
    going: list[int] = []
    freed = 0
    for pk, size_of in oldest:
        if len(going) >= count_over and freed >= size_over:
            break
        going.append(pk)
        freed += size_of
    if len(going) < count_over or freed < size_over:
        return False
    FormSubmission.objects.filter(pk__in=going).delete()
    return True


def _owners_mail(project_id: uuid.UUID) -> str:
    """How the project's real submissions are mailed now, by the owner's choice."""
    if not mail_configured():
        return Mail.NONE
    owner = (
        Project.objects.filter(pk=project_id)
        .values_list("owner__email", "form_settings__mail")
        .first()
    )
    if owner is None or not owner[0]:
        return Mail.NONE
    choice = owner[1] or FormSettings.Mail.EACH
    if choice == FormSettings.Mail.EACH:
        return Mail.DUE
    if choice == FormSettings.Mail.DAILY:
        return Mail.DIGEST
    return Mail.NONE


def submissions_mark_read(*, project: Project, ids: list[int], read: bool = True) -> int:
    return FormSubmission.objects.filter(project=project, pk__in=ids).update(
        read_at=timezone.now() if read else None
    )


def submission_delete(*, project: Project, submission_id: int) -> bool:
    deleted, _ = FormSubmission.objects.filter(project=project, pk=submission_id).delete()
    return bool(deleted)


def submissions_delete(*, project: Project, spam: bool | None = None) -> int:
    """Delete the project's submissions (only its spam, or only the rest)."""
    found = FormSubmission.objects.filter(project=project)
    if spam is not None:
        found = found.filter(spam=spam)
    deleted, _ = found.delete()
    return deleted


@transaction.atomic
def form_settings_set(*, project: Project, mail: str) -> FormSettings | str:
    """The owner's choice of mail for the project's forms, or why it is refused."""
    if mail not in FormSettings.Mail.values:
        return "Choose one of the ways offered."
    kept, _ = FormSettings.objects.update_or_create(project=project, defaults={"mail": mail})
    # What waited for a digest, or to be mailed, follows the new choice.
    waiting = FormSubmission.objects.filter(project=project, mail__in=[Mail.DUE, Mail.DIGEST])
    if mail == FormSettings.Mail.OFF:
        waiting.update(mail=Mail.NONE)
    elif mail == FormSettings.Mail.DAILY:
        waiting.update(mail=Mail.DIGEST)
    return kept


def submissions_purge_expired() -> int:
    """Delete the submissions older than BUILTIT_FORMS_RETENTION_DAYS."""
    cutoff = timezone.now() - timedelta(days=int(settings.BUILTIT_FORMS_RETENTION_DAYS))
    deleted, _ = FormSubmission.objects.filter(created_at__lt=cutoff).delete()
    return deleted
