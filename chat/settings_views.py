"""The Settings page: a user's own OpenRouter API key (see chat.personal_keys)."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods

from builtit.users import current_user
from chat.personal_keys import KeyProblem, key_delete, key_save, key_status


def _page(
    request: HttpRequest, user: User, problem: KeyProblem | None = None, status: int = 200
) -> HttpResponse:
    context = {
        "key": key_status(user),
        "problem": problem,
        "server_has_key": bool(settings.OPENROUTER_API_KEY),
    }
    return render(request, "chat/settings.html", context, status=status)


# The pasted key must not reach an error report, whatever goes wrong below.
@sensitive_post_parameters("api_key")
@require_http_methods(["GET", "POST"])
def settings_page(request: HttpRequest) -> HttpResponse:
    user = current_user(request)
    if request.method == "GET":
        return _page(request, user)
    action = request.POST.get("action")
    if action == "save":
        result = key_save(user=user, raw=request.POST.get("api_key"))
        if isinstance(result, KeyProblem):
            return _page(request, user, problem=result, status=422)
        messages.success(
            request, f"Key saved: your chat turns now use the key ending in …{result.last_four}."
        )
    elif action == "delete":
        if key_delete(user=user):
            messages.success(request, "Your key is removed.")
        else:
            messages.info(request, "There was no saved key to remove.")
    else:
        return HttpResponseBadRequest("Unknown action.")
    return redirect("settings")
