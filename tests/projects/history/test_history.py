"""A file's history and restoring earlier states (projects/history/revisions.py and its views)."""

from __future__ import annotations

import re

from django.test import Client

from chat.models import Conversation, Message
from projects.files.results import ErrorCode, FileError, FileWrite
from projects.history.revisions import deleted_files, file_history, file_restore, revision_state
from projects.models import FileRevision, ProjectFile, Reversal
from projects.services import Author, file_create, file_delete, file_rename, file_update
from projects.sharing import membership_add


def _write(result: FileWrite | FileError) -> FileWrite:
    assert isinstance(result, FileWrite), result
    return result


def test_history_lists_every_change_newest_first_with_who(project, author, user) -> None:
    first = _write(file_create(project=project, path="/a.html", content="one", author=author))
    _write(file_update(project=project, path="/a.html", content="two", author=author))

    history = file_history(project, "a.html")

    assert not isinstance(history, FileError)
    assert [rev.action for rev in history] == ["update", "create"]
    assert history[-1].id == first.revision_id
    assert {rev.username for rev in history} == {user.username}
    assert [rev.chars for rev in history] == [3, 3]


def test_history_follows_a_rename_from_both_names(project, author) -> None:
    _write(file_create(project=project, path="/old.html", content="x", author=author))
    _write(file_rename(project=project, path="/old.html", new_path="/new.html", author=author))

    old = file_history(project, "/old.html")
    new = file_history(project, "/new.html")

    assert not isinstance(old, FileError)
    assert not isinstance(new, FileError)
    assert [rev.action for rev in old] == ["rename", "create"]
    assert [rev.action for rev in new] == ["rename"]


def test_history_refuses_a_bad_path(project) -> None:
    result = file_history(project, "../etc/passwd")
    assert isinstance(result, FileError)
    assert result.code == ErrorCode.INVALID_PATH


def test_restore_brings_back_an_earlier_version_as_a_new_change(project, author) -> None:
    first = _write(file_create(project=project, path="/a.html", content="original", author=author))
    _write(file_update(project=project, path="/a.html", content="ruined", author=author))

    restored = _write(file_restore(project=project, revision_id=first.revision_id, author=author))

    record = ProjectFile.objects.get(project=project, path="/a.html")
    assert record.content == "original"
    assert restored.version == 3
    # The "ruined" state is still in the history: restoring is itself undoable.
    assert "ruined" in [r.content_after for r in FileRevision.objects.filter(project=project)]


def test_a_deleted_file_is_listed_and_can_be_restored(project, author) -> None:
    _write(file_create(project=project, path="/gone.css", content="body{}", author=author))
    deletion = _write(file_delete(project=project, path="/gone.css", author=author))

    listed = deleted_files(project)
    assert [(rev.path, rev.id) for rev in listed] == [("/gone.css", deletion.revision_id)]
    state = revision_state(project, deletion.revision_id)
    assert not isinstance(state, FileError)
    assert state.content == "body{}"

    _write(file_restore(project=project, revision_id=deletion.revision_id, author=author))

    assert ProjectFile.objects.get(project=project, path="/gone.css").content == "body{}"
    assert deleted_files(project) == []


def test_restore_refuses_another_projects_revision(project, starter_project, author) -> None:
    foreign = FileRevision.objects.filter(project=starter_project).first()
    assert foreign is not None

    result = file_restore(project=project, revision_id=foreign.pk, author=author)

    assert isinstance(result, FileError)
    assert result.code == ErrorCode.NOT_FOUND
    assert not ProjectFile.objects.filter(project=project).exists()


def test_history_endpoints_are_owner_only(starter_project, other_client) -> None:
    base = f"/projects/{starter_project.pk}"
    revision = FileRevision.objects.filter(project=starter_project).first()
    assert revision is not None
    assert other_client.get(f"{base}/files/history/?path=/index.html").status_code == 404
    assert other_client.get(f"{base}/revisions/{revision.pk}/").status_code == 404
    response = other_client.post(f"{base}/files/restore/", {"revision": revision.pk})
    assert response.status_code == 404


def test_restore_endpoint_reopens_the_file_and_refreshes_tree(
    starter_project, user_client, author
) -> None:
    original = FileRevision.objects.get(project=starter_project, path="/styles.css")
    _write(file_delete(project=starter_project, path="/styles.css", author=author))
    page = user_client.get(f"/projects/{starter_project.pk}/")
    assert b"Deleted files (1)" in page.content

    response = user_client.post(
        f"/projects/{starter_project.pk}/files/restore/", {"revision": original.pk}
    )

    assert response.status_code == 200
    assert b'data-path="/styles.css"' in response.content
    assert b'id="file-tree"' in response.content
    assert b"Deleted files" not in response.content
    assert "filesChanged" in response["HX-Trigger"]


