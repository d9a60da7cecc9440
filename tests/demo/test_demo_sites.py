"""Sites worth showing (issue 31): what the offline demo builds has real
content for the kind of place (a bakery's menu with prices, its hours, a
contact block), a look chosen by the kind, no HTML entities in its text, and
passes the site check; the findings of that check it can fix, it fixes with
edits the file tool applies, and the others it names."""

from __future__ import annotations

import re

import pytest

from chat.demo.fixes import fixes_for
from chat.demo.pages import add_page
from chat.demo.rules import Rules
from chat.demo.site import brief_from, site_files
from chat.records import SiteCheckRecord
from chat.render.transcript import Footer
from projects.files.editing import Edit, apply_edits
from projects.publish.for_model import check_for_model
from projects.publish.site_check import site_check

KINDS = {
    "bakery": "Build a site for a bakery called Crumb",
    "restaurant": "Build a site for my restaurant called Olive",
    "portfolio": "Build a portfolio site with a gallery for Ada Park",
    "band": "Build a website for my band called Static",
    "business": "Build a website for my plumbing business called Flow",
}


def built(request: str) -> dict[str, str]:
    return {f"/{name}": text for name, text in site_files(brief_from(request)).items()}


def variable(css: str, name: str) -> str:
    found = re.search(rf"^\s*{name}: ([^;]+);", css, re.MULTILINE)
    assert found is not None, name
    return found.group(1)


def test_a_bakery_has_a_menu_with_prices_hours_and_a_contact_block() -> None:
    page = built("Build a site for a bakery called Crumb with a menu, opening hours and contact")[
        "/index.html"
    ]

    assert re.search(
        r"Country sourdough<small>[^<]+</small></span><span class=\"price\">\$7.50", page
    )
    assert page.count('class="price"') >= 5
    assert "<dt>Saturday</dt><dd>7:00 to 16:00</dd>" in page
    assert '<address class="contact-details">\n        <strong>Crumb</strong>' in page
    assert '<a class="button" href="#menu">See the menu</a>' in page


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_passes_the_site_check_with_no_entities_in_its_text(kind: str) -> None:
    files = built(KINDS[kind])

    assert site_check(files).clean, site_check(files).findings
    for text in files.values():
        assert not re.search(r"&#?\w+;", text), "the source reads as the page does"


def test_each_kind_has_a_look_of_its_own() -> None:
    looks = {kind: built(request)["/styles.css"] for kind, request in KINDS.items()}

    palettes = {(variable(css, "--header-bg"), variable(css, "--accent")) for css in looks.values()}
    assert len(palettes) == len(KINDS)
    assert "Georgia" in variable(looks["bakery"], "--heading-font")
    assert "Impact" in variable(looks["band"], "--heading-font")
    assert variable(looks["band"], "--page-bg") == "#121212", "a dark stage"
    assert "Georgia" not in looks["portfolio"]


def test_a_portfolio_shows_a_gallery_and_a_restaurant_its_courses() -> None:
    portfolio = built(KINDS["portfolio"])["/index.html"]
    restaurant = built(KINDS["restaurant"])["/index.html"]

    assert portfolio.count('<figure class="tile">') == 6
    assert '<h3 class="menu-group">Mains</h3>' in restaurant
    assert "Wild mushroom risotto" in restaurant
    assert "Country sourdough" not in restaurant


def test_a_new_page_has_real_words_and_the_sites_navigation() -> None:
    files = built(KINDS["bakery"])

    about = add_page("add an about page", list(files), files, Rules())
    careers = add_page("add a careers page", list(files), files, Rules())

    created = dict(about.calls)["create_file"]["content"]
    assert "Crumb began with one oven" in created
    assert '<a href="index.html#menu">Menu</a>' in created
    assert "Write about" not in created
    edit = dict(about.calls)["edit_file"]
    assert edit["edits"] == [
        {
            "search": '      <a href="#about">About</a>',
            "replace": '      <a href="about.html">About</a>',
        }
    ], "the link to the about section now leads to the page: one About, not two"
    assert (
        "Everything about careers at Crumb, in one place."
        in dict(careers.calls)["create_file"]["content"]
    )


def test_the_fixable_findings_are_fixed_with_edits_that_apply() -> None:
    files = built(KINDS["bakery"])
    files["/about.html"] = (
        '<!doctype html>\n<html>\n<head>\n  <meta charset="utf-8">\n</head>\n<body>\n'
        '  <img src="images/shop-front.svg">\n  <img src="images/shop-front.svg">\n'
        '  <a href="Index.html">Home</a>\n  <link rel="stylesheet" href="/styles.css">\n'
        "  <p>Lorem ipsum</p>\n</body>\n</html>\n"
    )
    files["/images/shop-front.svg"] = "<svg xmlns='http://www.w3.org/2000/svg'/>"
    record = SiteCheckRecord.from_check(check_for_model(site_check(files)))
    prompt = Footer("f", check=record).fix_prompt

    fixes = fixes_for(prompt, list(files), files)

    fixed = dict(files)
    for name, arguments in fixes.calls:
        assert name == "edit_file"
        edits = [Edit(e["search"], e["replace"]) for e in arguments["edits"]]
        result = apply_edits(fixed[arguments["path"]], edits)
        assert isinstance(result, str), result
        fixed[arguments["path"]] = result
    assert dict(site_check(fixed).counts) == {"placeholder": 1}
    assert fixed["/about.html"].count('<img alt="Shop front" src="images/shop-front.svg">') == 2
    assert '<a href="index.html">Home</a>' in fixed["/about.html"]
    assert 'href="styles.css"' in fixed["/about.html"]
    assert "<title>Crumb</title>" in fixed["/about.html"]
    assert len(fixes.left) == 1
    assert "Lorem ipsum" in fixes.left[0]
    assert "it needs your own words" in fixes.left[0]
