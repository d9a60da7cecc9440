"""A style edit made to show when another rule of the page's stylesheet sets the
same property and would win (more specific, or as specific and later): written
in that rule when it styles this element alone, else in a rule that out-ranks
it; in the element's own style attribute when that sets it; refused when the
winner says !important. Every other character of both files stays as it was."""

from __future__ import annotations

import json

from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from projects import preview_wins
from projects.files.results import FileError
from projects.models import Project, ProjectFile
from projects.preview_edits import page_digest
from projects.services import Author, file_create

PAGE = """<!doctype html>
<html lang="en">
<head>
  <link rel="stylesheet" href="site.css">
</head>
<body>
  <section class="hero"><h1 class="title">Fresh bread</h1></section>
  <main>
    <div class="card"><p>Open daily</p></div>
    <div class="card"><p>Closed Mondays</p></div>
  </main>
</body>
</html>
"""
CSS = """.title {
  color: #b45309;
}
.hero h1 { color: #dc2626; }
main .card p {
  color: #374151;
  margin: 0;
}
"""
H1: dict[str, object] = {"path": [1, 0, 0], "tag": "h1", "text": "Fresh bread"}
CARD_P: dict[str, object] = {"path": [1, 1, 0, 0], "tag": "p", "text": "Open daily"}


def _files(project: Project, user: User, *, page: str = PAGE, css: str = CSS) -> None:
    for path, text in (("/index.html", page), ("/site.css", css)):
        assert not isinstance(
            file_create(project=project, path=path, content=text, author=Author.person(user)),
            FileError,
        )


def _style(
    client: Client, project: Project, picked: dict[str, object], value: str
) -> tuple[int, dict[str, object]]:
    page = ProjectFile.objects.get(project=project, path="/index.html").content
    sent = {
        "page": "/index.html",
        "source": page_digest(page),
        "picked": picked,
        "kind": "style",
        "name": "color",
        "value": value,
    }
    response = client.post(
        reverse("preview_edit", args=[project.pk]),
        json.dumps(sent),
        content_type="application/json",
    )
    return response.status_code, response.json()


def _text(project: Project, path: str) -> str:
    return ProjectFile.objects.get(project=project, path=path).content


def test_a_more_specific_rule_that_styles_this_element_alone_is_changed_in_place(
    user_client: Client, project: Project, user: User
) -> None:
    _files(project, user)
    status, answer = _style(user_client, project, H1, "#1f2937")
    assert status == 200, answer
    # `.hero h1` beats `.title`: its declaration is the one changed, and only it.
    assert _text(project, "/site.css") == CSS.replace(
        ".hero h1 { color: #dc2626; }", ".hero h1 { color: #1f2937; }"
    )
    assert _text(project, "/index.html") == PAGE
    assert answer["paths"] == ["/site.css"]
    # Chosen again: the rule that wins says so already, and nothing is written
    # (no class, no rule of its own for the <h1>).
    css = _text(project, "/site.css")
    status, answer = _style(user_client, project, H1, "#1f2937")
    assert answer["code"] == "no_change", answer
    assert (_text(project, "/site.css"), _text(project, "/index.html")) == (css, PAGE)


def test_a_later_rule_as_specific_is_the_winner_changed(
    user_client: Client, project: Project, user: User
) -> None:
    page = PAGE.replace('class="title">', 'class="title lead">')
    css = CSS + ".lead { color: #dc2626; }\n"
    _files(project, user, page=page, css=css.replace(".hero h1 {", ".hero p {"))
    status, answer = _style(user_client, project, H1, "#1f2937")
    assert status == 200, answer
    # `.lead` is as specific as `.title` and comes later: it wins, and is changed.
    assert _text(project, "/site.css") == css.replace(".hero h1 {", ".hero p {").replace(
        ".lead { color: #dc2626; }", ".lead { color: #1f2937; }"
    )
    assert _text(project, "/index.html") == page


