"""`manage.py purge_trash`: delete for good what has been in the trash longer
than BUILTIT_TRASH_DAYS (run it daily, e.g. from cron)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from projects.lifecycle import trash_purge_expired


class Command(BaseCommand):
    help = "Delete for good the projects in the trash for longer than BUILTIT_TRASH_DAYS."

    def handle(self, *args: Any, **options: Any) -> None:
        count = trash_purge_expired()
        self.stdout.write(f"Purged {count} project{'' if count == 1 else 's'} from the trash.")
