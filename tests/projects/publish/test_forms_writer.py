"""The forms' writer (projects.publish.forms.writer): rows queued while it
writes are kept together in one commit, and a row the database refuses fails
alone, with its own error, while the others of its batch are kept."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.db import IntegrityError, transaction

from projects.models import FormSubmission, Project
from projects.publish.forms.fields import Fields, Sent
from projects.publish.forms.services import submission_made, submissions_receive
from projects.publish.forms.writer import Writer
from tests.projects.publish.test_publish import site_project

__all__ = ["site_project"]  # a fixture, used by name

pytestmark = pytest.mark.django_db(transaction=True)


@contextmanager
def writes_held(project: Project) -> Iterator[None]:
    """Every write of the forms' writer waits until the block ends: SQLite's
    write lock (transactions begin IMMEDIATE), or on PostgreSQL the project's
    row, which a new submission's foreign key must share."""
    with transaction.atomic():
        list(Project.objects.select_for_update().filter(pk=project.pk))
        yield


def made(project_id: uuid.UUID, name: str) -> FormSubmission:
    sent = Sent(fields=Fields((("name", name),)), spam=False, next="")
    return submission_made(
        project_id=project_id,
        form="contact",
        sent=sent,
        page="/",
        address_hash="a" * 32,
        test=False,
    )


def test_a_row_the_database_refuses_fails_alone_and_its_batch_is_kept(
    site_project: Project,
) -> None:
    writer = Writer()
    with writes_held(site_project):
        first = writer.submit(made(site_project.pk, "Ana"))
        # Queued while the writer waits: written in one batch with what comes next.
        gone = writer.submit(made(uuid.uuid4(), "Nobody"))  # no such project
        last = writer.submit(made(site_project.pk, "Bo"))
    assert first is not None
    assert gone is not None
    assert last is not None
    assert isinstance(first.result(timeout=60), FormSubmission)
    with pytest.raises(IntegrityError):
        gone.result(timeout=60)
    assert isinstance(last.result(timeout=60), FormSubmission)
    kept = FormSubmission.objects.order_by("pk").values_list("project_id", "text")
    assert list(kept) == [(site_project.pk, "name: Ana"), (site_project.pk, "name: Bo")]
    assert writer.drain()


def test_a_writer_drained_takes_no_more_and_keeps_what_was_queued(site_project: Project) -> None:
    writer = Writer()
    with writes_held(site_project):
        queued = writer.submit(made(site_project.pk, "Ana"))
    assert writer.drain()
    assert queued is not None
    assert queued.done()
    assert writer.submit(made(site_project.pk, "Bo")) is None
    assert list(FormSubmission.objects.values_list("text", flat=True)) == ["name: Ana"]


def test_a_batch_past_the_inbox_bound_keeps_no_more_than_the_bound(
    site_project: Project, settings: pytest.FixtureRequest
) -> None:
    """One batch for a nearly full inbox: what fits is kept, and once one is
    refused by the exact count, none after it slips in on the process's
    earlier count."""
    settings.BUILTIT_FORMS_MAX_KEPT = 3  # type: ignore[attr-defined]
    FormSubmission.objects.create(project=site_project, form="contact", fields=[], text="")
    results = submissions_receive(
        submissions=[made(site_project.pk, name) for name in ("Ana", "Bo", "Cy", "Di")]
    )
    assert [isinstance(result, FormSubmission) for result in results] == [
        True,
        True,
        False,
        False,
    ]
    assert FormSubmission.objects.filter(project=site_project).count() == 3
