"""Taking changes back: a run of revisions undone over create, edit,
rename and delete chains; conflicts with later edits; an undo undone; the whole
project restored to a point; limits and a running turn refuse it whole."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from pytest_django.fixtures import Settings as SettingsWrapper

from projects.files.results import FileWrite
from projects.history.changesets import net_changes
from projects.history.undo import (
    UndoRefused,
    changes_undo,
    project_restore,
    restore_plan,
    undo_plan,
)
from projects.locks import lock_acquire
from projects.models import FileRevision, Project, ProjectFile, ProjectLock, Reversal
from projects.services import (
    Author,
    Edit,
    file_create,
    file_delete,
    file_edit,
    file_rename,
    file_update,
)

pytestmark = pytest.mark.django_db


def files(project: Project) -> dict[str, str]:
    return dict(ProjectFile.objects.filter(project=project).values_list("path", "content"))


def mark(project: Project) -> int:
    """The newest revision id so far: what comes after is the run."""
    latest = FileRevision.objects.filter(project=project).order_by("-pk").first()
    return latest.pk if latest else 0


def since(project: Project, point: int) -> list[FileRevision]:
    return list(FileRevision.objects.filter(project=project, pk__gt=point))


def ok(result: object) -> None:
    assert isinstance(result, FileWrite), result


def undo(
    project: Project, user: User, run: list[FileRevision], **options: object
) -> Reversal | UndoRefused:
    return changes_undo(
        project=project,
        revisions=run,
        user=user,
        kind=Reversal.Kind.UNDO,
        summary="undid it",
        **options,  # type: ignore[arg-type]
    )


@pytest.fixture
def bot(user: User) -> Author:
    return Author.assistant(user)


def test_a_run_of_every_kind_of_change_is_put_back_as_it_was(
    starter_project: Project, user: User, bot: Author
) -> None:
    project = starter_project
    before = files(project)
    point = mark(project)
    ok(file_create(project=project, path="/about.html", content="<p>About</p>\n", author=bot))
    ok(
        file_edit(
            project=project, path="/about.html", edits=[Edit("About", "About us")], author=bot
        )
    )
    ok(
        file_update(
            project=project, path="/styles.css", content="body { color: red; }\n", author=bot
        )
    )
    ok(file_rename(project=project, path="/script.js", new_path="/js/app.js", author=bot))
    ok(file_update(project=project, path="/js/app.js", content="// moved\n", author=bot))
    ok(file_delete(project=project, path="/index.html", author=bot))
    run = since(project, point)

    changes = {change.path: change.action for change in net_changes(run)}
    assert changes == {
        "/about.html": "created",
        "/styles.css": "edited",
        "/js/app.js": "renamed",
        "/index.html": "deleted",
    }

    reversal = undo(project, user, run)
    assert isinstance(reversal, Reversal), reversal
    assert files(project) == before
    written = FileRevision.objects.filter(reversal=reversal)
    assert written.count() == 5  # the renamed file: moved back, then its text
    assert set(written.values_list("actor", flat=True)) == {FileRevision.Actor.USER}
    assert FileRevision.objects.filter(pk__in=[r.pk for r in run]).count() == len(run), (
        "the undone revisions stay in the history"
    )


def test_an_undo_can_itself_be_undone(starter_project: Project, user: User, bot: Author) -> None:
    project = starter_project
    point = mark(project)
    ok(file_update(project=project, path="/index.html", content="<h1>New</h1>\n", author=bot))
    ok(file_create(project=project, path="/new.css", content="p {}\n", author=bot))
    after_turn = files(project)
    first = undo(project, user, since(project, point))
    assert isinstance(first, Reversal)
    assert "/new.css" not in files(project)

    redo = changes_undo(
        project=project,
        revisions=list(first.revisions.all()),
        user=user,
        kind=Reversal.Kind.REDO,
        summary="redid it",
        reverses=first,
    )
    assert isinstance(redo, Reversal), redo
    assert files(project) == after_turn
    assert redo.reverses == first


def test_a_file_changed_since_is_a_conflict_named_and_nothing_changes(
    starter_project: Project, user: User, bot: Author
) -> None:
    project = starter_project
    point = mark(project)
    ok(file_update(project=project, path="/index.html", content="<h1>Turn</h1>\n", author=bot))
    ok(file_update(project=project, path="/styles.css", content="p { margin: 0 }\n", author=bot))
    run = since(project, point)
    ok(
        file_update(
            project=project,
            path="/styles.css",
            content="p { margin: 1em }\n",
            author=Author.person(user),
        )
    )
    kept = files(project)

    refused = undo(project, user, run)
    assert isinstance(refused, UndoRefused)
    assert [(c.path, c.reason) for c in refused.conflicts] == [
        ("/styles.css", "it was changed since")
    ]
    assert files(project) == kept, "a refused undo changes nothing"

    partial = undo(project, user, run, keep_changed=True)
    assert isinstance(partial, Reversal)
    now = files(project)
    assert now["/styles.css"] == "p { margin: 1em }\n", "the person's later edit is kept"
    assert now["/index.html"] != "<h1>Turn</h1>\n"


def test_a_later_rename_or_a_file_in_the_way_is_a_conflict(
    starter_project: Project, user: User, bot: Author
) -> None:
    project = starter_project
    point = mark(project)
    ok(file_delete(project=project, path="/script.js", author=bot))
    ok(file_create(project=project, path="/page.html", content="<p>x</p>\n", author=bot))
    run = since(project, point)
    later = Author.assistant(user)
    ok(file_create(project=project, path="/script.js", content="// another\n", author=later))
    ok(file_rename(project=project, path="/page.html", new_path="/kept.html", author=later))

    plan = undo_plan(project, run)
    reasons = {c.path: c.reason for c in plan.conflicts}
    assert reasons == {
        "/script.js": "another file is at /script.js now",
        "/page.html": "it was renamed or deleted since",
    }


def test_files_that_swap_names_are_put_back(
    starter_project: Project, user: User, bot: Author
) -> None:
    project = starter_project
    before = files(project)
    point = mark(project)
    ok(file_rename(project=project, path="/styles.css", new_path="/aside.css", author=bot))
    ok(file_rename(project=project, path="/script.js", new_path="/styles.js", author=bot))
    ok(file_rename(project=project, path="/index.html", new_path="/home.html", author=bot))
    ok(file_create(project=project, path="/index.html", content="<p>New home</p>\n", author=bot))
    reversal = undo(project, user, since(project, point))
    assert isinstance(reversal, Reversal), reversal
    assert files(project) == before


def test_an_undo_past_the_project_limits_is_refused_whole(
    starter_project: Project, user: User, bot: Author, settings: SettingsWrapper
) -> None:
    project = starter_project
    point = mark(project)
    ok(file_delete(project=project, path="/script.js", author=bot))
    ok(file_update(project=project, path="/index.html", content="<p>short</p>\n", author=bot))
    run = since(project, point)
    ok(
        file_create(
            project=project, path="/other.html", content="<p>o</p>\n", author=Author.person(user)
        )
    )
    settings.BUILTIT_MAX_FILES = 3
    kept = files(project)
    refused = undo(project, user, run)
    assert isinstance(refused, UndoRefused)
    assert refused.message.startswith("Nothing was changed.")
    assert "at most 3 files" in refused.message
    assert files(project) == kept
    assert not Reversal.objects.exists(), "no trace of an undo that did not happen"


def test_nothing_is_taken_back_while_the_assistant_works(
    starter_project: Project, user: User, bot: Author
) -> None:
    project = starter_project
    point = mark(project)
    ok(file_update(project=project, path="/index.html", content="<p>x</p>\n", author=bot))
    lock = lock_acquire(project=project, purpose="assistant", details={}, ttl=60)
    assert isinstance(lock, ProjectLock)
    refused = undo(project, user, since(project, point))
    assert isinstance(refused, UndoRefused)
    assert "working on this project" in refused.message
    refused_restore = project_restore(project=project, point=point, user=user, summary="s")
    assert isinstance(refused_restore, UndoRefused)


def test_the_project_is_restored_to_a_point_and_that_too_can_be_undone(
    starter_project: Project, user: User, bot: Author
) -> None:
    project = starter_project
    start = files(project)
    point = mark(project)
    ok(file_update(project=project, path="/index.html", content="<p>one</p>\n", author=bot))
    ok(file_create(project=project, path="/a.html", content="<p>a</p>\n", author=bot))
    ok(
        file_rename(
            project=project, path="/script.js", new_path="/app.js", author=Author.person(user)
        )
    )
    ok(file_delete(project=project, path="/styles.css", author=bot))
    later = files(project)

    plan = {step.path: step.action for step in restore_plan(project, point)}
    assert plan == {
        "/index.html": "edited",
        "/a.html": "deleted",
        "/script.js": "renamed",
        "/styles.css": "created",
    }
    restored = project_restore(project=project, point=point, user=user, summary="restored")
    assert isinstance(restored, Reversal), restored
    assert files(project) == start
    again = project_restore(project=project, point=point, user=user, summary="again")
    assert isinstance(again, UndoRefused), "already as it was"

    taken_back = changes_undo(
        project=project,
        revisions=list(restored.revisions.all()),
        user=user,
        kind=Reversal.Kind.REDO,
        summary="back",
        reverses=restored,
    )
    assert isinstance(taken_back, Reversal), taken_back
    assert files(project) == later
