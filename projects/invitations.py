"""Inviting a person by email, where the server sends mail (EMAIL_HOST): the
owner names an address and a role; a link is mailed, and whoever opens it
signed in, before it expires, joins the project with that role (the link is
the secret; the address only says where it went). The owner sees who is
invited and may take an invitation back.

Each invitation is a mail to an address a person typed, so each person's are
bounded: BUILTIT_INVITATIONS_PER_DAY a day over all their projects, and
BUILTIT_INVITATIONS_PER_ADDRESS a day to one address. One taken back is kept,
marked, and still counts: taking back and inviting again mails again."""

from __future__ import annotations

import logging
import secrets
import smtplib
from collections.abc import Callable
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.mail import BadHeaderError, send_mail
from django.core.validators import validate_email
from django.db import transaction
from django.utils import timezone

from projects.access import member_role
from projects.activity import Kind, a_role, activity_add
from projects.models import Invitation, Membership, Project
from projects.publish.forms.selectors import mail_configured
from projects.sharing import ShareRefused, announce, held, owner_only, role_problem

logger = logging.getLogger(__name__)

LASTS = timedelta(days=7)
DAY = timedelta(days=1)
PENDING_MAX = 50  # invitations waiting per project: a mail each, so bounded


def invitation_send(
    *, project: Project, by: User, email: str, role: str, link: Callable[[str], str]
) -> Invitation | ShareRefused:
    """Mail an invitation to `email`; `link` makes the address to open from its token."""
    invitation = _invitation_make(project=project, by=by, email=email, role=role)
    if isinstance(invitation, ShareRefused):
        return invitation
    try:
        send_mail(
            f"{by.get_username()} invites you to work on {project.name}",
            f"{by.get_username()} shared the project {project.name} with you, as "
            f"{a_role(role)}, on Built-It.\n\nOpen this link, signed in, to join it "
            f"(it works once, for {LASTS.days} days):\n\n{link(invitation.token)}\n",
            None,
            [invitation.email],
        )
    except (smtplib.SMTPException, OSError, BadHeaderError) as error:
        logger.warning("Invitation mail for project %s not sent: %s", project.pk, error)
        invitation.delete()
        return ShareRefused("The mail could not be sent just now: try again later.")
    return invitation


@transaction.atomic
def _invitation_make(
    *, project: Project, by: User, email: str, role: str
) -> Invitation | ShareRefused:
    locked = held(project)
    refused = owner_only(locked, by, "share") or role_problem(role)
    if refused:
        return refused
    if not mail_configured():
        return ShareRefused("This server sends no mail: add the person by their username.")
    address = email.strip()
    try:
        validate_email(address)
    except ValidationError:
        return ShareRefused(f"{address or 'That'} is not an email address.")
    refused = _waiting_problem(locked, address) or _mail_bound(by, address)
    if refused:
        return refused
    return Invitation.objects.create(
        project=locked,
        email=address,
        role=role,
        token=secrets.token_urlsafe(32),
        invited_by=by,
        expires_at=timezone.now() + LASTS,
    )


def _waiting_problem(project: Project, address: str) -> ShareRefused | None:
    waiting = Invitation.objects.filter(
        project=project, accepted_at__isnull=True, revoked_at__isnull=True
    )
    if waiting.filter(email__iexact=address, expires_at__gt=timezone.now()).exists():
        return ShareRefused(f"{address} is invited already: the link in that mail still works.")
    if waiting.count() >= PENDING_MAX:
        return ShareRefused(
            f"{PENDING_MAX} invitations are waiting: take some back before inviting more."
        )
    return None


def _mail_bound(by: User, address: str) -> ShareRefused | None:
    # Their row held: two invitations sent at once (from two projects) take
    # turns, so the second counts the first.
    User.objects.select_for_update().filter(pk=by.pk).first()
    sent = Invitation.objects.filter(invited_by=by, created_at__gt=timezone.now() - DAY)
    per_day = int(settings.BUILTIT_INVITATIONS_PER_DAY)
    if sent.count() >= per_day:
        return ShareRefused(
            f"You have sent {per_day} invitations by email in the last day, the most a "
            "day allows (taken back ones count too): add people by their username, or "
            "invite more tomorrow."
        )
    per_address = int(settings.BUILTIT_INVITATIONS_PER_ADDRESS)
    if sent.filter(email__iexact=address).count() >= per_address:
        return ShareRefused(
            f"You have sent {address} {per_address} invitations in the last day, the most "
            "one address may get (taken back ones count too): invite them again tomorrow."
        )
    return None


def invitation_get(*, token: str) -> Invitation | None:
    return (
        Invitation.objects.select_related("project__owner", "invited_by")
        .filter(token=token, project__deleted_at__isnull=True, revoked_at__isnull=True)
        .first()
    )


@transaction.atomic
def invitation_accept(*, token: str, user: User) -> Membership | ShareRefused:
    """`user` joins the project the invitation is for, with its role."""
    found = Invitation.objects.select_for_update().filter(token=token).first()
    if found is None or found.revoked_at is not None or found.project.deleted_at is not None:
        return ShareRefused("This invitation link does not work: it was taken back, or mistyped.")
    if found.accepted_at is not None:
        return ShareRefused("This invitation was used already: a link works once.")
    if found.expires_at <= timezone.now():
        return ShareRefused("This invitation expired: ask for another.")
    project = held(found.project)
    if user.pk == project.owner_id:
        return ShareRefused("You own this project already.")
    if Membership.objects.filter(project=project, user=user).exists():
        return ShareRefused("You are in this project already.")
    membership = Membership.objects.create(
        project=project, user=user, role=found.role, added_by=found.invited_by
    )
    found.accepted_by, found.accepted_at = user, timezone.now()
    found.save(update_fields=["accepted_by", "accepted_at"])
    activity_add(
        project=project,
        actor=found.invited_by,
        kind=Kind.SHARED,
        subject_name=user.get_username(),
        detail=found.role,
    )
    announce(project, user.pk, member_role(found.role))
    return membership


@transaction.atomic
def invitation_revoke(*, project: Project, by: User, invitation_id: int) -> ShareRefused | None:
    locked = held(project)
    refused = owner_only(locked, by, "share")
    if refused:
        return refused
    # Kept, marked: it still counts against the bounds on mail sent.
    taken_back = Invitation.objects.filter(
        project=locked, pk=invitation_id, accepted_at__isnull=True, revoked_at__isnull=True
    ).update(revoked_at=timezone.now())
    return None if taken_back else ShareRefused("That invitation was used or taken back already.")


def invitations_waiting(*, project: Project) -> list[Invitation]:
    return list(
        Invitation.objects.filter(
            project=project,
            accepted_at__isnull=True,
            revoked_at__isnull=True,
            expires_at__gt=timezone.now(),
        ).order_by("email")
    )
