"""What the offline demo reads of a message: the person's own
words apart from the preview's context, the element they picked, the site
check's findings; and what each request asks for, so that a leftover "make",
"site" or "page" is never read as "build"."""

from __future__ import annotations

import pytest

from chat.agent.attachments import PickedElement, Problem, for_model
from chat.records.site_check import CheckFinding, SiteCheckRecord
from chat.render.transcript import Footer
from demo.asking import Pick, Reported, asked_in
from demo.intents import FIX_PROMPT, intent_of


def test_a_picked_element_is_read_apart_from_the_words() -> None:
    picked = PickedElement(
        selector='section[data-x="a \\"b\\""] > h2', tag="h2", page="/", text='Our "best" bread'
    )
    problem = Problem(kind="error", message="x is not defined", file="/script.js", line=3)

    asked = asked_in(for_model("change this heading to Visit us", (problem, picked)))

    assert asked.words == "change this heading to Visit us"
    assert asked.picks == (
        Pick("h2", "/index.html", 'Our "best" bread', 'section[data-x="a \\"b\\""] > h2'),
    )


def test_the_problems_are_read_as_the_agent_writes_them() -> None:
    problems = (
        Problem(kind="error", message="TypeError: x: y", file="/js/a.js", line=2, column=6),
        Problem(kind="resource", message="/a.css (asked for by about/)", file="/about/index.html"),
        Problem(kind="console.warn", message="at 3:4: odd", page="/"),
        Problem(kind="rejection", message="Failed to fetch"),
    )

    asked = asked_in(for_model("fix this", problems))

    assert asked.words == "fix this"
    assert asked.problems == (
        Reported("error", "TypeError: x: y", "/js/a.js", 2, 6),
        Reported("resource", "/a.css (asked for by about/)", "/about/index.html"),
        Reported("console.warn", "at 3:4: odd", "/index.html"),
        Reported("rejection", "Failed to fetch"),
    )


def test_the_fix_prompt_is_the_one_the_footer_writes() -> None:
    check = SiteCheckRecord((CheckFinding("page", "/index.html", None, "It has no <title>."),), 1)

    assert Footer("f", check=check).fix_prompt.splitlines()[0] == FIX_PROMPT


@pytest.mark.parametrize(
    ("request_text", "intent"),
    [
        # What used to rebuild the site:
        (f"{FIX_PROMPT}\n- /index.html: It has no <title>.", "fix"),
        ("change this heading to Visit us", "heading"),
        ("make the buttons rounded", "buttons"),
        ("translate the site to French", "translate"),
        ("make the site look more modern", "help"),
        ("can you make this page faster?", "help"),
        ("my site is too plain", "help"),
        # What is asked plainly:
        ("Build a one-page site for a bakery called Crumb", "build"),
        ("Make a green website for my bakery", "build"),
        ("a site for my band called “The Loud Ones”", "build"),
        ("website for our wedding", "build"),
        ("i need a website", "build"),
        ("Replace the site with a site for my restaurant", "build"),
        ("start over with a portfolio", "build"),
        ("add a section called Opening hours", "section"),
        ("Add an Opening hours section", "section"),
        ("add an about page", "page"),
        ("make the header dark green", "colour"),
        ("square buttons please", "buttons"),
    ],
)
def test_what_a_request_asks_for(request_text: str, intent: str) -> None:
    assert intent_of(request_text) == intent


def test_with_an_element_picked_a_new_text_is_for_it() -> None:
    assert intent_of("change this to Fresh every morning", picked=True) == "text"
    assert intent_of("change this to Fresh every morning") == "help"
    assert intent_of("make this bigger", picked=True) == "help"
