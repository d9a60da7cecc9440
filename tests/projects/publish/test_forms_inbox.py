"""The owner's inbox of what their site's forms received: listed by form,
newest first, read and unread, searched, spam apart, deleted, downloaded as
CSV; counted on the dashboard and in the workspace; nobody else's to see."""

from __future__ import annotations

import csv
import io
import zipfile

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.http import QueryDict
from django.test import Client, override_settings

from projects.archive import FORMS_CSV
from projects.models import FormSettings, FormSubmission, Project, Site
from projects.publish.forms.receiving import Posted, Refused, form_receive
from projects.publish.forms.targets import site_target
from projects.publish.live_sites import live_site
from tests.conftest import SITES_HOST
from tests.projects.publish.test_publish import published, site_project

__all__ = ["site_project"]  # a fixture, used by name

HOST = "lisbon-bakery." + SITES_HOST


@pytest.fixture(autouse=True)
def _no_bounds_counted():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def site(site_project: Project) -> Site:
    return published(site_project)


def send(form: str = "contact", **fields: str) -> None:
    answer = Client(HTTP_HOST=HOST).post(f"/_forms/{form}", fields)
    assert answer.status_code == 303, answer.content


def inbox(client: Client, project: Project, **query: str) -> str:
    answer = client.get(f"/projects/{project.pk}/forms/", query)
    assert answer.status_code == 200
    return answer.content.decode()


def test_the_owner_reads_submissions_by_form_newest_first(
    user_client: Client, site: Site, site_project: Project
) -> None:
    send(name="Ana Lima", message="Two loaves")
    send(name="Bo Brandt", message="A cake for Sunday")
    send("rsvp", name="Cy Coelho", attending="yes")
    page = inbox(user_client, site_project)
    # newest first
    assert page.index("Cy Coelho") < page.index("Bo Brandt") < page.index("Ana Lima")
    assert "<dt>message</dt><dd>A cake for Sunday</dd>" in page
    assert page.count('class="submission card unread"') == 3
    only_contact = inbox(user_client, site_project, form="contact")
    assert "Ana Lima" in only_contact
    assert "Cy Coelho" not in only_contact
    assert "Bo Brandt" not in inbox(user_client, site_project, q="loaves")
    assert "Ana Lima" in inbox(user_client, site_project, q="LOAVES")


def test_read_and_unread_are_counted_on_the_dashboard_and_in_the_workspace(
    user_client: Client, site: Site, site_project: Project
) -> None:
    send(name="Ana")
    send(name="Bo")
    send(name="Robot", _gotcha="filled")  # spam is not news
    dashboard = user_client.get("/").content.decode()
    assert ">2 new form submissions</a>" in dashboard
    workspace = user_client.get(f"/projects/{site_project.pk}/").content.decode()
    assert 'Forms <span class="unread-badge">2<span class="visually-hidden"> new' in workspace

    first = FormSubmission.objects.get(text__contains="name: Ana")
    user_client.post(f"/projects/{site_project.pk}/forms/read/", {"id": str(first.pk)})
    assert ">1 new form submission</a>" in user_client.get("/").content.decode()
    user_client.post(f"/projects/{site_project.pk}/forms/read/", {"all": "1"})
    assert "new form submission" not in user_client.get("/").content.decode()
    assert "unread-badge" not in user_client.get(f"/projects/{site_project.pk}/").content.decode()
    # Unread again, on purpose.
    user_client.post(f"/projects/{site_project.pk}/forms/read/", {"id": str(first.pk), "read": "0"})
    assert FormSubmission.objects.get(pk=first.pk).read_at is None


def test_spam_is_kept_apart_and_deleted_on_its_own(
    user_client: Client, site: Site, site_project: Project
) -> None:
    send(name="Ana Lima")
    send(name="Robot Spammer", _gotcha="http://spam.example")
    page = inbox(user_client, site_project)
    assert "Ana Lima" in page
    assert "Robot Spammer" not in page
    spam = inbox(user_client, site_project, spam="1")
    assert "Robot Spammer" in spam
    assert "Ana Lima" not in spam
    user_client.post(f"/projects/{site_project.pk}/forms/delete/", {"which": "spam"})
    assert list(FormSubmission.objects.values_list("spam", flat=True)) == [False]


def test_the_owner_deletes_one_or_all(user_client: Client, site: Site, site_project: Project):
    send(name="Ana")
    send(name="Bo")
    send(name="Robot", _gotcha="x")
    ana = FormSubmission.objects.get(text__contains="name: Ana")
    answer = user_client.post(f"/projects/{site_project.pk}/forms/delete/", {"id": str(ana.pk)})
    assert answer.status_code == 302
    assert not FormSubmission.objects.filter(pk=ana.pk).exists()
    user_client.post(f"/projects/{site_project.pk}/forms/delete/", {"which": "all"})
    assert list(FormSubmission.objects.values_list("spam", flat=True)) == [True]


