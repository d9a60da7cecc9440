"""A style the person set in the preview, made to show when another rule of the
page's stylesheets wins over where it would be written (a more specific
`.hero h1`, or a later rule as specific), with the smallest edit a person
would make: that rule's own declaration, when it styles this element alone;
else a rule for the element's class whose selector is the winner's and the
class (`.hero h1.h1-fresh-bread`), which out-ranks it. A winner that says
!important is refused in words rather than outbid with another.

Rules of a page's `<style>` block and of stylesheets outside the project are
not read: when one of them wins, the preview's check after the edit says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from projects.files import cascade, style_rules
from projects.files.elements import document_problem
from projects.files.visual import ASK, VisualRefused
from projects.models import ProjectFile

# The other pages an edit parses to learn whether a rule styles one element
# alone (each a few ms for 50 KB); past this, the rule is left as it is and a
# rule that out-ranks it is written instead.
MAX_OTHER_PAGES = 40


@dataclass(frozen=True)
class Beaten:
    """The rule that wins over the edit as it would be written."""

    setter: cascade.Setter
    sheet: ProjectFile


@dataclass(frozen=True)
class Rewritten:
    """The stylesheet to write instead, and the rule's selector when it is a new
    one for the element's class (None: the winner's own declaration changed)."""

    sheet: ProjectFile
    css: str
    selector: str | None


def winner_over(
    *,
    page: str,
    path: Sequence[int],
    sheets: Sequence[tuple[ProjectFile, str]],
    prop: str,
    value: str,
) -> Beaten | None:
    """The rule that sets `prop` on the element at `path` of the page, with the
    page's stylesheets (each with its text), all as the edit would leave them,
    when its value is not `value`; None when the value shows."""
    shown = " ".join(value.split())
    if not any(s.value != shown for _, css in sheets for s in style_rules.settings(css, prop)):
        return None  # every rule that sets it says `value`: whichever wins, it shows
    found = _winner(page, path, sheets, prop)
    return None if found is None or found.setter.value == shown else found


def winner_already(
    *,
    page: str,
    path: Sequence[int],
    sheets: Sequence[tuple[ProjectFile, str]],
    prop: str,
    value: str,
) -> Beaten | None:
    """The rule that wins in setting `prop` on the element, when it says `value`
    already (nothing to write); else None."""
    shown = " ".join(value.split())
    if not any(s.value == shown for _, css in sheets for s in style_rules.settings(css, prop)):
        return None  # no rule says `value`
    found = _winner(page, path, sheets, prop)
    return found if found is not None and found.setter.value == shown else None


def _winner(
    page: str, path: Sequence[int], sheets: Sequence[tuple[ProjectFile, str]], prop: str
) -> Beaten | None:
    element = cascade.element_at(cascade.page_root(page), path)
    if element is None:
        return None
    found = cascade.setters(element, [css for _, css in sheets], prop)
    return Beaten(found[-1], sheets[found[-1].sheet][0]) if found else None


def winner_refused(beaten: Beaten, *, tag: str, prop: str) -> VisualRefused | None:
    if not beaten.setter.important:
        return None
    return VisualRefused(
        f"The rule “{beaten.setter.selectors}” of {beaten.sheet.path} sets {prop} of this "
        f"<{tag}> with !important, which wins over any edit here, so nothing was changed. {ASK}",
        ask=f"Change {prop} of the <{tag}>: “{beaten.setter.selectors}” in {beaten.sheet.path} "
        "sets it with !important",
    )


def winner_changed(
    *, page: str, others: Sequence[str], beaten: Beaten, prop: str, value: str
) -> Rewritten | None:
    """The winner's own declaration changed, when the rule styles this element
    alone in the page and in none of the `others` (the project's other pages
    that link its stylesheet); else None."""
    if cascade.matches(cascade.page_root(page), beaten.setter.selectors) != 1:
        return None
    if len(others) > MAX_OTHER_PAGES:
        return None  # more pages than an edit should parse: taken as styled by the rule too
    for other in others:
        if document_problem(other) is not None:
            return None  # too big to read here: taken as styled by the rule too
        if cascade.matches(cascade.page_root(other), beaten.setter.selectors):
            return None
    css = style_rules.declaration_set_at(
        beaten.sheet.content, index=beaten.setter.rule, prop=prop, value=value
    )
    return Rewritten(beaten.sheet, css, None)


def outranking(
    beaten: Beaten, *, sheet: ProjectFile, name: str, prop: str, value: str
) -> Rewritten:
    """A rule in `sheet` (the page's last stylesheet, after the winner) for the
    winner's selector with class `name` added, one class more specific."""
    selector = f"{beaten.setter.selector}.{name}"
    css = style_rules.declaration_set(sheet.content, selector=selector, prop=prop, value=value)
    if css is None:
        css = style_rules.rule_add(sheet.content, selector=selector, prop=prop, value=value)
    return Rewritten(sheet, css, selector)
