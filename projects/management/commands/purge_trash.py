"""`manage.py purge_trash`: delete for good what has been in the trash longer
than BUILTIT_TRASH_DAYS, then sweep the bytes nothing refers to any more
(run it daily, e.g. from cron)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from projects.lifecycle import trash_purge_expired
from projects.sweep import storage_sweep


class Command(BaseCommand):
    help = "Delete for good the projects in the trash for longer than BUILTIT_TRASH_DAYS."

    def handle(self, *args: Any, **options: Any) -> None:
        count = trash_purge_expired()
        self.stdout.write(f"Purged {count} project{'' if count == 1 else 's'} from the trash.")
        self.stdout.write(storage_sweep().describe())
