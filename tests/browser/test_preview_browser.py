"""The preview and the editor follow changes made by someone else (the assistant),
in real Chromium against a live server. The assistant's changes are simulated the
way its websocket code announces them: a write through the file service, then a
`filesChanged` event with `source: "assistant"` on document.body."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Route

from fakes.images import png
from projects.files.results import FileWrite
from projects.lifecycle import project_create
from projects.models import Project, ProjectFile
from projects.services import Author, file_create, file_delete, file_update, file_upload
from tests.browser.conftest import Dialogs, answer, sign_in
from tests.servers import sites_url_of

pytestmark = pytest.mark.django_db(transaction=True)

INDEX = """<!doctype html>
<html lang="en">
<head><title>Home</title></head>
<body>
<h1>Home</h1>
<p><a id="to-about" href="about.html">About us</a></p>
<p>Line seven</p>
<p>Line eight</p>
</body>
</html>
"""
ABOUT = '<!doctype html><title>About</title><h1 id="about">About, first draft</h1>\n'


def _site(owner: User, index: str = INDEX) -> Project:
    project = project_create(owner=owner, name="Two pages")
    assert isinstance(project, Project)
    for path, content in (("/index.html", index), ("/about.html", ABOUT)):
        result = file_create(
            project=project, path=path, content=content, author=Author.person(owner)
        )
        assert isinstance(result, FileWrite), result
    return project


def _open_workspace(page, live_server, project: Project) -> None:
    sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/projects/{project.pk}/")
    page.wait_for_selector("#editor-form[data-path='/index.html'] .ace_content")


def _assistant_writes(project: Project, user: User, path: str, content: str) -> None:
    result = file_update(project=project, path=path, content=content, author=Author.assistant(user))
    assert isinstance(result, FileWrite), result


def _assistant_changed(page, *paths: str) -> None:
    page.evaluate(
        """(paths) => document.body.dispatchEvent(
            new CustomEvent("filesChanged", {detail: {paths, source: "assistant"}}))""",
        list(paths),
    )


def _type_at_end(page, text: str) -> None:
    page.click(".ace_content")
    page.keyboard.press("Control+End")
    page.keyboard.type(text)


def test_the_preview_reloads_on_the_page_the_person_went_to(
    page, live_server, browser_user
) -> None:
    project = _site(browser_user)
    _open_workspace(page, live_server, project)
    preview = page.frame_locator("#preview-frame")
    preview.locator("#to-about").click()
    preview.locator("h1", has_text="About, first draft").wait_for()
    page.wait_for_function(
        "() => document.getElementById('preview-address').value === 'about.html'"
    )

    _assistant_writes(project, browser_user, "/about.html", ABOUT.replace("first draft", "v2"))
    _assistant_changed(page, "/about.html")

    preview.locator("h1", has_text="About, v2").wait_for()
    assert page.input_value("#preview-address") == "about.html"
    assert page.get_attribute("#preview-open", "href") == (
        f"{sites_url_of(live_server.url)}/preview/{project.preview_token}/about.html"
    )


def test_an_open_file_without_edits_follows_the_assistant_and_keeps_its_place(
    page, live_server, browser_user
) -> None:
    project = _site(browser_user)
    _open_workspace(page, live_server, project)
    page.evaluate("() => builtitWorkspace.editor().moveCursorTo(6, 3)")

    changed = INDEX.replace("Line seven", "Line seven, by the assistant")
    _assistant_writes(project, browser_user, "/index.html", changed)
    _assistant_changed(page, "/index.html", "/about.html")

    page.wait_for_function(
        "([text]) => builtitWorkspace.editor() && builtitWorkspace.text() === text", arg=[changed]
    )
    assert page.evaluate("builtitWorkspace.editor().getCursorPosition()") == {"row": 6, "column": 3}
    assert not page.evaluate("builtitWorkspace.isDirty()")
    assert "assistant changed this file" in page.inner_text("#editor-status")
    # The editor now holds the assistant's version, so the person's next save is not stale.
    assert page.input_value("#editor-version") == "2"
    _type_at_end(page, "<!-- mine -->")
    page.keyboard.press("Control+s")
    page.wait_for_selector("#editor-status .status.ok:has-text('Saved')")
    stored = ProjectFile.objects.get(project=project, path="/index.html").content
    assert stored == changed + "<!-- mine -->"


def test_a_change_by_the_person_or_to_another_file_leaves_the_editor_alone(
    page, live_server, browser_user
) -> None:
    project = _site(browser_user)
    _open_workspace(page, live_server, project)
    open_url = page.get_attribute(".workspace-grid", "data-open-url")
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    _assistant_writes(project, browser_user, "/index.html", "<h1>changed</h1>\n")
    page.evaluate(
        """() => {
            document.body.dispatchEvent(new CustomEvent("filesChanged",
                {detail: {paths: ["/index.html"]}}));
            document.body.dispatchEvent(new CustomEvent("filesChanged",
                {detail: {paths: ["/about.html"], source: "assistant"}}));
        }"""
    )
    # The preview reloads once for both, at the moment an editor reload would be sent.
    page.frame_locator("#preview-frame").locator("h1", has_text="changed").wait_for()
    assert not [url for url in requested if open_url in url]
    assert page.evaluate("builtitWorkspace.text()") == INDEX


def test_unsaved_edits_survive_an_assistant_change_and_saving_them_is_refused(
    page, live_server, browser_user
) -> None:
    project = _site(browser_user)
    _open_workspace(page, live_server, project)
    _type_at_end(page, "<!-- mine -->")

    theirs = INDEX.replace("Home", "Welcome")
    _assistant_writes(project, browser_user, "/index.html", theirs)
    _assistant_changed(page, "/index.html")

    warning = page.locator("#editor-status .status.warning")
    warning.wait_for()
    text = warning.inner_text()
    assert "assistant changed this file" in text
    assert "unsaved edits are still here" in text
    assert "Save will be refused" in text
    assert page.locator("#editor-status [data-action=reload-file]").is_visible()
    assert page.locator("#editor-status [data-action=save-as-new]").is_visible()
    assert page.evaluate("builtitWorkspace.text()") == INDEX + "<!-- mine -->"
    # Typing on does not hide the warning behind "Unsaved changes".
    page.keyboard.type("<!-- more -->")
    assert warning.is_visible()

    page.keyboard.press("Control+s")
    error = page.wait_for_selector("#editor-status .status.error")
    assert "changed since it was opened" in error.inner_text()
    assert ProjectFile.objects.get(project=project, path="/index.html").content == theirs
    assert page.evaluate("builtitWorkspace.text()").endswith("<!-- mine --><!-- more -->")


def test_edits_typed_while_the_assistants_version_loads_are_kept(
    page, live_server, browser_user
) -> None:
    project = _site(browser_user)
    _open_workspace(page, live_server, project)
    open_url = page.get_attribute(".workspace-grid", "data-open-url")
    held = []

    def hold(route) -> None:  # Playwright calls only Python functions it can wrap
        held.append(route)

    page.route(lambda url: open_url in url, hold)
    theirs = INDEX.replace("Home", "Welcome")
    _assistant_writes(project, browser_user, "/index.html", theirs)
    with page.expect_request(lambda request: open_url in request.url):
        _assistant_changed(page, "/index.html")

    _type_at_end(page, "<!-- typed meanwhile -->")
    assert len(held) == 1
    held[0].continue_()
    page.locator("#editor-status .status.warning").wait_for()
    assert page.evaluate("builtitWorkspace.text()") == INDEX + "<!-- typed meanwhile -->"


def test_unsaved_edits_can_be_saved_as_a_new_file_after_an_assistant_change(
    page, live_server, browser_user
) -> None:
    project = _site(browser_user)
    _open_workspace(page, live_server, project)
    _type_at_end(page, "<!-- mine -->")
    theirs = INDEX.replace("Home", "Welcome")
    _assistant_writes(project, browser_user, "/index.html", theirs)
    _assistant_changed(page, "/index.html")
    page.locator("#editor-status .status.warning").wait_for()

    page.click("#editor-status [data-action=save-as-new]")
    answer(page, "/index-mine.html")
    page.wait_for_selector("#editor-form[data-path='/index-mine.html']")
    mine = ProjectFile.objects.get(project=project, path="/index-mine.html").content
    assert mine == INDEX + "<!-- mine -->"
    assert ProjectFile.objects.get(project=project, path="/index.html").content == theirs


def test_an_open_file_the_assistant_deleted_can_be_saved_again(
    page, live_server, browser_user
) -> None:
    project = _site(browser_user)
    _open_workspace(page, live_server, project)
    result = file_delete(project=project, path="/index.html", author=Author.assistant(browser_user))
    assert isinstance(result, FileWrite), result
    _assistant_changed(page, "/index.html")

    gone = page.wait_for_selector("#editor-status .status.warning")
    assert "The assistant deleted this file" in gone.inner_text()
    assert "Your text is still here" in gone.inner_text()
    # The editor keeps the text; the rest of the workspace is as it was.
    assert page.evaluate("builtitWorkspace.text()") == INDEX
    page.evaluate("() => { window.staleForm = document.getElementById('editor-form'); }")
    page.click("#editor-status [data-action=save-as-new]")
    answer(page, "/index.html")
    # A fresh editor on a fresh form: the old ones left the page with the swap.
    page.wait_for_function(
        """() => document.getElementById("editor-form") !== window.staleForm
            && builtitWorkspace.editor() && builtitWorkspace.editor().container.isConnected"""
    )
    assert page.inner_text("#editor-status") == ""
    assert ProjectFile.objects.get(project=project, path="/index.html").content == INDEX


def test_saving_a_file_deleted_under_the_editor_asks_for_a_new_name(
    page, live_server, browser_user
) -> None:
    project = _site(browser_user)
    _open_workspace(page, live_server, project)
    _type_at_end(page, "<!-- mine -->")
    assert isinstance(
        file_delete(project=project, path="/index.html", author=Author.assistant(browser_user)),
        FileWrite,
    )
    _assistant_changed(page, "/index.html")
    page.wait_for_selector("#editor-status .status.warning")

    page.keyboard.press("Control+s")
    answer(page, "/kept.html")
    page.wait_for_selector("#editor-form[data-path='/kept.html']")
    assert ProjectFile.objects.get(project=project, path="/kept.html").content == (
        INDEX + "<!-- mine -->"
    )


def test_a_file_opened_as_it_is_deleted_says_so_beside_the_open_one(
    page, live_server, browser_user
) -> None:
    """The click's answer comes after the tree it was made from was replaced (as
    the assistant's changes replace it): it still reaches the editor panel."""
    project = _site(browser_user)
    _open_workspace(page, live_server, project)
    held: list[Route] = []
    page.route("**/files/open/**", lambda route: held.append(route))  # noqa: PLW0108
    page.click("#file-tree .file-link[data-path='/about.html']")
    while not held:
        page.wait_for_timeout(50)
    assert isinstance(
        file_delete(project=project, path="/about.html", author=Author.assistant(browser_user)),
        FileWrite,
    )
    page.evaluate(
        """() => {
            const old = document.getElementById("file-tree");
            const fresh = old.cloneNode(true);
            fresh.querySelector("[data-path='/about.html']").closest("li").remove();
            old.replaceWith(fresh);
        }"""
    )
    held[0].continue_()

    error = page.wait_for_selector("#editor-status .status.error")
    assert error.inner_text() == "File /about.html does not exist."
    assert page.locator("#editor-status [data-action=save-as-new]").count() == 0
    assert page.get_attribute("#editor-form", "data-path") == "/index.html"
    assert page.evaluate("builtitWorkspace.text()") == INDEX


