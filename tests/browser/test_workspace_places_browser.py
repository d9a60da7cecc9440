"""Small things a person meets in the workspace: the
first page opens after a blank project's first turn, a refused upload reads as
an error, a drop lights up its folder, History links to the turn."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect

from chat.models import Conversation, Message
from projects.lifecycle import project_create
from projects.models import FileRevision, Project
from projects.services import Author, file_create, file_update
from tests.browser.conftest import sign_in

pytestmark = pytest.mark.django_db(transaction=True)

expect.set_options(timeout=10_000)


def _project(owner: User, *, starter: bool) -> Project:
    project = project_create(owner=owner, name="Places site", starter=starter)
    assert isinstance(project, Project)
    return project


def _open(page: Page, url: str, project: Project) -> None:
    page.goto(f"{url}/projects/{project.pk}/")
    page.wait_for_selector("#chat-signal[data-signal]", state="attached")


def _first_turn(page: Page) -> None:
    page.click("#composer-input")
    page.keyboard.type("A bakery in Lisbon called Crumb")
    page.keyboard.press("Enter")
    footer = page.locator("#chat-log article.turn").last.locator(".turn-footer")
    expect(footer).to_have_class(re.compile(r"\bcompleted\b"))


@pytest.mark.parametrize("width", [1440, 390])
def test_a_blank_projects_first_turn_opens_its_home_page_where_the_person_is(
    page, chat_server, browser_user, width: int
) -> None:
    page.set_viewport_size({"width": width, "height": 900 if width > 1000 else 844})
    project = _project(browser_user, starter=False)
    sign_in(page, chat_server.url)
    _open(page, chat_server.url, project)
    expect(page.locator("#editor-pane")).to_contain_text("Select a file")

    _first_turn(page)

    expect(page.locator(".editor-path")).to_have_text("/index.html")
    assert "<h1>Crumb</h1>" in page.evaluate("builtitWorkspace.text()")
    if width < 1000:  # on a phone the chat stays in view: the person did not ask for Code
        expect(page.locator("#chat-panel")).to_be_visible()
        expect(page.locator("#editor-panel")).to_be_hidden()


def test_a_refused_upload_reads_as_an_error(page, live_server, browser_user) -> None:
    project = _project(browser_user, starter=True)
    sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/projects/{project.pk}/")
    page.wait_for_selector(".ace_content")

    page.set_input_files(
        "#upload-input", {"name": "photo.png", "mimeType": "image/png", "buffer": b"not a png"}
    )

    refused = page.locator("#new-file-error [role=alert]")
    expect(refused).to_contain_text("photo.png")
    expect(refused).to_have_class(re.compile(r"\berror\b"))
    colour = refused.evaluate("(e) => getComputedStyle(e).color")
    danger = page.evaluate(
        "() => { const p = document.createElement('p'); p.style.color = 'var(--danger)';"
        " document.body.append(p); const c = getComputedStyle(p).color; p.remove(); return c; }"
    )
    assert colour == danger


DRAG_OVER = """([selector, kind]) => {
  const data = new DataTransfer();
  data.items.add(new File(["x"], "a.png", { type: "image/png" }));
  const target = document.querySelector(selector);
  const init = { bubbles: true, cancelable: true, dataTransfer: data };
  target.dispatchEvent(new DragEvent(kind, init));
}"""


def test_a_drop_lights_up_the_folder_it_goes_into_not_the_whole_tree(
    page, live_server, browser_user
) -> None:
    project = _project(browser_user, starter=True)
    file_create(
        project=project, path="/img/logo.svg", content="<svg/>", author=Author.person(browser_user)
    )
    sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/projects/{project.pk}/")
    page.wait_for_selector(".ace_content")

    page.evaluate(DRAG_OVER, ["#file-tree [data-folder] summary", "dragover"])
    expect(page.locator("#file-tree [data-folder].drop-target")).to_have_count(1)
    expect(page.locator("#file-tree")).not_to_have_class(re.compile(r"\bdrop-target\b"))

    page.evaluate(DRAG_OVER, ['#file-tree .file-link[data-path="/index.html"]', "dragover"])
    expect(page.locator("#file-tree")).to_have_class(re.compile(r"\bdrop-target\b"))
    expect(page.locator("#file-tree [data-folder].drop-target")).to_have_count(0)


def test_history_links_a_change_to_the_turn_that_made_it(
    page, live_server, browser_user, settings
) -> None:
    settings.BUILTIT_CHAT_PAGE_TURNS = 2  # the turn is on an earlier page of the chat
    project = _project(browser_user, starter=True)
    conversation = Conversation.objects.create(project=project, title="Building")
    for number in range(6):
        Message.objects.create(
            conversation=conversation,
            sequence=2 * number + 1,
            role="user",
            content=f"Request {number}",
        )
        Message.objects.create(
            conversation=conversation,
            sequence=2 * number + 2,
            role="assistant",
            content=f"Answer {number}",
        )
    answer = Message.objects.get(conversation=conversation, sequence=2)
    file_update(
        project=project,
        path="/index.html",
        content="<h1>By the assistant</h1>",
        author=Author.assistant(message_id=answer.pk),
    )
    assert FileRevision.objects.filter(message=answer).exists()
    sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/projects/{project.pk}/?conversation={conversation.pk}")
    page.wait_for_selector(".ace_content")
    expect(page.locator(".bubble-text", has_text="Request 0")).to_have_count(0)

    page.locator("[data-action='show-history']").first.click()
    dialog = page.locator("dialog[open]")
    expect(dialog.locator(".rev-action").first).to_have_text("Changed by the assistant")
    dialog.get_by_role("link", name="See the turn").click()

    turn = page.locator("article.turn.linked-turn")
    expect(turn).to_contain_text("Request 0")
    expect(turn).to_be_in_viewport()


LONG_NAME = "The Lisbon Riverside Bakery and Coffee House, Since 1921"
LONG_MODEL = "anthropic/claude-sonnet-4.5-with-a-very-long-variant:thinking"


@pytest.mark.parametrize(("width", "height"), [(1440, 900), (390, 844)])
def test_names_cut_short_show_their_whole_text(
    page, live_server, browser_user, width: int, height: int
) -> None:
    page.set_viewport_size({"width": width, "height": height})
    project = _project(browser_user, starter=True)
    project.name = LONG_NAME
    project.default_model = LONG_MODEL
    project.save()
    title = "Make the opening hours bigger and add the Sunday brunch menu with its prices"
    conversation = Conversation.objects.create(project=project, title=title)
    sign_in(page, live_server.url)
    page.goto(f"{live_server.url}/projects/{project.pk}/?conversation={conversation.pk}")
    page.wait_for_selector(".ace_content", state="attached")

    name = page.locator("#project-name")
    expect(name).to_have_attribute("title", LONG_NAME)
    if width < 1000:  # two lines before it is cut
        lines = name.evaluate(
            "(e) => e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).lineHeight)"
        )
        assert lines > 1.5
    else:  # the room the top bar has (beside Clone, Forms and Share: about 30
        # characters at 1440 px), and its links never wrap for it
        assert name.evaluate("(e) => e.getBoundingClientRect().width") > 340
        sign_out = page.locator(".account button, .account a").last
        assert sign_out.evaluate("(e) => e.getClientRects().length") == 1
    expect(page.locator("#model-input")).to_have_attribute("title", LONG_MODEL)
    picker = page.locator("#conversation-select")
    picker.hover()
    expect(picker).to_have_attribute("title", title)
