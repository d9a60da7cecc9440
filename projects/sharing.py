"""Sharing a project: the owner adds a person by username as a viewer or an
editor, changes their role, removes them, or offers the project to someone,
who owns it once they accept; a member leaves. projects.access says what
each role may do; here, who is in.

Each service runs in one transaction, writes a line of the project's activity
list, and once that commits sends `access_changed` for the person whose access
changed, so their open pages follow. Only the owner may change who is in: the
views ask projects.access first, and the services refuse anyone else too."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from common.refusals import Refusal
from common.sizes import human_size
from projects.access import Action, Role, member_role, refusal
from projects.activity import Kind, a_role, activity_add
from projects.files.limits import current_limits
from projects.git.remotes import remote_delete
from projects.lifecycle import name_taken, project_rotate_preview_token
from projects.models import HandOverOffer, Membership, Project
from projects.signals import access_changed
from projects.usage import project_stored, storage_used


@dataclass(frozen=True)
class ShareRefused(Refusal):
    """A change to who is in refused, and why."""


ROLES = Membership.Role

OFFER_LASTS = timedelta(days=7)  # as an invitation's link
OFFERS_SHOWN = 50  # on a dashboard: offers a person has not answered


@transaction.atomic
def membership_add(
    *, project: Project, by: User, username: str, role: str
) -> Membership | ShareRefused:
    """`username` joins the project as `role` ("viewer" or "editor")."""
    locked = held(project)
    refused = owner_only(locked, by, "share") or role_problem(role)
    if refused:
        return refused
    person = _person(username)
    if isinstance(person, ShareRefused):
        return person
    if person.pk == locked.owner_id:
        return ShareRefused(f"{person.get_username()} is you: you own this project already.")
    existing = Membership.objects.filter(project=locked, user=person).first()
    if existing is not None:
        return _already(person, existing, role)
    try:
        with transaction.atomic():
            membership = Membership.objects.create(
                project=locked, user=person, role=role, added_by=by
            )
    except IntegrityError:  # another tab added them meanwhile
        return ShareRefused(f"{person.get_username()} was just added: see the list.")
    activity_add(
        project=locked, actor=by, kind=Kind.SHARED, subject_name=person.get_username(), detail=role
    )
    announce(locked, person.pk, member_role(role))
    return membership


@transaction.atomic
def membership_role_set(
    *, project: Project, by: User, user: User, role: str
) -> Membership | ShareRefused:
    """The member's role is now `role`; the same role changes nothing."""
    locked = held(project)
    refused = owner_only(locked, by, "share") or role_problem(role)
    if refused:
        return refused
    membership = Membership.objects.select_for_update().filter(project=locked, user=user).first()
    if membership is None:
        return _not_member(user)
    if membership.role == role:
        return membership
    membership.role = role
    membership.save(update_fields=["role", "updated_at"])
    activity_add(
        project=locked,
        actor=by,
        kind=Kind.ROLE_CHANGED,
        subject_name=user.get_username(),
        detail=role,
    )
    announce(locked, user.pk, member_role(role))
    return membership


@transaction.atomic
def membership_remove(*, project: Project, by: User, user: User) -> ShareRefused | None:
    """The member loses the project at once."""
    locked = held(project)
    refused = owner_only(locked, by, "share")
    if refused:
        return refused
    deleted, _ = Membership.objects.filter(project=locked, user=user).delete()
    if not deleted:
        return _not_member(user)
    activity_add(project=locked, actor=by, kind=Kind.REMOVED, subject_name=user.get_username())
    _preview_link_change(project, locked)
    announce(locked, user.pk, None)
    return None


@transaction.atomic
def membership_leave(*, project: Project, user: User) -> ShareRefused | None:
    """A member takes themself off the project."""
    locked = held(project)
    if user.pk == locked.owner_id:
        return ShareRefused(
            "You own this project, so you cannot leave it: hand it over to someone first, "
            "or delete it."
        )
    deleted, _ = Membership.objects.filter(project=locked, user=user).delete()
    if not deleted:
        return ShareRefused("You are not a member of this project.")
    activity_add(project=locked, actor=user, kind=Kind.LEFT)
    _preview_link_change(project, locked)
    announce(locked, user.pk, None)
    return None


def hand_over_problem(*, project: Project, by: User, username: str) -> User | ShareRefused:
    """The person `username` names, if the project may go to them; why not otherwise."""
    person = _receiver(project=project, by=by, username=username)
    return person if isinstance(person, ShareRefused) else _room_problem(project, person)


def _receiver(*, project: Project, by: User, username: str) -> User | ShareRefused:
    refused = owner_only(project, by, "hand_over")
    if refused:
        return refused
    person = _person(username)
    if isinstance(person, ShareRefused):
        return person
    if person.pk == project.owner_id:
        return ShareRefused("You own this project already: name the person to hand it to.")
    return _name_problem(project, person)