def test_no_answer_replaces_the_whole_page(page, live_server, browser_user) -> None:
    project = _site(browser_user)
    _open_workspace(page, live_server, project)
    page.evaluate(
        "(url) => htmx.ajax('GET', url)", f"/projects/{project.pk}/files/open/?path=/about.html"
    )
    page.wait_for_selector("#toast:not([hidden])")
    assert "its answer was not shown" in page.inner_text("#toast")
    assert page.locator("#file-tree").count() == 1
    assert page.locator("#editor-form[data-path='/index.html']").count() == 1


def test_the_open_file_stays_marked_when_the_tree_is_replaced_from_elsewhere(
    page, live_server, browser_user
) -> None:
    project = _site(browser_user)
    _open_workspace(page, live_server, project)
    marked = "#file-tree .file-link[data-path='/index.html'][aria-current=true]"
    page.wait_for_selector(marked)
    # As the assistant's websocket swaps it: a new tree, no htmx:afterSettle.
    page.evaluate(
        """() => {
            const old = document.getElementById("file-tree");
            const fresh = old.cloneNode(true);
            fresh.querySelectorAll("[aria-current]")
                .forEach((link) => link.removeAttribute("aria-current"));
            old.replaceWith(fresh);
        }"""
    )
    page.wait_for_selector(marked)
    assert page.locator("#file-tree [aria-current]").count() == 1


