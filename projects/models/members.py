"""Who else works on a project, and what was done to its sharing: the people
the owner added, each with a role (projects.access says what each may do), and
the project's activity list (shared, a role changed, removed, handed over,
published), which only its owner reads."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from projects.models.projects import Project


class Membership(models.Model):
    """A person the owner shared the project with. The owner has no row: the
    project's `owner` is the owner, and one person is never both."""

    class Role(models.TextChoices):
        VIEWER = "viewer", "Viewer"
        EDITOR = "editor", "Editor"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=10, choices=Role.choices)
    added_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint("project", "user", name="membership_one_per_person"),
        ]
        indexes = [models.Index(fields=["user", "project"])]

    def __str__(self) -> str:
        return f"{self.user_id} as {self.role} of {self.project_id}"


class ProjectActivity(models.Model):
    """One thing done to a project's sharing or its site, by whom, for its owner
    to read: kept after the person it names is removed (their name is copied)."""

    class Kind(models.TextChoices):
        SHARED = "shared", "shared"
        ROLE_CHANGED = "role_changed", "changed a role"
        REMOVED = "removed", "removed"
        LEFT = "left", "left"
        HANDED_OVER = "handed_over", "handed over"  # at once, before offers (kept rows)
        OFFERED = "offered", "offered it"
        OFFER_ACCEPTED = "offer_accepted", "accepted the offer"
        OFFER_DECLINED = "offer_declined", "declined the offer"
        OFFER_WITHDRAWN = "offer_withdrawn", "took back the offer"
        PUBLISHED = "published", "published"
        UNPUBLISHED = "unpublished", "unpublished"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="activity")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    actor_name = models.CharField(max_length=150)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    # Whom it was done to (a shared person's name), and what (the role, a version).
    subject_name = models.CharField(max_length=150, blank=True)
    detail = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name_plural = "project activity"

    def __str__(self) -> str:
        return f"{self.actor_name} {self.get_kind_display()} {self.subject_name}".strip()


class Invitation(models.Model):
    """The owner's invitation, by email, to join as `role`: its link (the token)
    is mailed, and a signed-in person who opens it before `expires_at` joins."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="invitations")
    email = models.EmailField()
    role = models.CharField(max_length=10, choices=Membership.Role.choices)
    token = models.CharField(max_length=64, unique=True)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    accepted_at = models.DateTimeField(null=True, blank=True)
    # Taken back: its link no longer works, and it still counts against the
    # bounds on mail sent (projects.invitations), so taking back is no way round them.
    revoked_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.email} as {self.role} of {self.project_id}"


class HandOverOffer(models.Model):
    """The owner's offer to hand the project to `to_user`: the project moves
    only when they accept it, before `expires_at` (projects.sharing). One open
    offer a project, at most: an answered or taken back offer is deleted (the
    activity list keeps what became of it), a lapsed one when the next is made."""

    project = models.OneToOneField(
        Project, on_delete=models.CASCADE, related_name="hand_over_offer"
    )
    to_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="hand_over_offers"
    )
    offered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.project_id} offered to {self.to_user_id}"
