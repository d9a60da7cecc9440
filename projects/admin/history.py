"""Staff views of the revision log and of undos and restores: history to read,
never to rewrite."""

from __future__ import annotations

from django.contrib import admin
from django.utils.html import format_html, format_html_join

from common.admin import ReadOnlyAdmin
from projects.models import FileRevision, Reversal
from projects.web.diff_html import file_diff

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
