"""Staff views of published sites and of the names held from them."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html

from projects.models import HeldSiteName, Site
from projects.publish.domains import site_domain_drop


@admin.register(HeldSiteName)
class HeldSiteNameAdmin(admin.ModelAdmin[HeldSiteName]):
    """Names of sites taken down and gone, kept from everyone: delete one to let
    it go, or add one to keep a name no site should have."""

    list_display = ["name", "reason", "created_at"]
    search_fields = ["name", "reason"]


@admin.register(Site)
class SiteAdmin(admin.ModelAdmin[Site]):
    """Published sites. Staff take one down by writing why (shown at its address);
    emptying the reason puts it back. Staff may also drop the domain a site
    claims (an action). Everything else is the owner's; a domain serves a site
    only once proven by DNS (projects.publish.domains)."""

    list_display = [
        "name",
        "project",
        "owner",
        "live",
        "published_at",
        "domain",
        "is_protected",
        "is_taken_down",
    ]
    list_filter = ["published_at"]
    search_fields = ["name", "domain", "project__name", "project__owner__username", "taken_down"]
    list_select_related = ["project__owner", "live"]
    fields = [
        "name",
        "project",
        "live",
        "published_at",
        "address",
        "domain",
        "claim",
        "is_protected",
        "taken_down",
        "created_at",
    ]
    readonly_fields = [
        "name",
        "project",
        "live",
        "published_at",
        "address",
        "domain",
        "claim",
        "is_protected",
        "created_at",
    ]
    actions = ["drop_domains"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a site is made by its owner's first publish

    @admin.display(description="owner")
    def owner(self, site: Site) -> str:
        return site.project.owner.get_username()

    @admin.display(description="taken down", boolean=True)
    def is_taken_down(self, site: Site) -> bool:
        return bool(site.taken_down)

    @admin.display(description="password", boolean=True)
    def is_protected(self, site: Site) -> bool:
        return site.protected

    @admin.display(description="domain claimed")
    def claim(self, site: Site) -> str:
        claim = getattr(site, "domain_claim", None)
        if claim is None:
            return "none"
        return f"{claim.domain}: {claim.get_state_display()}. {claim.said}".strip()

    @admin.action(description="Drop their domains (the sites stop answering there)")
    def drop_domains(self, request: HttpRequest, queryset: QuerySet[Site]) -> None:
        refused = [(site, site_domain_drop(site=site)) for site in queryset]
        for site, error in refused:
            if error is not None:
                self.message_user(request, f"{site.name}: {error.message}", messages.ERROR)

    @admin.display(description="address")
    def address(self, site: Site) -> str:
        return format_html(
            "<code>{}.</code> before the sites host, and <code>/s/{}/</code> on it",
            site.name,
            site.name,
        )
