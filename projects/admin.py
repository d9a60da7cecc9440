"""Staff views of projects, files and revisions. File writes go through the file
service, so the admin obeys the same path rules and limits and leaves a revision."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db import transaction
from django.db.models import Count, QuerySet, Sum
from django.db.models.functions import Coalesce
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join

from common.admin import ReadOnlyAdmin
from common.sizes import human_size
from common.users import current_user
from projects.files.paths import PathError, normalize_path
from projects.files.results import FileError, FileWrite
from projects.lifecycle import project_purge, project_restore, project_rotate_preview_token
from projects.models import FileRevision, HeldSiteName, Project, ProjectFile, Reversal, Site
from projects.publish.domains import site_domain_drop
from projects.services import Author, file_create, file_delete, file_rename, file_update
from projects.web.diff_html import file_diff
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
        return [*self.readonly_fields, _preview_link(request)]

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


class _Refused(Exception):
    def __init__(self, error: FileError) -> None:
        super().__init__(error.message)
        self.error = error


class ProjectFileForm(forms.ModelForm[ProjectFile]):
    """Writes through the file service while validating, so its refusals show as form errors."""

    author: Author | None = None
    # Text exactly as typed: no stripping of leading or trailing whitespace.
    content = forms.CharField(
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 30, "cols": 100, "spellcheck": "false"}),
    )
    # The version the form was opened at: a save over a newer change is refused.
    loaded_version = forms.IntegerField(widget=forms.HiddenInput, required=False)

    class Meta:
        model = ProjectFile
        fields = ["project", "path", "content"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk is not None:
            self.fields["loaded_version"].initial = self.instance.version

    def clean_path(self) -> str:
        result = normalize_path(self.cleaned_data.get("path", ""))
        if isinstance(result, PathError):
            raise forms.ValidationError(result.message)
        return result

    def clean_content(self) -> str:
        content: str = self.cleaned_data.get("content", "")
        # Browsers send a textarea's lines with CRLF; keep the file's own endings.
        original = self.instance.content if self.instance.pk is not None else ""
        return content if "\r\n" in original else content.replace("\r\n", "\n")

    def _get_validation_exclusions(self) -> set[str]:
        # The file service checks uniqueness (including case-only clashes) itself.
        exclusions: set[str] = super()._get_validation_exclusions()  # type: ignore[misc]
        return {*exclusions, "path", "project"}

    def _post_clean(self) -> None:
        # After Django's own validation of the fields, before the form counts as valid.
        super()._post_clean()  # type: ignore[misc]
        if self.errors or self.author is None:
            return
        try:
            with transaction.atomic():
                self._write(self.author)
        except _Refused as refused:
            self.add_error(None, refused.error.message)

    def _write(self, author: Author) -> None:
        wanted = self.instance
        if wanted.pk is None:
            _check(
                file_create(
                    project=wanted.project, path=wanted.path, content=wanted.content, author=author
                )
            )
            return
        original = ProjectFile.objects.get(pk=wanted.pk)
        version = self.cleaned_data.get("loaded_version") or original.version
        if wanted.path != original.path:
            renamed = _check(
                file_rename(
                    project=original.project,
                    path=original.path,
                    new_path=wanted.path,
                    author=author,
                    expected_version=version,
                )
            )
            version = renamed.version
        if wanted.content != original.content:
            _check(
                file_update(
                    project=original.project,
                    path=wanted.path,
                    content=wanted.content,
                    author=author,
                    expected_version=version,
                )
            )


def _check(result: FileWrite | FileError) -> FileWrite:
    if isinstance(result, FileError):
        raise _Refused(result)
    return result


@admin.register(ProjectFile)
class ProjectFileAdmin(admin.ModelAdmin[ProjectFile]):
    form = ProjectFileForm
    list_display = ["path", "project", "size_display", "version", "updated_at"]
    list_filter = ["updated_at"]
    search_fields = ["path", "project__name", "project__owner__username"]
    list_select_related = ["project", "project__owner"]
    raw_id_fields = ["project"]
    readonly_fields = ["size", "version", "created_at", "updated_at"]

    @admin.display(description="size", ordering="size")
    def size_display(self, record: ProjectFile) -> str:
        return human_size(record.size)

    def get_readonly_fields(
        self, request: HttpRequest, obj: ProjectFile | None = None
    ) -> list[str] | tuple[str, ...]:
        # A file belongs to its project for life; moving it would bypass its limits.
        fields = list(super().get_readonly_fields(request, obj))
        return [*fields, "project"] if obj is not None else fields

    def get_form(
        self,
        request: HttpRequest,
        obj: ProjectFile | None = None,
        change: bool = False,
        **kwargs: Any,
    ) -> type[forms.ModelForm[ProjectFile]]:
        form = super().get_form(request, obj, change, **kwargs)
        author = Author.person(current_user(request))
        return type("ProjectFileFormForUser", (form,), {"author": author})

    def save_model(self, request: HttpRequest, obj: ProjectFile, form: Any, change: bool) -> None:
        # The form already wrote through the file service; pick up what it stored.
        stored = ProjectFile.objects.get(project=obj.project, path=obj.path)
        obj.pk, obj.size, obj.version = stored.pk, stored.size, stored.version

    def delete_model(self, request: HttpRequest, obj: ProjectFile) -> None:
        author = Author.person(current_user(request))
        file_delete(project=obj.project, path=obj.path, author=author)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[ProjectFile]) -> None:
        for record in queryset.select_related("project"):
            self.delete_model(request, record)


_REVISION_FIELDS = (
    "created_at",
    "project",
    "action",
    "path",
    "old_path",
    "actor",
    "user",
    "message",
    "version_after",
    "reversal",
    "changes",
    "text_before",
    "text_after",
)


@admin.register(FileRevision)
class FileRevisionAdmin(ReadOnlyAdmin[FileRevision]):
    """The revision log is history: staff may read it, never rewrite it."""

    list_display = [
        "created_at",
        "project",
        "action",
        "path",
        "old_path",
        "actor",
        "user",
        "version_after",
    ]
    list_filter = ["action", "actor", "created_at"]
    search_fields = ["path", "old_path", "project__name", "project__owner__username"]
    list_select_related = ["project", "user"]
    date_hierarchy = "created_at"
    readonly_fields = _REVISION_FIELDS
    fields = _REVISION_FIELDS

    class Media:
        css = {"all": ["builtit/diff.css"]}

    @admin.display(description="changes")
    def changes(self, revision: FileRevision) -> str:
        """What the revision changed, as the workspace shows it (inline)."""
        shown = file_diff(
            revision.content_before, revision.content_after, path=revision.path, layout="inline"
        )
        notes = format_html_join(
            "", '<p class="diff-note">{}</p>', ((note,) for note in shown.notes)
        )
        return format_html("{}{}", notes, shown.table)

    @admin.display(description="content before")
    def text_before(self, revision: FileRevision) -> str:
        return _pre(revision.content_before)

    @admin.display(description="content after")
    def text_after(self, revision: FileRevision) -> str:
        return _pre(revision.content_after)


_REVERSAL_FIELDS = (
    "created_at",
    "project",
    "kind",
    "user",
    "message",
    "reverses",
    "point",
    "summary",
)


@admin.register(Reversal)
class ReversalAdmin(ReadOnlyAdmin[Reversal]):
    """Undos, redos and restores: what people took back, and when (read only)."""

    list_display = ["created_at", "project", "kind", "user", "summary"]
    list_filter = ["kind", "created_at"]
    search_fields = ["summary", "project__name", "user__username"]
    list_select_related = ["project", "user"]
    date_hierarchy = "created_at"
    readonly_fields = _REVERSAL_FIELDS
    fields = _REVERSAL_FIELDS


def _pre(text: str | None) -> str:
    if text is None:
        return "(no file)"
    return format_html('<pre style="white-space: pre-wrap">{}</pre>', text)


@admin.register(HeldSiteName)
class HeldSiteNameAdmin(admin.ModelAdmin[HeldSiteName]):
    """Names of sites taken down and gone, kept from everyone: delete one to let
    it go, or add one to keep a name no site should have."""

    list_display = ["name", "reason", "created_at"]
    search_fields = ["name", "reason"]


@admin.register(Site)
class SiteAdmin(admin.ModelAdmin[Site]):
    """Published sites. Staff take one down by writing why (shown at its address);
    emptying the reason puts it back. Staff may also drop the domain a site
    claims (an action). Everything else is the owner's; a domain serves a site
    only once proven by DNS (projects.publish.domains)."""

    list_display = [
        "name",
        "project",
        "owner",
        "live",
        "published_at",
        "domain",
        "is_protected",
        "is_taken_down",
    ]
    list_filter = ["published_at"]
    search_fields = ["name", "domain", "project__name", "project__owner__username", "taken_down"]
    list_select_related = ["project__owner", "live"]
    fields = [
        "name",
        "project",
        "live",
        "published_at",
        "address",
        "domain",
        "claim",
        "is_protected",
        "taken_down",
        "created_at",
    ]
    readonly_fields = [
        "name",
        "project",
        "live",
        "published_at",
        "address",
        "domain",
        "claim",
        "is_protected",
        "created_at",
    ]
    actions = ["drop_domains"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a site is made by its owner's first publish

    @admin.display(description="owner")
    def owner(self, site: Site) -> str:
        return site.project.owner.get_username()

    @admin.display(description="taken down", boolean=True)
    def is_taken_down(self, site: Site) -> bool:
        return bool(site.taken_down)

    @admin.display(description="password", boolean=True)
    def is_protected(self, site: Site) -> bool:
        return site.protected

    @admin.display(description="domain claimed")
    def claim(self, site: Site) -> str:
        claim = getattr(site, "domain_claim", None)
        if claim is None:
            return "none"
        return f"{claim.domain}: {claim.get_state_display()}. {claim.said}".strip()

    @admin.action(description="Drop their domains (the sites stop answering there)")
    def drop_domains(self, request: HttpRequest, queryset: QuerySet[Site]) -> None:
        refused = [(site, site_domain_drop(site=site)) for site in queryset]
        for site, error in refused:
            if error is not None:
                self.message_user(request, f"{site.name}: {error.message}", messages.ERROR)

    @admin.display(description="address")
    def address(self, site: Site) -> str:
        return format_html(
            "<code>{}.</code> before the sites host, and <code>/s/{}/</code> on it",
            site.name,
            site.name,
        )