FAKE_REPORTS = """<!doctype html><title>Fake</title>
<button id="fake">Send</button>
<script>
document.getElementById("fake").addEventListener("click", () => {
  const base = location.pathname.replace(/[^/]*$/, "");
  const send = (data) => parent.postMessage(data, "*");
  send({builtitPreview: {path: "/accounts/logout/"}});
  // Another project's preview, its token as long as this one's.
  send({builtitPreview: {path: base.replace(/[^/]+\\/$/, "b".repeat(32) + "/") + "page.html"}});
  send({builtitPreview: {path: "/projects/" + "x".repeat(60) + "/page.html"}});
  send({builtitPreview: {path: base + "../../projects/"}});
  send({builtitPreview: {path: base + "%2e%2e/x.html"}});
  send({builtitPreview: {path: base + "..%2F..%2Fprojects%2F"}});
  send({builtitPreview: {path: base + ".\\u0000./x.html"}});
  send({builtitPreview: {path: base + "a".repeat(5000)}});
  send({builtitPreview: {path: 42}});
  send({builtitPreview: base + "shape.html"});
  send("hello");
  send({builtitPreview: {path: base + "evil\\u202e\\u0000lmth.html"}});
  send({builtitPreview: {path: "javascript:alert(1)"}});
  send({builtitPreview: {path: base + "done.html"}});
});
</script>
"""