def test_a_versions_preview_shows_it_with_todays_other_files(
    starter_project, user_client, sites_client, author
) -> None:
    first = FileRevision.objects.get(project=starter_project, path="/index.html")
    page = starter_project.files.get(path="/index.html").content
    _write(
        file_update(
            project=starter_project,
            path="/index.html",
            content=page.replace("Hello, world", "Changed"),
            author=author,
        )
    )
    history = user_client.get(
        f"/projects/{starter_project.pk}/files/history/", {"path": "/index.html"}
    ).content.decode()
    assert f"/revisions/{first.pk}/preview/" in history
    bar = user_client.get(f"/projects/{starter_project.pk}/revisions/{first.pk}/preview/")
    text = bar.content.decode()
    assert "Viewing the site as it was" in text
    assert "Restore this version" in text
    src = re.search(r'data-past-src="http://sites\.testserver(/preview/[^"]+)"', text)
    assert src is not None, text
    assert re.search(rf"/@file-{first.pk}-[^/]+/index.html$", src.group(1)), "opens on the page"
    shown = sites_client.get(src.group(1)).content.decode()
    assert "Hello, world" in shown
    assert "Changed" in starter_project.files.get(path="/index.html").content


def test_a_versions_preview_is_owner_only(starter_project, other_client) -> None:
    revision = FileRevision.objects.filter(project=starter_project).first()
    assert revision is not None
    url = f"/projects/{starter_project.pk}/revisions/{revision.pk}/preview/"
    assert other_client.get(url).status_code == 404


def _dialog(client, project, path: str) -> str:
    response = client.get(f"/projects/{project.pk}/files/history/", {"path": path})
    assert response.status_code == 200
    return " ".join(response.content.decode().split())


def test_the_history_dialog_says_in_words_who_did_what_and_when(
    project, author, user, user_client
) -> None:
    _write(file_create(project=project, path="/old.html", content="x", author=author))
    _write(file_rename(project=project, path="/old.html", new_path="/a.html", author=author))
    _write(file_update(project=project, path="/a.html", content="mine", author=author))
    conversation = Conversation.objects.create(project=project)
    asked = Message.objects.create(conversation=conversation, sequence=1, role="user")
    answer = Message.objects.create(conversation=conversation, sequence=2, role="assistant")
    by_assistant = _write(
        file_update(
            project=project,
            path="/a.html",
            content="theirs",
            author=Author.assistant(message_id=answer.pk),
        )
    )
    undo = Reversal.objects.create(project=project, kind=Reversal.Kind.UNDO, user=user)
    taken_back = _write(file_update(project=project, path="/a.html", content="mine", author=author))
    FileRevision.objects.filter(pk=taken_back.revision_id).update(reversal=undo)

    dialog = _dialog(user_client, project, "/a.html")

    words = re.findall(r'class="rev-action[^"]*">([^<]+)<', dialog)
    assert words == [
        "Undone",
        "Changed by the assistant",
        "Edited by you",
        "Renamed from /old.html",
    ]
    assert "Created" in _dialog(user_client, project, "/old.html")
    assert "just now · by you" in dialog  # the undo: who took the change back
    for unclear in ("0 minutes", "UPDATE", "by undo"):
        assert unclear not in dialog
    # The assistant's change links to its turn, which opens the chat on it.
    link = f"/projects/{project.pk}/messages/{answer.pk}/turn/"
    assert f'href="{link}"' in dialog
    assert dialog.count("See the turn") == 1
    opened = user_client.get(link)
    assert opened.status_code == 302
    assert (
        opened["Location"] == f"/projects/{project.pk}/?conversation={conversation.pk}#t{asked.pk}"
    )
    assert by_assistant.revision_id


def test_a_turn_link_is_owner_only(project, other_client) -> None:
    conversation = Conversation.objects.create(project=project)
    message = Message.objects.create(conversation=conversation, sequence=1, role="user")
    response = other_client.get(f"/projects/{project.pk}/messages/{message.pk}/turn/")
    assert response.status_code == 404


def test_on_a_shared_project_history_names_who_asked_and_who_edited(
    project, user, other_user, user_client, other_client
) -> None:
    """Each person reads the others by name (as the chat names them: the full
    name, not the username) and themselves as "you"; the assistant's change
    names the person whose turn made it."""
    membership_add(project=project, by=user, username=other_user.get_username(), role="editor")
    other_user.first_name, other_user.last_name = "Erin", "Quill"
    other_user.save()
    erin = "Erin Quill"
    _write(file_create(project=project, path="/a.html", content="x", author=Author.person(user)))
    _write(
        file_update(project=project, path="/a.html", content="y", author=Author.person(other_user))
    )
    _write(
        file_update(
            project=project, path="/a.html", content="z", author=Author.assistant(other_user)
        )
    )

    def said(client: Client) -> list[str]:
        return re.findall(r'class="rev-action[^"]*">([^<]+)<', _dialog(client, project, "/a.html"))

    assert said(user_client) == [
        f"Changed by the assistant for {erin}",
        f"Edited by {erin}",
        "Created",
    ]
    assert said(other_client) == ["Changed by the assistant", "Edited by you", "Created"]
