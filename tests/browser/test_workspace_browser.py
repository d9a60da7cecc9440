"""What a person does in the workspace, in real Chromium against a live server."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import expect

from projects.lifecycle import project_create
from projects.models import FileRevision, Project, ProjectFile
from projects.services import Author, file_update
from tests.browser.conftest import PASSWORD, answer, sign_in
from tests.servers import sites_url_of

pytestmark = pytest.mark.django_db(transaction=True)


def _starter(owner: User) -> Project:
    project = project_create(owner=owner, name="Browser site", starter=True)
    assert isinstance(project, Project)
    return project


def _type_at_end(page, text: str) -> None:
    page.click(".ace_content")
    page.keyboard.press("Control+End")
    page.keyboard.type(text)


def test_sign_up_create_a_starter_project_and_see_its_preview(page, live_server) -> None:
    page.goto(live_server.url + "/accounts/signup/")
    page.fill("input[name=username]", "newcomer")
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(live_server.url + "/")
    page.fill("aside.create input[name=name]", "My first site")
    page.click("text=Create project")

    page.wait_for_selector(".ace_content")
    assert page.inner_text(".editor-path") == "/index.html"
    preview = page.frame_locator("#preview-frame")
    assert preview.locator("h1").inner_text() == "Hello, world"
    # The starter's script runs inside the sandbox.
    preview.locator("#greet").click()
    assert preview.locator("#greeting").inner_text().startswith("Good ")


def test_saving_in_the_editor_updates_the_preview(page, live_server, browser_user) -> None:
    project = _starter(browser_user)
    sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/projects/{project.pk}/")
    page.wait_for_selector(".ace_content")

    # Select the heading's text, then type over it as a person would.
    page.evaluate(
        "() => { const e = builtitWorkspace.editor(); e.find('Hello, world'); e.focus(); }"
    )
    page.keyboard.type("Hello from the editor")
    assert page.inner_text("#editor-status") == "Unsaved changes"
    page.keyboard.press("Control+s")
    page.wait_for_selector("#editor-status .status.ok")

    stored = ProjectFile.objects.get(project=project, path="/index.html")
    assert "<h1>Hello from the editor</h1>" in stored.content
    assert stored.version == 2
    preview = page.frame_locator("#preview-frame")
    preview.locator("h1", has_text="Hello from the editor").wait_for()


def test_a_stale_save_is_refused_then_can_overwrite(page, live_server, browser_user) -> None:
    project = _starter(browser_user)
    sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/projects/{project.pk}/")
    page.wait_for_selector(".ace_content")
    # Someone else saves the file after this page opened it.
    elsewhere = file_update(
        project=project,
        path="/index.html",
        content="<h1>theirs</h1>\n",
        author=Author.person(browser_user),
    )
    assert not hasattr(elsewhere, "code")

    _type_at_end(page, "<!-- mine -->")
    page.keyboard.press("Control+s")
    error = page.wait_for_selector("#editor-status .status.error")
    assert "changed since it was opened" in error.inner_text()
    assert (
        ProjectFile.objects.get(project=project, path="/index.html").content == "<h1>theirs</h1>\n"
    )

    page.click("text=Overwrite with mine")
    page.wait_for_selector("#editor-status .status.ok")
    stored = ProjectFile.objects.get(project=project, path="/index.html")
    assert stored.content.endswith("<!-- mine -->")
    # Nothing is lost: "theirs" is still in the history.
    assert "<h1>theirs</h1>\n" in [
        r.content_after for r in FileRevision.objects.filter(project=project)
    ]


def test_new_rename_and_delete_files(page, live_server, browser_user) -> None:
    project = _starter(browser_user)
    sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/projects/{project.pk}/")
    page.wait_for_selector(".ace_content")

    page.fill("#new-file-path", "bad name.php")
    page.click("form.new-file button")
    refusal = page.wait_for_selector("#new-file-error .status.error")
    assert "no spaces" in refusal.inner_text()

    page.fill("#new-file-path", "pages/contact.html")
    page.click("form.new-file button")
    page.wait_for_selector("#editor-form[data-path='/pages/contact.html']")
    assert page.inner_text("#new-file-error") == ""
    page.wait_for_selector("#file-tree .folder >> text=pages")

    page.click("[data-action=rename-file]")
    answer(page, "/pages/about.html")
    page.wait_for_selector("#editor-form[data-path='/pages/about.html']")
    assert page.locator("#file-tree .file-link", has_text="about.html").count() == 1

    page.click("[data-action=delete-file]")
    answer(page)
    page.wait_for_selector(".editor-empty")
    assert not ProjectFile.objects.filter(project=project, path__startswith="/pages/").exists()
    assert page.locator("#file-tree .file-link", has_text="about.html").count() == 0


def test_the_apps_questions_answer_to_the_keyboard(page, live_server, browser_user) -> None:
    """Enter in the rename field renames (the yes button is the form's first
    submit button); a question that would lose a file starts on its safe answer,
    so Enter keeps it and Escape does too; Tab then Enter deletes."""
    project = _starter(browser_user)
    sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/projects/{project.pk}/")
    page.wait_for_selector("#editor-form[data-path='/index.html'] .ace_content")
    dialog = page.locator("dialog.ask-dialog[open]")

    page.focus("[data-action=rename-file]")
    page.keyboard.press("Enter")
    expect(dialog.locator("input")).to_be_focused()
    page.keyboard.press("Control+A")
    page.keyboard.type("/home.html")
    page.keyboard.press("Enter")
    page.wait_for_selector("#editor-form[data-path='/home.html'] .ace_content")
    expect(dialog).to_have_count(0)

    for key in ("Enter", "Escape"):
        page.focus("[data-action=delete-file]")
        page.keyboard.press("Enter")
        expect(dialog.locator("button", has_text="Cancel")).to_be_focused()
        page.keyboard.press(key)
        expect(dialog).to_have_count(0)
        assert ProjectFile.objects.filter(project=project, path="/home.html").exists()

    page.focus("[data-action=delete-file]")
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    expect(dialog.locator("button.danger")).to_be_focused()
    page.keyboard.press("Enter")
    page.wait_for_selector(".editor-empty")
    assert not ProjectFile.objects.filter(project=project, path="/home.html").exists()


def test_opening_another_file_with_unsaved_edits_asks_first(
    page, live_server, browser_user
) -> None:
    project = _starter(browser_user)
    sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/projects/{project.pk}/")
    page.wait_for_selector(".ace_content")
    _type_at_end(page, "<!-- draft -->")

    page.click("#file-tree .file-link[data-path='/styles.css']")
    answer(page, accept=False)
    page.wait_for_timeout(300)  # a dismissed dialog sends nothing; give it a chance to misbehave
    assert page.get_attribute("#editor-form", "data-path") == "/index.html"
    assert "<!-- draft -->" in page.evaluate("builtitWorkspace.text()")

    page.click("#file-tree .file-link[data-path='/styles.css']")
    answer(page)
    page.wait_for_selector("#editor-form[data-path='/styles.css']")


def test_preview_scripts_cannot_reach_the_app(page, live_server, browser_user) -> None:
    project = _starter(browser_user)
    probe = """<!doctype html><title>probe</title><body><p id="out"></p><script>
