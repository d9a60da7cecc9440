"""Accounts over HTTP: who may see what, sign-up, sign-in, sign-out, password change, admin."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from django.contrib.auth.models import User
from django.test import Client

from projects.models import Project
from projects.starter import STARTER_FILES

NEW_PASSWORD = "a much newer passphrase"


def _login_redirect_next(response) -> str:
    """The `next` of a redirect to the login page (fails if it is not one)."""
    assert response.status_code == 302
    location: str = response["Location"]
    parts = urlsplit(location)
    assert parts.path == "/accounts/login/"
    return parse_qs(parts.query)["next"][0]


def _get_pages(project: Project) -> list[str]:
    base = f"/projects/{project.pk}"
    return [
        "/",
        f"{base}/",
        f"{base}/delete/",
        f"{base}/export.zip",
        f"{base}/files/open/?path=/index.html",
        f"{base}/files/history/?path=/index.html",
        f"{base}/revisions/{project.revisions.all()[0].pk}/",
        "/accounts/password/",
        "/accounts/password/done/",
    ]


def _post_pages(project: Project) -> list[str]:
    base = f"/projects/{project.pk}"
    return [
        "/projects/new/",
        "/projects/import/",
        f"{base}/rename/",
        f"{base}/delete/",
        f"{base}/preview-token/",
        f"{base}/files/save/",
        f"{base}/files/new/",
        f"{base}/files/rename/",
        f"{base}/files/delete/",
        f"{base}/files/restore/",
    ]


def test_every_get_page_sends_anonymous_visitors_to_login_with_next(starter_project):
    client = Client()
    for url in _get_pages(starter_project):
        response = client.get(url)
        assert _login_redirect_next(response) == url, url


def test_every_post_endpoint_sends_anonymous_visitors_to_login_and_changes_nothing(
    starter_project,
):
    client = Client()
    payload = {
        "name": "Hijacked",
        "path": "/index.html",
        "content": "owned",
        "version": "1",
        "revision": str(starter_project.revisions.all()[0].pk),
    }
    for url in _post_pages(starter_project):
        response = client.post(url, payload)
        assert _login_redirect_next(response) == url, url
    starter_project.refresh_from_db()
    assert starter_project.name == "Starter site"
    assert Project.objects.count() == 1
    assert starter_project.files.get(path="/index.html").version == 1
    assert starter_project.files.count() == len(STARTER_FILES)


def test_login_and_signup_pages_are_open_to_anonymous_visitors(db):
    client = Client()
    login = client.get("/accounts/login/")
    signup = client.get("/accounts/signup/")
    assert login.status_code == 200
    assert b"Sign in" in login.content
    assert signup.status_code == 200
    assert b"Create an account" in signup.content


@pytest.mark.parametrize("address", ["/accounts/login/", "/accounts/signup/"])
def test_a_visitor_who_has_not_signed_in_is_told_what_built_it_is(db, address):
    page = Client().get(address).content.decode()
    about = page.split('class="about-builtit">')[1].split("</p>")[0]
    assert about.startswith("Built-It makes websites from what you write.")
    assert "assistant" in about
    assert "publish" in about
    # Before the form it introduces, under the page's heading.
    assert page.index("<h1>") < page.index("about-builtit") < page.index("<form")


def test_signup_creates_the_account_and_signs_it_in(db):
    client = Client()
    response = client.post(
        "/accounts/signup/",
        {"username": "grace", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )
    assert response.status_code == 302
    assert response["Location"] == "/"
    user = User.objects.get(username="grace")
    assert user.check_password(NEW_PASSWORD)
    dashboard = client.get("/")
    assert dashboard.status_code == 200
    assert dashboard.wsgi_request.user == user
    assert b"grace" in dashboard.content


def test_signup_with_mismatched_passwords_shows_the_error_and_creates_nobody(db):
    client = Client()
    response = client.post(
        "/accounts/signup/",
        {"username": "grace", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD + "!"},
    )
    assert response.status_code == 200
    assert "The two passwords did not match: type the same one in both fields." in (
        response.content.decode()
    )
    assert not User.objects.filter(username="grace").exists()


def test_signup_refuses_a_username_taken_in_another_case(user):
    client = Client()
    response = client.post(
        "/accounts/signup/",
        {"username": "ADA", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )
    assert response.status_code == 200
    assert "This username is not available. Please choose another." in response.content.decode()
    assert User.objects.count() == 1


def test_signup_while_signed_in_goes_to_the_dashboard(user_client):
    response = user_client.get("/accounts/signup/")
    assert response.status_code == 302
    assert response["Location"] == "/"


def test_signup_is_404_when_switched_off(db, settings):
    settings.BUILTIT_ALLOW_SIGNUP = False
    client = Client()
    assert client.get("/accounts/signup/").status_code == 404
    response = client.post(
        "/accounts/signup/",
        {"username": "grace", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )
    assert response.status_code == 404
    assert not User.objects.filter(username="grace").exists()


def test_login_page_offers_signup_only_when_it_is_switched_on(db, settings):
    client = Client()
    assert b"/accounts/signup/" in client.get("/accounts/login/").content
    settings.BUILTIT_ALLOW_SIGNUP = False
    assert b"/accounts/signup/" not in client.get("/accounts/login/").content


def test_login_with_the_right_password_signs_in_and_follows_next(user, starter_project):
    client = Client()
    wanted = f"/projects/{starter_project.pk}/"
    response = client.post(
        "/accounts/login/",
        {"username": "ada", "password": "correct horse battery", "next": wanted},
    )
    assert response.status_code == 302
    assert response["Location"] == wanted
    assert client.get(wanted).status_code == 200


def test_login_without_next_goes_to_the_dashboard(user):
    client = Client()
    response = client.post(
        "/accounts/login/", {"username": "ada", "password": "correct horse battery"}
    )
    assert response.status_code == 302
    assert response["Location"] == "/"


def test_login_never_redirects_to_another_site(user):
    client = Client()
    response = client.post(
        "/accounts/login/",
        {"username": "ada", "password": "correct horse battery", "next": "https://evil.example/"},
    )
    assert response.status_code == 302
    assert response["Location"] == "/"


def test_login_with_a_wrong_password_shows_an_error_and_stays_signed_out(user):
    client = Client()
    response = client.post("/accounts/login/", {"username": "ada", "password": "wrong"})
    assert response.status_code == 200
    assert "correct username and password" in response.content.decode()
    assert _login_redirect_next(client.get("/")) == "/"


def test_logout_is_a_post_and_signs_out(user_client):
    assert user_client.get("/").status_code == 200
    response = user_client.post("/accounts/logout/")
    assert response.status_code == 302
    assert response["Location"] == "/accounts/login/"
    assert _login_redirect_next(user_client.get("/")) == "/"


def test_logout_by_get_is_refused_and_keeps_the_session(user_client):
    assert user_client.get("/accounts/logout/").status_code == 405
    assert user_client.get("/").status_code == 200


def test_password_change_sets_the_new_password_and_keeps_the_session(user, user_client):
    page = user_client.get("/accounts/password/")
    assert page.status_code == 200
    response = user_client.post(
        "/accounts/password/",
        {
            "old_password": "correct horse battery",
            "new_password1": NEW_PASSWORD,
            "new_password2": NEW_PASSWORD,
        },
    )
    assert response.status_code == 302
    assert response["Location"] == "/accounts/password/done/"
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)
    done = user_client.get("/accounts/password/done/")
    assert done.status_code == 200
    assert b"Password changed" in done.content
    assert user_client.get("/").status_code == 200


def test_password_change_with_a_wrong_old_password_changes_nothing(user, user_client):
    response = user_client.post(
        "/accounts/password/",
        {"old_password": "not it", "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 200
    assert "old password was entered incorrectly" in response.content.decode()
    user.refresh_from_db()
    assert user.check_password("correct horse battery")


def test_admin_is_reachable_for_staff(db):
    staff = User.objects.create_user("root", "root@example.com", "staff passphrase", is_staff=True)
    staff.is_superuser = True
    staff.save()
    client = Client()
    client.force_login(staff)
    response = client.get("/admin/")
    assert response.status_code == 200
    assert b"Built-It administration" in response.content
    assert b'href="/admin/"' in client.get("/").content


def test_admin_is_closed_to_non_staff_and_anonymous_visitors(user_client):
    for client in (user_client, Client()):
        response = client.get("/admin/")
        assert response.status_code == 302
        assert urlsplit(response["Location"]).path == "/admin/login/"
    assert b'href="/admin/"' not in user_client.get("/").content


def test_a_refused_signup_keeps_the_name_and_opens_on_the_field_to_fix(db):
    client = Client()
    response = client.post(
        "/accounts/signup/", {"username": "grace", "password1": "abc", "password2": "abc"}
    )
    page = response.content.decode()

    assert "fix what is marked below, then type your password in both fields again" in page
    assert 'value="grace"' in page  # the name is kept; the passwords never come back
    assert "abc" not in page
    # The short password is named under the password itself, which has the focus.
    password1 = page[page.index('name="password1"') - 300 : page.index('id="password1-error"')]
    assert "autofocus" in password1
    assert 'aria-invalid="true"' in password1
    assert "This password is too short." in page[page.index('id="password1-error"') :][:200]
    assert page.count("autofocus") == 1
