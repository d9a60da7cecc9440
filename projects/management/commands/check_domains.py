"""`manage.py check_domains`: the checks of sites' own domains that are due
(projects.publish.domains: for three days after a claim, at growing gaps).
Run it from cron every few minutes, or with `--every SECONDS` as a service of
its own; any number of processes may run it at once, and none makes a check
another is making."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import close_old_connections

from projects.publish.domains import domain_checks_due


class Command(BaseCommand):
    help = "Look for the DNS records of the sites' own domains whose check is due."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--limit", type=int, default=100, help="Domains checked at most in one round."
        )
        parser.add_argument(
            "--every", type=float, metavar="SECONDS", help="Go on, a round every SECONDS."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        limit, every = options["limit"], options["every"]
        if limit < 1 or (every is not None and every <= 0):
            raise CommandError("--limit and --every take numbers above 0.")
        while True:
            count = domain_checks_due(limit=limit)
            if every is None or count:
                self.stdout.write(f"Checked {count} domain{'' if count == 1 else 's'}.")
            if every is None:
                return
            time.sleep(every)
            close_old_connections()  # one kept across rounds outlives CONN_MAX_AGE
