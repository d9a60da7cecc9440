"""The file panel's search across the project's files: the owner's
only, plain text, case-insensitive unless asked, bounded, grouped by file, the
matched text marked and everything escaped."""

from __future__ import annotations

import re
from html import unescape

from django.contrib.auth.models import User
from django.test import Client

from fakes.images import png
from projects.models import Project
from projects.services import Author, file_create, file_upload
from projects.views.search import MAX_SHOWN


def _search(client: Client, project: Project, query: str, **more: str):
    return client.get(f"/projects/{project.pk}/files/search/", {"q": query, **more})


def _hits(html: str) -> list[tuple[str, int]]:
    return [
        (path, int(line))
        for path, line in re.findall(
            r'class="search-hit" data-path="([^"]+)" data-line="(\d+)"', html
        )
    ]


def test_search_lists_the_matching_lines_by_file_with_their_numbers(
    user_client: Client, project: Project, user: User
) -> None:
    files = {
        "/index.html": "<h1>Crumb</h1>\n<p>Fresh bread</p>\n",
        "/about.html": "<h1>About</h1>\n<p>Opening HOURS: 8 to 4</p>\n",
        "/AGENTS.md": "Keep the opening hours on every page.\n",
    }
    for path, content in files.items():
        file_create(project=project, path=path, content=content, author=Author.person(user))
    response = _search(user_client, project, "opening hours")
    assert response.status_code == 200
    html = response.content.decode()
    assert ("/about.html", 2) in _hits(html)
    # The owner's instructions are one of the project's files, searched like any.
    assert ("/AGENTS.md", 1) in _hits(html)
    assert len(_hits(html)) == 2
    # Case-insensitive: the line's own letters are kept, and marked.
    assert "<mark>Opening HOURS</mark>: 8 to 4" in html
    assert html.count('class="search-path"') == len({path for path, _ in _hits(html)})


def test_search_is_literal_and_escapes_what_it_shows(
    user_client: Client, project: Project, user: User
) -> None:
    file_create(
        project=project,
        path="/index.html",
        content='<a href="x">a.b</a>\n<p>aXb</p>\n',
        author=Author.person(user),
    )
    html = _search(user_client, project, "a.b").content.decode()
    assert _hits(html) == [("/index.html", 1)]  # "." is a dot, not any character
    assert "&lt;a href=&quot;x&quot;&gt;<mark>a.b</mark>&lt;/a&gt;" in html
    assert '<a href="x">' not in html


def test_search_can_match_case(user_client: Client, project: Project, user: User) -> None:
    file_create(
        project=project, path="/a.txt", content="Crumb\ncrumb\n", author=Author.person(user)
    )
    assert len(_hits(_search(user_client, project, "crumb").content.decode())) == 2
    exact = _search(user_client, project, "crumb", case="1").content.decode()
    assert _hits(exact) == [("/a.txt", 2)]


def test_search_skips_binary_files(user_client: Client, project: Project, user: User) -> None:
    file_upload(project=project, path="/dot.png", data=png(1, 1), author=Author.person(user))
    html = _search(user_client, project, "PNG").content.decode()
    assert _hits(html) == []


def test_search_without_a_match_says_so(user_client: Client, starter_project: Project) -> None:
    html = unescape(_search(user_client, starter_project, "no such words").content.decode())
    assert _hits(html) == []
    assert "No matches for “no such words”" in html


def test_search_shows_at_most_so_many_matches_and_says_how_many_there_are(
    user_client: Client, project: Project, user: User
) -> None:
    content = "".join(f"needle {number} {'x' * 400}\n" for number in range(MAX_SHOWN + 30))
    file_create(project=project, path="/many.txt", content=content, author=Author.person(user))
    html = _search(user_client, project, "needle").content.decode()
    assert len(_hits(html)) == MAX_SHOWN
    assert f"{MAX_SHOWN + 30} matches: showing the first {MAX_SHOWN}" in html
    # Long lines are cut: the page does not carry the whole file.
    assert "x" * 240 not in html
    assert "x…</span>" in html


def test_an_empty_search_clears_the_results_and_a_too_long_one_is_refused(
    user_client: Client, project: Project
) -> None:
    assert _search(user_client, project, "  ").content == b""
    refused = _search(user_client, project, "x" * 501).content.decode()
    assert "at most 500 characters" in refused


def test_only_the_owner_can_search_a_project(
    other_client: Client, client: Client, starter_project: Project
) -> None:
    assert _search(other_client, starter_project, "hello").status_code == 404
    anonymous = _search(client, starter_project, "hello")
    assert anonymous.status_code == 302
    assert "/accounts/login/" in anonymous["Location"]


def test_search_answers_get_only(user_client: Client, starter_project: Project) -> None:
    response = user_client.post(f"/projects/{starter_project.pk}/files/search/", {"q": "hello"})
    assert response.status_code == 405


def test_a_match_far_along_its_line_is_shown_from_a_little_before_it(
    user_client: Client, project: Project, user: User
) -> None:
    line = '<p class="intro" data-track="homepage-hero">Welcome to <em>Crumb</em></p>'
    file_create(
        project=project, path="/index.html", content=line + "\n", author=Author.person(user)
    )
    html = _search(user_client, project, "crumb").content.decode()
    assert "…me to &lt;em&gt;<mark>Crumb</mark>&lt;/em&gt;&lt;/p&gt;</span>" in html
    assert 'title="&lt;p class=&quot;intro&quot;' in html  # the whole line on hover
