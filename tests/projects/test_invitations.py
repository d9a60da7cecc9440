"""Invitations by email (projects.invitations), where the server sends mail:
the owner invites an address with a role, a link is mailed, and a signed-in
person who opens it joins once, before it expires; without mail there is no
invitation, and the dialog offers none."""

from __future__ import annotations

import re
import smtplib
from collections.abc import Sequence
from datetime import timedelta
from html import unescape
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.core.mail.backends.base import BaseEmailBackend
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from projects.access import project_access
from projects.activity import activity_list
from projects.invitations import (
    invitation_accept,
    invitation_revoke,
    invitation_send,
    invitations_waiting,
)
from projects.lifecycle import project_create
from projects.models import Invitation, Membership, Project
from projects.sharing import ShareRefused

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


class Refusing(BaseEmailBackend):
    """A mail server that is down."""

    def send_messages(self, email_messages: Sequence[Any]) -> int:
        raise smtplib.SMTPConnectError(421, "try later")


@pytest.fixture
def with_mail(settings: Any) -> None:
    settings.EMAIL_HOST = "smtp.example.com"


@pytest.fixture
def erin(db: None) -> User:
    return User.objects.create_user("erin", "erin@example.com", "a long enough secret")


def _client(person: User) -> Client:
    client = Client()
    client.force_login(person)
    return client


def _send(project: Project, email: str = "erin@example.com", role: str = "editor") -> object:
    return invitation_send(
        project=project, by=project.owner, email=email, role=role, link=lambda t: f"/i/{t}/"
    )


def _page(response: Any) -> str:
    return unescape(response.content.decode())


def test_without_mail_there_is_no_invitation(user_client: Client, project: Project) -> None:
    refused = _send(project)
    assert isinstance(refused, ShareRefused)
    assert refused.message == "This server sends no mail: add the person by their username."
    page = _page(user_client.get(reverse("share_panel", args=[project.pk]), headers=HTMX))
    assert "Or invite by email" not in page
    assert not Invitation.objects.exists()
    assert mail.outbox == []


def test_an_invited_person_opens_the_mailed_link_and_joins(
    with_mail: None, user_client: Client, project: Project, erin: User
) -> None:
    panel = user_client.get(reverse("share_panel", args=[project.pk]), headers=HTMX)
    assert "Or invite by email" in _page(panel)
    sent = user_client.post(
        reverse("share_invite", args=[project.pk]),
        {"email": "erin@example.com", "role": "editor"},
        headers=HTMX,
    )
    page = _page(sent)
    assert "Invited erin@example.com as editor: the link is in the mail." in page
    assert "Invited, not joined yet" in page
    (message,) = mail.outbox
    assert message.to == ["erin@example.com"]
    assert message.subject == "ada invites you to work on Empty site"
    found = re.search(r"http://testserver(/invitations/[^/]+/)", str(message.body))
    assert found, message.body

    erin_client = _client(erin)
    shown = _page(erin_client.get(found[1]))
    assert "ada invited erin@example.com to work on it as editor" in shown
    joined = erin_client.post(found[1])
    assert joined.status_code == 302
    assert joined.headers["Location"] == reverse("workspace", args=[project.pk])
    assert project_access(erin, project.pk).role == "editor"  # type: ignore[union-attr]
    assert [line.text for line in activity_list(project=project)] == [
        "ada shared it with erin as editor"
    ]
    # A link works once.
    again = _page(_client(erin).post(found[1]))
    assert "This invitation was used already: a link works once." in again


def test_an_invitation_is_refused_in_words(
    with_mail: None, project: Project, erin: User, settings: Any
) -> None:
    bad = _send(project, email="not an address")
    assert isinstance(bad, ShareRefused)
    assert bad.message == "not an address is not an email address."
    assert isinstance(_send(project), Invitation)
    twice = _send(project, email="ERIN@example.com")
    assert isinstance(twice, ShareRefused)
    assert twice.message == (
        "ERIN@example.com is invited already: the link in that mail still works."
    )
    by_member = invitation_send(
        project=project, by=erin, email="x@example.com", role="viewer", link=str
    )
    assert isinstance(by_member, ShareRefused)
    assert by_member.message == "Only the project's owner can share it."
    settings.EMAIL_BACKEND = "tests.projects.test_invitations.Refusing"
    down = _send(project, email="vera@example.com")
    assert isinstance(down, ShareRefused)
    assert down.message == "The mail could not be sent just now: try again later."
    assert list(Invitation.objects.values_list("email", flat=True)) == ["erin@example.com"]