def _name_problem(project: Project, person: User) -> User | ShareRefused:
    # A person's projects never share a name (projects.lifecycle).
    clash = name_taken(owner_id=person.pk, name=project.name)
    if clash is None:
        return person
    return ShareRefused(
        f"{person.get_username()} already has a project named {clash}: rename this one "
        "(or ask them to rename theirs), then hand it over."
    )


def _room_problem(project: Project, person: User) -> User | ShareRefused:
    """The project's bytes count against its owner's storage: handed to someone
    whose storage it would pass, it is refused, as a write past it is."""
    passed = _storage_passed(project, person)
    if passed is None:
        return person
    used, adding, quota = passed
    return ShareRefused(
        f"{project.name} takes {human_size(adding)}, and {person.get_username()}'s projects "
        f"already take {human_size(used)} of their {human_size(quota)}: it would pass their "
        "storage. They can make room first, or you can delete what the project no longer needs."
    )


def _storage_passed(project: Project, person: User) -> tuple[int, int, int] | None:
    """What `person`'s projects take, what `project` would add, and their quota,
    when it would pass it; None when it fits."""
    quota = current_limits().max_user_storage_bytes
    if not quota:
        return None
    used, adding = storage_used(person.pk), project_stored(project.pk)
    return None if used + adding <= quota else (used, adding, quota)


# --- handing over: an offer the receiver accepts ---------------------------------------


def hand_over_offer_open(*, project: Project) -> HandOverOffer | None:
    """The project's offer still waiting for an answer (not lapsed), if any."""
    return (
        HandOverOffer.objects.select_related("to_user")
        .filter(project=project, expires_at__gt=timezone.now())
        .first()
    )


def hand_over_offered(*, user: User, project_id: uuid.UUID) -> bool:
    """Whether the project was offered to `user` (lapsed or not): the offer lets
    them answer it, though the project is not shared with them."""
    return HandOverOffer.objects.filter(project_id=project_id, to_user_id=user.pk).exists()


def hand_over_offers_to(*, user: User) -> list[HandOverOffer]:
    """The offers waiting for `user`'s answer, for their dashboard."""
    return list(
        HandOverOffer.objects.select_related("project__owner")
        .filter(to_user=user, expires_at__gt=timezone.now(), project__deleted_at__isnull=True)
        .order_by("created_at")[:OFFERS_SHOWN]
    )


@transaction.atomic
def hand_over_offer_make(
    *, project: Project, by: User, username: str
) -> HandOverOffer | ShareRefused:
    """Offer the project to `username`: nothing moves until they accept. The
    checks made then are made now too, so the owner hears of a clash early."""
    locked = held(project)
    person = hand_over_problem(project=locked, by=by, username=username)
    if isinstance(person, ShareRefused):
        return person
    waiting = HandOverOffer.objects.filter(project=locked).select_related("to_user").first()
    if waiting is not None and waiting.expires_at > timezone.now():
        return ShareRefused(
            f"You offered it to {waiting.to_user.get_username()} already: take that offer "
            "back first."
        )
    if waiting is not None:  # lapsed: the new offer takes its place
        waiting.delete()
    offer = HandOverOffer.objects.create(
        project=locked, to_user=person, offered_by=by, expires_at=timezone.now() + OFFER_LASTS
    )
    activity_add(project=locked, actor=by, kind=Kind.OFFERED, subject_name=person.get_username())
    return offer


@transaction.atomic
def hand_over_offer_withdraw(*, project: Project, by: User) -> ShareRefused | None:
    """The owner takes the offer back: its Accept no longer works."""
    locked = held(project)
    refused = owner_only(locked, by, "hand_over")
    if refused:
        return refused
    offer = HandOverOffer.objects.filter(project=locked).select_related("to_user").first()
    if offer is None:
        return ShareRefused("There is no offer to take back: it was answered or taken back.")
    offer.delete()
    activity_add(
        project=locked,
        actor=by,
        kind=Kind.OFFER_WITHDRAWN,
        subject_name=offer.to_user.get_username(),
    )
    return None


@transaction.atomic
def hand_over_offer_decline(*, project_id: uuid.UUID, user: User) -> ShareRefused | None:
    """The receiver says no: the project stays its owner's."""
    locked = Project.objects.select_for_update().filter(pk=project_id).first()
    offer = _offer_to(locked, user)
    if isinstance(offer, ShareRefused):
        return offer
    assert locked is not None  # an offer was found for it
    offer.delete()
    owner_name = locked.owner.get_username()
    activity_add(project=locked, actor=user, kind=Kind.OFFER_DECLINED, subject_name=owner_name)
    return None


