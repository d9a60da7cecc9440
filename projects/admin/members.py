"""Staff views of who is in each project and of its activity list. Read-only:
who is in changes through the owner's Share dialog (projects.sharing), which
writes the activity list and tells the person's open pages at once; an edit
here would do neither."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from common.admin import ReadOnlyAdmin
from projects.models import HandOverOffer, Invitation, Membership, ProjectActivity


class _ReadOnlyInline(admin.TabularInline):  # type: ignore[type-arg]
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class MembershipInline(_ReadOnlyInline):
    model = Membership
    fk_name = "project"
    fields = readonly_fields = ("user", "role", "added_by", "created_at", "updated_at")
    verbose_name = "person it is shared with"
    verbose_name_plural = "shared with"


class InvitationInline(_ReadOnlyInline):
    model = Invitation
    fk_name = "project"
    fields = readonly_fields = (
        "email",
        "role",
        "invited_by",
        "created_at",
        "expires_at",
        "accepted_by",
        "accepted_at",
        "revoked_at",
    )
    verbose_name_plural = "invitations by email"


class HandOverOfferInline(_ReadOnlyInline):
    model = HandOverOffer
    fk_name = "project"
    fields = readonly_fields = ("to_user", "offered_by", "created_at", "expires_at")
    verbose_name = "hand-over offer waiting for an answer"
    verbose_name_plural = "hand-over offer"


class ProjectActivityInline(_ReadOnlyInline):
    model = ProjectActivity
    fields = readonly_fields = ("created_at", "actor_name", "kind", "subject_name", "detail")
    ordering = ["-created_at", "-pk"]
    verbose_name_plural = "activity"


@admin.register(Membership)
class MembershipAdmin(ReadOnlyAdmin[Membership]):
    list_display = ["project", "user", "role", "owner", "added_by", "created_at"]
    list_filter = ["role", "created_at"]
    search_fields = ["user__username", "user__email", "project__name", "project__owner__username"]
    list_select_related = ["project__owner", "user", "added_by"]
    fields = readonly_fields = ("project", "user", "role", "added_by", "created_at", "updated_at")

    @admin.display(description="owner", ordering="project__owner__username")
    def owner(self, membership: Membership) -> str:
        return membership.project.owner.get_username()
