"""Staff views of projects: the trash, purging, the preview link."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django.contrib import admin, messages
from django.db.models import Count, QuerySet, Sum
from django.db.models.functions import Coalesce
from django.http import HttpRequest
from django.utils.html import format_html

from common.sizes import human_size
from projects.admin.members import (
    HandOverOfferInline,
    InvitationInline,
    MembershipInline,
    ProjectActivityInline,
)
from projects.lifecycle import project_purge, project_restore, project_rotate_preview_token
from projects.models import Project
from projects.web.sites import preview_url


class InTrash(admin.SimpleListFilter):
    title = "trash"
    parameter_name = "trash"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("no", "Live projects"), ("yes", "In the trash")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Project]) -> QuerySet[Project]:
        if self.value() == "yes":
            return queryset.filter(deleted_at__isnull=False)
        if self.value() == "no":
            return queryset.filter(deleted_at__isnull=True)
        return queryset


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin[Project]):
    list_display = ["name", "owner", "file_count", "total_size_display", "updated_at", "created_at"]
    list_filter = [InTrash, "created_at", "updated_at"]
    search_fields = ["name", "description", "owner__username", "owner__email"]
    list_select_related = ["owner"]
    raw_id_fields = ["owner"]
    # And the preview link, made for each request (get_fields below).
    readonly_fields = ["id", "created_at", "updated_at", "deleted_at"]
    fields = [
        "id",
        "owner",
        "name",
        "description",
        "default_model",
        "turn_cost_limit",
        "project_cost_limit",
        "created_at",
        "updated_at",
        "deleted_at",
    ]
    date_hierarchy = "updated_at"
    inlines = [MembershipInline, InvitationInline, HandOverOfferInline, ProjectActivityInline]
    actions = ["rotate_preview_tokens", "restore_from_trash", "purge"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Project]:
        # Staff see the trash too (the default manager hides it everywhere else).
        return Project.all_objects.annotate(
            _file_count=Count("files"), _total_size=Coalesce(Sum("files__size"), 0)
        )

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # "Purge" says what it does, and checks
        return actions

    def delete_model(self, request: HttpRequest, obj: Project) -> None:
        problem = project_purge(project=obj)
        if problem is not None:
            self.message_user(request, problem.message, level=messages.ERROR)

    @admin.action(description="Restore from the trash")
    def restore_from_trash(self, request: HttpRequest, queryset: QuerySet[Project]) -> None:
        trashed = [project for project in queryset if project.deleted_at is not None]
        for project in trashed:
            project_restore(project=project)
        self.message_user(request, f"Restored {len(trashed)} project(s).")

    @admin.action(description="Purge: delete for good, with files, history and chats")
    def purge(self, request: HttpRequest, queryset: QuerySet[Project]) -> None:
        refused = [p.name for p in queryset if project_purge(project=p) is not None]
        if refused:
            self.message_user(
                request,
                f"Not purged while the assistant works on them: {', '.join(refused)}.",
                level=messages.WARNING,
            )

    @admin.display(description="files", ordering="_file_count")
    def file_count(self, project: Project) -> int:
        return getattr(project, "_file_count", 0)

    @admin.display(description="size", ordering="_total_size")
    def total_size_display(self, project: Project) -> str:
        return human_size(getattr(project, "_total_size", 0))

    # The stubs allow names only; Django takes a callable among the fields too.
    def get_fields(  # type: ignore[override]
        self, request: HttpRequest, obj: Project | None = None
    ) -> Sequence[Any]:
        fields: list[Any] = list(self.fields)
        fields.insert(fields.index("created_at"), _preview_link(request))
        return fields

    def get_readonly_fields(  # type: ignore[override]
        self, request: HttpRequest, obj: Project | None = None
    ) -> Sequence[Any]:
        # Who owns a project changes only by the owner's hand-over (Share), which
        # checks the new owner's names and storage and writes the activity list.
        owner = ["owner"] if obj is not None else []
        return [*self.readonly_fields, *owner, _preview_link(request)]

    @admin.action(description="Rotate preview links (old links stop working)")
    def rotate_preview_tokens(self, request: HttpRequest, queryset: QuerySet[Project]) -> None:
        for project in queryset:
            project_rotate_preview_token(project=project)
        self.message_user(request, f"Rotated {queryset.count()} preview link(s).")


def _preview_link(request: HttpRequest) -> Callable[[Project], str]:
    """The preview link of the project shown, on the sites origin of the app
    this request reached; one function per request, as the admin form wants
    the same object among its fields and its read-only fields."""
    made: Callable[[Project], str] | None = getattr(request, "_builtit_preview_link", None)
    if made is not None:
        return made

    @admin.display(description="preview")
    def preview_link(project: Project) -> str:
        url = preview_url(request, project.preview_token)
        return format_html('<a href="{}" target="_blank" rel="noopener">open preview</a>', url)

    request._builtit_preview_link = preview_link  # type: ignore[attr-defined]
    return preview_link
