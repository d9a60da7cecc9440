"""The Settings page: a user's own OpenRouter API key (see chat.personal_keys),
their spending against their caps (chat.spending), personal access tokens for
scripts (chat.access_tokens), and signing out everywhere (every session and
token at once)."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods, require_POST

from chat.access_tokens import (
    TokenRefused,
    token_create,
    token_list,
    token_revoke,
    user_sign_out_everywhere,
)
from chat.agent.model_choice import setup_of
from chat.agent.person_limits import person_caps
from chat.personal_keys import KeyRefused, key_delete, key_save, key_status
from chat.spending import person_spending
from common.users import current_user


def _page(
    request: HttpRequest,
    user: User,
    problem: KeyRefused | None = None,
    status: int = 200,
    **tokens: object,
) -> HttpResponse:
    # The caps' own windows (today, this month), so the page and the caps agree.
    caps = person_caps(user_id=user.pk, project_cap=None)
    spent = person_spending(user=user, day_start=caps.day_start, month_start=caps.month_start)
    context = {
        "key": key_status(user),
        "caps": caps,
        "spending": spent,
        "day_left": _left(caps.day, spent.today),
        "month_left": _left(caps.month, spent.this_month),
        "problem": problem,
        # How turns reach a model without a key of one's own: the server's key,
        # a local server that needs none, or nothing (model_choice.setup_of).
        "server_setup": setup_of(personal_key=False),
        "demo": settings.BUILTIT_DEMO_ENABLED,  # the offline demo needs no key
        "tokens": token_list(user=user),
        **tokens,
    }
    response = render(request, "chat/settings.html", context, status=status)
    if "new_token" in tokens:
        response["Cache-Control"] = "no-store"  # the token is on this page, once
    return response


def _left(cap: Decimal | None, spent: Decimal) -> Decimal | None:
    return None if cap is None else max(Decimal(0), cap - spent)


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
        if isinstance(result, KeyRefused):
            return _page(request, user, problem=result, status=422)
        messages.success(
            request, f"Key saved: your chat turns now use the key ending in …{result.last_four}."
        )
    elif action == "delete":
        if key_delete(user=user):
            messages.success(request, "Your key is removed.")
        else:
            messages.info(request, "There was no saved key to remove.")
    elif action == "create_token":
        made = token_create(
            user=user,
            name=request.POST.get("name"),
            can_write=request.POST.get("scope") != "read",
        )
        if isinstance(made, TokenRefused):
            return _page(request, user, status=422, token_problem=made)
        return _page(request, user, new_token=made)
    elif action == "revoke_token":
        if token_revoke(user=user, token_id=request.POST.get("token")):
            messages.success(request, "Token revoked: scripts using it are shut out.")
        else:
            messages.info(request, "That token was already revoked.")
    else:
        return HttpResponseBadRequest("Unknown action.")
    return redirect("settings")


@require_POST
def sign_out_everywhere(request: HttpRequest) -> HttpResponse:
    """Every session (this one too) and every token of the person end, and their
    open chats close, saying why; the sign-in page then says what was done."""
    ended = user_sign_out_everywhere(user=current_user(request))
    logout(request)
    tokens = f"{ended.tokens} access token{'' if ended.tokens == 1 else 's'}"
    messages.success(
        request,
        f"You are signed out everywhere: {ended.sessions} "
        f"session{'' if ended.sessions == 1 else 's'} ended (this one too), "
        f"{tokens} revoked, and every open chat closed. Sign in again to go on.",
    )
    return redirect("login")
