"""Projects, their files, and the revision log that means nothing is ever lost.

The app's models, one module per part, gathered here as Django finds an app's
models (and as migrations name them: `projects.models.new_preview_token`)."""

from projects.models.files import BinaryBlob, FileRevision, ProjectFile, Reversal, RevisionBlob
from projects.models.forms import FormSettings, FormSubmission
from projects.models.git import GitCommit, GitObject, GitRef, GitRemote
from projects.models.members import HandOverOffer, Invitation, Membership, ProjectActivity
from projects.models.projects import (
    LiveProjectManager,
    Project,
    ProjectLock,
    RetiredPreviewToken,
    WorkspacePreferences,
    new_preview_token,
)
from projects.models.sites import (
    DomainClaim,
    HeldSiteName,
    Site,
    SiteFile,
    SiteVersion,
    new_domain_token,
)

__all__ = [
    "BinaryBlob",
    "DomainClaim",
    "FileRevision",
    "FormSettings",
    "FormSubmission",
    "GitCommit",
    "GitObject",
    "GitRef",
    "GitRemote",
    "HandOverOffer",
    "HeldSiteName",
    "Invitation",
    "LiveProjectManager",
    "Membership",
    "Project",
    "ProjectActivity",
    "ProjectFile",
    "ProjectLock",
    "RetiredPreviewToken",
    "Reversal",
    "RevisionBlob",
    "Site",
    "SiteFile",
    "SiteVersion",
    "WorkspacePreferences",
    "new_domain_token",
    "new_preview_token",
]
