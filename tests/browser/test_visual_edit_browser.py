"""Edit what you see, in Chromium at 1440 and 390 px: a picked element's words
edited in place and its style set in the panel, each written as the smallest
edit (every other line as it was), shown in the preview, in History as the
person's, taken back by Undo, followed by a second tab, with no model request;
a script's element refused in words, with the request for the assistant."""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import FilePayload, Page, expect

from fakes.images import png
from projects.files.results import FileWrite
from projects.lifecycle import project_create
from projects.locks import lock_acquire, lock_release
from projects.models import FileRevision, Project, ProjectFile, ProjectLock
from projects.services import Author, file_create, file_update, file_upload
from tests.browser.conftest import ChatServer, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=10_000)

PAGE = """<!doctype html>
<html lang="en">
<head>
  <title>Bakery</title>
  <link rel="stylesheet" href="site.css">
</head>
<body>
  <h1 class="title">Fresh <b>warm</b> bread</h1>
  <p class="note">Open daily</p>
  <script>
    document.body.insertAdjacentHTML("beforeend", '<div id="made">Made by a script</div>');
  </script>
</body>
</html>
"""
CSS = ".title {\n  color: #b45309;\n}\n.note { color: #1f2937; }\n"


def _project(owner: User) -> Project:
    project = project_create(owner=owner, name="Bakery", starter=False)
    assert isinstance(project, Project)
    for path, content in (("/index.html", PAGE), ("/site.css", CSS)):
        written = file_create(
            project=project, path=path, content=content, author=Author.person(owner)
        )
        assert isinstance(written, FileWrite)
    return project


def _changed(old: str, new: str) -> list[str]:
    return [
        line
        for line in difflib.ndiff(old.splitlines(keepends=True), new.splitlines(keepends=True))
        if line[:1] in "+-"
    ]


def _text(project: Project, path: str) -> str:
    return ProjectFile.objects.get(project=project, path=path).content


def _open(page: Page, url: str, project: Project) -> None:
    page.goto(f"{url}/projects/{project.pk}/")
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")
    expect(page.frame_locator("#preview-frame").locator("h1")).to_contain_text("Fresh")


def _pick(page: Page, selector: str) -> None:
    if page.locator("[data-show-panel='preview']").is_visible():
        page.locator("[data-show-panel='preview']").click()
    page.locator("[data-action='pick-element']").click()
    frame = page.frame_locator("#preview-frame")
    pick = page.locator("[data-action='pick-element']")
    for _ in range(3):
        expect(frame.locator("html")).to_have_css("cursor", "crosshair")
        frame.locator(selector).click()
        try:
            # A click that lands while the preview loads again (its socket
            # connecting, say) picks nothing: as a person would, click again.
            expect(pick).to_have_attribute("aria-pressed", "false", timeout=3000)
            break
        except AssertionError:
            continue
    if page.locator("[data-show-panel='preview']").is_visible():
        page.locator("[data-show-panel='preview']").click()  # a pick shows the chat on a phone
    expect(page.locator("#visual-panel")).to_be_visible()


