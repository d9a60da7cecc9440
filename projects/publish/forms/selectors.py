"""Reading submissions for their owner: the inbox, its counts, and whether
mail can be sent at all."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.conf import settings
from django.db.models import Count, OuterRef, Q, QuerySet, Subquery, Sum
from django.db.models.functions import Coalesce

from projects.models import FormSettings, FormSubmission, Project

INBOX_PAGE = 50  # submissions shown at once


def mail_configured() -> bool:
    """Whether the server can send mail at all (EMAIL_HOST is set)."""
    return bool(settings.EMAIL_HOST)


def mail_choice(*, project: Project) -> str:
    found = FormSettings.objects.filter(project=project).values_list("mail", flat=True).first()
    return found or FormSettings.Mail.EACH


@dataclass(frozen=True)
class InboxSize:
    """What a project keeps, against BUILTIT_FORMS_MAX_KEPT and _MAX_KEPT_BYTES.

    `size` counts the characters of the fields as one text (FormSubmission.size:
    of its text, names and values): a byte each in plain English, what the bound
    means to bound; Django has no portable byte length, and the order is what matters."""

    count: int
    size: int

    @property
    def share(self) -> float:
        """How full the inbox is, 0 to 1 (or past it), by whichever bound is nearer."""
        return max(
            self.count / settings.BUILTIT_FORMS_MAX_KEPT,
            self.size / settings.BUILTIT_FORMS_MAX_KEPT_BYTES,
        )

    def fits(self, *, count: int, size: int) -> bool:
        """Whether `count` more submissions of `size` characters stay within both bounds."""
        return (
            self.count + count <= settings.BUILTIT_FORMS_MAX_KEPT
            and self.size + size <= settings.BUILTIT_FORMS_MAX_KEPT_BYTES
        )


def inbox_size(*, project_id: uuid.UUID) -> InboxSize:
    """One aggregate over the project's rows, read from an index (project, size):
    at most BUILTIT_FORMS_MAX_KEPT of them, read at most BUILTIT_FORMS_PER_SITE
    times a minute."""
    got = FormSubmission.objects.filter(project_id=project_id).aggregate(
        count=Count("pk"), size=Coalesce(Sum("size"), 0)
    )
    return InboxSize(count=int(got["count"]), size=int(got["size"]))


def unread_count(*, project: Project) -> int:
    """Submissions the owner has not read (spam aside: it is not news)."""
    return FormSubmission.objects.filter(project=project, spam=False, read_at__isnull=True).count()


def unread_annotation() -> Coalesce:
    """unread_count for each of many projects at once (the dashboard's cards),
    as a subquery: a join would multiply the cards' other counts."""
    counted = (
        FormSubmission.objects.filter(project=OuterRef("pk"), spam=False, read_at__isnull=True)
        .order_by()
        .values("project")
        .annotate(unread=Count("pk"))
        .values("unread")[:1]
    )
    return Coalesce(Subquery(counted), 0)


@dataclass(frozen=True)
class FormCount:
    form: str
    total: int
    unread: int


def form_counts(*, project: Project, spam: bool) -> list[FormCount]:
    rows = (
        FormSubmission.objects.filter(project=project, spam=spam)
        .values("form")
        .annotate(total=Count("pk"), unread=Count("pk", filter=Q(read_at__isnull=True)))
        .order_by("form")
    )
    return [FormCount(row["form"], row["total"], row["unread"]) for row in rows]


def submissions_for(
    *, project: Project, form: str = "", spam: bool = False, search: str = ""
) -> QuerySet[FormSubmission]:
    """The project's submissions, newest first: of one form, spam or not,
    holding `search` in a field's name or value."""
    found = FormSubmission.objects.filter(project=project, spam=spam)
    if form:
        found = found.filter(form=form)
    for word in search.split()[:10]:
        found = found.filter(text__icontains=word)
    return found.order_by("-created_at", "-pk")
