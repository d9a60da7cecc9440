"""A turn's changes in the chat panel: its diff, undo, redo and restore,
and the preview of the site as the turn left it.

Thin: chat.changes reads and writes; these render what it returns into the
changes dialog and tell every open tab of the project what moved
(chat.live.broadcast), so their tree, editor and preview follow.
"""

from __future__ import annotations

import uuid
from urllib.parse import urlencode

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from chat import changes
from chat.live.broadcast import files_moved
from chat.models import Message
from chat.selectors.turns import turn_of
from common.users import current_user
from projects.access import Action, project_for
from projects.history.changesets import FileChange, texts
from projects.history.undo import UndoRefused
from projects.models import Project, Reversal
from projects.web.diff_html import FileDiff, file_diff, layout_of
from projects.web.sites import past_preview_url

# A whole turn's view shows this many files' diffs; the rest are named.
MAX_FILES_SHOWN = 20
_STATUS = {True: 409, False: 422}


@require_GET
def turn_changes(request: HttpRequest, project_id: uuid.UUID, turn_id: int) -> HttpResponse:
    """The turn's diff: every file it changed, or the one at `?path=`."""
    _, turn = _turn(request, project_id, turn_id, "view")
    path = request.GET.get("path")
    files = changes.turn_changes(turn).files
    if path is not None:
        files = [file for file in files if file.path == path]
        if not files:
            raise Http404("That file was not changed by this turn.")
    layout = layout_of(request.GET.get("layout"))
    shown = [file.change for file in files[:MAX_FILES_SHOWN]]
    base = f"{request.path}?{urlencode({'path': path} if path is not None else {'all': 1})}"
    diffs = _diffs(shown, layout)
    # Only new or deleted files: inline is the one layout that reads, so no choice.
    one_layout = all(diff.one_sided for diff in diffs)
    context = {
        "title": path if path is not None else f"What “{_excerpt(turn)}” changed",
        "diffs": diffs,
        "more": _more(files[MAX_FILES_SHOWN:]),
        "layout": "inline" if one_layout else layout,
        "layout_url": "" if one_layout else base,
        "layout_target": "#changes-body",
    }
    return render(request, "projects/partials/diff.html", context)


@require_POST
def turn_undo(request: HttpRequest, project_id: uuid.UUID, turn_id: int) -> HttpResponse:
    project, turn = _turn(request, project_id, turn_id, "edit")
    result = changes.turn_undo(
        user=current_user(request), turn=turn, keep_changed=request.POST.get("keep_changed") == "1"
    )
    return _outcome(request, project, turn, result)


@require_http_methods(["GET", "POST"])
def turn_restore(request: HttpRequest, project_id: uuid.UUID, turn_id: int) -> HttpResponse:
    """GET: what restoring the project to before or after the turn would change;
    POST: do it."""
    # Looking at what a restore would change is reading; doing it is editing.
    action: Action = "edit" if request.method == "POST" else "view"
    project, turn = _turn(request, project_id, turn_id, action)
    raw = request.POST.get("when") if request.method == "POST" else request.GET.get("when")
    if raw not in ("before", "after"):
        raise Http404("Restore to before or after a turn.")
    when: changes.When = "before" if raw == "before" else "after"
    if request.method == "POST":
        result = changes.turn_restore(user=current_user(request), turn=turn, when=when)
        return _outcome(request, project, turn, result)
    context = {
        "project": project,
        "turn": turn,
        "when": when,
        "excerpt": _excerpt(turn),
        "steps": changes.restore_steps(turn, when),
    }
    return render(request, "chat/partials/restore_plan.html", context)


@require_GET
def turn_preview(request: HttpRequest, project_id: uuid.UUID, turn_id: int) -> HttpResponse:
    """The "Preview" under a turn: the site as it was right after the turn, in the
    preview pane (projects.views.preview_past); nothing is written until the
    person restores."""
    project, turn = _turn(request, project_id, turn_id, "view")
    point = changes.restore_point(turn, "after")
    context = {
        "project": project,
        "turn": turn,
        "excerpt": _excerpt(turn),
        "src": past_preview_url(request, project.preview_token, project_id=project.pk, point=point),
    }
    return render(request, "chat/partials/past_turn.html", context)


@require_POST
def reversal_revert(request: HttpRequest, project_id: uuid.UUID, reversal_id: int) -> HttpResponse:
    project = project_for(request, project_id, "edit")
    reversal = changes.reversal_get_for(project=project, reversal_id=reversal_id)
    if reversal is None:
        raise Http404("No such undo or restore.")
    result = changes.reversal_revert(user=current_user(request), reversal=reversal)
    return _outcome(request, project, None, result)


def _outcome(
    request: HttpRequest, project: Project, turn: Message | None, result: Reversal | UndoRefused
) -> HttpResponse:
    if isinstance(result, UndoRefused):
        refused: dict[str, object] = {"project": project, "turn": turn, "refused": result}
        if turn is not None and result.conflicts:
            refused["rest"] = changes.undo_rest(turn, result)
        response = render(request, "chat/partials/reversal_refused.html", refused)
        response.status_code = _STATUS[bool(result.conflicts)]
        return response
    paths = sorted(
        {path for row in result.revisions.all() for path in (row.path, row.old_path) if path}
    )
    files_moved(project, paths=paths, turn_id=result.message_id)
    context = {
        "project": project,
        "reversal": result,
        "effect": changes.reversal_effect(result),
        "count": len(paths),
    }
    return render(request, "chat/partials/reversal_done.html", context)


def _turn(
    request: HttpRequest, project_id: uuid.UUID, turn_id: int, action: Action
) -> tuple[Project, Message]:
    project = project_for(request, project_id, action)
    turn = turn_of(project=project, message_id=turn_id)
    if turn is None:
        raise Http404("No such turn in this project.")
    return project, turn


def _diffs(shown: list[FileChange], layout: str) -> list[FileDiff]:
    found = texts([blob for change in shown for blob in (change.before_id, change.after_id)])
    return [
        file_diff(
            found.get(change.before_id) if change.before_id else None,
            found.get(change.after_id) if change.after_id else None,
            path=change.path,
            layout=layout_of(layout),
            action=change.action,
            old_path=change.start_path if change.action == "renamed" else None,
        )
        for change in shown
    ]


def _more(rest: list[changes.ChangedFile]) -> str:
    if not rest:
        return ""
    names = ", ".join(file.path for file in rest)
    return f"Also changed, not shown here: {names}."


def _excerpt(turn: Message) -> str:
    return changes.turn_excerpt(turn)
