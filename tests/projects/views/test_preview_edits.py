"""A visual edit through its endpoint: written as the person's revision, named in
History, refused in words when stale, during a turn, or for a script's element;
taken back by its undo; a style goes to the stylesheet's rule."""

from __future__ import annotations

import json

from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from projects.files.results import FileError
from projects.locks import lock_acquire
from projects.models import FileRevision, Project, ProjectFile
from projects.preview_edits import page_digest
from projects.services import Author, file_create, file_update

PAGE = """<!doctype html>
<html lang="en">
<head>
  <link rel="stylesheet" href="css/site.css">
</head>
<body>
  <h1 class="title">Fresh bread</h1>
  <p class="note">Open daily</p>
  <p class="note">Closed Mondays</p>
</body>
</html>
"""
CSS = """.title {
  color: #b45309;
}
.note { color: #1f2937; }
"""


def _files(project: Project, user: User) -> None:
    for path, text in (("/index.html", PAGE), ("/css/site.css", CSS)):
        assert not isinstance(
            file_create(project=project, path=path, content=text, author=Author.person(user)),
            FileError,
        )


def _post(
    client: Client, project: Project, body: dict[str, object]
) -> tuple[int, dict[str, object]]:
    page = ProjectFile.objects.get(project=project, path="/index.html").content
    sent = {"page": "/index.html", "source": page_digest(page), **body}
    response = client.post(
        reverse("preview_edit", args=[project.pk]),
        json.dumps(sent),
        content_type="application/json",
    )
    return response.status_code, response.json()


def _text(project: Project, path: str = "/index.html") -> str:
    return ProjectFile.objects.get(project=project, path=path).content


H1 = {"path": [1, 0], "tag": "h1", "text": "Fresh bread"}


def test_text_edit_is_the_persons_revision_named_in_history(
    user_client: Client, project: Project, user: User
) -> None:
    _files(project, user)
    status, answer = _post(
        user_client,
        project,
        {"picked": H1, "kind": "text", "before": ["Fresh bread"], "after": ["Warm bread"]},
    )
    assert status == 200
    assert answer["ok"] is True
    assert _text(project) == PAGE.replace(">Fresh bread<", ">Warm bread<")
    revision = FileRevision.objects.filter(project=project).first()
    assert revision is not None
    assert revision.actor == "user"
    assert revision.user == user
    assert revision.note == "Edited in the preview: text of <h1> to “Warm bread”"
    history = user_client.get(reverse("file_history", args=[project.pk]), {"path": "/index.html"})
    said = history.content.decode()
    assert "Edited in the preview: text of &lt;h1&gt; to “Warm bread”" in said
    assert "by you" in said


def test_a_stale_page_is_refused_like_a_stale_save(
    user_client: Client, project: Project, user: User
) -> None:
    _files(project, user)
    sent = {"page": "/index.html", "source": page_digest(PAGE), "picked": H1, "kind": "hide"}
    file_update(
        project=project, path="/index.html", content=PAGE + "\n", author=Author.person(user)
    )
    response = user_client.post(
        reverse("preview_edit", args=[project.pk]),
        json.dumps(sent),
        content_type="application/json",
    )
    assert response.status_code == 409
    assert "changed since the preview loaded it" in response.json()["error"]
    assert _text(project) == PAGE + "\n"


def test_refused_in_words_while_the_assistant_works(
    user_client: Client, project: Project, user: User
) -> None:
    _files(project, user)
    lock_acquire(project=project, purpose="assistant", details={}, ttl=60)
    status, answer = _post(user_client, project, {"picked": H1, "kind": "hide"})
    assert status == 423
    assert "The assistant is changing this project's files right now" in str(answer["error"])
    assert "edits in the preview wait: nothing was changed" in str(answer["error"])
    assert _text(project) == PAGE


def test_a_script_made_element_is_refused_with_the_request_to_ask(
    user_client: Client, project: Project, user: User
) -> None:
    _files(project, user)
    made = {"path": [1, 3], "tag": "div", "text": "Cookie banner"}
    status, answer = _post(user_client, project, {"picked": made, "kind": "delete"})
    assert status == 422
    assert "a script made it" in str(answer["error"])
    assert "Ask the assistant" in str(answer["error"])
    assert FileRevision.objects.filter(project=project).count() == 2


