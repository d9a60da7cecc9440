"""Form mail beyond the first try, and the daily job: a mail server that
refuses is tried again, then the day's digest takes what is left; the digest
an owner chose; submissions past their retention deleted
(`manage.py purge_trash`). Mail goes to a real SMTP server (aiosmtpd)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.test import override_settings
from django.utils import timezone

from projects.models import FormSettings, FormSubmission, Project
from projects.publish.forms.fields import Fields, Sent
from projects.publish.forms.mail import submission_mail
from projects.publish.forms.services import submission_receive
from tests.fakes.smtp_server import FakeSMTP, body_of, running

Mail = FormSubmission.Mail


@pytest.fixture
def smtp() -> Iterator[FakeSMTP]:
    with (
        running() as fake,
        override_settings(
            EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend",
            EMAIL_HOST="127.0.0.1",
            EMAIL_PORT=fake.port,
            EMAIL_USE_TLS=False,
            EMAIL_USE_SSL=False,
        ),
    ):
        yield fake


def receive(project: Project, name: str, *, spam: bool = False) -> FormSubmission:
    sent = Sent(fields=Fields((("name", name),)), spam=spam, next="")
    kept = submission_receive(
        project_id=project.pk, form="contact", sent=sent, page="/", address_hash="h", test=False
    )
    assert isinstance(kept, FormSubmission)
    return kept


def daily_job() -> str:
    out = io.StringIO()
    call_command("purge_trash", stdout=out)
    return out.getvalue()


def test_a_refused_mail_is_tried_again_then_left_for_the_digest(
    smtp: FakeSMTP, project: Project
) -> None:
    row = receive(project, "Ana")
    assert row.mail == Mail.DUE
    smtp.refusing = True
    assert submission_mail(submission_id=row.pk, waits=(0, 0)) is False
    row.refresh_from_db()
    assert row.mail == Mail.FAILED
    assert smtp.received() == []

    smtp.refusing = False
    assert "Mailed 1 form digest." in daily_job()
    to, message = smtp.wait_for("name: Ana")
    assert to == ["ada@example.com"]
    assert message["Subject"] == "Empty site: 1 form submission"
    row.refresh_from_db()
    assert row.mail == Mail.SENT
    assert "Mailed 0 form digests." in daily_job()  # sent once


def test_a_daily_digest_gathers_the_days_submissions_in_one_mail(
    smtp: FakeSMTP, project: Project
) -> None:
    FormSettings.objects.create(project=project, mail=FormSettings.Mail.DAILY)
    for name in ("Ana", "Bo", "Cy"):
        assert receive(project, name).mail == Mail.DIGEST
    receive(project, "Robot", spam=True)
    assert smtp.received() == []
    daily_job()
    _, message = smtp.wait_for("name: Ana")
    assert message["Subject"] == "Empty site: 3 form submissions"
    body = body_of(message)
    assert "name: Bo" in body
    assert "name: Cy" in body
    assert "Robot" not in body
    assert len(smtp.received()) == 1
    assert FormSettings.objects.get(project=project).digest_sent_at is not None


def test_submissions_past_their_retention_go_with_the_daily_job(project: Project) -> None:
    old, recent = receive(project, "Old"), receive(project, "Recent")
    FormSubmission.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=366))
    FormSubmission.objects.filter(pk=recent.pk).update(
        created_at=timezone.now() - timedelta(days=364)
    )
    assert "Deleted 1 form submission past their retention." in daily_job()
    assert list(FormSubmission.objects.values_list("pk", flat=True)) == [recent.pk]
    with override_settings(BUILTIT_FORMS_RETENTION_DAYS=30):
        daily_job()
    assert not FormSubmission.objects.exists()


def test_nothing_is_mailed_without_a_mail_server_or_an_owners_address(project: Project) -> None:
    with override_settings(EMAIL_HOST=""):
        assert receive(project, "Ana").mail == Mail.NONE
    with override_settings(EMAIL_HOST="smtp.example.org"):
        project.owner.email = ""
        project.owner.save()
        assert receive(project, "Bo").mail == Mail.NONE
