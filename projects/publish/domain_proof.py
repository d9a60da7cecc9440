"""What a look-up of `_builtit.<domain>` means for the sites that claim the
domain (DomainClaim), and when the server looks again.

The rule, as on GitHub Pages: a claim serves nothing until its record is
seen; then the domain is its site's (Site.domain). The site keeps it while
its record stays there: a later claimant whose record is seen too is told
that the domain's DNS holds both, and waits. Once the holder's record is
gone, the next site whose record is seen takes the domain (until then the
holder goes on serving: a record removed by mistake costs nothing until
someone else proves the domain). Whoever manages the domain's DNS decides,
never who claimed first.

After a claim or a Check now the server looks again by itself for WINDOW, at
gaps growing from a minute to an hour (projects.publish.domains)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.formats import date_format

from projects.models import DomainClaim, Site
from projects.publish.dns_records import LookupFailed, Records
from projects.publish.names import RECORD_PREFIX

VALUE_PREFIX = "builtit-verify="
WINDOW = timedelta(days=3)
FIRST_GAP = timedelta(minutes=1)
LAST_GAP = timedelta(hours=1)
_SHOWN_VALUES = 3  # of the values found, when none is the site's
_SHOWN_CHARS = 80

State = DomainClaim.State


def record_name(domain: str) -> str:
    return RECORD_PREFIX + domain


def record_value(token: str) -> str:
    return VALUE_PREFIX + token


def next_check(*, since: datetime, now: datetime) -> datetime | None:
    """When to look again for a claim checked by itself since `since`; None
    once WINDOW is over."""
    elapsed = now - since
    if elapsed >= WINDOW:
        return None
    return now + min(max(elapsed / 10, FIRST_GAP), LAST_GAP)


@dataclass
class _Holder:
    site: Site | None  # the site the domain serves now
    present: bool  # its record is among what was found


@transaction.atomic
def lookup_apply(
    *, domain: str, claim_ids: Collection[int], found: Records | LookupFailed, refusal: str | None
) -> None:
    """Say what `found` (the look-up of `domain`'s record) means for each of
    the claims `claim_ids`, and move the domain to the site that proved it.
    `refusal`: why the domain can no longer be anyone's (the settings changed)."""
    now = timezone.now()
    holder = _holder(domain, found)
    claims = DomainClaim.objects.select_for_update().select_related("site")
    held_by = holder.site.pk if holder.site is not None else None
    # The holder's own claim first: what it learns is not undone by a take.
    ordered = sorted(
        claims.filter(pk__in=claim_ids, domain=domain),
        key=lambda claim: (claim.site_id != held_by, claim.claimed_at),
    )
    for claim in ordered:
        _claim_apply(claim, found, holder, refusal, now)


def _holder(domain: str, found: Records | LookupFailed) -> _Holder:
    site = Site.objects.select_for_update().filter(domain=domain).first()
    if site is None:
        return _Holder(None, present=False)
    token = DomainClaim.objects.filter(site=site, domain=domain).values_list("token", flat=True)
    present = isinstance(found, Records) and any(
        record_value(value) in found.values for value in token
    )
    return _Holder(site, present)


def _claim_apply(
    claim: DomainClaim,
    found: Records | LookupFailed,
    holder: _Holder,
    refusal: str | None,
    now: datetime,
) -> None:
    claim.checked_at = now
    holds = holder.site is not None and holder.site.pk == claim.site_id
    if refusal is not None:
        _said(claim, State.REFUSED, refusal, planned=False)
    elif isinstance(found, LookupFailed):
        _said(claim, State.UNREACHABLE, found.said, planned=not holds, now=now)
    elif record_value(claim.token) not in found.values:
        if holds:
            _said(claim, State.GONE, _gone(claim.domain), planned=False)
        else:
            _said(claim, State.MISSING, _missing(claim.domain, found.values), planned=True, now=now)
    elif holds or holder.site is None or not holder.present:
        _take(claim, holder, now)
    else:
        _said(claim, State.HELD, _held(claim.domain), planned=True, now=now)
    claim.save()


def _said(
    claim: DomainClaim,
    state: DomainClaim.State,
    said: str,
    *,
    planned: bool,
    now: datetime | None = None,
) -> None:
    claim.state = state
    claim.said = said
    claim.next_check_at = next_check(since=claim.checks_from, now=now) if planned and now else None


def _take(claim: DomainClaim, holder: _Holder, now: datetime) -> None:
    """The domain is `claim`'s site's from now: taken from whoever held it."""
    lost = holder.site
    if lost is not None and lost.pk != claim.site_id:
        lost.domain = None  # first: Site.domain is unique
        lost.save(update_fields=["domain"])
        DomainClaim.objects.filter(site=lost, domain=claim.domain).update(
            state=State.TAKEN, said=_taken(claim.domain, now), next_check_at=None, proven_at=None
        )
    site = claim.site
    if site.domain != claim.domain:
        site.domain = claim.domain
        site.save(update_fields=["domain"])
        claim.proven_at = now
    _said(claim, State.PROVEN, "The record is in place.", planned=False)
    holder.site, holder.present = site, True


def _missing(domain: str, values: tuple[str, ...]) -> str:
    name = record_name(domain)
    if not values:
        return f"No TXT record at {name} yet."
    shown = ", ".join(f"“{_cut(value)}”" for value in values[:_SHOWN_VALUES])
    more = f" and {len(values) - _SHOWN_VALUES} more" if len(values) > _SHOWN_VALUES else ""
    count = f"{len(values)} TXT value{'' if len(values) == 1 else 's'}"
    return f"{name} holds {count}, none of them this site's: {shown}{more}."


def _held(domain: str) -> str:
    return (
        f"The record is in place, but another site here holds {domain} and its record at "
        f"{record_name(domain)} is still there too. Whoever manages the domain's DNS "
        "decides: once the other builtit-verify value is removed, this site takes the domain."
    )


def _gone(domain: str) -> str:
    return (
        f"The site answers at {domain}, but its record at {record_name(domain)} is gone: "
        "add it again, or another site here that proves the domain takes it."
    )


def _taken(domain: str, now: datetime) -> str:
    when = date_format(timezone.localtime(now), "j F Y, H:i")
    return (
        f"Another site here proved {domain} on {when}, while this site's record at "
        f"{record_name(domain)} was gone: the site no longer answers there."
    )


def _cut(value: str) -> str:
    return value if len(value) <= _SHOWN_CHARS else value[: _SHOWN_CHARS - 1] + "…"
