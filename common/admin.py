"""An admin page for rows only the app writes (history, the spending ledger):
staff read them, and nothing on their own pages adds, changes or deletes one."""

from __future__ import annotations

from typing import Any, TypeVar

from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest

_M = TypeVar("_M", bound=Model)


class ReadOnlyAdmin(admin.ModelAdmin[_M]):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Not from this model's own pages. A deletion that starts elsewhere (staff
        # deleting a person, whose rows these are) takes them along: the admin asks
        # this of every model that deletion reaches, and must hear yes.
        match = request.resolver_match
        own_pages = f"{self.opts.app_label}_{self.opts.model_name}_"
        return match is not None and not (match.url_name or "").startswith(own_pages)

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        return {}  # no "delete selected"