def test_an_expired_or_taken_back_link_does_not_let_anyone_in(
    with_mail: None, user_client: Client, project: Project, erin: User
) -> None:
    invitation = _send(project)
    assert isinstance(invitation, Invitation)
    Invitation.objects.update(expires_at=timezone.now() - timedelta(minutes=1))
    late = invitation_accept(token=invitation.token, user=erin)
    assert isinstance(late, ShareRefused)
    assert late.message == "This invitation expired: ask for another."
    Invitation.objects.update(expires_at=timezone.now() + timedelta(days=1))
    own = invitation_accept(token=invitation.token, user=project.owner)
    assert isinstance(own, ShareRefused)
    assert own.message == "You own this project already."
    user_client.post(reverse("share_invite_revoke", args=[project.pk, invitation.pk]), headers=HTMX)
    gone = _client(erin).get(reverse("invitation_open", args=[invitation.token]))
    assert gone.status_code == 404
    assert "This invitation does not work" in _page(gone)
    assert not Membership.objects.exists()


def test_a_member_cannot_invite(with_mail: None, project: Project, erin: User) -> None:
    Membership.objects.create(project=project, user=erin, role="editor")
    response = _client(erin).post(
        reverse("share_invite", args=[project.pk]),
        {"email": "x@example.com", "role": "editor"},
        headers=HTMX,
    )
    assert response.status_code == 403
    assert mail.outbox == []


def test_a_taken_back_invitation_no_longer_works_and_still_counts(
    with_mail: None, project: Project, erin: User
) -> None:
    """Taking back and inviting again mails again: three a day to one address."""
    first = _send(project)
    assert isinstance(first, Invitation)
    assert invitation_revoke(project=project, by=project.owner, invitation_id=first.pk) is None
    refused = invitation_accept(token=first.token, user=erin)
    assert isinstance(refused, ShareRefused)
    assert refused.message == (
        "This invitation link does not work: it was taken back, or mistyped."
    )
    assert invitations_waiting(project=project) == []
    assert Invitation.objects.get(pk=first.pk).revoked_at is not None
    for _ in range(2):
        again = _send(project)
        assert isinstance(again, Invitation)
        invitation_revoke(project=project, by=project.owner, invitation_id=again.pk)
    fourth = _send(project, email="Erin@Example.com")
    assert isinstance(fourth, ShareRefused)
    assert fourth.message == (
        "You have sent Erin@Example.com 3 invitations in the last day, the most one "
        "address may get (taken back ones count too): invite them again tomorrow."
    )
    assert len(mail.outbox) == 3
    assert not Membership.objects.exists()


def test_a_person_has_at_most_twenty_invitations_mailed_a_day(
    with_mail: None, project: Project, user: User
) -> None:
    """Over all their projects; a day later they may invite again."""
    other = project_create(owner=user, name="Second site")
    assert isinstance(other, Project)
    for n in range(20):
        sent = _send(project if n % 2 else other, email=f"p{n}@example.com")
        assert isinstance(sent, Invitation), sent
    refused = _send(project, email="one.more@example.com")
    assert isinstance(refused, ShareRefused)
    assert refused.message == (
        "You have sent 20 invitations by email in the last day, the most a day allows "
        "(taken back ones count too): add people by their username, or invite more "
        "tomorrow."
    )
    assert len(mail.outbox) == 20
    Invitation.objects.update(created_at=timezone.now() - timedelta(days=1, minutes=1))
    assert isinstance(_send(project, email="one.more@example.com"), Invitation)