def test_the_address_box_takes_only_well_formed_reports_from_its_frame(
    page, live_server, browser_user
) -> None:
    project = _site(browser_user, index=FAKE_REPORTS)
    _open_workspace(page, live_server, project)
    preview = page.frame_locator("#preview-frame")
    preview.locator("#fake").wait_for()
    # After the workspace's own listener, note what the address box shows for each message.
    page.evaluate(
        """() => {
            window.seen = [];
            addEventListener("message",
                () => seen.push(document.getElementById("preview-address").value));
        }"""
    )
    base = f"/preview/{project.preview_token}/"
    # Not from the frame: the workspace itself posts a well-formed report.
    page.evaluate(
        "(base) => window.postMessage({builtitPreview: {path: base + 'self.html'}}, '*')", base
    )
    preview.locator("#fake").click()
    page.wait_for_function("() => window.seen.includes('done.html')")

    seen = page.evaluate("window.seen")
    assert set(seen) == {"", "evillmth.html", "done.html"}, seen
    assert (
        page.get_attribute("#preview-open", "href")
        == sites_url_of(live_server.url) + base + "done.html"
    )
    assert page.url == f"{live_server.url}/projects/{project.pk}/"


PROMPTING = """<!doctype html>
<html lang="en"><head><title>Login</title></head>
<body><h1 id="home">Home</h1>
<script>
  alert("Session expired");
  const answer = prompt("Re-enter your password");
  document.getElementById("home").dataset.answer = String(answer);
</script>
</body></html>
"""


