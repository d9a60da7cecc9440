"""A project, and what belongs to it as a whole: its owner's workspace
preferences, its retired preview addresses and its turn lock."""

from __future__ import annotations

import secrets
import uuid

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower


def new_preview_token() -> str:
    return secrets.token_urlsafe(24)


class LiveProjectManager(models.Manager["Project"]):
    """Projects not in the trash: the one place that rule lives. Every view, the
    socket, the preview, the file service and the chat command go through
    `Project.objects`; only the trash and staff's admin use `all_objects`."""

    def get_queryset(self) -> models.QuerySet[Project]:
        return super().get_queryset().filter(deleted_at__isnull=True)


class Project(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="projects"
    )
    name = models.CharField(max_length=100)
    description = models.TextField(blank=True)
    default_model = models.CharField(
        max_length=200, blank=True, help_text="Model id for this project; blank uses the server's."
    )
    # Spending caps in credits; blank uses the server's (BUILTIT_*_COST_LIMIT), 0 means none.
    turn_cost_limit = models.DecimalField(
        max_digits=12, decimal_places=4, null=True, blank=True, help_text="Per chat turn."
    )
    project_cost_limit = models.DecimalField(
        max_digits=12, decimal_places=4, null=True, blank=True, help_text="For all turns together."
    )
    preview_token = models.CharField(
        max_length=64, unique=True, default=new_preview_token, editable=False
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Set when the owner deletes it: in the trash, restorable until purged.
    deleted_at = models.DateTimeField(null=True, blank=True, db_index=True)

    all_objects = models.Manager()
    objects = LiveProjectManager()

    class Meta:
        ordering = ["-updated_at"]
        indexes = [models.Index(fields=["owner", "-updated_at"])]
        constraints = [
            # A person's projects out of the trash never share a name
            # (projects.lifecycle, which also reads "Café" and "CAFÉ" as one).
            models.UniqueConstraint(
                "owner",
                Lower("name"),
                condition=models.Q(deleted_at__isnull=True),
                name="project_unique_live_name",
            )
        ]
        default_manager_name = "objects"
        base_manager_name = "all_objects"

    def __str__(self) -> str:
        return self.name


class WorkspacePreferences(models.Model):
    """How a person likes the workspace, wherever they sign in: panel widths,
    hidden panels, line wrap, light or dark (projects.web.preferences checks them)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="workspace_preferences"
    )
    values = models.JSONField(default=dict, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "workspace preferences"

    def __str__(self) -> str:
        return f"Workspace preferences of {self.user_id}"


class RetiredPreviewToken(models.Model):
    """A preview address the owner replaced ("New link"), so a visitor with the
    old one is told it was replaced rather than that nothing is there. A few
    per project are kept (projects.lifecycle.RETIRED_TOKENS_KEPT)."""

    project = models.ForeignKey(
        Project, on_delete=models.CASCADE, related_name="retired_preview_tokens"
    )
    token = models.CharField(max_length=64, unique=True)
    retired_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.token[:6]}… of {self.project_id}"


class ProjectLock(models.Model):
    """Present while the assistant works on a project: one turn at a time, across
    every server process (the row lives in the shared database, not in memory).

    The holder refreshes `expires_at` while it works; a holder that crashed
    stops refreshing and its row is taken over once it has expired.
    """

    project = models.OneToOneField(
        Project, on_delete=models.CASCADE, primary_key=True, related_name="lock"
    )
    holder = models.CharField(max_length=64)
    purpose = models.CharField(max_length=40)
    # What other processes need to reach the holder (e.g. its control channel).
    details = models.JSONField(default=dict, blank=True)
    acquired_at = models.DateTimeField()
    expires_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.purpose} on {self.project_id}"
