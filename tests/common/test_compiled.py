"""A read compiled once (common.compiled) gives what its QuerySet gives, with
each call's values, and refuses a read it cannot keep."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from common.compiled import CompiledRead
from projects.models import Project

pytestmark = pytest.mark.django_db

_OWNER = Project._meta.get_field("owner")
_MADE = Project._meta.get_field("created_at")


def test_each_call_reads_with_its_own_values(
    project: Project, user: User, other_user: User, django_assert_num_queries: Any
) -> None:
    read = CompiledRead(
        lambda owner, since: Project.objects.filter(owner_id=owner, created_at__gt=since),
        owner=_OWNER,
        since=_MADE,
    )
    before = project.created_at - timedelta(seconds=1)
    with django_assert_num_queries(1):
        assert read.all(owner=user.pk, since=before) == [project]
    assert read.all(owner=other_user.pk, since=before) == []
    assert read.all(owner=user.pk, since=project.created_at) == []
    found = read.first(owner=user.pk, since=before)
    assert found is not None
    assert (found.name, found.created_at, found.deleted_at) == (
        project.name,
        project.created_at,
        None,
    )


def test_a_value_the_query_does_not_use_is_refused(project: Project, user: User) -> None:
    read = CompiledRead(
        lambda owner, since: Project.objects.filter(owner_id=owner), owner=_OWNER, since=_MADE
    )
    with pytest.raises(ValueError, match="since"):
        read.all(owner=user.pk, since=timezone.now())


def test_a_read_whose_sql_changes_with_its_values_is_refused(project: Project, user: User) -> None:
    # A slice's bounds are written into the SQL, not passed as parameters.
    read = CompiledRead(lambda owner: Project.objects.filter(owner_id=owner)[:owner], owner=_OWNER)
    with pytest.raises(ValueError, match="changes with the values"):
        read.all(owner=user.pk)