def test_style_goes_into_the_elements_own_class_rule(
    user_client: Client, project: Project, user: User
) -> None:
    _files(project, user)
    status, answer = _post(
        user_client, project, {"picked": H1, "kind": "style", "name": "color", "value": "#7c2d12"}
    )
    assert status == 200, answer
    assert _text(project, "/css/site.css") == CSS.replace("#b45309", "#7c2d12")
    assert _text(project) == PAGE


def test_style_of_a_shared_class_gets_a_new_readable_class(
    user_client: Client, project: Project, user: User
) -> None:
    _files(project, user)
    note = {"path": [1, 1], "tag": "p", "text": "Open daily"}
    status, answer = _post(
        user_client,
        project,
        {"picked": note, "kind": "style", "name": "text-align", "value": "center"},
    )
    assert status == 200, answer
    assert _text(project) == PAGE.replace(
        '<p class="note">Open daily', '<p class="note p-open-daily">Open daily'
    )
    assert _text(project, "/css/site.css") == CSS + "\n.p-open-daily {\n  text-align: center;\n}\n"
    assert answer["paths"] == ["/index.html", "/css/site.css"]
    # The preview adds the class as written, then loads the stylesheet again.
    assert answer["in_place"] == {
        "kind": "attribute",
        "name": "class",
        "value": "note p-open-daily",
        "up": False,
        "sibling": "",
    }


def test_a_bad_style_value_changes_nothing(
    user_client: Client, project: Project, user: User
) -> None:
    _files(project, user)
    note = {"path": [1, 1], "tag": "p", "text": "Open daily"}
    status, _ = _post(
        user_client, project, {"picked": note, "kind": "style", "name": "color", "value": "red}"}
    )
    assert status == 422
    assert _text(project) == PAGE
    assert _text(project, "/css/site.css") == CSS


