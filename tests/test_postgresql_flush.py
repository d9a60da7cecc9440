"""The PostgreSQL test backend (tests/backends/postgresql): between transactional
tests it empties the tables with DELETE, which must leave nothing behind."""

import pytest
from django.core.management.color import no_style
from django.db import connection

from projects.models import Project

pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the DELETE flush is PostgreSQL's"
)


@pytest.mark.django_db(transaction=True)
def test_the_flush_deletes_every_row_whatever_refers_to_what(starter_project: Project) -> None:
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    statements = connection.ops.sql_flush(no_style(), tables)
    assert statements, tables
    assert all(statement.startswith("DELETE FROM") for statement in statements)

    connection.ops.execute_sql_flush(statements)

    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(f"SELECT count(*) FROM {connection.ops.quote_name(table)}")  # noqa: S608
            assert cursor.fetchone() == (0,), table
