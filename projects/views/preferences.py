"""The page saves a person's workspace preferences here (workspace.js, app.js)."""

from __future__ import annotations

import json

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.http import require_POST

from builtit.users import current_user
from projects.web.preferences import PreferenceProblem, preferences_clean, preferences_save


@require_POST
def preferences(request: HttpRequest) -> HttpResponse:
    try:
        raw = json.loads(request.body or b"null")
    except ValueError:
        raw = None
    changes = preferences_clean(raw)
    if isinstance(changes, PreferenceProblem):
        return JsonResponse({"error": changes.message}, status=400)
    return JsonResponse(preferences_save(user=current_user(request), changes=changes))
