"""A project's published site: its address, its own domain and that domain's
proof, the names it held, and its frozen versions with their files."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models

from projects.models.files import RevisionBlob
from projects.models.projects import Project


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
