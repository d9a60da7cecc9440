"""The preview's edit panel on the server: a visual edit as the page sends it,
checked field by field (bounded, typed) into a `VisualEdit`; and what the
panel offers: the site's own colours, its pages, the page's sections, the
project's images."""

from __future__ import annotations

from typing import get_args

from common.jsontypes import JSONValue
from projects.files import style_rules
from projects.files.elements import document_of, document_problem
from projects.files.visual import Picked, VisualRefused
from projects.models import Project, ProjectFile
from projects.preview_edits import Kind, VisualEdit

MAX_PATH_DEPTH = 256
MAX_TEXTS = 200  # text nodes in one element edited in place
MAX_FIELD = 20_000  # characters of one field
_IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg", ".avif")
MAX_CHOICES = 200


def edit_from_json(raw: JSONValue) -> VisualEdit | VisualRefused:
    if not isinstance(raw, dict):
        return VisualRefused("Send the edit as a JSON object.")
    picked = raw.get("picked")
    kind = raw.get("kind")
    if not isinstance(picked, dict) or kind not in get_args(Kind):
        return VisualRefused("The edit names no element, or no kind of change.")
    path = picked.get("path")
    if (
        not isinstance(path, list)
        or len(path) > MAX_PATH_DEPTH
        or not all(
            isinstance(i, int) and not isinstance(i, bool) and 0 <= i < 100_000 for i in path
        )
    ):
        return VisualRefused("The element's place in the page is not readable.")
    before, after = _texts(raw.get("before")), _texts(raw.get("after"))
    if before is None or after is None:
        return VisualRefused(f"At most {MAX_TEXTS} pieces of text, please.")
    return VisualEdit(
        page=_text(raw.get("page")),
        source=_text(raw.get("source")),
        picked=Picked(tuple(path), _text(picked.get("tag")), _text(picked.get("text"))),  # type: ignore[arg-type]
        kind=kind,  # type: ignore[arg-type]
        before=before,
        after=after,
        markup=_text(raw.get("markup")),
        name=_text(raw.get("name")),
        value=_text(raw.get("value")),
        up=raw.get("up") is True,
    )


def _text(value: JSONValue) -> str:
    return value[:MAX_FIELD] if isinstance(value, str) else ""


def _texts(value: JSONValue) -> tuple[str, ...] | None:
    if value is None:
        return ()
    if not isinstance(value, list) or len(value) > MAX_TEXTS:
        return None
    if not all(isinstance(each, str) and len(each) <= MAX_FIELD for each in value):
        return None
    return tuple(each for each in value if isinstance(each, str))


def panel_choices(project: Project, page: str) -> dict[str, list[str]]:
    """What the panel offers for `page`: colours, pages, sections, images."""
    files = ProjectFile.objects.filter(project=project)
    sheets = files.filter(path__iendswith=".css").values_list("content", flat=True)
    paths = sorted(files.values_list("path", flat=True))
    current = files.filter(path=page).values_list("content", flat=True).first() or ""
    sections = []
    if current and document_problem(current) is None:
        sections = [
            "#" + element.attributes["id"]
            for element in document_of(current).elements()
            if element.attributes.get("id")
        ]
    return {
        "colours": style_rules.site_colours(list(sheets)),
        "pages": [p for p in paths if p.lower().endswith((".html", ".htm"))][:MAX_CHOICES],
        "sections": sections[:MAX_CHOICES],
        "images": [p for p in paths if p.lower().endswith(_IMAGE_EXTENSIONS)][:MAX_CHOICES],
    }
