"""Sites worth showing: what the offline demo builds has real
content for the kind of place (a bakery's menu with prices, its hours, a
contact block), a look chosen by the kind, no HTML entities in its text, and
passes the site check; the findings of that check it can fix, it fixes with
edits the file tool applies, and the others it names."""

from __future__ import annotations

import re

import pytest

from chat.records.site_check import SiteCheckRecord
from chat.render.transcript import Footer
from demo.colours import contrast, text_colour_on
from demo.fixes import fixes_for
from demo.kinds import KINDS as ALL_KINDS
from demo.kinds import kind_found_in
from demo.looks import LOOKS, PLAIN
from demo.pages import add_page
from demo.rules import Rules
from demo.site import brief_from, site_files
from demo.tones import tagline
from projects.files.editing import Edit, apply_edits
from projects.publish.for_model import check_for_model
from projects.publish.site_check import site_check

KINDS = {
    "bakery": "Build a site for a bakery called Crumb",
    "restaurant": "Build a site for my restaurant called Olive",
    "portfolio": "Build a portfolio site with a gallery for Ada Park",
    "band": "Build a website for my band called Static",
    "business": "Build a website for my plumbing business called Flow",
    "class": "my yoga studio, with class times, prices and a contact form",
    "event": "a conference in Leeds: schedule, tickets, speakers section, find us",
    "club": "Northside running club, with events and a contact section",
    "school": "Riverside Primary School",
    "wedding": "our wedding, with the day's schedule, RSVP and directions",
    "shop": "an online shop for my candles, with products, reviews and contact",
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
    assert '<address class="contact-details">\n          <strong>Crumb</strong>' in page
    assert '<a class="button" href="#menu">See the menu</a>' in page


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_passes_the_site_check_with_no_entities_in_its_text(kind: str) -> None:
    files = built(KINDS[kind])

    assert site_check(files).clean, site_check(files).findings
    for text in files.values():
        assert not re.search(r"&#?\w+;", text), "the source reads as the page does"


def test_a_contact_section_holds_a_form_people_and_browsers_can_fill_in() -> None:
    page = built("a bakery called Crumb with a menu and a contact section")["/index.html"]

    form = re.search(r'<form class="site-form"[^>]*>.*?</form>', page, re.DOTALL)
    assert form is not None
    html = form.group(0)
    assert 'action="/_forms/contact" method="post"' in html
    for field_id, attributes in (
        ("contact-name", 'type="text" name="name" autocomplete="name" required'),
        ("contact-email", 'type="email" name="email" autocomplete="email" required'),
    ):
        assert f'<label for="{field_id}">' in html
        assert f'<input id="{field_id}" {attributes}>' in html
    assert '<label for="contact-message">Message</label>' in html
    assert '<textarea id="contact-message" name="message" rows="5" required>' in html
    honeypot = re.search(r'<p class="gotcha" ([^>]*)>\s*<label>[^<]*<input ([^>]*)>', html)
    assert honeypot is not None, "a honeypot"
    assert honeypot.group(1) == 'hidden aria-hidden="true"', "hidden from people and readers"
    assert honeypot.group(2) == 'type="text" name="_gotcha" tabindex="-1" autocomplete="off"'
    assert '<button type="submit">Send message</button>' in html


def test_a_wedding_asks_who_comes_in_a_form_of_its_own() -> None:
    page = built(KINDS["wedding"])["/index.html"]

    assert 'action="/_forms/rsvp" method="post"' in page
    assert "<legend>Will you come?</legend>" in page
    assert page.count('name="attending"') == 2
    assert page.count('name="_gotcha"') == 1


def test_every_kind_is_found_again_by_the_tagline_it_wrote() -> None:
    for kind in ALL_KINDS:
        for tone in ("plain", "friendly", "formal", "playful"):
            page = f'<p class="tagline">{tagline(kind.id, kind.label, tone)}</p>'
            found = kind_found_in(page)
            assert (found.kind.id, found.label) == (kind.id, kind.label), (kind.label, tone)
    running = f'<p class="tagline">{tagline("club", "running club", "friendly")}</p>'
    assert kind_found_in(running).label == "running club"


def test_every_look_reads_well() -> None:
    for name, look in {**LOOKS, "plain": PLAIN}.items():
        assert contrast(look.text, look.page_bg) >= 7, name
        for colour in (look.accent, look.muted):
            assert contrast(colour, look.page_bg) >= 4.5, name
            assert contrast(colour, look.surface) >= 4.5, name
        assert contrast(look.header_bg, text_colour_on(look.header_bg)) >= 4.5, name
        assert contrast(look.accent, text_colour_on(look.accent)) >= 4.5, name


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
