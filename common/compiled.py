"""A read Django builds and compiles once per database connection, then runs
with each call's values: for the few reads on a hot path where building and
compiling the QuerySet cost far more than the SQL (a chat socket's connect:
0.3 to 0.5 ms of Python a query against under 0.05 ms of SQLite,
bench/README.md "A connect in two queries").

    _LOCK = CompiledRead(
        lambda project_id, now: ProjectLock.objects.filter(
            project_id=project_id, expires_at__gt=now
        ).order_by("pk")[:1],
        project_id=ProjectLock._meta.get_field("project"),
        now=ProjectLock._meta.get_field("expires_at"),
    )
    found = _LOCK.first(project_id=project.pk, now=timezone.now())

Each named value is compared to the field given for it. The QuerySet is built
with a made-up sample for each value and compiled by the calling thread's
connection (each of common.threads' threads has its own); a value's place in
the SQL's parameters is where its sample came out, and a call puts its own
value there, prepared for the database by that field as the lookup prepares it.
This is checked as it is compiled: a second set of samples must give the same
SQL and land in the same places, with no other parameter moving, or the read
cannot be kept and the first call raises ValueError (its test meets it).

Rows come back as the QuerySet gives them, built the same way
(django.db.models.query.ModelIterable): the model's instances by Model.from_db,
the database's values through the same converters, select_related's (and a
FilteredRelation's) instances on them, and annotations as attributes. Only for
reads whose SQL depends on nothing but the values named (no `__in` of a list
whose length varies, no value of a setting that a test changes)."""

from __future__ import annotations

import random
import uuid
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Generic, TypeVar

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, Model, QuerySet
from django.db.models.query import get_related_populators
from django.db.models.sql.compiler import SQLCompiler

M = TypeVar("M", bound=Model)


@dataclass(frozen=True)
class _Compiled:
    sql: str
    params: tuple[Any, ...]
    places: dict[str, tuple[int, ...]]  # each value's positions in `params`
    compiler: SQLCompiler  # after as_sql: its select, klass_info, annotations
    converters: dict[int, Any]
    init_list: list[str]
    start: int
    end: int
    related: list[Any]  # django's RelatedPopulators


class CompiledRead(Generic[M]):
    """`build(**values)`'s QuerySet, compiled once per connection (see above)."""

    def __init__(self, build: Callable[..., QuerySet[M]], **fields: Field[Any, Any]) -> None:
        self._build = build
        self._fields = {name: _target(field) for name, field in fields.items()}
        self._by_connection: weakref.WeakKeyDictionary[BaseDatabaseWrapper, _Compiled] = (
            weakref.WeakKeyDictionary()
        )

    def all(self, **values: Any) -> list[M]:
        connection = connections[DEFAULT_DB_ALIAS]
        compiled = self._by_connection.get(connection)
        if compiled is None:
            compiled = self._compile(connection)
            self._by_connection[connection] = compiled
        params = list(compiled.params)
        for name, places in compiled.places.items():
            prepared = _prepared(self._fields[name], values[name], connection)
            for place in places:
                params[place] = prepared
        with connection.cursor() as cursor:
            cursor.execute(compiled.sql, params)
            rows: Sequence[Any] = cursor.fetchall()
        return [
            self._instance(compiled, row, connection.alias)
            for row in self._converted(compiled, rows)
        ]

    def first(self, **values: Any) -> M | None:
        found = self.all(**values)
        return found[0] if found else None

    @staticmethod
    def _converted(compiled: _Compiled, rows: Sequence[Any]) -> Sequence[Any]:
        if not compiled.converters:
            return rows
        return list(compiled.compiler.apply_converters(rows, compiled.converters))

    @staticmethod
    def _instance(compiled: _Compiled, row: Sequence[Any], db: str) -> M:
        model = compiled.compiler.klass_info["model"]
        instance: M = model.from_db(db, compiled.init_list, row[compiled.start : compiled.end])
        for populator in compiled.related:
            populator.populate(row, instance)
        for name, place in compiled.compiler.annotation_col_map.items():
            setattr(instance, name, row[place])
        return instance

    def _compile(self, connection: BaseDatabaseWrapper) -> _Compiled:
        samples = [{name: _sample(field) for name, field in self._fields.items()} for _ in "ab"]
        compilers = []
        compiled: list[tuple[str, tuple[Any, ...]]] = []
        for sample in samples:
            compiler = self._build(**sample).query.get_compiler(connection=connection)
            sql, params = compiler.as_sql()
            compilers.append(compiler)
            compiled.append((sql, tuple(params)))
        (sql, params), (other_sql, other_params) = compiled
        if sql != other_sql or len(params) != len(other_params):
            raise ValueError(f"its SQL changes with the values: {sql!r}")
        places: dict[str, tuple[int, ...]] = {}
        for name, field in self._fields.items():
            one, two = (_prepared(field, sample[name], connection) for sample in samples)
            found = tuple(
                i
                for i, (a, b) in enumerate(zip(params, other_params, strict=True))
                if a == one and b == two
            )
            if not found:
                raise ValueError(f"{name!r} is not among its parameters: {sql!r} {params!r}")
            places[name] = found
        placed = {place for found in places.values() for place in found}
        moved = [
            i
            for i, (a, b) in enumerate(zip(params, other_params, strict=True))
            if a != b and i not in placed
        ]
        if moved:
            raise ValueError(f"parameters {moved} change but are not named: {sql!r}")
        compiler = compilers[0]
        select, klass_info = compiler.select, compiler.klass_info
        fields_at = klass_info["select_fields"]
        start, end = fields_at[0], fields_at[-1] + 1
        return _Compiled(
            sql=sql,
            params=params,
            places=places,
            compiler=compiler,
            converters=compiler.get_converters([column[0] for column in select]),
            init_list=[column[0].target.attname for column in select[start:end]],
            start=start,
            end=end,
            # The stubs follow a later Django, whose call adds a fetch mode.
            related=get_related_populators(klass_info, select, connection.alias),  # type: ignore[call-arg]
        )


def _target(field: Field[Any, Any]) -> Field[Any, Any]:
    """The field a value is really compared to: a foreign key's target."""
    target = getattr(field, "target_field", None)
    return target if isinstance(target, Field) else field


def _prepared(field: Field[Any, Any], value: Any, connection: BaseDatabaseWrapper) -> Any:
    # As a lookup prepares its right-hand side (Lookup.get_db_prep_lookup).
    return field.get_db_prep_value(field.get_prep_value(value), connection, prepared=True)


def _sample(field: Field[Any, Any]) -> Any:
    """A value of `field`'s kind that nothing else in a query would equal."""
    kind = field.get_internal_type()
    if kind == "UUIDField":
        return uuid.uuid4()
    if kind in {"AutoField", "BigAutoField", "IntegerField", "BigIntegerField"}:
        return random.randrange(10**9, 2 * 10**9)  # noqa: S311 (not a secret)
    if kind == "DateTimeField":
        return datetime(1999, 1, 1, tzinfo=UTC) + timedelta(seconds=random.randrange(10**8))  # noqa: S311
    if kind == "CharField":
        return uuid.uuid4().hex
    raise TypeError(f"no sample for a {kind}")
