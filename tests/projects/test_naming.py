"""A project started from a request is named from the request's own words."""

from __future__ import annotations

import pytest

from projects.naming import FALLBACK, NAME_CHARS, project_name_from


@pytest.mark.parametrize(
    ("request_text", "name"),
    [
        ("A landing page for my bakery called Crumb, with a menu", "Crumb bakery"),
        ("A portfolio for a photographer called Ana Lima, with a gallery", "Ana Lima photographer"),
        ("I want a website named “Blue Door” for my cafe", "Blue Door"),
        ("make a site called 3D Prints.", "3D Prints"),
        ("a blog for my travels in Japan and Korea", "Blog travels Japan Korea"),
        ("Build me a website please", FALLBACK),
        # A kind of place, then its name; the first clause names, the rest lists.
        ("I need a website for my bakery Crumb: our menu and opening hours", "Crumb bakery"),
        ("We want a website for our restaurant Casa Verde, with the menu", "Casa Verde restaurant"),
        ("A landing page for Tally, our to-do app, with its features", "Tally"),
        ("my yoga studio, with class times and prices", "Yoga studio"),
        ("A site for my plumbing business in Leeds, with services", "Plumbing business Leeds"),
    ],
)
def test_the_name_is_what_the_person_called_it_or_their_first_significant_words(
    request_text: str, name: str
) -> None:
    assert project_name_from(request_text) == name


def test_a_long_request_makes_a_short_name() -> None:
    assert len(project_name_from("Supercalifragilisticexpialidocious " * 10)) <= NAME_CHARS
