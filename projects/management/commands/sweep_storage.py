"""`manage.py sweep_storage`: delete the bytes nothing refers to any more
(projects.sweep). `purge_trash` runs it too, so a daily cron of that is enough."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from projects.sweep import storage_sweep


class Command(BaseCommand):
    help = "Delete stored bytes that no file, revision or message refers to any more."

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write(storage_sweep().describe())
