"""Sign-up; sign-in, sign-out and password change are Django's own views."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import login
from django.contrib.auth.decorators import login_not_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

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
