"""The bounds on what a project's forms keep (BUILTIT_FORMS_MAX_KEPT and
_MAX_KEPT_BYTES), over real HTTP at a site's own host: spam never pushes out
a real submission, a real one makes room by deleting the oldest spam or is
refused in words (507), and the owner's inbox says when it is (nearly) full."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed

import pytest
from django.test import Client

from projects.models import FormSubmission, Project, Site
from projects.publish.forms.services import submissions_delete
from tests.projects.publish.test_forms_http import CONTACT, Visitor
from tests.projects.publish.test_forms_writer import writes_held
from tests.projects.publish.test_publish import published, site_project, write
from tests.servers import ServerProcess, server_start, shared_settings

__all__ = ["site_project"]  # a fixture, used by name

MAX_KEPT = 10
MAX_KEPT_BYTES = 3000  # characters of the fields as one text
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(scope="module")
def server(
    django_db_setup: None, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    given = shared_settings(
        BUILTIT_TRUSTED_PROXIES=1,
        BUILTIT_FORMS_MAX_KEPT=MAX_KEPT,
        BUILTIT_FORMS_MAX_KEPT_BYTES=MAX_KEPT_BYTES,
        # One form waits for the writer at most (besides what it is writing).
        BUILTIT_FORMS_QUEUE=1,
    )
    process = server_start(given, log=tmp_path_factory.mktemp("forms-kept") / "server.log")
    yield process
    process.stop()
    assert "Traceback" not in process.logged()


@pytest.fixture
def visitor(server: ServerProcess) -> Iterator[Visitor]:
    seen = Visitor(server)
    yield seen
    seen.client.close()


@pytest.fixture
def bakery(site_project: Project) -> Site:
    write(site_project, "/contact.html", CONTACT)
    return published(site_project)


def stored(project: Project, count: int, *, spam: bool, text: str = "name: Ana") -> list[int]:
    """`count` submissions already kept, oldest first."""
    rows = [
        FormSubmission.objects.create(
            project=project,
            form="contact",
            fields=[["name", "Ana"]],
            text=text,
            size=len(text),
            spam=spam,
        )
        for _ in range(count)
    ]
    return [row.pk for row in rows]


def kept_ids(project: Project, *, spam: bool) -> list[int]:
    return list(
        FormSubmission.objects.filter(project=project, spam=spam)
        .order_by("pk")
        .values_list("pk", flat=True)
    )


REAL = {"name": "Bo", "message": "A cake for Sunday"}
SPAM = {**REAL, "_gotcha": "http://spam.example"}


def test_spam_past_the_bound_is_not_kept_and_answered_as_usual(
    visitor: Visitor, bakery: Site
) -> None:
    project = bakery.project
    real = stored(project, MAX_KEPT, spam=False)
    answer = visitor.send(data=SPAM)
    # As any submission is answered: the robot learns nothing.
    assert answer.status_code == 303
    assert answer.headers["Location"] == "/_forms/contact/sent?back=%2Fcontact"
    assert kept_ids(project, spam=True) == []
    assert kept_ids(project, spam=False) == real
    answer = visitor.send(data=SPAM, Accept="application/json")
    assert answer.status_code == 200
    assert answer.json()["ok"] is True
    assert FormSubmission.objects.filter(project=project).count() == MAX_KEPT


def test_a_real_submission_takes_the_place_of_the_oldest_spam(
    visitor: Visitor, bakery: Site
) -> None:
    project = bakery.project
    spam = stored(project, 3, spam=True)
    real = stored(project, MAX_KEPT - 3, spam=False)
    answer = visitor.send(data=REAL)
    assert answer.status_code == 303
    assert kept_ids(project, spam=True) == spam[1:]  # only the oldest went
    now_real = kept_ids(project, spam=False)
    assert now_real[:-1] == real
    newest = FormSubmission.objects.get(pk=now_real[-1])
    assert newest.size == len(newest.text) > 0  # what the bound sums
    assert newest.fields[:2] == [
        ["name", "Bo"],
        ["message", "A cake for Sunday"],
    ]
    assert FormSubmission.objects.filter(project=project).count() == MAX_KEPT


def test_a_real_submission_past_the_characters_bound_deletes_as_much_spam_as_it_needs(
    visitor: Visitor, bakery: Site
) -> None:
    project = bakery.project
    spam = stored(project, 3, spam=True, text="x" * 200)  # oldest first
    real = stored(project, 1, spam=False, text="y" * 2200)
    # 2800 kept: a message of 500 more needs two of the spam gone, not three.
    answer = visitor.send(data={"name": "Bo", "message": "z" * 500})
    assert answer.status_code == 303
    assert kept_ids(project, spam=True) == spam[2:]
    assert kept_ids(project, spam=False)[:-1] == real
    assert len(kept_ids(project, spam=False)) == 2


def test_a_real_submission_is_refused_in_words_when_the_inbox_is_full_of_real_ones(
    visitor: Visitor, bakery: Site
) -> None:
    project = bakery.project
    real = stored(project, MAX_KEPT, spam=False)
    answer = visitor.send(data=REAL)
    assert answer.status_code == 507
    assert "This site&#x27;s form inbox is full; nothing was kept." in answer.text
    assert "contact the site another way" in answer.text
    answer = visitor.send(data=REAL, Accept="application/json")
    assert answer.status_code == 507
    assert answer.json() == {
        "ok": False,
        "error": "This site's form inbox is full; nothing was kept. "
        "Try again later or contact the site another way.",
    }
    assert kept_ids(project, spam=False) == real
    # The owner deletes one: there is room again.
    FormSubmission.objects.filter(pk=real[0]).delete()
    assert visitor.send(data=REAL).status_code == 303


def test_a_real_submission_too_big_for_what_spam_can_free_is_refused_and_the_spam_kept(
    visitor: Visitor, bakery: Site
) -> None:
    project = bakery.project
    spam = stored(project, 1, spam=True, text="x" * 100)
    stored(project, 1, spam=False, text="y" * 2800)
    answer = visitor.send(data={"name": "Bo", "message": "z" * 500})
    assert answer.status_code == 507
    assert kept_ids(project, spam=True) == spam  # nothing deleted for nothing


def test_the_inbox_says_when_it_is_nearly_full_and_when_it_is_full(
    user_client: Client, site_project: Project, settings: object
) -> None:
    settings.BUILTIT_FORMS_MAX_KEPT = MAX_KEPT  # type: ignore[attr-defined]
    settings.BUILTIT_FORMS_MAX_KEPT_BYTES = MAX_KEPT_BYTES  # type: ignore[attr-defined]
    address = f"/projects/{site_project.pk}/forms/"
    stored(site_project, MAX_KEPT - 2, spam=False)
    page = user_client.get(address).content.decode()
    assert "inbox is nearly full" not in page
    assert "inbox is full" not in page
    stored(site_project, 1, spam=True)
    page = user_client.get(address).content.decode()
    assert "Your form inbox is nearly full</strong> (90%)" in page
    assert "download the CSV" in page
    stored(site_project, 1, spam=False)
    page = user_client.get(address).content.decode()
    assert "Your form inbox is full:</strong> new submissions are being refused" in page
    assert f'href="/projects/{site_project.pk}/forms.csv"' in page
    # By characters too.
    FormSubmission.objects.filter(project=site_project).delete()
    stored(site_project, 1, spam=False, text="y" * 2800)
    page = user_client.get(address).content.decode()
    assert "Your form inbox is nearly full</strong> (93%)" in page


def test_forms_past_the_writers_queue_are_refused_in_words_and_the_rest_kept(
    server: ServerProcess, bakery: Site
) -> None:
    """While the database keeps the writer waiting, one form is being written
    and one waits (BUILTIT_FORMS_QUEUE=1); the others are told at once to send
    again, and nothing of theirs is kept."""
    visitors = [Visitor(server) for _ in range(6)]
    with ThreadPoolExecutor(max_workers=6) as pool:
        with writes_held(bakery.project):
            sending = [pool.submit(visitor.send, data=REAL) for visitor in visitors]
            refused = []
            for done in as_completed(sending):
                refused.append(done.result())
                if len(refused) == 4:  # the writer holds two at most
                    break
        answers = [future.result() for future in sending]
    for visitor in visitors:
        visitor.client.close()
    assert all(answer.status_code == 503 for answer in refused)
    refused = [answer for answer in answers if answer.status_code == 503]
    for answer in refused:
        assert answer.headers["Retry-After"] == "5"
        assert "more forms than it can keep right now. Nothing was kept" in answer.text
    accepted = [answer for answer in answers if answer.status_code == 303]
    # Two held when the writer took the first before the second came; one
    # when both came first (the second found the queue full, and was refused).
    assert len(accepted) in {1, 2}
    assert [answer.status_code for answer in answers].count(503) == 6 - len(accepted)
    assert FormSubmission.objects.filter(project=bakery.project).count() == len(accepted)


# --- what the server knows of an inbox between its counts (services._inbox_known) ---------


def test_an_inbox_filled_by_the_servers_own_forms_refuses_the_next_at_once(
    visitor: Visitor, bakery: Site
) -> None:
    """The server counts what it keeps itself: the forms that fill the inbox
    come right after its count, and the one past them is refused."""
    project = bakery.project
    stored(project, MAX_KEPT - 2, spam=False)
    assert visitor.send(data=REAL).status_code == 303  # counted here: 8, then 9
    assert visitor.send(data=REAL).status_code == 303  # 10
    assert visitor.send(data=REAL).status_code == 507
    assert FormSubmission.objects.filter(project=project).count() == MAX_KEPT


def test_after_the_owner_deletes_all_a_form_is_kept_at_once(visitor: Visitor, bakery: Site) -> None:
    """The server's count says full a moment ago; the owner empties the inbox
    (another process): the next form is kept all the same."""
    project = bakery.project
    stored(project, MAX_KEPT - 1, spam=False)
    assert visitor.send(data=REAL).status_code == 303
    assert visitor.send(data=REAL).status_code == 507
    assert submissions_delete(project=project) == MAX_KEPT
    assert visitor.send(data=REAL).status_code == 303
    assert len(kept_ids(project, spam=False)) == 1


def test_a_site_taken_down_is_closed_at_once_and_opened_again_at_once(
    visitor: Visitor, bakery: Site
) -> None:
    """Another process takes the site down just after the server served its
    page and a form: the very next form and page are refused (the sites'
    generation, read from memory the file is mapped to)."""
    assert visitor.get("/contact").status_code == 200
    assert visitor.send(data=REAL).status_code == 303
    site = Site.objects.get(pk=bakery.pk)
    site.taken_down = "Phishing."
    site.save()
    closed = visitor.send(data=REAL)
    assert closed.status_code == 410
    assert "forms are closed" in closed.text
    assert visitor.get("/contact").status_code != 200
    site.taken_down = ""
    site.save()
    assert visitor.get("/contact").status_code == 200
    assert visitor.send(data=REAL).status_code == 303
    assert len(kept_ids(bakery.project, spam=False)) == 2
