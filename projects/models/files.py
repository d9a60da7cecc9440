"""A project's files and the revision log that means nothing is ever lost: each
change a revision, texts stored once by content, binary bytes by hash, and the
reversals that take changes back as new revisions."""

from __future__ import annotations

import zlib

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower

from projects.models.projects import Project


class ProjectFile(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="files")
    path = models.CharField(max_length=200)
    content = models.TextField(blank=True)
    size = models.PositiveIntegerField(default=0, help_text="Bytes, UTF-8 encoded.")
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["path"]
        constraints = [
            models.UniqueConstraint(fields=["project", "path"], name="projectfile_unique_path"),
            models.UniqueConstraint(
                "project", Lower("path"), name="projectfile_unique_path_ignoring_case"
            ),
        ]

    def __str__(self) -> str:
        return self.path


class RevisionBlob(models.Model):
    """A text as history keeps it: stored once per project, compressed. The text
    after one change is the text before the next, and undo and restore repeat
    earlier texts, so a change costs at most one new blob, not two texts. A blob
    made from the text before it keeps only what changed: the start and end it
    shares with its base are counted, not stored (projects.files.blobs)."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="revision_blobs")
    digest = models.CharField(max_length=64, help_text="SHA-256 of the UTF-8 text.")
    data = models.BinaryField(
        help_text="UTF-8, zlib-compressed: the text, or with a base the part between prefix "
        "and suffix."
    )
    base = models.ForeignKey(
        "self", on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    prefix = models.PositiveIntegerField(default=0, help_text="Characters kept from base's start.")
    suffix = models.PositiveIntegerField(default=0, help_text="Characters kept from base's end.")
    depth = models.PositiveSmallIntegerField(default=0, help_text="Bases below this one.")
    size = models.PositiveIntegerField(help_text="Bytes of the text.")
    chars = models.PositiveIntegerField(help_text="Characters of the text.")
    stored_size = models.PositiveIntegerField(help_text="Bytes as stored.")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "digest"], name="revisionblob_unique_text")
        ]

    def __str__(self) -> str:
        return f"{self.digest[:12]} ({self.size} bytes)"

    @property
    def text(self) -> str:
        stored = zlib.decompress(bytes(self.data)).decode("utf-8", "surrogatepass")
        if self.base is None:
            return stored
        base = self.base.text  # at most MAX_DEPTH bases deep (projects.files.blobs)
        return base[: self.prefix] + stored + base[len(base) - self.suffix :]


class BinaryBlob(models.Model):
    """The bytes of a binary file (an image, a font…), once per project however
    many files and revisions name them (projects.files.binaries)."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="binary_blobs")
    digest = models.CharField(max_length=64, help_text="SHA-256 of the bytes.")
    size = models.PositiveIntegerField(help_text="Bytes.")
    content_type = models.CharField(max_length=60)
    width = models.PositiveIntegerField(null=True, blank=True)
    height = models.PositiveIntegerField(null=True, blank=True)
    # In the database by default; with BUILTIT_BINARY_STORAGE = "storage", in
    # Django's default storage under `stored_name`.
    data = models.BinaryField(null=True, blank=True)
    stored_name = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "digest"], name="binaryblob_unique_bytes")
        ]

    def __str__(self) -> str:
        return f"{self.content_type} {self.digest[:12]} ({self.size} bytes)"


class Reversal(models.Model):
    """One undo, redo or restore: the file changes it wrote, as one step a person
    can see, be told about, and take back (projects.history.undo)."""

    class Kind(models.TextChoices):
        UNDO = "undo"  # a turn's changes put back
        REDO = "redo"  # an undo (or a redo) taken back
        RESTORE = "restore"  # the whole project as it was at a point

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="reversals")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="reversals",
    )
    # The turn it is about (the person's message that began it): the turn undone,
    # or the turn the project was restored to. A string reference, as above.
    message = models.ForeignKey(
        "chat.Message", on_delete=models.SET_NULL, null=True, blank=True, related_name="reversals"
    )
    reverses = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="reversed_by"
    )
    # The last revision the project's files were restored to (RESTORE only).
    point = models.PositiveBigIntegerField(null=True, blank=True)
    summary = models.TextField(help_text="What it did, in words for the person and the model.")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.kind} in {self.project_id}"


class FileRevision(models.Model):
    """One row per change ever applied; any file state can be rebuilt from these."""

    class Action(models.TextChoices):
        CREATE = "create"
        UPDATE = "update"
        EDIT = "edit"
        RENAME = "rename"
        DELETE = "delete"

    class Actor(models.TextChoices):
        USER = "user"
        ASSISTANT = "assistant"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="revisions")
    action = models.CharField(max_length=10, choices=Action.choices)
    path = models.CharField(max_length=200, help_text="The path after the change.")
    old_path = models.CharField(max_length=200, blank=True, help_text="Before a rename.")
    # None means "no file": before a create, after a delete. Read the texts as
    # content_before / content_after.
    before = models.ForeignKey(
        RevisionBlob, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    after = models.ForeignKey(
        RevisionBlob, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    version_after = models.PositiveIntegerField(null=True, blank=True)
    actor = models.CharField(max_length=10, choices=Actor.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="file_revisions",
    )
    # The assistant message whose tool call made the change. A string reference:
    # projects never imports chat.
    message = models.ForeignKey(
        "chat.Message",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="file_revisions",
    )
    # The undo, redo or restore that wrote this revision, if one did.
    reversal = models.ForeignKey(
        Reversal, on_delete=models.SET_NULL, null=True, blank=True, related_name="revisions"
    )
    # What the person did, in words, when the change was not a plain save
    # ("Edited in the preview: …"): History shows it, the model is told it.
    note = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["project", "path"]),
            # The project's newest revisions by id (a workspace page reads the
            # newest, its first socket what came after): without it PostgreSQL
            # walks the primary key back through every other project's newer
            # rows, 22 ms for a quiet project under 300,000 of them, 0.07 with it.
            models.Index(fields=["project", "id"], name="projects_revision_newest"),
        ]

    def __str__(self) -> str:
        return f"{self.action} {self.path}"

    @property
    def content_before(self) -> str | None:
        return None if self.before is None else self.before.text

    @property
    def content_after(self) -> str | None:
        return None if self.after is None else self.after.text
