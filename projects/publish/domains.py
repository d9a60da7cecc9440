"""A site's own domain: claimed by its owner, proven by a DNS TXT record
(projects.publish.domain_proof for what a look-up means), dropped.

Checks happen when the owner claims or presses Check now, and by themselves
for a while after (DomainClaim.next_check_at): when the Publish dialog asks
how the claim goes, when a proxy asks `/domain-check` about the domain, and
in `manage.py check_domains` (cron). The plan lives in the database, so any
process may make a check that is due, and a restart loses none; a process
takes a due claim by moving its time on (a lease) before it looks, so two
never make the same check, and one that dies mid-check frees it in LEASE."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import Min
from django.utils import timezone

from common.sites import is_sites_domain
from projects.models import DomainClaim, Site
from projects.publish.dns_records import LookupFailed, Records, txt_records
from projects.publish.domain_proof import lookup_apply, record_name
from projects.publish.names import domain_parsed, domain_problem
from projects.publish.services import PublishRefused

LEASE = timedelta(minutes=1)  # a look-up takes at most dns_records.LIFETIME
CHECK_NOW_GAP = 10  # seconds after a Check now in which another does not look again
MAX_CLAIMS_PER_CHECK = 50  # of one domain, in one look-up
_SWEEP_THREADS = 8


def site_domain_set(*, site: Site, domain: str) -> PublishRefused | None:
    """Claim `domain` (what a person typed: "https://Shop.example.com/" will do)
    for the site, and look for its record at once; an empty `domain` drops it."""
    wanted = domain_parsed(domain)
    if not wanted:
        return site_domain_drop(site=site)
    refused = domain_refusal(wanted)
    if refused:
        return PublishRefused(refused)
    try:
        claim = _claim(site, wanted)
    except IntegrityError:  # the same site, claiming in another tab meanwhile
        return PublishRefused("The domain was just changed elsewhere: look again and retry.")
    if isinstance(claim, PublishRefused):
        return claim
    if claim.checked_at is None:
        _check(wanted, [claim])
    site.refresh_from_db(fields=["domain"])
    return None


@transaction.atomic
def _claim(site: Site, domain: str) -> DomainClaim | PublishRefused:
    locked = Site.objects.select_for_update().get(pk=site.pk)
    current = DomainClaim.objects.filter(site=locked).first()
    if current is not None and current.domain == domain:
        return current  # the same claim, with the same record
    refused = _loses_password_host(locked)
    if refused:
        return refused
    if current is not None:
        current.delete()
    if locked.domain:
        locked.domain = None
        locked.save(update_fields=["domain"])
    now = timezone.now()
    return DomainClaim.objects.create(
        site=locked, domain=domain, checks_from=now, next_check_at=now
    )


def site_domain_drop(*, site: Site) -> PublishRefused | None:
    """The site no longer claims a domain; a proof it had goes with the claim."""
    with transaction.atomic():
        locked = Site.objects.select_for_update().get(pk=site.pk)
        refused = _loses_password_host(locked)
        if refused:
            return refused
        DomainClaim.objects.filter(site=locked).delete()
        if locked.domain:
            locked.domain = None
            locked.save(update_fields=["domain"])
    site.domain = None
    return None


def _loses_password_host(site: Site) -> PublishRefused | None:
    if site.protected and site.domain and not settings.BUILTIT_SITES_SUBDOMAINS:
        return PublishRefused(
            "Its password works only at a host of the site's own: make the site public "
            "first, or keep the domain."
        )
    return None


def site_domain_check(*, site: Site) -> DomainClaim | None:
    """Check now: look for the site's record (unless Check now was pressed a
    moment ago), and check by itself for another while. None: no claim."""
    claim = DomainClaim.objects.filter(site=site).first()
    if claim is None:
        return None
    # Presses, not checks, are bounded: the claim's own check a moment ago
    # does not make the person wait for the record they have just added.
    if not cache.add(f"builtit:check-now:{claim.pk}", 1, timeout=CHECK_NOW_GAP):
        return claim
    if claim.state not in {DomainClaim.State.PROVEN, DomainClaim.State.GONE}:
        DomainClaim.objects.filter(pk=claim.pk).update(checks_from=timezone.now())
    _check(claim.domain, [claim])
    site.refresh_from_db(fields=["domain"])
    claim.refresh_from_db()
    return claim


def domain_check_due(*, domain: str) -> bool:
    """Make the check of `domain` if a claim of it is due (one look-up for
    every claim due); whether one was made."""
    if domain_problem(domain):
        return False
    leased = _leased(domain, timezone.now())
    if leased:
        _check(domain, leased)
    return bool(leased)


def domain_checks_due(*, limit: int = 100) -> int:
    """The checks due, of at most `limit` domains (the most overdue first),
    looked up a few at a time: how many domains were checked."""
    now = timezone.now()
    due = (
        DomainClaim.objects.filter(next_check_at__lte=now)
        .values("domain")
        .annotate(first=Min("next_check_at"))
        .order_by("first")[:limit]
    )
    batches = {row["domain"]: _leased(row["domain"], now) for row in due}
    batches = {domain: claims for domain, claims in batches.items() if claims}
    with ThreadPoolExecutor(max_workers=_SWEEP_THREADS) as pool:
        found = dict(zip(batches, pool.map(_lookup, batches), strict=True))
    for domain, claims in batches.items():
        _apply(domain, claims, found[domain])
    return len(batches)


def _leased(domain: str, now: datetime) -> list[DomainClaim]:
    """The due claims of `domain` this process now checks, each taken from
    every other process by moving its time on."""
    due = DomainClaim.objects.filter(domain=domain, next_check_at__lte=now).order_by(
        "next_check_at"
    )[:MAX_CLAIMS_PER_CHECK]
    return [
        claim
        for claim in due
        if DomainClaim.objects.filter(pk=claim.pk, next_check_at=claim.next_check_at).update(
            next_check_at=now + LEASE
        )
    ]


def _check(domain: str, claims: list[DomainClaim]) -> None:
    _apply(domain, claims, _lookup(domain))


def _lookup(domain: str) -> Records | LookupFailed:
    return txt_records(record_name(domain))


def _apply(domain: str, claims: list[DomainClaim], found: Records | LookupFailed) -> None:
    ids = [claim.pk for claim in claims]
    try:
        lookup_apply(domain=domain, claim_ids=ids, found=found, refusal=domain_refusal(domain))
    except IntegrityError:  # another process gave the domain to a site meanwhile
        DomainClaim.objects.filter(pk__in=ids).update(next_check_at=timezone.now() + LEASE)


def domain_refusal(domain: str) -> str | None:
    """Why `domain` (as domain_parsed made it) can never be a site's own here,
    in words; None if a site may claim it. Not this server's own names, nor a
    name under them: under the app's host a site's page could set cookies the
    app reads, and the sites host's names are sites'."""
    problem = domain_problem(domain)
    if problem:
        return problem
    if "*" in settings.ALLOWED_HOSTS:
        return (
            "This server takes every host name for its own (ALLOWED_HOSTS is *): "
            "it cannot serve a site at a domain."
        )
    # The closest first: shop.sites.localhost is under sites.localhost, then localhost.
    for allowed in sorted(settings.ALLOWED_HOSTS, key=len, reverse=True):
        own = allowed.lower().lstrip(".")
        if domain != own and not domain.endswith("." + own):
            continue
        where = domain if domain == own else f"{domain} is under {own}, and {own}"
        if is_sites_domain(own, settings.BUILTIT_SITES_ORIGIN):
            return f"{where} is where this server names its sites: name a domain of yours."
        return f"{where} is this server's own address: name a domain of yours."
    return None