def test_undo_brings_both_files_back(user_client: Client, project: Project, user: User) -> None:
    _files(project, user)
    note = {"path": [1, 1], "tag": "p", "text": "Open daily"}
    _, answer = _post(
        user_client, project, {"picked": note, "kind": "style", "name": "color", "value": "red"}
    )
    response = user_client.post(
        reverse("preview_edit_undo", args=[project.pk]),
        json.dumps(answer["revisions"]),
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    assert _text(project) == PAGE
    assert _text(project, "/css/site.css") == CSS


def test_another_persons_project_is_not_found(
    other_client: Client, project: Project, user: User
) -> None:
    _files(project, user)
    sent = {"page": "/index.html", "source": page_digest(PAGE), "picked": H1, "kind": "hide"}
    response = other_client.post(
        reverse("preview_edit", args=[project.pk]),
        json.dumps(sent),
        content_type="application/json",
    )
    assert response.status_code == 404
    assert _text(project) == PAGE


def test_the_panel_offers_the_sites_colours_pages_and_sections(
    user_client: Client, project: Project, user: User
) -> None:
    _files(project, user)
    answer = user_client.get(
        reverse("preview_edit_choices", args=[project.pk]), {"page": "/index.html"}
    ).json()
    assert answer["colours"][:2] == ["#b45309", "#1f2937"]
    assert answer["pages"] == ["/index.html"]


def test_the_preview_names_the_pages_text_for_the_stale_check(
    sites_client: Client, project: Project, user: User
) -> None:
    _files(project, user)
    response = sites_client.get(f"/preview/{project.preview_token}/index.html")
    assert f'data-source="{page_digest(PAGE)}"' in response.content.decode()


def test_the_answer_says_what_was_written_to_the_page_for_the_preview_to_do(
    user_client: Client, project: Project, user: User
) -> None:
    """The preview does the same to the element it shows, without loading the
    page again: only what the server wrote, as it wrote it."""
    _files(project, user)
    first = {"path": [1, 1], "tag": "p", "text": "Open daily"}
    _, moved = _post(user_client, project, {"picked": first, "kind": "move", "up": False})
    assert moved["in_place"] == {
        "kind": "move",
        "name": "",
        "value": "",
        "up": False,
        "sibling": "p",
    }
    assert moved["source"] == page_digest(_text(project))
    _, hidden = _post(user_client, project, {"picked": H1, "kind": "hide"})
    assert hidden["in_place"] == {
        "kind": "attribute",
        "name": "hidden",
        "value": "",
        "up": False,
        "sibling": "",
    }
    _, deleted = _post(user_client, project, {"picked": H1, "kind": "delete"})
    assert deleted["in_place"]["kind"] == "remove"  # type: ignore[index]
    # Words and styles are shown their own way (as typed; the stylesheet loaded again).
    closed = {"path": [1, 0], "tag": "p", "text": "Closed Mondays"}  # first, the <h1> gone
    words: dict[str, object] = {
        "picked": closed,
        "kind": "text",
        "before": ["Closed Mondays"],
        "after": ["Shut"],
    }
    _, typed = _post(user_client, project, words)
    assert typed["ok"] is True
    assert typed["in_place"] is None


def test_a_link_address_is_answered_as_written(
    user_client: Client, project: Project, user: User
) -> None:
    page = PAGE.replace("<h1", '<a href="menu.html">Menu</a>\n  <h1')
    file_create(project=project, path="/index.html", content=page, author=Author.person(user))
    link = {"path": [1, 0], "tag": "a", "text": "Menu"}
    sent: dict[str, object] = {
        "picked": link,
        "kind": "attribute",
        "name": "href",
        "value": "  #hours  ",
    }
    status, answer = _post(user_client, project, sent)
    assert status == 200, answer
    assert '<a href="#hours">Menu</a>' in _text(project)
    assert answer["in_place"] == {
        "kind": "attribute",
        "name": "href",
        "value": "#hours",
        "up": False,
        "sibling": "",
    }


BARE = """<!doctype html>
<html lang="en">
<head>
  <title>About</title>
</head>
<body>
  <h1>About us</h1>
</body>
</html>
"""


def _bare_style(client: Client, project: Project, user: User) -> dict[str, object]:
    file_create(project=project, path="/about.html", content=BARE, author=Author.person(user))
    sent = {
        "page": "/about.html",
        "source": page_digest(BARE),
        "picked": {"path": [1, 0], "tag": "h1", "text": "About us"},
        "kind": "style",
        "name": "color",
        "value": "#7c2d12",
    }
    response = client.post(
        reverse("preview_edit", args=[project.pk]),
        json.dumps(sent),
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    answer: dict[str, object] = response.json()
    return answer


def test_a_page_without_a_stylesheet_gets_the_sites_with_one_link_line(
    user_client: Client, project: Project, user: User
) -> None:
    answer = _bare_style(user_client, project, user)
    assert _text(project, "/about.html") == BARE.replace(
        "  <title>About</title>\n",
        '  <title>About</title>\n  <link rel="stylesheet" href="styles.css">\n',
    ).replace("<h1>", '<h1 class="h1-about-us">')
    assert _text(project, "/styles.css") == ".h1-about-us {\n  color: #7c2d12;\n}\n"
    assert answer["paths"] == ["/about.html", "/styles.css"]
    assert answer["in_place"] is None  # a new stylesheet: the page is loaded again
    # One edit: its undo takes back both, the new stylesheet gone.
    response = user_client.post(
        reverse("preview_edit_undo", args=[project.pk]),
        json.dumps(answer["revisions"]),
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    assert _text(project, "/about.html") == BARE
    assert not ProjectFile.objects.filter(project=project, path="/styles.css").exists()


def test_a_page_without_a_stylesheet_links_the_one_the_other_pages_link(
    user_client: Client, project: Project, user: User
) -> None:
    _files(project, user)
    _bare_style(user_client, project, user)
    assert '  <link rel="stylesheet" href="css/site.css">\n</head>' in _text(project, "/about.html")
    assert _text(project, "/css/site.css") == CSS + "\n.h1-about-us {\n  color: #7c2d12;\n}\n"
    assert not ProjectFile.objects.filter(project=project, path="/styles.css").exists()