@pytest.mark.parametrize("width", [1440, 390])
def test_edits_in_the_preview_are_the_persons_smallest_edits(
    page: Page, chat_server: ChatServer, browser_user: User, width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    project = _project(browser_user)
    sign_in(page, chat_server.url)
    _open(page, chat_server.url, project)
    other = page.context.new_page()
    other.set_viewport_size({"width": width, "height": 900})
    _open(other, chat_server.url, project)
    requests = len(chat_server.fake.completions)

    # The words, in place: double-click, type, Enter keeps; bold stays bold.
    _pick(page, "h1")
    # The preview keeps filling the room the panel leaves (on a phone, above
    # its sheet), never an iframe's default 150 px over an empty gap.
    assert page.locator("#preview-frame").evaluate("f => f.getBoundingClientRect().height") >= (
        0.4 * 900
    )
    frame = page.frame_locator("#preview-frame")
    frame.locator("h1 b").dblclick()
    frame.locator("h1 b").evaluate("b => { b.firstChild.data = 'hot'; }")
    page.keyboard.press("Enter")
    expect(page.locator("#visual-panel .visual-status")).to_contain_text("Edited in the preview")
    assert _changed(PAGE, _text(project, "/index.html")) == [
        '-   <h1 class="title">Fresh <b>warm</b> bread</h1>\n',
        '+   <h1 class="title">Fresh <b>hot</b> bread</h1>\n',
    ]
    expect(frame.locator("h1 b")).to_have_text("hot")
    expect(other.frame_locator("#preview-frame").locator("h1 b")).to_have_text("hot")
    # The open editor follows, here and in the other tab.
    follows = "() => (builtitWorkspace.text() || '').includes('Fresh <b>hot</b> bread')"
    page.wait_for_function(follows)
    other.wait_for_function(follows)
    # History names it, as the person's.
    if page.locator("[data-show-panel='editor']").is_visible():
        page.locator("[data-show-panel='editor']").click()
    page.locator("[data-action=show-history]").first.click()
    dialog = page.locator("#history-dialog")
    expect(dialog).to_contain_text("Edited in the preview: text of <h1> to “Fresh hot bread”")
    expect(dialog).to_contain_text("by you")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()

    if page.locator("[data-show-panel='preview']").is_visible():
        page.locator("[data-show-panel='preview']").click()
    # A style, from the site's own colours: into the element's own class rule.
    expect(
        page.locator("#visual-panel .visual-swatches[data-for='visual-color'] button").first
    ).to_be_visible()
    page.locator("[data-for='visual-color'] button[title='#1f2937']").click()
    expect(page.locator("#visual-panel .visual-status")).to_contain_text("color of <h1>")
    assert _changed(CSS, _text(project, "/site.css")) == [
        "-   color: #b45309;\n",
        "+   color: #1f2937;\n",
    ]
    expect(frame.locator("h1")).to_have_css("color", "rgb(31, 41, 55)")

    # History names it as the person's.
    revision = FileRevision.objects.filter(project=project).first()
    assert revision is not None
    assert revision.actor == "user"
    assert revision.note == "Edited in the preview: color of <h1> to #1f2937"

    # Undo brings it back.
    page.locator("[data-action='visual-undo']").click()
    expect(page.locator("#visual-panel .visual-status")).to_contain_text("Undone")
    assert _text(project, "/site.css") == CSS
    expect(frame.locator("h1")).to_have_css("color", "rgb(180, 83, 9)")

    # Hidden, by the keyboard: the button reached with Tab, pressed with Enter.
    page.locator("[data-action='visual-hide']").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#visual-panel .visual-status")).to_contain_text("hid <h1>")
    assert _changed(PAGE, _text(project, "/index.html"))[-1] == (
        '+   <h1 class="title" hidden>Fresh <b>hot</b> bread</h1>\n'
    )
    expect(frame.locator("h1")).to_be_hidden()
    assert len(chat_server.fake.completions) == requests  # no model was asked


CONTROLS_PAGE = """<!doctype html>
<html lang="en">
<head>
  <title>Menu</title>
  <link rel="stylesheet" href="site.css">
</head>
<body>
  <p class="intro">See <a href="index.html">our bakery</a> today.</p>
  <img src="old.png" alt="Old loaf">
  <ul>
    <li>Rye</li>
    <li>Spelt</li>
    <li>Oat</li>
  </ul>
  <section id="hours"><h2>Hours</h2></section>
</body>
</html>
"""


def _mark(page: Page) -> None:
    """A mark on the preview's window: gone once the page is loaded again."""
    page.frame_locator("#preview-frame").locator("html").evaluate("() => { window.mark = 1; }")


def _marked(page: Page) -> bool:
    return bool(
        page.frame_locator("#preview-frame").locator("html").evaluate("() => window.mark === 1")
    )


def _control(page: Page, project: Project, path: str, act: Callable[[], object]) -> list[str]:
    """What one control changed in `path`: the lines a diff lists."""
    before = {p: _text(project, p) for p in ("/menu.html", "/site.css")}
    status = page.locator("#visual-panel .visual-status")
    status.evaluate("s => { s.textContent = ''; }")
    act()
    expect(status).to_contain_text("Edited in the preview")
    for other in {"/menu.html", "/site.css"} - {path}:
        assert _text(project, other) == before[other], f"{other} is untouched"
    return _changed(before[path], _text(project, path))


@pytest.mark.parametrize("width", [1440, 390])
def test_every_control_writes_a_minimal_diff(
    page: Page, chat_server: ChatServer, browser_user: User, width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    project = _project(browser_user)
    author = Author.person(browser_user)
    for path, data in (("/old.png", png()), ("/new.png", png(3, 2))):
        assert isinstance(
            file_upload(project=project, path=path, data=data, author=author), FileWrite
        )
    created = file_create(project=project, path="/menu.html", content=CONTROLS_PAGE, author=author)
    assert isinstance(created, FileWrite)
    requests = len(chat_server.fake.completions)
    sign_in(page, chat_server.url)
    page.goto(f"{chat_server.url}/projects/{project.pk}/")
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")
    if page.locator("[data-show-panel='preview']").is_visible():
        page.locator("[data-show-panel='preview']").click()  # a phone shows one panel
    page.fill("#preview-address", "menu.html")
    page.press("#preview-address", "Enter")
    frame = page.frame_locator("#preview-frame")
    expect(frame.locator("p.intro")).to_be_visible()
    # Every change below is shown in the page as it is (styles, attributes, the
    # element moved or removed), never by loading it again.
    _mark(page)

    _pick(page, "p.intro")
    # No background of its own (transparent): "None", not black; nothing written until chosen.
    expect(page.locator("#visual-background-none")).to_be_visible()
    expect(page.locator("#visual-background")).to_have_class(re.compile("visual-no-colour"))
    expect(page.locator("#visual-color-none")).to_be_hidden()
    styles = [
        ("#visual-background", "#fde68a", "background-color: #fde68a;"),
        ("#visual-font-size", "18px", "font-size: 18px;"),
        ("#visual-padding", "12px", "padding: 12px;"),
        ("#visual-margin", "0 auto", "margin: 0 auto;"),
        ("#visual-radius", "8px", "border-radius: 8px;"),
    ]
    for number, (field, value, declaration) in enumerate(styles):
        changed = _control(page, project, "/site.css", functools.partial(_set, page, field, value))
        if number == 0:  # a class only this <p> has: its own rule, added
            assert changed == ["+ \n", "+ .intro {\n", f"+   {declaration}\n", "+ }\n"]
            expect(page.locator("#visual-background-none")).to_be_hidden()
        else:
            assert f"+   {declaration}\n" in changed
            assert [line for line in changed if line.startswith("-")] == []
    changed = _control(
        page, project, "/site.css", lambda: page.select_option("#visual-align", "center")
    )
    assert changed == ["+   text-align: center;\n"]
    expect(frame.locator("p.intro")).to_have_css("text-align", "center")
    expect(frame.locator("p.intro")).to_have_css("font-size", "18px")

    _pick(page, "p.intro a")
    changed = _control(page, project, "/menu.html", lambda: _set(page, "#visual-href", "#hours"))
    assert changed == [
        '-   <p class="intro">See <a href="index.html">our bakery</a> today.</p>\n',
        '+   <p class="intro">See <a href="#hours">our bakery</a> today.</p>\n',
    ]
    expect(frame.locator("p.intro a")).to_have_attribute("href", "#hours")

    _pick(page, "img")
    changed = _control(
        page, project, "/menu.html", lambda: page.select_option("#visual-image", "/new.png")
    )
    assert changed == [
        '-   <img src="old.png" alt="Old loaf">\n',
        '+   <img src="new.png" alt="Old loaf">\n',
    ]
    expect(frame.locator("img")).to_have_js_property("naturalWidth", 3)
    changed = _control(page, project, "/menu.html", lambda: _set(page, "#visual-alt", "A new loaf"))
    assert changed == [
        '-   <img src="new.png" alt="Old loaf">\n',
        '+   <img src="new.png" alt="A new loaf">\n',
    ]
    expect(frame.locator("img")).to_have_attribute("alt", "A new loaf")
    # Replace image with an upload: kept in images/, then named by the page.
    picture: FilePayload = {"name": "fresh loaf.png", "mimeType": "image/png", "buffer": png(4, 4)}
    changed = _control(
        page, project, "/menu.html", lambda: page.set_input_files("#visual-upload", files=[picture])
    )
    assert changed == [
        '-   <img src="new.png" alt="A new loaf">\n',
        '+   <img src="images/fresh-loaf.png" alt="A new loaf">\n',
    ]
    expect(frame.locator("img")).to_have_js_property("naturalWidth", 4)
    assert _marked(page), "shown in place, the page not loaded again"

    _pick(page, "li:nth-child(2)")
    changed = _control(
        page, project, "/menu.html", lambda: page.click("[data-action='visual-move'][data-up]")
    )
    assert len(changed) == 2  # two lines swapped, the rest as they were
    assert _text(project, "/menu.html").splitlines()[10:12] == [
        "    <li>Spelt</li>",
        "    <li>Rye</li>",
    ]
    expect(frame.locator("li").first).to_have_text("Spelt")
    changed = _control(
        page,
        project,
        "/menu.html",
        lambda: page.click("[data-action='visual-move']:not([data-up])"),
    )
    assert len(changed) == 2
    expect(frame.locator("li").first).to_have_text("Rye")
    changed = _control(
        page, project, "/menu.html", lambda: page.click("[data-action='visual-delete']")
    )
    assert changed == ["-     <li>Spelt</li>\n"]
    expect(frame.locator("li")).to_have_count(2)
    assert _marked(page), "shown in place, the page not loaded again"
    # Nothing is picked now; what was said and Undo stay.
    expect(page.locator("#visual-title")).to_have_text("Deleted <li>")
    expect(page.locator("#visual-panel .visual-fields")).to_be_hidden()
    expect(page.locator("[data-action='visual-undo']")).to_be_visible()
    assert len(chat_server.fake.completions) == requests  # no model was asked


def _set(page: Page, field: str, value: str) -> None:
    page.fill(field, value)
    page.press(field, "Enter")


def test_a_turn_in_progress_refuses_in_words(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = _project(browser_user)
    sign_in(page, chat_server.url)
    _open(page, chat_server.url, project)
    _pick(page, "h1")
    lock = lock_acquire(project=project, purpose="assistant", details={}, ttl=60)
    assert isinstance(lock, ProjectLock)
    page.locator("[data-action='visual-hide']").click()
    expect(page.locator("#visual-panel .visual-refusal")).to_contain_text(
        "The assistant is changing this project's files right now"
    )
    assert _text(project, "/index.html") == PAGE
    lock_release(lock)
    page.locator("[data-action='visual-hide']").click()  # once it has finished, it goes
    expect(page.locator("#visual-panel .visual-status")).to_contain_text("hid <h1>")


def test_a_script_made_element_is_refused_with_ask_the_assistant(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = _project(browser_user)
    sign_in(page, chat_server.url)
    _open(page, chat_server.url, project)
    _pick(page, "#made")
    page.locator("[data-action='visual-delete']").click()
    refusal = page.locator("#visual-panel .visual-refusal")
    expect(refusal).to_contain_text("a script made it")
    refusal.locator("[data-action='visual-ask']").click()
    expect(page.locator("#composer-input")).to_have_value(
        "Delete the <div> “Made by a script” on /index.html"
    )
    assert _text(project, "/index.html") == PAGE


HERO_PAGE = """<!doctype html>
<html lang="en">
<head>
  <title>Bakery</title>
  <link rel="stylesheet" href="site.css">
</head>
<body>
  <section class="hero"><h1>Fresh bread</h1></section>
</body>
</html>
"""
HERO_CSS = ".hero { background: #1f2937; }\n.hero h1 { color: #dc2626; }\n"


def _hero(owner: User, page: str, css: str) -> Project:
    project = project_create(owner=owner, name="Bakery", starter=False)
    assert isinstance(project, Project)
    for path, content in (("/index.html", page), ("/site.css", css)):
        written = file_create(
            project=project, path=path, content=content, author=Author.person(owner)
        )
        assert isinstance(written, FileWrite)
    return project


def test_a_style_a_more_specific_rule_sets_is_written_where_it_shows(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    page.set_viewport_size({"width": 1440, "height": 900})
    project = _hero(browser_user, HERO_PAGE, HERO_CSS)
    sign_in(page, chat_server.url)
    _open(page, chat_server.url, project)
    _mark(page)
    _pick(page, "h1")
    frame = page.frame_locator("#preview-frame")
    expect(frame.locator("h1")).to_have_css("color", "rgb(220, 38, 38)")
    page.locator("[data-for='visual-color'] button[title='#1f2937']").click()
    # `.hero h1` styles this <h1> alone: its own declaration is changed, and shows.
    expect(frame.locator("h1")).to_have_css("color", "rgb(31, 41, 55)")
    expect(page.locator("#visual-panel .visual-status")).to_contain_text("Saved as your edit")
    assert frame.locator("h1").evaluate("h => h.style.color") == ""
    expect(page.locator("#visual-panel .visual-refusal")).to_be_hidden()
    assert _text(project, "/site.css") == HERO_CSS.replace(
        ".hero h1 { color: #dc2626; }", ".hero h1 { color: #1f2937; }"
    )
    assert _text(project, "/index.html") == HERO_PAGE
    assert _marked(page)  # the stylesheet alone was loaded again, in place
    page.locator("[data-action='visual-undo']").click()
    expect(page.locator("#visual-panel .visual-status")).to_contain_text("Undone")
    assert _text(project, "/site.css") == HERO_CSS


# The element's own class rule is edited in place (the stylesheet alone is
# written and loaded again in place), and a rule of the page's own <style>
# block, which visual edits do not write, still wins.
TITLE_PAGE = HERO_PAGE.replace("<h1>", '<h1 class="title">').replace(
    "</head>", "  <style>.hero .title { color: #dc2626; }</style>\n</head>"
)
TITLE_CSS = ".title { color: #b45309; }\n.hero { background: #1f2937; }\n"


def test_a_style_a_rule_outside_the_stylesheets_beats_says_so_in_words(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = _hero(browser_user, TITLE_PAGE, TITLE_CSS)
    sign_in(page, chat_server.url)
    _open(page, chat_server.url, project)
    _mark(page)
    _pick(page, "h1")
    page.locator("[data-for='visual-color'] button[title='#1f2937']").click()
    refusal = page.locator("#visual-panel .visual-refusal")
    expect(refusal).to_contain_text(
        "Saved, but another rule of the stylesheet still sets the colour of this <h1>, "
        "so it does not show. Undo it, or ask the assistant."
    )
    expect(page.locator("#visual-panel .visual-status")).to_have_text("")
    frame = page.frame_locator("#preview-frame")
    expect(frame.locator("h1")).to_have_css("color", "rgb(220, 38, 38)")
    # The check left no value of its own on the element.
    assert frame.locator("h1").evaluate("h => h.style.color") == ""
    assert _marked(page)
    refusal.locator("[data-action='visual-ask']").click()
    expect(page.locator("#composer-input")).to_have_value(
        "Set color of the <h1> “Fresh bread” on /index.html to #1f2937:"
        " a more specific rule of the stylesheet still wins over the edit"
    )
    if page.locator("[data-show-panel='preview']").is_visible():
        page.locator("[data-show-panel='preview']").click()
    # Chosen again: nothing to write, and the same reason it does not show.
    files = (_text(project, "/index.html"), _text(project, "/site.css"))
    refusal.evaluate("r => { r.hidden = true; }")
    page.locator("[data-for='visual-color'] button[title='#1f2937']").click()
    expect(refusal).to_contain_text(
        "Already saved, but another rule of the stylesheet still sets the colour of this <h1>, "
        "so it does not show."
    )
    assert (_text(project, "/index.html"), _text(project, "/site.css")) == files
    page.locator("[data-action='visual-undo']").click()
    expect(page.locator("#visual-panel .visual-status")).to_contain_text("Undone")
    assert _text(project, "/site.css") == TITLE_CSS
    assert _text(project, "/index.html") == TITLE_PAGE


# A script turns the list's first <p> into a heading: the page shows another
# sibling than the file has, so a move cannot be shown as the file wrote it.
SWAP_PAGE = """<!doctype html>
<html lang="en">
<head>
  <title>Breads</title>
</head>
<body>
  <div class="breads">
    <p>Rye</p>
    <p>Spelt</p>
  </div>
  <script>
    const first = document.querySelector(".breads p");
    first.outerHTML = "<h2>" + first.textContent + "</h2>";
  </script>
</body>
</html>
"""


def test_what_the_preview_cannot_show_in_place_loads_the_files_truth(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = _project(browser_user)
    author = Author.person(browser_user)
    assert isinstance(
        file_create(project=project, path="/breads.html", content=SWAP_PAGE, author=author),
        FileWrite,
    )
    sign_in(page, chat_server.url)
    _open(page, chat_server.url, project)
    frame = page.frame_locator("#preview-frame")
    _mark(page)
    _pick(page, "h1")
    # Refused (the file changed since the preview loaded it): the page loads
    # again and shows what the file says.
    changed = PAGE.replace("Open daily", "Open every day")
    assert isinstance(
        file_update(project=project, path="/index.html", content=changed, author=author),
        FileWrite,
    )
    page.locator("[data-action='visual-hide']").click()
    expect(page.locator("#visual-panel .visual-refusal")).to_contain_text(
        "changed since the preview loaded it"
    )
    expect(frame.locator("p.note")).to_have_text("Open every day")
    assert not _marked(page)
    assert _text(project, "/index.html") == changed

    # Written, but the page shows another sibling than the file's: loaded again.
    page.fill("#preview-address", "breads.html")
    page.press("#preview-address", "Enter")
    expect(frame.locator(".breads h2")).to_have_text("Rye")
    _mark(page)
    _pick(page, ".breads p")
    page.locator("[data-action='visual-move'][data-up]").click()
    expect(page.locator("#visual-panel .visual-status")).to_contain_text("moved <p> up")
    assert "<p>Spelt</p>\n    <p>Rye</p>" in _text(project, "/breads.html")
    expect(frame.locator(".breads h2")).to_have_text("Spelt")
    assert not _marked(page)
