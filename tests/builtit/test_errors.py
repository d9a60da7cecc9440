"""Errors reach people as words: whole pages for pages, one line for htmx swaps."""

from __future__ import annotations

from django.test import Client

HTMX = {"HX-Request": "true"}


def test_htmx_request_for_a_deleted_project_gets_a_one_line_answer(user_client, starter_project):
    url = f"/projects/{starter_project.pk}/files/save/"
    starter_project.delete()

    response = user_client.post(url, {"path": "/index.html", "content": "x"}, headers=HTMX)

    assert response.status_code == 404
    body = response.content.decode()
    assert "no longer exists" in body
    assert "<html" not in body


def test_a_missing_page_is_a_friendly_page(user_client):
    response = user_client.get("/projects/00000000-0000-0000-0000-000000000000/")
    assert response.status_code == 404
    assert "<html" in response.content.decode()
    assert "Back to your projects" in response.content.decode()


def test_a_stale_csrf_token_is_explained_and_changes_nothing(user, starter_project):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    url = f"/projects/{starter_project.pk}/files/save/"

    page = client.post(url, {"path": "/index.html", "content": "hijacked"})
    fragment = client.post(url, {"path": "/index.html", "content": "hijacked"}, headers=HTMX)

    assert page.status_code == fragment.status_code == 403
    assert "Reload the page" in fragment.content.decode()
    assert "<html" not in fragment.content.decode()
    assert "reload the page" in page.content.decode()
    assert starter_project.files.get(path="/index.html").content != "hijacked"


def test_an_htmx_save_after_the_session_ended_asks_to_sign_in_without_leaving(
    client, starter_project
):
    url = f"/projects/{starter_project.pk}/files/save/"

    response = client.post(url, {"path": "/index.html", "content": "draft"}, headers=HTMX)

    assert response.status_code == 401
    assert "Sign in again" in response.content.decode()
    assert "<html" not in response.content.decode()
    assert starter_project.files.get(path="/index.html").content != "draft"


def test_a_signed_out_page_visit_still_goes_to_sign_in(client, starter_project):
    response = client.get(f"/projects/{starter_project.pk}/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=")
