"""A project as a Git repository (projects.git): the commits of its `main`
branch, one for each step of its history (a turn, a save, an undo, a push),
kept once made so their ids never change; the objects a push brought that the
files cannot give back (other branches, tags, the pushed commits themselves);
and the refs other than `main`. Trees and file blobs of `main` are derived from
the revision log, never stored twice."""

from __future__ import annotations

from django.db import models

from projects.models.projects import Project


class GitCommit(models.Model):
    """One commit of `main`, in order (`sequence`): the project's files right
    after revision `upto` are its tree."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="git_commits")
    sequence = models.PositiveIntegerField()
    sha = models.CharField(max_length=40)
    upto = models.PositiveBigIntegerField(help_text="The newest revision it holds (0: before any).")
    data = models.BinaryField(help_text="The commit object's bytes, as Git hashes them.")
    pushed = models.BooleanField(default=False, help_text="Made by a push, not from history.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["project", "sequence"]
        constraints = [
            models.UniqueConstraint(
                fields=["project", "sequence"], name="gitcommit_unique_sequence"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.sha[:12]} (#{self.sequence})"


class GitObject(models.Model):
    """An object a push brought (commit, tree, blob or tag), zlib-compressed."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="git_objects")
    sha = models.CharField(max_length=40)
    type_num = models.PositiveSmallIntegerField()
    data = models.BinaryField()
    size = models.PositiveIntegerField(help_text="Bytes, uncompressed.")
    stored_size = models.PositiveIntegerField(default=0, help_text="Bytes as stored.")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "sha"], name="gitobject_unique_sha"),
        ]

    def __str__(self) -> str:
        return self.sha


class GitRef(models.Model):
    """A branch other than `main`, or a tag, as a push left it."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="git_refs")
    name = models.CharField(max_length=250)
    sha = models.CharField(max_length=40)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["project", "name"], name="gitref_unique_name"),
        ]

    def __str__(self) -> str:
        return self.name


class GitRemote(models.Model):
    """The Git host a project is kept in sync with (GitHub, GitLab…): its
    HTTPS address and the token that opens it, sealed (common.sealed)."""

    project = models.OneToOneField(Project, on_delete=models.CASCADE, related_name="git_remote")
    url = models.CharField(max_length=500)
    username = models.CharField(max_length=100, blank=True)
    token_sealed = models.TextField(blank=True, help_text="Encrypted; empty: none.")
    last_pushed_at = models.DateTimeField(null=True, blank=True)
    last_pulled_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return self.url
