"""What visitors send through a published site's forms (projects.publish.forms),
kept for the project's owner, and how the owner wants to hear of it."""

from __future__ import annotations

from django.db import models

from projects.models.projects import Project


class FormSubmission(models.Model):
    """One form a visitor sent: to a published site, or to the preview (a test)."""

    class Mail(models.TextChoices):
        NONE = "none", "not mailed"  # spam, a test, mail off, or no mail server
        DUE = "due", "to be mailed"
        DIGEST = "digest", "waiting for the day's digest"
        SENT = "sent", "mailed"
        FAILED = "failed", "mailing failed (tried again with the next digest)"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="form_submissions")
    form = models.CharField(max_length=40, help_text="The name in its address, /_forms/<name>.")
    # [[name, value], ...] in the order sent; a name may come more than once
    # (checkboxes). Read through projects.publish.forms.fields.Fields.
    fields = models.JSONField(default=list)
    # The fields as one text, for the inbox's search.
    text = models.TextField(blank=True, editable=False)
    # Characters of `text`, kept so the project's bound on what its forms keep
    # (BUILTIT_FORMS_MAX_KEPT_BYTES) is a sum of small numbers, not a read of every text.
    size = models.PositiveIntegerField(default=0, editable=False)
    page = models.CharField(max_length=500, blank=True, help_text="The page it was sent from.")
    # The visitor's address, only as a keyed hash (for throttling, and to tell
    # two visitors apart); never the address itself.
    address_hash = models.CharField(max_length=64, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    spam = models.BooleanField(default=False, help_text="Its hidden _gotcha field was filled.")
    test = models.BooleanField(default=False, help_text="Sent from the preview, never mailed.")
    read_at = models.DateTimeField(null=True, blank=True)
    mail = models.CharField(max_length=10, choices=Mail.choices, default=Mail.NONE)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(fields=["project", "-created_at"]),
            models.Index(fields=["mail", "created_at"]),
            # Covers the bound's count and sum (inbox_size) without reading the rows.
            models.Index(fields=["project", "size"], name="projects_fo_kept_size"),
        ]

    def __str__(self) -> str:
        return f"{self.form} on {self.created_at:%Y-%m-%d %H:%M}"


class FormSettings(models.Model):
    """How a project's owner hears of its submissions (each mailed, a daily
    digest, or only the inbox); a project without a row mails each."""

    class Mail(models.TextChoices):
        EACH = "each", "Mail me each submission"
        DAILY = "daily", "Mail me a daily digest"
        OFF = "off", "Don't mail me (the inbox only)"

    project = models.OneToOneField(Project, on_delete=models.CASCADE, related_name="form_settings")
    mail = models.CharField(max_length=10, choices=Mail.choices, default=Mail.EACH)
    digest_sent_at = models.DateTimeField(null=True, blank=True, editable=False)

    def __str__(self) -> str:
        return f"forms of {self.project_id}: {self.mail}"