def test_another_persons_inbox_is_a_404_and_their_actions_do_nothing(
    other_client: Client, site: Site, site_project: Project
) -> None:
    send(name="Ana")
    row = FormSubmission.objects.get()
    base = f"/projects/{site_project.pk}"
    assert other_client.get(f"{base}/forms/").status_code == 404
    assert other_client.get(f"{base}/forms.csv").status_code == 404
    assert other_client.post(f"{base}/forms/delete/", {"which": "all"}).status_code == 404
    assert other_client.post(f"{base}/forms/read/", {"all": "1"}).status_code == 404
    assert other_client.post(f"{base}/forms/settings/", {"mail": "off"}).status_code == 404
    row.refresh_from_db()
    assert row.read_at is None
    assert Client().get(f"{base}/forms/").status_code == 302  # to sign in


def test_the_csv_has_a_column_for_every_field_and_no_formulas(
    user_client: Client, site: Site, site_project: Project
) -> None:
    send(name="Ana", message='=HYPERLINK("http://evil.example")')
    send("rsvp", name="Bo", attending="yes")
    answer = user_client.get(f"/projects/{site_project.pk}/forms.csv")
    assert answer.status_code == 200
    assert answer["Content-Type"] == "text/csv; charset=utf-8"
    assert 'filename="lisbon-bakery-forms.csv"' in answer["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(answer.content.decode())))
    assert rows[0] == [
        "form",
        "sent at (UTC)",
        "page",
        "spam",
        "test",
        "read",
        "name",
        "attending",
        "message",
    ]
    assert rows[1][0] == "rsvp"
    assert rows[1][6:] == ["Bo", "yes", ""]
    assert rows[2][6:] == ["Ana", "", '\'=HYPERLINK("http://evil.example")']
    only_rsvp = user_client.get(f"/projects/{site_project.pk}/forms.csv", {"form": "rsvp"})
    assert len(list(csv.reader(io.StringIO(only_rsvp.content.decode())))) == 2


def test_without_email_set_up_the_inbox_says_so(
    user_client: Client, site: Site, site_project: Project
) -> None:
    with override_settings(EMAIL_HOST=""):
        assert "This server has no email set up" in inbox(user_client, site_project)
    with override_settings(EMAIL_HOST="smtp.example.org"):
        page = inbox(user_client, site_project)
        assert "This server has no email set up" not in page
        assert "Sent to ada@example.com" in page


def test_the_owner_chooses_how_mail_comes(user_client: Client, site: Site, site_project: Project):
    with override_settings(EMAIL_HOST="smtp.example.org"):
        send(name="Ana")
        assert FormSubmission.objects.get().mail == FormSubmission.Mail.DUE
        said = user_client.post(
            f"/projects/{site_project.pk}/forms/settings/", {"mail": "daily"}, follow=True
        )
        assert "Saved: Mail me a daily digest." in said.content.decode()
        assert FormSubmission.objects.get().mail == FormSubmission.Mail.DIGEST
        send(name="Bo")
        assert FormSubmission.objects.latest("pk").mail == FormSubmission.Mail.DIGEST
        user_client.post(f"/projects/{site_project.pk}/forms/settings/", {"mail": "off"})
        send(name="Cy")
        assert set(FormSubmission.objects.values_list("mail", flat=True)) == {"none"}
        refused = user_client.post(
            f"/projects/{site_project.pk}/forms/settings/", {"mail": "hourly"}, follow=True
        )
        assert "Choose one of the ways offered." in refused.content.decode()
        assert FormSettings.objects.get(project=site_project).mail == "off"


def test_the_projects_zip_holds_the_submissions_only_when_asked(
    user_client: Client, site: Site, site_project: Project
) -> None:
    send(name="Ana", message="Two loaves")
    plain = zipfile.ZipFile(
        io.BytesIO(user_client.get(f"/projects/{site_project.pk}/export.zip").content)
    )
    assert FORMS_CSV not in plain.namelist()
    asked = user_client.get(f"/projects/{site_project.pk}/export.zip", {"forms": "1"})
    archive = zipfile.ZipFile(io.BytesIO(asked.content))
    assert "index.html" in archive.namelist()
    rows = list(csv.reader(io.StringIO(archive.read(FORMS_CSV).decode())))
    assert rows[1][6:] == ["Ana", "Two loaves"]
    # Imported again, it is the site: the submissions are no file of it, and go unsaid.
    imported = user_client.post(
        "/projects/import/", {"archive": SimpleUploadedFile("site.zip", asked.content)}, follow=True
    )
    said = imported.content.decode()
    assert "Imported" in said
    assert "Left out" not in said


@pytest.mark.django_db(transaction=True)
def test_a_form_for_a_project_deleted_a_moment_ago_is_refused_in_words(
    site: Site, site_project: Project
) -> None:
    live = live_site(name="lisbon-bakery")
    assert live is not None
    target = site_target(live, prefix="/")
    Project.all_objects.filter(pk=site_project.pk).delete()  # purged meanwhile
    posted = Posted(
        form="contact",
        data=QueryDict("name=Ana"),
        has_files=False,
        origin=None,
        own_origin="http://" + HOST,
        referer="",
        address="203.0.113.9",
    )
    said = form_receive(target=target, posted=posted)
    assert said == Refused(404, "No form here", "This site is gone. Nothing was kept.")
    assert not FormSubmission.objects.exists()
