"""The Share dialog: who is in the project, each with a role; the owner adds,
changes and removes people, offers the project to someone (who accepts or
declines it, here or on their dashboard) and reads its activity list; a
member sees who is in and may leave. projects.sharing does the work."""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.defaultfilters import date
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from common.users import current_user, person_name
from projects.access import Access, access_for, project_access, project_for
from projects.activity import a_role, activity_list
from projects.invitations import (
    invitation_accept,
    invitation_get,
    invitation_revoke,
    invitation_send,
    invitations_waiting,
)
from projects.models import Membership, Project
from projects.publish.forms.selectors import mail_configured
from projects.sharing import (
    ShareRefused,
    hand_over_offer_accept,
    hand_over_offer_decline,
    hand_over_offer_make,
    hand_over_offer_open,
    hand_over_offer_withdraw,
    hand_over_offered,
    membership_add,
    membership_leave,
    membership_remove,
    membership_role_set,
)


@require_GET
def share_panel(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    return _panel(request, access_for(request, project_id, "view"))


@require_POST
def share_add(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    project = project_for(request, project_id, "share")
    username = request.POST.get("username", "")
    role = request.POST.get("role", "")
    result = membership_add(project=project, by=current_user(request), username=username, role=role)
    if isinstance(result, ShareRefused):
        return _panel(request, _owner(project), error=result.message, username=username)
    said = f"Shared with {person_name(result.user)} as {result.get_role_display().lower()}."
    return _panel(request, _owner(project), said=said)


@require_POST
def share_role(request: HttpRequest, project_id: uuid.UUID, user_id: int) -> HttpResponse:
    project = project_for(request, project_id, "share")
    person = _member(project, user_id)
    result = membership_role_set(
        project=project, by=current_user(request), user=person, role=request.POST.get("role", "")
    )
    if isinstance(result, ShareRefused):
        return _panel(request, _owner(project), error=result.message)
    said = f"{person_name(person)} is now {a_role(result.role)}."
    return _panel(request, _owner(project), said=said)


@require_POST
def share_remove(request: HttpRequest, project_id: uuid.UUID, user_id: int) -> HttpResponse:
    project = project_for(request, project_id, "share")
    person = _member(project, user_id)
    refused = membership_remove(project=project, by=current_user(request), user=person)
    if refused:
        return _panel(request, _owner(project), error=refused.message)
    return _panel(request, _owner(project), said=f"Removed {person_name(person)}.")


@require_POST
def share_invite(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    project = project_for(request, project_id, "share")
    email = request.POST.get("email", "")
    result = invitation_send(
        project=project,
        by=current_user(request),
        email=email,
        role=request.POST.get("role", ""),
        link=lambda token: request.build_absolute_uri(reverse("invitation_open", args=[token])),
    )
    if isinstance(result, ShareRefused):
        return _panel(request, _owner(project), error=result.message, email=email)
    said = (
        f"Invited {result.email} as {result.get_role_display().lower()}: the link is in the mail."
    )
    return _panel(request, _owner(project), said=said)


@require_POST
def share_invite_revoke(
    request: HttpRequest, project_id: uuid.UUID, invitation_id: int
) -> HttpResponse:
    project = project_for(request, project_id, "share")
    refused = invitation_revoke(
        project=project, by=current_user(request), invitation_id=invitation_id
    )
    if refused:
        return _panel(request, _owner(project), error=refused.message)
    return _panel(request, _owner(project), said="Invitation taken back: its link no longer works.")


@require_http_methods(["GET", "POST"])
def invitation_open(request: HttpRequest, token: str) -> HttpResponse:
    """The mailed link: who invites the signed-in person to what; Join accepts."""
    invitation = invitation_get(token=token)
    error = ""
    if request.method == "POST":
        result = invitation_accept(token=token, user=current_user(request))
        if isinstance(result, Membership):
            messages.success(request, f"You joined {result.project.name}.")
            return redirect("workspace", project_id=result.project_id)
        error = result.message
    context = {"invitation": invitation, "error": error}
    return render(request, "projects/invitation.html", context, status=200 if invitation else 404)


@require_POST
def share_leave(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    access = access_for(request, project_id, "view")
    refused = membership_leave(project=access.project, user=current_user(request))
    if refused:
        return _panel(request, access, error=refused.message)
    messages.success(request, f"You left {access.project.name}.")
    return HttpResponseClientRedirect(reverse("dashboard"))


@require_POST
def share_hand_over(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    """Offer the project to a person: it is theirs once they accept."""
    project = project_for(request, project_id, "hand_over")
    username = request.POST.get("username", "")
    result = hand_over_offer_make(project=project, by=current_user(request), username=username)
    if isinstance(result, ShareRefused):
        return _panel(request, _owner(project), error=result.message, new_owner=username)
    name = person_name(result.to_user)
    said = (
        f"Offered to {name}: it is theirs once they accept, until "
        f"{date(result.expires_at, 'j M')}. Until then it stays yours."
    )
    return _panel(request, _owner(project), said=said)


@require_POST
def share_hand_over_withdraw(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    project = project_for(request, project_id, "hand_over")
    refused = hand_over_offer_withdraw(project=project, by=current_user(request))
    if refused:
        return _panel(request, _owner(project), error=refused.message)
    return _panel(request, _owner(project), said="Offer taken back: the project stays yours.")


@require_POST
def hand_over_accept(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    """The receiver's Accept, on their dashboard or in Share: the project is theirs."""
    _may_answer(request, project_id)
    result = hand_over_offer_accept(project_id=project_id, user=current_user(request))
    if isinstance(result, ShareRefused):
        return _answered(request, project_id, error=result.message)
    messages.success(
        request,
        f"{result.name} is yours now: only you can publish, share or delete it. "
        "Its Git remote was the old owner's, so connect your own.",
    )
    return redirect("workspace", project_id=result.pk)


@require_POST
def hand_over_decline(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    _may_answer(request, project_id)
    refused = hand_over_offer_decline(project_id=project_id, user=current_user(request))
    if refused:
        return _answered(request, project_id, error=refused.message)
    return _answered(request, project_id, said="Offer declined: the project stays its owner's.")


def _may_answer(request: HttpRequest, project_id: uuid.UUID) -> None:
    """An offer lets its receiver answer it, though the project is not shared
    with them; anyone else goes through the one rule (a stranger: a 404)."""
    if not hand_over_offered(user=current_user(request), project_id=project_id):
        access_for(request, project_id, "view")


def _answered(
    request: HttpRequest, project_id: uuid.UUID, *, said: str = "", error: str = ""
) -> HttpResponse:
    """Back where the answer was given: the dashboard, or the project while
    the person is in it."""
    if said:
        messages.success(request, said)
    if error:
        messages.error(request, error)
    if request.POST.get("back") != "dashboard" and project_access(request.user, project_id):
        return redirect("workspace", project_id=project_id)
    return redirect("dashboard")


def _owner(project: Project) -> Access:
    return Access(project, "owner")


def _member(project: Project, user_id: int) -> User:
    found = Membership.objects.filter(project=project, user_id=user_id).select_related("user")
    membership = found.first()
    if membership is None:
        raise Http404("No such person in this project.")
    return membership.user


def _panel(
    request: HttpRequest,
    access: Access,
    *,
    said: str = "",
    error: str = "",
    username: str = "",
    new_owner: str = "",
    email: str = "",
) -> HttpResponse:
    project = access.project
    members = (
        Membership.objects.filter(project=project).select_related("user").order_by("user__username")
    )
    owner = access.role == "owner"
    context = {
        "project": project,
        "owner_name": person_name(project.owner),
        "role": access.role,
        "is_owner": owner,
        "members": members,
        "roles": Membership.Role.choices,
        "activity": activity_list(project=project) if owner else [],
        # Inviting by email only where the server can send it.
        "mail": owner and mail_configured(),
        "invitations": invitations_waiting(project=project) if owner else [],
        "offer": hand_over_offer_open(project=project),
        "email": email,
        "said": said,
        "error": error,
        "username": username,
        "new_owner": new_owner,
    }
    return render(request, "projects/partials/share.html", context)
