"""`manage.py purge_trash`: the daily job (run it daily, e.g. from cron).
Delete for good what has been in the trash longer than BUILTIT_TRASH_DAYS and
the form submissions older than BUILTIT_FORMS_RETENTION_DAYS, mail the day's
form digests (and what could not be mailed at once), then sweep the bytes
nothing refers to any more."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from projects.lifecycle import trash_purge_expired
from projects.publish.forms.mail import digests_send
from projects.publish.forms.selectors import mail_configured
from projects.publish.forms.services import submissions_purge_expired
from projects.sweep import storage_sweep


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


class Command(BaseCommand):
    help = (
        "The daily job: delete for good the projects in the trash for longer than "
        "BUILTIT_TRASH_DAYS and the form submissions older than BUILTIT_FORMS_RETENTION_DAYS; "
        "mail the forms' daily digests."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        count = trash_purge_expired()
        self.stdout.write(f"Purged {_plural(count, 'project')} from the trash.")
        old = submissions_purge_expired()
        self.stdout.write(f"Deleted {_plural(old, 'form submission')} past their retention.")
        if mail_configured():
            self.stdout.write(f"Mailed {_plural(digests_send(), 'form digest')}.")
        self.stdout.write(storage_sweep().describe())
