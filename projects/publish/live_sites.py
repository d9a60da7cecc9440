"""What each published site's address serves, read from the database once per
change rather than once per request.

A site's address asks which version is live, whether it is kept by a
password, taken down, in the trash, or its owner's account closed: the rows
of Site, Project and User. Each process keeps what it read, with the
*generation* it read it under (projects.generations: one for every site);
anything that changes those rows (a save or a delete, through the signals in
`connect`) moves the generation on, and a process that sees a new generation
forgets all it kept."""

from __future__ import annotations

import threading
import uuid
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db.models.signals import post_delete, post_save

from projects.generations import generation_advance, generation_watched
from projects.models import Project, Site

MAX_KEPT = 10_000  # sites (and names no site has) a process remembers
GENERATION = "sites"


@dataclass(frozen=True)
class LiveSite:
    pk: int
    project_id: uuid.UUID
    name: str
    domain: str | None
    password: str  # a hash; empty: public
    version_id: int | None  # None: not published
    version_made: datetime | None
    taken_down: str
    gone: bool  # its project in the trash, or its owner's account closed

    @property
    def protected(self) -> bool:
        return bool(self.password)


def live_site(*, name: str | None = None, domain: str | None = None) -> LiveSite | None:
    """The site named `name`, or the one at `domain`, as its address serves it."""
    key = ("name", name) if name is not None else ("domain", domain or "")
    now = generation_watched(GENERATION)
    with _lock:
        if _kept.generation != now:
            _kept.sites.clear()
            _kept.generation = now
        if key in _kept.sites:
            _kept.sites.move_to_end(key)
            return _kept.sites[key]
    found = _read(name=name, domain=domain)
    with _lock:
        if _kept.generation == now:
            _kept.sites[key] = found
            # The least used first: a stream of made-up hosts pushes out only
            # each other, not the sites people visit.
            while len(_kept.sites) > MAX_KEPT:
                _kept.sites.popitem(last=False)
    return found


def sites_changed() -> None:
    """Every process forgets what it kept, now and when the change commits."""
    generation_advance(GENERATION)


def _read(*, name: str | None, domain: str | None) -> LiveSite | None:
    query = (
        Site.objects.filter(name=name) if name is not None else Site.objects.filter(domain=domain)
    )
    row = query.values(
        "pk",
        "project_id",
        "name",
        "domain",
        "password",
        "live_id",
        "live__created_at",
        "taken_down",
        "project__deleted_at",
        "project__owner__is_active",
    ).first()
    if row is None:
        return None
    return LiveSite(
        pk=row["pk"],
        project_id=row["project_id"],
        name=row["name"],
        domain=row["domain"],
        password=row["password"],
        version_id=row["live_id"],
        version_made=row["live__created_at"],
        taken_down=row["taken_down"],
        gone=row["project__deleted_at"] is not None or not row["project__owner__is_active"],
    )


class _Kept:
    def __init__(self) -> None:
        self.generation: object = None
        self.sites: OrderedDict[tuple[str, str | None], LiveSite | None] = OrderedDict()


_kept = _Kept()
_lock = threading.Lock()


# What a site's address reads of each model besides Site: a save that names
# its fields and none of these (a sign-in's last_login) changes nothing served.
_READ_FIELDS = {Project: {"deleted_at", "owner"}, User: {"is_active"}}


def _changed(sender: Any, update_fields: frozenset[str] | None = None, **kwargs: Any) -> None:
    read = _READ_FIELDS.get(sender)
    if read is not None and update_fields is not None and not read & set(update_fields):
        return
    sites_changed()


def connect() -> None:
    """Called once, when the app is ready."""
    for model in (Site, Project, User):
        post_save.connect(_changed, sender=model, dispatch_uid=f"live-sites-{model.__name__}")
        post_delete.connect(_changed, sender=model, dispatch_uid=f"live-sites-del-{model.__name__}")
