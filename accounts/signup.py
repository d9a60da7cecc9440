"""Sign-up's form and its bound per address.

A username sign-up cannot hide that a name is taken from someone who wants that
name: it must refuse it. What it can do is say no more than that (the form
never says that an account exists) and bound how many names one address can
try: BUILTIT_SIGNUP_ATTEMPTS forms sent per hour (an IPv6 address counts with
its /64), whatever their outcome, so testing a list of names, or making
accounts by the dozen to multiply the per-person spending caps, goes at a few
an hour per address.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import SignupAttempt
from common.addresses import address_counted_as

SIGNUP_WINDOW = timedelta(hours=1)
NAME_UNAVAILABLE = "This username is not available. Please choose another."


class SignupForm(UserCreationForm[User]):
    error_messages = {
        **UserCreationForm.error_messages,
        "password_mismatch": "The two passwords did not match: type the same one in both fields.",
    }

    def full_clean(self) -> None:
        """After a refusal the page opens on the first field to fix, marked as such
        (the passwords come back empty, as they must: never sent back in a page)."""
        super().full_clean()
        self._weak_password_under_the_password()
        invalid = [name for name in self.fields if name in self.errors]
        for name, field in self.fields.items():
            field.widget.attrs.pop("autofocus", None)
            if name in invalid:
                field.widget.attrs["aria-invalid"] = "true"
                field.widget.attrs["aria-describedby"] = f"{name}-error"
        first = invalid[0] if invalid else next(iter(self.fields))
        if first == "password2":  # both came back empty: start again at the first
            first = "password1"
        self.fields[first].widget.attrs["autofocus"] = True

    def clean_username(self) -> str:
        # Django's own says "A user with that username already exists."
        username: str = self.cleaned_data["username"]
        if User.objects.filter(username__iexact=username).exists():
            raise ValidationError(NAME_UNAVAILABLE, code="unavailable")
        return username

    def _weak_password_under_the_password(self) -> None:
        """A password too short or too common is fixed in the first field, so its
        error sits there (Django puts it under the confirmation); a mismatch stays."""
        found = self.errors.as_data().get("password2", [])
        weak = [error for error in found if error.code != "password_mismatch"]
        if not weak:
            return
        rest = [error for error in found if error.code == "password_mismatch"]
        del self.errors["password2"]
        for error in rest:
            self.add_error("password2", error)
        for error in weak:
            self.add_error("password1", error)

    def signup(self) -> User | None:
        """The new account, or None when the name was taken meanwhile (by a
        sign-up sent at the same moment): the form then says so."""
        try:
            with transaction.atomic():
                return self.save()
        except IntegrityError:
            self.add_error("username", ValidationError(NAME_UNAVAILABLE, code="unavailable"))
            return None


@transaction.atomic
def signup_attempt(*, address: str | None) -> timedelta | None:
    """Count a sign-up form sent from `address`; past the bound, how long until
    the oldest counted one leaves the hour (nothing is counted then)."""
    limit = int(settings.BUILTIT_SIGNUP_ATTEMPTS)
    if limit <= 0:
        return None
    address = address_counted_as(address)
    now = timezone.now()
    since = now - SIGNUP_WINDOW
    # Only the last hour matters; older rows go as new ones come.
    SignupAttempt.objects.filter(at__lt=since).delete()
    recent = SignupAttempt.objects.filter(address=address, at__gte=since).order_by("at")
    if recent.count() >= limit:
        oldest = recent.values_list("at", flat=True)[0]
        return max(oldest + SIGNUP_WINDOW - now, timedelta(seconds=1))
    SignupAttempt.objects.create(address=address, at=now)
    return None
