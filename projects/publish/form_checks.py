"""What the site check (projects.publish.site_check) tells of a page's forms:
one that posts nowhere (a static site keeps nothing sent to the page itself)
or to another site, where this server's own form endpoint
(`/_forms/<name>`, projects.publish.forms) would keep what visitors send; and
fields without a label, which screen readers announce without a name."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from projects.publish.addresses import is_form_endpoint
from projects.publish.findings import Finding
from projects.publish.pages import Tag

MAX_PER_PAGE = 5
_NOT_FIELDS = {"hidden", "submit", "button", "reset", "image"}
_NAMING = ("aria-label", "aria-labelledby", "title")  # what names a field besides a label
_FIX = "Make its action /_forms/<name> (a contact form: /_forms/contact) to keep them here"


@dataclass
class _Form:
    tag: Tag
    fields: list[Tag] = field(default_factory=list)


def form_findings(path: str, tags: Iterable[Tag]) -> Iterator[Finding]:
    listed = [tag for tag in tags if tag.html]
    forms = _forms(listed)
    for form in forms[:MAX_PER_PAGE]:
        problem = _where_it_posts(form)
        if problem is not None:
            yield Finding("form", path, problem, form.tag.line)
    yield from _unlabelled(path, listed)


def _forms(tags: list[Tag]) -> list[_Form]:
    """Each form with the fields inside it (forms do not nest: the parser drops an inner one)."""
    forms: list[_Form] = []
    for tag in tags:
        if tag.name == "form":
            forms.append(_Form(tag))
        elif forms and "form" in tag.within and _is_field(tag):
            forms[-1].fields.append(tag)
    return forms


def _where_it_posts(form: _Form) -> str | None:
    action = form.tag.attributes.get("action", "").strip()
    post = form.tag.attributes.get("method", "").strip().lower() == "post"
    if is_form_endpoint(action):
        return None
    if action.lower().startswith("mailto:"):
        return (
            f"A form sends to {_shown(action)}: it opens the visitor's mail program (many "
            f"have none) instead of sending. {_FIX}."
        )
    host = _host(action)
    if host is not None:
        return (
            f"A form sends what visitors write to another site ({_shown(host)}). {_FIX}, "
            "in your own inbox."
        )
    nowhere = not action or action.startswith("#") or action.lower().startswith("javascript:")
    # A form without an action that only reads (a search, a filter) is fine;
    # one that posts, or asks for a message or an address, loses what it is sent.
    asks = any(_asks_to_be_sent(tag) for tag in form.fields)
    if nowhere and (post or asks):
        return (
            "A form posts nowhere: the published site is static, so what visitors send is "
            f'lost. {_FIX}, with method="post".'
        )
    return None


def _asks_to_be_sent(tag: Tag) -> bool:
    kind = tag.attributes.get("type", "text").lower()
    return tag.name == "textarea" or kind in {"email", "tel"}


def _host(action: str) -> str | None:
    try:
        parts = urlsplit(action)
    except ValueError:
        return None
    return parts.netloc or None


def _is_field(tag: Tag) -> bool:
    if tag.name in {"select", "textarea"}:
        return True
    return tag.name == "input" and tag.attributes.get("type", "text").lower() not in _NOT_FIELDS


def _unlabelled(path: str, tags: list[Tag]) -> Iterator[Finding]:
    named = {tag.attributes.get("for", "") for tag in tags if tag.name == "label"}
    missing = [
        tag
        for tag in tags
        if _is_field(tag)
        and "label" not in tag.within
        and tag.attributes.get("id", "") not in named - {""}
        and not any(
            tag.attributes.get(a, "").strip() for a in ("aria-label", "aria-labelledby", "title")
        )
        # The honeypot and the form's own controls (_gotcha, _next) are for robots and the server.
        and not tag.attributes.get("name", "").startswith("_")
        and "hidden" not in tag.attributes
    ]
    for tag in missing[:MAX_PER_PAGE]:
        yield Finding(
            "form",
            path,
            f"The field {_described(tag)} has no label: screen readers announce it without a "
            "name, and a placeholder goes away once typing starts. Give it a "
            '<label for="…"> (or put it inside a <label>).',
            tag.line,
        )
    if len(missing) > MAX_PER_PAGE:
        rest = missing[MAX_PER_PAGE:]
        yield Finding("form", path, f"And {len(rest)} more fields have no label.", rest[0].line)


def _described(tag: Tag) -> str:
    name = tag.attributes.get("name", "").strip()
    return f'<{tag.name} name="{_shown(name)}">' if name else f"<{tag.name}>"


def _shown(text: str) -> str:
    return text if len(text) <= 60 else text[:60] + "…"
