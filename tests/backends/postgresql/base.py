"""PostgreSQL for the tests (tests/settings.py): Django's own backend, except
that a transactional test's tables are emptied with DELETE, not TRUNCATE.

TRUNCATE of our ~50 tables gives each table, index and TOAST table a new file
and drops the old ones: 1.1-2.0 s on the CI machine, after every test that
commits (transactional_db, the live and browser servers), which made the
PostgreSQL suite ~1.8x as slow as SQLite's (whose flush already DELETEs).
Deleting the few rows a test left takes a few milliseconds. Django makes every
foreign key DEFERRABLE INITIALLY DEFERRED and the flush runs in one
transaction (execute_sql_flush), so the order of the DELETEs does not matter.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db.backends.postgresql import base, operations


class DatabaseOperations(operations.DatabaseOperations):
    def sql_flush(
        self,
        style: Any,
        tables: Sequence[str],
        *,
        reset_sequences: bool = False,
        allow_cascade: bool = False,
    ) -> list[str]:
        if reset_sequences or allow_cascade:
            # What only TRUNCATE says in one statement (RESTART IDENTITY,
            # CASCADE): Django's own, for the rare test that asks for it.
            truncate: list[str] = super().sql_flush(
                style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
            )
            return truncate
        return [
            f"{style.SQL_KEYWORD('DELETE FROM')} {style.SQL_FIELD(self.quote_name(table))};"
            for table in tables
        ]


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
