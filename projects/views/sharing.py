"""The Share dialog: who is in the project, each with a role; the owner adds,
changes and removes people, hands the project over and reads its activity
list; a member sees who is in and may leave. projects.sharing does the work."""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from common.users import current_user, person_name
from projects.access import Access, access_for, project_for
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
    membership_add,
    membership_leave,
    membership_remove,
    membership_role_set,
    project_hand_over,
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
    project = project_for(request, project_id, "hand_over")
    username = request.POST.get("username", "")
    result = project_hand_over(project=project, by=current_user(request), username=username)
    if isinstance(result, ShareRefused):
        return _panel(request, _owner(project), error=result.message, new_owner=username)
    said = (
        f"{person_name(result.owner)} owns {result.name} now. You stay on as an editor: "
        "only they can publish, share or delete it."
    )
    return _panel(request, Access(result, "editor"), said=said)


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
        "email": email,
        "said": said,
        "error": error,
        "username": username,
        "new_owner": new_owner,
    }
    return render(request, "projects/partials/share.html", context)