def test_a_winner_other_pages_share_is_out_ranked_by_a_rule_for_the_elements_class(
    user_client: Client, project: Project, user: User
) -> None:
    _files(project, user)
    other = PAGE.replace("Fresh bread", "Our story").replace(' class="title"', "")
    assert not isinstance(
        file_create(project=project, path="/story.html", content=other, author=Author.person(user)),
        FileError,
    )
    status, answer = _style(user_client, project, H1, "#1f2937")
    assert status == 200, answer
    # /story.html's <h1> is styled by `.hero h1` too: it stays, out-ranked after it.
    assert _text(project, "/site.css") == CSS + "\n.hero h1.title {\n  color: #1f2937;\n}\n"
    assert _text(project, "/index.html") == PAGE
    assert _text(project, "/story.html") == other


def test_past_the_pages_an_edit_reads_the_winner_is_out_ranked_not_changed(
    user_client: Client, project: Project, user: User, monkeypatch
) -> None:
    """More pages link the stylesheet than an edit parses: none of them is read,
    and the winner (which styles only this <h1> here) is left as it is."""
    monkeypatch.setattr(preview_wins, "MAX_OTHER_PAGES", 2)
    _files(project, user)
    plain = "<!doctype html><link rel='stylesheet' href='site.css'><p>Nothing here</p>\n"
    for number in range(3):
        written = file_create(
            project=project, path=f"/p{number}.html", content=plain, author=Author.person(user)
        )
        assert not isinstance(written, FileError)
    status, answer = _style(user_client, project, H1, "#1f2937")
    assert status == 200, answer
    assert _text(project, "/site.css") == CSS + "\n.hero h1.title {\n  color: #1f2937;\n}\n"
    assert _text(project, "/index.html") == PAGE


def test_a_winner_shared_in_the_page_is_out_ranked_with_a_new_class(
    user_client: Client, project: Project, user: User
) -> None:
    _files(project, user)
    status, answer = _style(user_client, project, CARD_P, "#7c2d12")
    assert status == 200, answer
    assert _text(project, "/index.html") == PAGE.replace(
        "<p>Open daily", '<p class="p-open-daily">Open daily'
    )
    assert (
        _text(project, "/site.css") == CSS + "\nmain .card p.p-open-daily {\n  color: #7c2d12;\n}\n"
    )
    assert answer["paths"] == ["/index.html", "/site.css"]
    assert answer["in_place"] == {
        "kind": "attribute",
        "name": "class",
        "value": "p-open-daily",
        "up": False,
        "sibling": "",
    }


def test_the_elements_own_style_attribute_is_changed_in_place(
    user_client: Client, project: Project, user: User
) -> None:
    page = PAGE.replace('class="title">', 'class="title" style="color: #dc2626; margin: 0">')
    _files(project, user, page=page)
    status, answer = _style(user_client, project, H1, "#1f2937")
    assert status == 200, answer
    assert _text(project, "/index.html") == page.replace(
        'style="color: #dc2626;', 'style="color: #1f2937;'
    )
    assert _text(project, "/site.css") == CSS
    assert answer["paths"] == ["/index.html"]


def test_a_winner_with_important_is_refused_in_words_and_nothing_changes(
    user_client: Client, project: Project, user: User
) -> None:
    css = CSS.replace("#dc2626;", "#dc2626 !important;")
    _files(project, user, css=css)
    status, answer = _style(user_client, project, H1, "#1f2937")
    assert status == 422
    assert "“.hero h1” of /site.css sets color of this <h1> with !important" in str(answer["error"])
    assert _text(project, "/site.css") == css
    assert _text(project, "/index.html") == PAGE
    # The value it says already: nothing to change, rather than refused.
    status, answer = _style(user_client, project, H1, "#dc2626")
    assert answer["code"] == "no_change", answer
    assert _text(project, "/site.css") == css


def test_a_hover_rule_does_not_count_as_winning(
    user_client: Client, project: Project, user: User
) -> None:
    css = CSS.replace(".hero h1 {", ".hero h1:hover {")
    _files(project, user, css=css)
    status, answer = _style(user_client, project, H1, "#1f2937")
    assert status == 200, answer
    # At rest the element's own rule wins: it is the one changed, :hover's stays.
    assert _text(project, "/site.css") == css.replace("#b45309", "#1f2937")
    assert _text(project, "/index.html") == PAGE