const results = [];
const attempt = (name, fn) => {
  try { results.push(name + ":" + fn()); } catch (e) { results.push(name + ":blocked"); }
};
attempt("parent", () => parent.document.title);
attempt("cookie", () => document.cookie.length);
attempt("storage", () => { localStorage.setItem("x", "1"); return "open"; });
document.getElementById("out").textContent = results.join(" ");
</script></body>"""
    result = file_update(
        project=project, path="/index.html", content=probe, author=Author.person(browser_user)
    )
    assert not hasattr(result, "code")
    sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/projects/{project.pk}/")
    out = page.frame_locator("#preview-frame").locator("#out")
    out.wait_for()
    assert out.inner_text() == "parent:blocked cookie:blocked storage:blocked"

    # Opened directly (outside the iframe, so `parent` is itself), the CSP header
    # still gives it an opaque origin: no cookies, no storage of the app's.
    page.goto(f"{sites_url_of(live_server.url)}/preview/{project.preview_token}/")
    assert page.inner_text("#out") == "parent:probe cookie:blocked storage:blocked"


def test_history_restores_an_earlier_version_and_a_deleted_file(
    page, live_server, browser_user
) -> None:
    project = _starter(browser_user)
    sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/projects/{project.pk}/")
    page.wait_for_selector(".ace_content")
    original = page.evaluate("builtitWorkspace.text()")
    _type_at_end(page, "<!-- second thoughts -->")
    page.keyboard.press("Control+s")
    page.wait_for_selector("#editor-status .status.ok")

    # Whether the dialog opened before htmx had wired up its buttons (it does so
    # when a swap settles): a click then did nothing, a Restore without a confirm.
    page.evaluate(
        """() => {
            const dialog = document.getElementById("history-dialog");
            new MutationObserver(() => {
                if (dialog.open) window.openedUnwired = !!dialog.querySelector(".htmx-added");
            }).observe(dialog, { attributes: true, attributeFilter: ["open"] });
        }"""
    )
    page.click("[data-action=show-history]")
    dialog = page.wait_for_selector("#history-dialog[open]")
    assert page.evaluate("window.openedUnwired") is False
    assert "History of /index.html" in dialog.inner_text()
    page.click(".revision-list li:last-child >> text=View")
    assert page.inner_text(".revision-content") == original
    page.click(".revision-list li:last-child >> text=Restore")
    expect(page.locator("dialog.ask-dialog[open] button[value=ok]")).to_have_text("Restore")
    answer(page)
    page.wait_for_selector("#history-dialog:not([open])", state="attached")
    page.wait_for_function(
        "([text]) => builtitWorkspace.editor() && builtitWorkspace.text() === text", arg=[original]
    )
    assert ProjectFile.objects.get(project=project, path="/index.html").content == original

    page.click("#file-tree .file-link[data-path='/script.js']")
    page.wait_for_selector("#editor-form[data-path='/script.js']")
    page.click("[data-action=delete-file]")
    answer(page)
    page.wait_for_selector(".editor-empty")
    page.click("text=Deleted files (1)")
    page.click(".deleted-files >> text=Restore")
    page.wait_for_selector("#editor-form[data-path='/script.js']")
    assert ProjectFile.objects.filter(project=project, path="/script.js").exists()