def test_a_preview_page_cannot_open_dialogs_over_the_workspace_and_says_so(
    page, live_server, browser_user: User, dialogs: Dialogs
) -> None:
    project = _site(browser_user, PROMPTING)
    _open_workspace(page, live_server, project)
    frame = page.frame_locator("#preview-frame")
    notices = frame.locator("[role=status]")
    notices.nth(1).wait_for()
    assert notices.nth(0).inner_text() == (
        "This page tried to open a dialog (alert): \u201cSession expired\u201d. "
        "Dialogs are blocked in the preview."
    )
    assert "Re-enter your password" in notices.nth(1).inner_text()
    assert frame.locator("#home").get_attribute("data-answer") == "null"
    assert dialogs.seen == []


def test_a_picture_deleted_under_the_open_viewer_says_so_and_offers_no_text(
    page, live_server, browser_user
) -> None:
    project = _site(browser_user)
    assert isinstance(
        file_upload(
            project=project, path="/logo.png", data=png(3, 2), author=Author.person(browser_user)
        ),
        FileWrite,
    )
    _open_workspace(page, live_server, project)
    page.click("#file-tree .file-link[data-path='/logo.png']")
    page.wait_for_selector("#editor-form[data-path='/logo.png'][data-binary]")
    assert isinstance(
        file_delete(project=project, path="/logo.png", author=Author.assistant(browser_user)),
        FileWrite,
    )
    _assistant_changed(page, "/logo.png")

    notice = page.wait_for_selector("#editor-status .status.warning")
    assert notice.inner_text() == (
        "The assistant deleted this file (or renamed it). Its versions stay in its History."
    )
    assert page.locator("#editor-status [data-action=save-as-new]").count() == 0


def test_loading_the_saved_version_of_a_file_deleted_meanwhile_keeps_the_text(
    page, live_server, browser_user
) -> None:
    project = _site(browser_user)
    _open_workspace(page, live_server, project)
    _type_at_end(page, "<!-- mine -->")
    _assistant_writes(project, browser_user, "/index.html", INDEX.replace("Home", "Welcome"))
    _assistant_changed(page, "/index.html")
    page.wait_for_selector("#editor-status .status.warning")
    assert isinstance(
        file_delete(project=project, path="/index.html", author=Author.assistant(browser_user)),
        FileWrite,
    )

    page.click("#editor-status [data-action=reload-file]")
    answer(page)  # discard my edits: yes

    page.wait_for_function(
        "() => (document.querySelector('#editor-status .status') || {}).textContent"
        "?.startsWith('Someone deleted this file')"
    )
    assert page.locator("#editor-status [data-action=save-as-new]").count() == 1
    assert page.evaluate("builtitWorkspace.text()") == INDEX + "<!-- mine -->"


def test_a_question_stays_open_while_the_preview_loads_again(
    page, live_server, browser_user
) -> None:
    """The assistant changes a file while the person is asked whether to delete
    one, and the preview loads again. The browser's own confirm() was closed,
    answered no, when a frame of the page began to load while it showed (on
    fef2704, once in twelve such timings, and the flaky tests' "Save my text as
    a new file" and Restore); the app's own question stays until answered."""
    project = _site(browser_user)
    _open_workspace(page, live_server, project)
    page.frame_locator("#preview-frame").locator("h1").wait_for()
    page.click("[data-action=delete-file]")
    page.locator("dialog.ask-dialog[open]").wait_for()

    _assistant_writes(project, browser_user, "/about.html", "<h1>Changed meanwhile</h1>\n")
    with page.expect_event("framenavigated", lambda frame: "/preview/" in frame.url):
        _assistant_changed(page, "/about.html")  # the preview loads again, the question open
    answer(page)

    page.wait_for_selector(".editor-empty")
    assert not ProjectFile.objects.filter(project=project, path="/index.html").exists()
