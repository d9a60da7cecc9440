"""The page saves a person's workspace preferences here (workspace/page.js, app/theme.js)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.http import require_POST

from common.jsontypes import NOT_JSON, decoded
from common.users import current_user
from projects.services import preferences_save
from projects.web.preferences import PreferencesRefused, preferences_clean


@require_POST
def preferences(request: HttpRequest) -> HttpResponse:
    raw = decoded(request.body or b"null")
    changes = preferences_clean(None if raw is NOT_JSON else raw)
    if isinstance(changes, PreferencesRefused):
        return JsonResponse({"error": changes.message}, status=400)
    return JsonResponse(preferences_save(user=current_user(request), changes=changes))
