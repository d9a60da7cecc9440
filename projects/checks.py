"""Configuration that would send the app's cookies to the sites origin
(projects.web.sites), reported at start-up."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Error, register

from common.sites import origin_domain


@register()
def check_sites_origin(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    messages: list[CheckMessage] = []
    configured: str | None = settings.BUILTIT_SITES_ORIGIN
    sites = origin_domain(configured) if configured is not None else None
    for name in ("SESSION_COOKIE_DOMAIN", "CSRF_COOKIE_DOMAIN", "LANGUAGE_COOKIE_DOMAIN"):
        domain = getattr(settings, name, None)
        if domain and _reaches(str(domain), sites):
            messages.append(
                Error(
                    f"{name} is {domain!r}: the browser would send the app's cookies to "
                    "the sites origin, where people's pages run.",
                    hint="Leave it unset (cookies for the app's host only), or choose a "
                    "BUILTIT_SITES_ORIGIN outside that domain.",
                    id="projects.E001",
                )
            )
    return messages


def _reaches(cookie_domain: str, sites: str | None) -> bool:
    """Whether a cookie for `cookie_domain` is sent to the sites host."""
    domain = cookie_domain.lower().lstrip(".")
    if sites is None:  # "sites." before each of the app's names
        return True
    return sites == domain or sites.endswith("." + domain)
