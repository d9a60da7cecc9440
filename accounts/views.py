"""Sign-up, and the password change; sign-in and sign-out are Django's own views."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import login
from django.contrib.auth.decorators import login_not_required
from django.contrib.auth.models import User
from django.contrib.auth.views import PasswordChangeView
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from accounts.signals import session_moved
from accounts.signup import SignupForm, signup_attempt


@login_not_required
@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if not settings.BUILTIT_ALLOW_SIGNUP:
        raise Http404("Sign-up is switched off on this server.")
    if request.user.is_authenticated:
        return redirect("dashboard")
    form = SignupForm(request.POST or None)
    if request.method == "POST":
        wait = signup_attempt(address=request.META.get("REMOTE_ADDR") or None)
        if wait is not None:
            context = {"wait": wait, "limit": settings.BUILTIT_SIGNUP_ATTEMPTS}
            return render(request, "registration/signup_paused.html", context, status=429)
        user = form.signup() if form.is_valid() else None
        if user is not None:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return redirect("dashboard")
    return render(request, "registration/signup.html", {"form": form})


class PasswordChange(PasswordChangeView):
    """Django's, and then this session's open sockets are told its new key.

    Django keeps the session that changed the password signed in under a new
    key (and the new password's hash); every other session of the person is
    signed out. Without a word, this session's own open tabs would be closed
    as well: their socket holds the old key, which is gone."""

    def form_valid(self, form: Any) -> HttpResponse:
        session = self.request.session
        old_key = session.session_key or ""
        new_key: list[str] = []
        user: User = form.user
        with transaction.atomic():
            # Registered first: the tabs hear where their session went before
            # the password change makes them check it.
            transaction.on_commit(
                lambda: session_moved.send(
                    sender=User, user_id=user.pk, old_key=old_key, new_key=new_key[0]
                ),
                # The password is changed either way; a channel layer that is
                # down is logged, not shown as a failed change.
                robust=True,
            )
            response = super().form_valid(form)
            session.save()  # the new key and hash, before the tabs look
            new_key.append(session.session_key or "")
        return response
