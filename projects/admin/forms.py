"""Staff views of what published sites' forms received (projects.publish.forms):
to look into a site reported for abuse, or spam. Read-only: a submission is a
visitor's words to a site's owner; staff may delete one, never change it."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest
from django.utils.html import format_html_join

from projects.models import FormSubmission
from projects.publish.forms.fields import Fields


@admin.register(FormSubmission)
class FormSubmissionAdmin(admin.ModelAdmin[FormSubmission]):
    list_display = ["form", "project", "owner", "created_at", "spam", "test", "is_read", "mail"]
    list_filter = ["spam", "test", "mail", "created_at"]
    search_fields = ["form", "text", "project__name", "project__owner__username"]
    list_select_related = ["project__owner"]
    date_hierarchy = "created_at"
    fields = ("project", "form", "sent", "page", "created_at", "spam", "test", "read_at", "mail")
    readonly_fields = fields

    @admin.display(description="owner")
    def owner(self, submission: FormSubmission) -> str:
        return submission.project.owner.username

    @admin.display(boolean=True, description="read")
    def is_read(self, submission: FormSubmission) -> bool:
        return submission.read_at is not None

    @admin.display(description="fields")
    def sent(self, submission: FormSubmission) -> str:
        pairs = Fields.stored(submission.fields).pairs
        return format_html_join("", "<p><strong>{}</strong>: {}</p>", pairs)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        # Staff read it (the change page, read-only), but never rewrite it.
        return request.method in {"GET", "HEAD"}