@transaction.atomic
def hand_over_offer_accept(*, project_id: uuid.UUID, user: User) -> Project | ShareRefused:
    """The receiver accepts: they own the project from now on, the old owner
    stays on as an editor. The checks are made again, with the rows held: a
    name or storage taken since the offer refuses it. The project's Git remote
    goes: its sealed token is the old owner's, and opens their account at the
    Git host."""
    locked = Project.objects.select_for_update().filter(pk=project_id).first()
    offer = _offer_to(locked, user)
    if isinstance(offer, ShareRefused):
        return offer
    assert locked is not None  # an offer was found for it
    # Their row held: two projects handed to them at once take turns, so the
    # second counts the first and both cannot pass their storage.
    User.objects.select_for_update().filter(pk=user.pk).first()
    refused = _accept_problem(locked, user)
    if refused:
        return refused
    old_owner = locked.owner
    offer.delete()
    Membership.objects.filter(project=locked, user=user).delete()
    locked.owner = user
    try:
        with transaction.atomic():
            locked.save(update_fields=["owner", "updated_at"])
    except IntegrityError:  # they named a project so meanwhile (the database's rule)
        # Nothing of it kept: the offer still stands, and their membership too.
        transaction.set_rollback(True)
        return ShareRefused(
            f"You already have a project named {locked.name}: rename yours, then accept this one."
        )
    Membership.objects.create(project=locked, user=old_owner, role=ROLES.EDITOR, added_by=user)
    remote_delete(project=locked)
    activity_add(
        project=locked,
        actor=user,
        kind=Kind.OFFER_ACCEPTED,
        subject_name=old_owner.get_username(),
    )
    announce(locked, user.pk, "owner")
    announce(locked, old_owner.pk, "editor")
    return locked


def _accept_problem(project: Project, user: User) -> ShareRefused | None:
    """The offer's checks again, at accept time, in the receiver's words."""
    clash = name_taken(owner_id=user.pk, name=project.name)
    if clash is not None:
        return ShareRefused(
            f"You already have a project named {clash}: rename yours, then accept this one."
        )
    passed = _storage_passed(project, user)
    if passed is None:
        return None
    used, adding, quota = passed
    return ShareRefused(
        f"{project.name} takes {human_size(adding)}, and your projects already take "
        f"{human_size(used)} of your {human_size(quota)}: it would pass your storage. "
        "Make room first, then accept it."
    )


def _offer_to(project: Project | None, user: User) -> HandOverOffer | ShareRefused:
    """The offer of `project` to `user`, its row held, if it still stands."""
    offer = (
        HandOverOffer.objects.select_for_update().filter(project=project, to_user=user).first()
        if project is not None
        else None
    )
    if offer is None or project is None:
        return ShareRefused(
            "This project is not offered to you (any more): the offer was answered or taken back."
        )
    if offer.expires_at <= timezone.now():
        return ShareRefused(
            f"The offer lapsed after {OFFER_LASTS.days} days: ask "
            f"{project.owner.get_username()} to offer it again."
        )
    if offer.offered_by_id != project.owner_id:  # made by someone who owns it no more
        return ShareRefused("This offer no longer stands: the project changed hands.")
    return offer


def _preview_link_change(project: Project, locked: Project) -> None:
    """A person who is out keeps no way in: the secret preview address they
    knew is replaced, as the workspace's New link does."""
    project.preview_token = project_rotate_preview_token(project=locked)


def held(project: Project) -> Project:
    """The project read again and held: two tabs changing who is in take turns."""
    return Project.objects.select_for_update().select_related("owner").get(pk=project.pk)


def owner_only(project: Project, by: User, action: Action) -> ShareRefused | None:
    return None if by.pk == project.owner_id else ShareRefused(refusal(action, "viewer"))


def role_problem(role: str) -> ShareRefused | None:
    if role in ROLES.values:
        return None
    return ShareRefused("Choose a role: Viewer or Editor.")


def _person(username: str) -> User | ShareRefused:
    typed = " ".join(str(username).split())
    if not typed:
        return ShareRefused("Type the username of the person.")
    person = User.objects.filter(username=typed).first()
    if person is None:
        # Usernames are told apart by case; a person typing one seldom does.
        alike = list(User.objects.filter(username__iexact=typed)[:2])
        person = alike[0] if len(alike) == 1 else None
    if person is None:
        return ShareRefused(f"No one here has the username {typed}.")
    if not person.is_active:
        return ShareRefused(
            f"{person.get_username()}'s account is switched off: they cannot sign in."
        )
    return person


def _already(person: User, membership: Membership, role: str) -> ShareRefused:
    name, now = person.get_username(), a_role(membership.role)
    if membership.role == role:
        return ShareRefused(f"{name} is already {now} of this project.")
    return ShareRefused(f"{name} is already {now} of this project: change their role in the list.")


def _not_member(user: User) -> ShareRefused:
    return ShareRefused(f"{user.get_username()} is not a member of this project (any more).")


def announce(project: Project, user_id: int, role: Role | None) -> None:
    transaction.on_commit(
        lambda: access_changed.send(Project, project=project, user_id=user_id, role=role)
    )
