"""Binary files in Chromium: an image dropped on the file tree is
uploaded into the folder it was dropped on, shown in the editor as an image,
and appears in the preview page that references it."""

from __future__ import annotations

import re
from importlib import import_module

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from playwright.sync_api import FilePayload, Page, expect

from fakes.images import png
from fakes.script import text
from projects.files.results import FileWrite
from projects.lifecycle import project_create
from projects.models import Project, ProjectFile
from projects.services import Author, file_create
from tests.browser.conftest import ChatServer, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=10_000)

PAGE = (
    '<!doctype html><html><body><h1>Logo</h1><img id="logo" src="img/logo.png" alt="logo">'
    "</body></html>\n"
)
DROP = """(bytes) => {
  const transfer = new DataTransfer();
  transfer.items.add(new File([new Uint8Array(bytes)], 'logo.png', {type: 'image/png'}));
  return transfer;
}"""


def test_an_image_dropped_on_the_tree_is_shown_and_served(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = project_create(owner=browser_user, name="Pictures", starter=False)
    assert isinstance(project, Project)
    author = Author.person(browser_user)
    assert isinstance(
        file_create(project=project, path="/index.html", content=PAGE, author=author), FileWrite
    )
    assert isinstance(
        file_create(project=project, path="/img/notes.txt", content="x", author=author), FileWrite
    )
    sign_in(page, chat_server.url)
    page.goto(f"{chat_server.url}/projects/{project.pk}/")
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")
    broken = page.frame_locator("#preview-frame").locator("#logo")
    expect(broken).to_have_js_property("naturalWidth", 0)

    transfer = page.evaluate_handle(DROP, list(png(4, 3)))
    page.dispatch_event(
        "#file-tree li.folder[data-folder='/img'] summary", "drop", {"dataTransfer": transfer}
    )

    expect(page.locator("#editor-form")).to_have_attribute("data-path", "/img/logo.png")
    image = page.locator("#editor-form img.binary-image")
    expect(image).to_have_js_property("naturalWidth", 4)
    expect(page.locator("#editor-size")).to_contain_text("4\u00d73 px")
    # A picture has no text to go into: the code editor's key hints are not there.
    expect(page.locator("#editor-status")).to_be_hidden()
    expect(page.locator("#file-tree .file-link", has_text="logo.png")).to_have_count(1)
    served = page.frame_locator("#preview-frame").locator("#logo")
    expect(served).to_have_js_property("naturalWidth", 4)


def test_a_file_that_is_not_what_its_name_says_is_refused_then_an_upload_says_it_worked(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = project_create(owner=browser_user, name="Pictures", starter=True)
    assert isinstance(project, Project)
    sign_in(page, chat_server.url)
    page.goto(f"{chat_server.url}/projects/{project.pk}/")
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")
    lying: FilePayload = {
        "name": "photo.png",
        "mimeType": "image/png",
        "buffer": b"<script>alert(1)</script>",
    }
    page.set_input_files("#upload-input", files=[lying])
    refusal = page.locator("#new-file-error")
    expect(refusal).to_contain_text("/photo.png is not a PNG image")
    expect(page.locator("#file-tree .file-link", has_text="photo.png")).to_have_count(0)

    # The next upload that works says so, naming the files, and the refusal goes.
    pictures: list[FilePayload] = [
        {"name": name, "mimeType": "image/png", "buffer": png(4, 3)}
        for name in ("logo.png", "hero.png")
    ]
    page.set_input_files("#upload-input", files=pictures)
    expect(page.locator("#upload-progress")).to_have_text("Uploaded /logo.png and /hero.png.")
    expect(refusal).to_be_empty()
    expect(page.locator("#file-tree .file-link", has_text="hero.png")).to_have_count(1)


def test_an_upload_after_the_session_ended_says_to_sign_in(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    """The server refuses it before reading it (a stranger's limit, issue 26):
    the box says why, not that the file is too large."""
    project = project_create(owner=browser_user, name="Pictures", starter=True)
    assert isinstance(project, Project)
    sign_in(page, chat_server.url)
    page.goto(f"{chat_server.url}/projects/{project.pk}/")
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")
    # Signed out elsewhere, or the session expired.
    cookie = next(c for c in page.context.cookies() if c["name"] == settings.SESSION_COOKIE_NAME)
    import_module(settings.SESSION_ENGINE).SessionStore().delete(cookie["value"])
    big = png(4, 3) + bytes(100_000)  # past the 64 KB a stranger may send
    photo: FilePayload = {"name": "photo.png", "mimeType": "image/png", "buffer": big}
    page.set_input_files("#upload-input", files=[photo])
    error = page.locator("#new-file-error")
    expect(error).to_contain_text("your session has ended")
    expect(error).to_contain_text("Sign in, then send it again")
    assert ProjectFile.objects.filter(project=project, path="/photo.png").count() == 0


PASTE = """(bytes) => {
  const transfer = new DataTransfer();
  transfer.items.add(new File([new Uint8Array(bytes)], 'mockup.png', {type: 'image/png'}));
  const input = document.getElementById('composer-input');
  input.focus();
  const pasted = {clipboardData: transfer, bubbles: true, cancelable: true};
  input.dispatchEvent(new ClipboardEvent('paste', pasted));
}"""


def test_a_pasted_picture_goes_to_the_model_and_can_join_the_project(
    page: Page, chat_server: ChatServer, browser_user: User
) -> None:
    project = project_create(owner=browser_user, name="Mockups", starter=True)
    assert isinstance(project, Project)
    sign_in(page, chat_server.url)
    page.goto(f"{chat_server.url}/projects/{project.pk}/")
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")
    page.fill("#model-input", "google/gemini-2.5-flash")
    page.evaluate(PASTE, list(png(6, 4)))
    thumbnail = page.locator("#composer-images-list img")
    expect(thumbnail).to_have_js_property("naturalWidth", 6)
    chat_server.fake.script(text("A red banner: I will use it."))
    page.fill("#composer-input", "Make it look like this")
    page.click("#composer-send")
    turn = page.locator("#chat-log article.turn").last
    expect(turn.locator(".turn-footer")).to_have_class(re.compile(r"\bcompleted\b"))
    expect(turn.locator(".bubble-images img")).to_have_js_property("naturalWidth", 6)
    expect(page.locator("#composer-images-list li")).to_have_count(0)
    asked = chat_server.fake.completions[-1].json["messages"][-1]["content"]
    assert asked[0] == {"type": "text", "text": "Make it look like this"}
    assert asked[1]["image_url"]["url"].startswith("data:image/png;base64,")

    turn.locator(".bubble-images button", has_text="Add to project").click()
    expect(page.locator("#editor-form")).to_have_attribute("data-path", "/images/mockup.png")
    expect(page.locator("#file-tree .file-link", has_text="mockup.png")).to_have_count(1)
