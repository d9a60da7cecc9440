"""Projects, their files, and the revision log that means nothing is ever lost."""

from __future__ import annotations

import secrets
import uuid
import zlib

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
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["project", "path"])]

    def __str__(self) -> str:
        return f"{self.action} {self.path}"

    @property
    def content_before(self) -> str | None:
        return None if self.before is None else self.before.text

    @property
    def content_after(self) -> str | None:
        return None if self.after is None else self.after.text


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


class Site(models.Model):
    """A project's published site: the address its owner chose (`/<name>/` on the
    sites origin) and which frozen version it serves (projects.publish)."""

    project = models.OneToOneField(Project, on_delete=models.CASCADE, related_name="site")
    name = models.CharField(
        max_length=63, unique=True, help_text="Its address on the sites origin."
    )
    # None: not published (the address then answers 410, and says so).
    live = models.ForeignKey(
        "SiteVersion", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    published_at = models.DateTimeField(
        null=True, blank=True, help_text="When `live` last changed."
    )
    taken_down = models.TextField(
        blank=True,
        help_text="Staff's reason for taking the site down, shown at its address; "
        "while set, its owner cannot publish it. Empty it to put the site back.",
    )
    # A hash (django.contrib.auth.hashers), never the password; empty: public.
    password = models.CharField(max_length=128, blank=True, editable=False)
    domain = models.CharField(
        max_length=253,
        unique=True,
        null=True,
        blank=True,
        editable=False,
        help_text="A domain of the owner's, proven by DNS (DomainClaim), that serves the "
        "site too (by its Host header).",
    )
    # The check's findings its owner read and published anyway, by mark (how
    # many of each): an Update asks again only of new or changed ones
    # (projects.publish.acceptance).
    accepted_findings = models.JSONField(default=dict, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name

    @property
    def protected(self) -> bool:
        return bool(self.password)


def new_domain_token() -> str:
    return secrets.token_hex(16)


class DomainClaim(models.Model):
    """A site's claim to a domain of its owner's, and how proving it goes
    (projects.publish.domains). A claim serves nothing and keeps no one out:
    many sites may claim one domain. The site answers there once a TXT record
    at `_builtit.<domain>` holds `builtit-verify=<token>`; then `Site.domain`
    names it, and it is that site's until its owner drops it, or its record is
    gone and another site proves the domain."""

    class State(models.TextChoices):
        WAITING = "waiting", "not checked yet"
        MISSING = "missing", "no record found"
        UNREACHABLE = "unreachable", "the DNS servers did not answer"
        HELD = "held", "held by another site"
        PROVEN = "proven", "proven"
        GONE = "gone", "proven, its record gone since"
        TAKEN = "taken", "taken by another site"
        REFUSED = "refused", "refused"

    site = models.OneToOneField(Site, on_delete=models.CASCADE, related_name="domain_claim")
    domain = models.CharField(max_length=253, db_index=True)
    # Unguessable, and the same for as long as the claim lasts: a record once
    # added keeps proving it.
    token = models.CharField(max_length=64, default=new_domain_token, editable=False)
    claimed_at = models.DateTimeField(auto_now_add=True)
    state = models.CharField(max_length=12, choices=State.choices, default=State.WAITING)
    said = models.TextField(blank=True, help_text="What the last check found, in words.")
    checked_at = models.DateTimeField(null=True, blank=True)
    proven_at = models.DateTimeField(null=True, blank=True)
    # The server checks by itself for a while from here (the claim, or a Check now).
    checks_from = models.DateTimeField()
    # None: no check is planned (proven, taken, or the while is over).
    next_check_at = models.DateTimeField(null=True, blank=True, db_index=True)

    def __str__(self) -> str:
        return f"{self.domain} for {self.site_id}"


class HeldSiteName(models.Model):
    """The name of a site staff took down, kept from everyone after the site is
    gone (its project purged): a link to it, passed around, must never reach
    someone else's site. Staff delete the row to let the name go."""

    name = models.CharField(max_length=63, unique=True)
    reason = models.TextField(help_text="Why the site was taken down.")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name


class SiteVersion(models.Model):
    """The exact files of a site at one moment, named by their texts in the
    project's history store (RevisionBlob: stored once by content, counted once
    in the owner's storage)."""

    site = models.ForeignKey(Site, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    published_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    file_count = models.PositiveIntegerField()
    size = models.PositiveBigIntegerField(help_text="Bytes of its files.")

    class Meta:
        ordering = ["-number"]
        constraints = [
            models.UniqueConstraint(fields=["site", "number"], name="siteversion_unique_number")
        ]

    def __str__(self) -> str:
        return f"{self.site.name} v{self.number}"


class SiteFile(models.Model):
    version = models.ForeignKey(SiteVersion, on_delete=models.CASCADE, related_name="files")
    path = models.CharField(max_length=200)
    # A binary file's text is its marker, naming its BinaryBlob (projects.files.binaries).
    # RESTRICT: a blob a version names outlives every sweep, and goes with its project.
    blob = models.ForeignKey(RevisionBlob, on_delete=models.RESTRICT, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["version", "path"], name="sitefile_unique_path")
        ]

    def __str__(self) -> str:
        return self.path
