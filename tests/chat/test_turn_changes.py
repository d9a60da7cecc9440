"""A turn's changes as the workspace serves them: the summary under
the turn with line counts, the diff, Undo (with its conflict choices), Redo,
restoring the project to before or after a turn, and the History dialog's diff.
Only the project's owner reaches any of it."""

from __future__ import annotations

import json
import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from chat import changes, services
from chat.agent.prompt import answer_text
from chat.models import Conversation, Message
from chat.records.reply import AssistantRecord
from chat.render import panel
from chat.selectors.conversations import next_sequence
from chat.selectors.past_turns import past_turns
from projects.files.elements import document_read
from projects.files.results import FileWrite
from projects.files.visual import Picked
from projects.locks import lock_acquire
from projects.models import FileRevision, Project, ProjectFile, ProjectLock, Reversal
from projects.preview_edits import PreviewEdited, VisualEdit, page_digest, preview_edit
from projects.services import Author, Edit, file_create, file_edit, file_update

pytestmark = pytest.mark.django_db


class Turns:
    """Turns of one conversation, their file changes made as the loop makes them:
    each write tied to the turn's assistant message."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.conversation: Conversation = services.conversation_create(project=project)

    def turn(self, text: str, *writes: tuple[str, dict[str, object]]) -> Message:
        sequence = next_sequence(conversation=self.conversation)
        asked = services.message_user_create(
            conversation=self.conversation, sequence=sequence, text=text, model="m"
        )
        reply = services.message_create(
            conversation=self.conversation,
            sequence=sequence + 1,
            role=Message.Role.ASSISTANT,
            content="Done.",
            record=AssistantRecord.from_stored(
                {"turn": {"status": "completed", "files_changed": []}}
            ),
        )
        author = Author.assistant(self.project.owner, message_id=reply.pk)
        for kind, arguments in writes:
            write = {"create": file_create, "update": file_update, "edit": file_edit}[kind]
            result = write(project=self.project, author=author, **arguments)  # type: ignore[operator]
            assert isinstance(result, FileWrite), result
        return asked


def content(project: Project, path: str) -> str | None:
    return (
        ProjectFile.objects.filter(project=project, path=path)
        .values_list("content", flat=True)
        .first()
    )


@pytest.fixture
def turns(starter_project: Project) -> Turns:
    return Turns(starter_project)


@pytest.fixture
def bakery(turns: Turns) -> Message:
    return turns.turn(
        "Make it a bakery",
        ("edit", {"path": "/index.html", "edits": [Edit("Hello, world", "Fresh bread")]}),
        ("update", {"path": "/styles.css", "content": "h1 { color: tomato; }\n"}),
        ("create", {"path": "/about.html", "content": "<h1>About</h1>\n<p>Us</p>\n"}),
    )


def test_the_summary_under_a_turn_counts_each_files_lines(
    turns: Turns, bakery: Message, user_client: Client
) -> None:
    found = changes.turn_changes(bakery)
    assert [
        (f.path, f.action, f.counts and (f.counts.added, f.counts.removed)) for f in found.files
    ] == [
        ("/index.html", "edited", (1, 1)),
        ("/styles.css", "edited", (1, 36)),  # the starter's 36 lines, all replaced
        ("/about.html", "created", (2, 0)),
    ]
    page = user_client.get(f"/projects/{turns.project.pk}/?conversation={turns.conversation.pk}")
    html = page.content.decode()
    assert "3 files changed" in html
    assert f"/turns/{bakery.pk}/undo/" in html


def test_a_turns_diff_shows_each_files_change(
    turns: Turns, bakery: Message, user_client: Client
) -> None:
    url = f"/projects/{turns.project.pk}/turns/{bakery.pk}/changes/"
    one = user_client.get(url, {"path": "/index.html", "layout": "split"}).content.decode()
    assert 'class="diff diff-split"' in one
    assert re.search(r'class="code removed">.*Hello, world', one)
    assert re.search(r'class="code added">.*Fresh bread', one)
    whole = user_client.get(url).content.decode()
    assert whole.count('class="file-diff-block"') == 3
    assert 'class="diff diff-inline"' in whole
    missing = user_client.get(url, {"path": "/script.js"})
    assert missing.status_code == 404


def test_a_new_files_diff_opens_inline_even_where_side_by_side_is_asked(
    turns: Turns, bakery: Message, user_client: Client
) -> None:
    url = f"/projects/{turns.project.pk}/turns/{bakery.pk}/changes/"
    new = user_client.get(url, {"path": "/about.html", "layout": "split"}).content.decode()
    assert 'class="diff diff-inline"' in new
    assert "diff-split" not in new
    assert "Side by side" not in new  # no layout to choose for half an empty column
    both = user_client.get(url, {"all": "1", "layout": "split"}).content.decode()
    assert both.count('class="diff diff-split"') == 2  # the edited files
    assert both.count('class="diff diff-inline"') == 1  # the new one
    assert "Side by side" in both


def test_undo_then_redo_through_the_workspace(
    turns: Turns, bakery: Message, user_client: Client
) -> None:
    project = turns.project
    answer = user_client.post(f"/projects/{project.pk}/turns/{bakery.pk}/undo/")
    assert answer.status_code == 200
    assert "Turn undone" in answer.content.decode()
    assert "Hello, world" in (content(project, "/index.html") or "")
    assert content(project, "/about.html") is None
    undo = Reversal.objects.get(kind=Reversal.Kind.UNDO)
    assert changes.turn_changes(bakery).undo == undo
    shown = panel.turn_changes_html(bakery.pk, conversation=turns.conversation, running=False)
    assert "Undone" in shown
    assert f"/reversals/{undo.pk}/revert/" in shown

    redo = user_client.post(f"/projects/{project.pk}/reversals/{undo.pk}/revert/")
    assert redo.status_code == 200
    assert "Fresh bread" in (content(project, "/index.html") or "")
    assert content(project, "/about.html") == "<h1>About</h1>\n<p>Us</p>\n"
    assert changes.turn_changes(bakery).undo is None
    again = user_client.post(f"/projects/{project.pk}/reversals/{undo.pk}/revert/")
    assert again.status_code == 422
    assert "already done: nothing changed" in again.content.decode()


def test_redo_and_its_own_undo_say_plainly_what_they_did(
    turns: Turns, bakery: Message, user_client: Client
) -> None:
    project = turns.project
    user_client.post(f"/projects/{project.pk}/turns/{bakery.pk}/undo/")
    undo = Reversal.objects.get(kind=Reversal.Kind.UNDO)

    redo = user_client.post(f"/projects/{project.pk}/reversals/{undo.pk}/revert/")
    shown = " ".join(re.sub(r"<[^>]+>", " ", redo.content.decode()).split())
    assert "Turn redone" in shown
    assert (
        "Redid the turn “Make it a bakery”: its changes to /about.html, /index.html and "
        "/styles.css are back." in shown
    )
    assert "Undo again" in shown
    assert "took back" not in shown.lower()
    assert "taken back" not in shown.lower()

    redone = Reversal.objects.get(reverses=undo)
    again = user_client.post(f"/projects/{project.pk}/reversals/{redone.pk}/revert/")
    shown = " ".join(re.sub(r"<[^>]+>", " ", again.content.decode()).split())
    assert "Turn undone" in shown
    assert "Undid the turn “Make it a bakery” again" in shown
    assert ">Redo<" in again.content.decode()
    assert "Hello, world" in (content(project, "/index.html") or "")
    assert changes.turn_changes(bakery).undo is not None


def test_a_conflict_offers_to_undo_the_rest_or_restore_to_before_the_turn(
    turns: Turns, bakery: Message, user_client: Client, user: User
) -> None:
    project = turns.project
    later = turns.turn(
        "Bigger heading",
        ("update", {"path": "/styles.css", "content": "h1 { font-size: 3rem; }\n"}),
    )
    answer = user_client.post(f"/projects/{project.pk}/turns/{bakery.pk}/undo/")
    html = answer.content.decode()
    assert answer.status_code == 409
    assert "<code>/styles.css</code>: it was changed since" in html
    assert "Undo the rest, keep these as they are" in html
    # The rest, named: the turn's other files.
    assert "changes to <code>/index.html</code> and <code>/about.html</code>." in html
    assert f"/turns/{bakery.pk}/restore/?when=before" in html
    assert "Fresh bread" in (content(project, "/index.html") or ""), "nothing changed yet"

    plan = user_client.get(f"/projects/{project.pk}/turns/{bakery.pk}/restore/", {"when": "before"})
    listed = plan.content.decode()
    assert "/styles.css" in listed
    assert "/about.html" in listed
    assert "Restore 3 files" in listed
    done = user_client.post(
        f"/projects/{project.pk}/turns/{bakery.pk}/restore/", {"when": "before"}
    )
    assert done.status_code == 200
    assert "Project restored" in done.content.decode()
    assert content(project, "/styles.css") is not None
    assert "h1 { font-size" not in (content(project, "/styles.css") or "")
    assert content(project, "/about.html") is None
    assert later.pk  # the later turn is undone by the restore too, and can be had back:
    restore = Reversal.objects.get(kind=Reversal.Kind.RESTORE)
    back = user_client.post(f"/projects/{project.pk}/reversals/{restore.pk}/revert/")
    assert back.status_code == 200
    assert content(project, "/styles.css") == "h1 { font-size: 3rem; }\n"


def test_no_undo_the_rest_when_every_file_changed_since(turns: Turns, user_client: Client) -> None:
    project = turns.project
    first = turns.turn("Colour", ("update", {"path": "/styles.css", "content": "p {}\n"}))
    turns.turn("Again", ("update", {"path": "/styles.css", "content": "a {}\n"}))
    answer = user_client.post(f"/projects/{project.pk}/turns/{first.pk}/undo/")
    html = answer.content.decode()
    assert answer.status_code == 409
    assert "Undo the rest" not in html  # there is no rest to undo
    assert f"/turns/{first.pk}/restore/?when=before" in html


def test_keep_changed_undoes_the_rest(turns: Turns, bakery: Message, user_client: Client) -> None:
    project = turns.project
    turns.turn("Later", ("update", {"path": "/styles.css", "content": "p {}\n"}))
    answer = user_client.post(
        f"/projects/{project.pk}/turns/{bakery.pk}/undo/", {"keep_changed": "1"}
    )
    assert answer.status_code == 200
    assert content(project, "/styles.css") == "p {}\n"
    assert content(project, "/about.html") is None


def test_restoring_to_after_a_turn_shows_the_list_first(
    turns: Turns, bakery: Message, user_client: Client
) -> None:
    project = turns.project
    turns.turn("Later", ("create", {"path": "/later.html", "content": "<p>later</p>\n"}))
    plan = user_client.get(f"/projects/{project.pk}/turns/{bakery.pk}/restore/", {"when": "after"})
    assert "/later.html" in plan.content.decode()
    assert content(project, "/later.html") is not None, "looking changes nothing"
    user_client.post(f"/projects/{project.pk}/turns/{bakery.pk}/restore/", {"when": "after"})
    assert content(project, "/later.html") is None
    assert "Fresh bread" in (content(project, "/index.html") or "")
    assert changes.turn_changes(bakery).restore is not None


def test_only_a_turn_that_changed_files_offers_to_restore_the_project_to_it(
    turns: Turns, bakery: Message, user: User
) -> None:
    question = turns.turn("What does the heading say?")  # a plan or a question: no write
    restore_to = "Restore the project to here"

    def shown(turn: Message) -> str:
        return panel.turn_changes_html(turn.pk, conversation=turns.conversation, running=False)

    assert restore_to in shown(bakery)
    assert restore_to not in shown(question)
    assert re.sub(r"<[^>]+>", "", shown(question)).strip() == "", "nothing shown under it"
    # A restore to such a turn made before (the history allows it) can still be taken back.
    turns.turn("Later", ("create", {"path": "/later.html", "content": "<p>later</p>\n"}))
    assert isinstance(changes.turn_restore(user=user, turn=question, when="after"), Reversal)
    again = shown(question)
    assert "Undo the restore" in again
    assert restore_to not in again


def test_undo_is_refused_with_the_reason_while_the_assistant_works(
    turns: Turns, bakery: Message, user_client: Client
) -> None:
    lock = lock_acquire(project=turns.project, purpose="assistant", details={}, ttl=60)
    assert isinstance(lock, ProjectLock)
    answer = user_client.post(f"/projects/{turns.project.pk}/turns/{bakery.pk}/undo/")
    assert answer.status_code == 422
    assert "The assistant is working on this project right now" in answer.content.decode()
    assert "Fresh bread" in (content(turns.project, "/index.html") or "")


def test_no_one_else_reaches_a_turns_changes(
    turns: Turns, bakery: Message, other_client: Client
) -> None:
    project = turns.project
    for response in (
        other_client.get(f"/projects/{project.pk}/turns/{bakery.pk}/changes/"),
        other_client.post(f"/projects/{project.pk}/turns/{bakery.pk}/undo/"),
        other_client.get(f"/projects/{project.pk}/turns/{bakery.pk}/restore/?when=before"),
    ):
        assert response.status_code == 404
    assert "Fresh bread" in (content(project, "/index.html") or "")


def test_the_history_dialog_diffs_a_revision_against_the_one_before_or_now(
    turns: Turns, bakery: Message, user_client: Client
) -> None:
    project = turns.project
    revision = FileRevision.objects.get(project=project, path="/index.html", action="edit")
    url = f"/projects/{project.pk}/revisions/{revision.pk}/diff/"
    before = user_client.get(url, {"against": "previous"}).content.decode()
    assert re.search(r'class="code removed">.*Hello, world', before)
    ok = file_update(
        project=project,
        path="/index.html",
        content=(content(project, "/index.html") or "").replace("Fresh bread", "Rye"),
        author=Author.person(project.owner),
    )
    assert isinstance(ok, FileWrite)
    now = user_client.get(url, {"against": "current"}).content.decode()
    assert re.search(r'class="code removed">.*Fresh bread', now)
    assert re.search(r'class="code added">.*Rye', now)
    history = user_client.get(f"/projects/{project.pk}/files/history/", {"path": "/index.html"})
    assert f"/revisions/{revision.pk}/diff/?against=previous" in history.content.decode()


def test_the_next_turns_history_tells_the_model_of_an_undo(
    turns: Turns, bakery: Message, user: User
) -> None:
    result = changes.turn_undo(user=user, turn=bakery)
    assert isinstance(result, Reversal)
    (past,) = past_turns(conversation=turns.conversation)
    assert past.afterwards == (result.summary,)
    assert result.summary.startswith("Undid the turn “Make it a bakery”: /about.html")


def test_taking_back_a_redo_leaves_the_turn_undone_again(
    turns: Turns, bakery: Message, user: User
) -> None:
    undo = changes.turn_undo(user=user, turn=bakery)
    assert isinstance(undo, Reversal)
    redo = changes.reversal_revert(user=user, reversal=undo)
    assert isinstance(redo, Reversal)
    assert changes.turn_changes(bakery).undo is None
    again = changes.reversal_revert(user=user, reversal=redo)
    assert isinstance(again, Reversal)
    assert changes.turn_changes(bakery).undo == again
    assert content(turns.project, "/about.html") is None


def test_the_history_dialog_says_which_versions_an_undo_wrote(
    turns: Turns, bakery: Message, user: User, user_client: Client
) -> None:
    assert isinstance(changes.turn_undo(user=user, turn=bakery), Reversal)
    history = user_client.get(
        f"/projects/{turns.project.pk}/files/history/", {"path": "/index.html"}
    )
    assert len(re.findall(r">\s*Undone\s*<", history.content.decode())) == 1


def test_a_turns_preview_shows_the_site_as_the_turn_left_it_and_writes_nothing(
    turns: Turns, bakery: Message, user_client: Client, sites_client: Client
) -> None:
    project = turns.project
    turns.turn("Rye", ("edit", {"path": "/index.html", "edits": [Edit("Fresh bread", "Rye")]}))
    revisions = FileRevision.objects.filter(project=project).count()
    bar = user_client.get(f"/projects/{project.pk}/turns/{bakery.pk}/preview/")
    assert bar.status_code == 200
    text = bar.content.decode()
    assert "Viewing the site as it was" in text
    assert "after “Make it a bakery”" in text
    assert f"/turns/{bakery.pk}/restore/?when=after" in text, "its Restore is the turn's"
    src = re.search(r'data-past-src="http://sites\.testserver(/preview/[^"]+)"', text)
    assert src is not None, text
    page = sites_client.get(src.group(1)).content.decode()
    assert "Fresh bread" in page
    assert "Rye" not in page
    assert "Rye" in (content(project, "/index.html") or "")
    assert FileRevision.objects.filter(project=project).count() == revisions
    shown = panel.turn_changes_html(bakery.pk, conversation=turns.conversation, running=False)
    assert f"/turns/{bakery.pk}/preview/" in shown, "offered beside the restore"


def test_no_one_else_previews_a_turn(turns: Turns, bakery: Message, other_client: Client) -> None:
    answer = other_client.get(f"/projects/{turns.project.pk}/turns/{bakery.pk}/preview/")
    assert answer.status_code == 404


def test_the_next_turn_is_told_of_an_edit_made_in_the_preview_and_its_undo(
    turns: Turns, bakery: Message, user: User, user_client: Client
) -> None:
    page = content(turns.project, "/index.html")
    assert page is not None
    document = document_read(page)
    h1 = next(element for element in document.elements() if element.name == "h1")
    path = document.path_of(h1)
    assert path is not None
    edit = VisualEdit(
        page="/index.html",
        source=page_digest(page),
        picked=Picked(tuple(path), "h1", h1.text()),
        kind="text",
        before=(h1.text(),),
        after=("Warm bread",),
    )
    done = preview_edit(project=turns.project, user=user, edit=edit)
    assert isinstance(done, PreviewEdited), done
    (past,) = past_turns(conversation=turns.conversation)
    assert past.edited == ("Edited in the preview: text of <h1> to “Warm bread” (in /index.html)",)
    said = answer_text(past)
    assert "the person changed the site themselves, in the preview" in said
    assert "“Warm bread”" in said
    undone = user_client.post(
        f"/projects/{turns.project.pk}/preview-edit/undo/",
        json.dumps([write.revision_id for write in done.writes]),
        content_type="application/json",
    )
    assert undone.status_code == 200
    (past,) = past_turns(conversation=turns.conversation)
    assert past.afterwards == ("Undid an edit made in the preview (text of <h1> to “Warm bread”).",)
