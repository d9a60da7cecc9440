"""Who is asking: a view gets the signed-in person, or the request is refused."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied
from django.test import RequestFactory

from common.users import current_user


def test_the_signed_in_person_is_the_current_user() -> None:
    request = RequestFactory().get("/")
    person = User(username="ada")
    request.user = person
    assert current_user(request) is person


def test_no_one_signed_in_is_refused() -> None:
    request = RequestFactory().get("/")
    request.user = AnonymousUser()
    with pytest.raises(PermissionDenied):
        current_user(request)
