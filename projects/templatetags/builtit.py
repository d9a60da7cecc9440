from __future__ import annotations

from datetime import datetime, timedelta

from django import template
from django.contrib.auth.models import AbstractBaseUser
from django.utils import timezone
from django.utils.timesince import timesince

from common.sizes import human_size
from common.users import person_name
from projects.models import Project
from projects.publish.selectors import site_of
from projects.web import sites
from projects.web.sandbox import SANDBOX

register = template.Library()


@register.filter(name="human_size")
def human_size_filter(size: int | None) -> str:
    return human_size(int(size or 0))


@register.filter(name="person_name")
def person_name_filter(user: AbstractBaseUser | None) -> str:
    """A person named to another as the chat names them ("Ada", not "ada")."""
    return "" if user is None else person_name(user)


@register.filter
def wait_text(wait: timedelta) -> str:
    """A wait as a person says it: "15 minutes", "1 hour", "45 seconds"."""
    seconds = round(wait.total_seconds())
    for unit, size in (("hour", 3600), ("minute", 60)):
        if (seconds >= size and seconds % size == 0) or seconds >= 2 * size:
            count = round(seconds / size)
            return f"{count} {unit}{'' if count == 1 else 's'}"
    return f"{seconds} second{'' if seconds == 1 else 's'}"


@register.filter
def ago(moment: datetime | None) -> str:
    """ "just now", or "5 minutes ago" (Django's timesince, then "ago")."""
    if moment is None:
        return ""
    if timezone.now() - moment < timedelta(minutes=1):
        return "just now"
    return f"{timesince(moment)} ago"


@register.filter
def basename(path: str) -> str:
    return path.rsplit("/", 1)[-1]


@register.simple_tag
def preview_sandbox() -> str:
    return SANDBOX


@register.simple_tag(takes_context=True)
def sites_origin(context: template.Context) -> str:
    """The origin that serves project content (projects.web.sites)."""
    return sites.sites_origin(context["request"])


@register.simple_tag
def preview_path(project: Project, path: str = "") -> str:
    """A preview's path on the sites origin; `path` is relative to the site's root."""
    return sites.preview_path(project.preview_token, path)


@register.simple_tag(takes_context=True)
def site_address(context: template.Context, name: str) -> str:
    """A published site's address (projects.web.sites.site_url)."""
    return sites.site_url(context["request"], name)


@register.simple_tag(takes_context=True)
def live_address(context: template.Context, project: Project) -> str:
    """The address of the project's site while it is live; "" when it is not."""
    site = site_of(project)
    if site is None or site.live_id is None or site.taken_down:
        return ""
    return sites.site_url(context["request"], site.name)
