"""Sharing a project: the owner adds a person by username as a viewer or an
editor, changes their role, removes them, or hands the project over; a member
leaves. projects.access says what each role may do; here, who is in.

Each service runs in one transaction, writes a line of the project's activity
list, and once that commits sends `access_changed` for the person whose access
changed, so their open pages follow. Only the owner may change who is in: the
views ask projects.access first, and the services refuse anyone else too."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from common.refusals import Refusal
from common.sizes import human_size
from projects.access import Action, Role, member_role, refusal
from projects.activity import Kind, a_role, activity_add
from projects.files.limits import current_limits
from projects.git.remotes import remote_delete
from projects.lifecycle import name_taken, project_rotate_preview_token
from projects.models import Membership, Project
from projects.signals import access_changed
from projects.usage import project_stored, storage_used


@dataclass(frozen=True)
class ShareRefused(Refusal):
    """A change to who is in refused, and why."""


ROLES = Membership.Role


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
    """The person `username` names, if the project may go to them; why not otherwise.
    The view asks this before it asks the owner to confirm."""
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
    # A person's projects never share a name (projects.lifecycle).
    clash = name_taken(owner_id=person.pk, name=project.name)
    if clash is not None:
        return ShareRefused(
            f"{person.get_username()} already has a project named {clash}: rename this one "
            "(or ask them to rename theirs), then hand it over."
        )
    return person


def _room_problem(project: Project, person: User) -> User | ShareRefused:
    """The project's bytes count against its owner's storage: handed to someone
    whose storage it would pass, it is refused, as a write past it is."""
    quota = current_limits().max_user_storage_bytes
    if not quota:
        return person
    used, adding = storage_used(person.pk), project_stored(project.pk)
    if used + adding <= quota:
        return person
    return ShareRefused(
        f"{project.name} takes {human_size(adding)}, and {person.get_username()}'s projects "
        f"already take {human_size(used)} of their {human_size(quota)}: it would pass their "
        "storage. They can make room first, or you can delete what the project no longer needs."
    )


@transaction.atomic
def project_hand_over(*, project: Project, by: User, username: str) -> Project | ShareRefused:
    """`username` owns the project from now on; the old owner stays on as an editor.
    The project's Git remote goes: its sealed token is the old owner's, and opens
    their account at the Git host."""
    locked = held(project)
    person = _receiver(project=locked, by=by, username=username)
    if isinstance(person, ShareRefused):
        return person
    # Their row held: two projects handed to them at once take turns, so the
    # second counts the first and both cannot pass their storage.
    User.objects.select_for_update().filter(pk=person.pk).first()
    room = _room_problem(locked, person)
    if isinstance(room, ShareRefused):
        return room
    old_owner = locked.owner
    Membership.objects.filter(project=locked, user=person).delete()
    locked.owner = person
    try:
        with transaction.atomic():
            locked.save(update_fields=["owner", "updated_at"])
    except IntegrityError:  # they named a project so meanwhile (the database's rule)
        return ShareRefused(
            f"{person.get_username()} already has a project named {locked.name}: rename this "
            "one, then hand it over."
        )
    Membership.objects.create(project=locked, user=old_owner, role=ROLES.EDITOR, added_by=person)
    remote_delete(project=locked)
    activity_add(
        project=locked,
        actor=by,
        kind=Kind.HANDED_OVER,
        subject_name=person.get_username(),
    )
    announce(locked, person.pk, "owner")
    announce(locked, old_owner.pk, "editor")
    project.owner = person
    return locked


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
