"""Links and assets that lead nowhere: each reference a file makes (an HTML
attribute, a stylesheet's url() or @import), read by the static-host rules of
projects.publish.addresses, which the server shares."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from projects.publish.addresses import file_for, leaves_site, link_target
from projects.publish.findings import Finding

MAX_REFERENCE = 2000  # characters: longer is not a reference to a file


@dataclass(frozen=True)
class Reference:
    text: str  # as written
    line: int


def broken_links(
    path: str, references: Iterable[Reference], files: Mapping[str, str | None], *, own_host: bool
) -> Iterator[Finding]:
    """What `references`, found in the file at `path`, name that is not there,
    each target once."""
    said: set[str] = set()
    lower = {name.lower(): name for name in files}
    for reference in references:
        text = reference.text.strip()
        if not text or len(text) > MAX_REFERENCE:
            continue
        if not own_host and leaves_site(path, text):
            if text not in said:
                said.add(text)
                yield Finding("broken_link", path, _elsewhere(path, text), reference.line)
            continue
        target = link_target(path, text)
        if target is None or target in said or file_for(target, files) is not None:
            continue
        said.add(target)
        other = lower.get(target.lower())
        hint = f" (there is {other}: the case differs)" if other else ""
        yield Finding("broken_link", path, f"{text} leads to no file{hint}.", reference.line)


def _elsewhere(path: str, reference: str) -> str:
    if reference.startswith("/"):
        how = "starts at the server's root, not your site's"
        # The same file, from this page: up to the site's root, then down.
        relative = "../" * (path.count("/") - 1) + reference.lstrip("/")
        instead = f"Write it as {relative} instead."
    else:
        how = "climbs above your site's root"
        instead = "Write it relative to this file, within your site."
    return (
        f"{reference} {how}: at your site's address it would reach someone else's site. {instead}"
    )
