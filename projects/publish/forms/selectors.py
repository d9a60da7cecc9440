"""Reading submissions for their owner: the inbox, its counts, and whether
mail can be sent at all."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db.models import Count, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

from projects.models import FormSettings, FormSubmission, Project

INBOX_PAGE = 50  # submissions shown at once


def mail_configured() -> bool:
    """Whether the server can send mail at all (EMAIL_HOST is set)."""
    return bool(settings.EMAIL_HOST)


def mail_choice(*, project: Project) -> str:
    found = FormSettings.objects.filter(project=project).values_list("mail", flat=True).first()
    return found or FormSettings.Mail.EACH


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
