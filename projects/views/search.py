"""The file panel's search across the project's files (htmx): the same plain-text
search the assistant's `search_files` tool uses, drawn for people."""

from __future__ import annotations

import uuid

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from projects.access import project_for
from projects.files.results import FileError
from projects.selectors import file_search
from projects.web.search import search_groups

# What one answer lists: enough to see where something is, not a whole dump.
MAX_SHOWN = 100


@require_GET
def search(request: HttpRequest, project_id: uuid.UUID) -> HttpResponse:
    project = project_for(request, project_id, "view")
    query = request.GET.get("q", "")
    if query.strip() == "":
        return HttpResponse("")  # the box emptied: the results go
    case_sensitive = request.GET.get("case") == "1"
    found = file_search(project, query, case_sensitive=case_sensitive, max_results=MAX_SHOWN)
    if isinstance(found, FileError):
        return render(request, "projects/partials/search_results.html", {"error": found.message})
    context = {
        "results": found,
        "groups": search_groups(found, case_sensitive=case_sensitive),
    }
    return render(request, "projects/partials/search_results.html", context)
