"""Publishing for someone who comes back: each version says what it holds (the
requests of the turns since the version before, the files it changed), a
version can be looked at before it is made live again (on the sites origin,
sandboxed), the check's findings published anyway are not asked about again
until they change, and the published site's address is there to copy."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

from chat.models import Conversation, Message
from projects.files.results import FileWrite
from projects.models import Project, Site, SiteVersion
from projects.publish.acceptance import check_asked, finding_mark, marks_posted
from projects.publish.findings import Finding, SiteCheck
from projects.publish.notes import version_notes
from projects.publish.services import PublishRefused, site_publish
from projects.services import Author, file_create, file_delete, file_update

HEAD = '<!doctype html><html lang="en"><head><meta charset="utf-8">'
VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">'


def page(body: str, title: str = "Bakery") -> str:
    return f"{HEAD}{VIEWPORT}<title>{title}</title></head><body>{body}</body></html>"


def write(project: Project, path: str, content: str, *, message: Message | None = None) -> None:
    author = (
        Author.assistant(project.owner, message_id=message.pk)
        if message is not None
        else Author.person(project.owner)
    )
    if project.files.filter(path=path).exists():
        result = file_update(project=project, path=path, content=content, author=author)
    else:
        result = file_create(project=project, path=path, content=content, author=author)
    assert isinstance(result, FileWrite), result


class Chat:
    """A conversation whose turns change files, as the assistant's would."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.conversation = Conversation.objects.create(project=project)
        self.sequence = 0

    def turn(self, request: str, *files: tuple[str, str]) -> None:
        self._message(Message.Role.USER, request)
        answer = self._message(Message.Role.ASSISTANT, "Done.")
        for path, content in files:
            write(self.project, path, content, message=answer)

    def _message(self, role: str, content: str) -> Message:
        self.sequence += 1
        return Message.objects.create(
            conversation=self.conversation, sequence=self.sequence, role=role, content=content
        )


@pytest.fixture
def bakery(user: User) -> Project:
    project = Project.objects.create(owner=user, name="Lisbon Bakery")
    write(project, "/index.html", page("<h1>Fresh bread</h1>"))
    write(project, "/styles.css", "body { color: #333; }\n")
    return project


def published(project: Project) -> SiteVersion:
    version = site_publish(project=project, user=project.owner, name="lisbon-bakery")
    assert not isinstance(version, PublishRefused), version
    return version


def panel(client: Client, project: Project) -> str:
    return client.get(f"/projects/{project.pk}/publish/").content.decode()


def publish(client: Client, project: Project, **fields: str | list[str]) -> str:
    return client.post(f"/projects/{project.pk}/publish/go/", fields).content.decode()


def versions_shown(html: str) -> list[str]:
    """Each listed version as one line of the words a person reads."""
    items = html.split('<ol class="publish-versions" reversed>')[1].split("</ol>", 1)[0]
    return [
        " ".join(unescape(re.sub(r"<[^>]+>", " ", item)).split())
        for item in items.split("<li>")[1:]
    ]


# --- what each version holds ---------------------------------------------------------


def test_each_version_names_the_requests_and_the_files_since_the_one_before(
    user_client: Client, bakery: Project
) -> None:
    chat = Chat(bakery)
    chat.turn("Add a menu page with our breads", ("/menu.html", page("<h1>Menu</h1>")))
    published(bakery)
    chat.turn("Make the header dark blue", ("/styles.css", "header { background: navy; }\n"))
    chat.turn("**Add** an about page\nwith our story", ("/about.html", page("<h1>Us</h1>")))
    chat.turn("What fonts do you use?")  # changed nothing: not in any version
    chat.turn("Make the header dark blue", ("/index.html", page("<h1>Fresh bread!</h1>")))
    file_delete(project=bakery, path="/menu.html", author=Author.person(bakery.owner))
    published(bakery)
    published(bakery)  # nothing changed since

    third, second, first = versions_shown(panel(user_client, bakery))
    assert third.startswith("Version 3 ·")
    assert "Asked:" not in third
    assert third.endswith("The same files as version 2.")
    assert second.startswith("Version 2 ·")
    assert "Asked: “Make the header dark blue” and “Add an about page” " in second
    assert second.endswith(
        "2 changed: index.html, styles.css · 1 added: about.html · 1 removed: menu.html."
    )
    assert "What fonts" not in second
    assert first.startswith("Version 1 ·")
    assert "Asked: “Add a menu page with our breads” " in first
    assert first.endswith("First version: index.html, menu.html, styles.css.")


def test_a_version_after_many_turns_names_a_few_and_counts_the_rest(bakery: Project) -> None:
    chat = Chat(bakery)
    for number in range(6):
        chat.turn(f"Change {number}", ("/index.html", page(f"<h1>Bread {number}</h1>")))
    version = published(bakery)
    (note,) = version_notes(version.site, [version])
    assert note.requests == ("Change 0", "Change 1", "Change 2")
    assert note.more_requests == 3


def test_the_words_say_three_requests_and_more_in_a_sentence(
    user_client: Client, bakery: Project
) -> None:
    chat = Chat(bakery)
    for number in range(4):
        chat.turn(f"Change {number}", ("/index.html", page(f"<h1>Bread {number}</h1>")))
    published(bakery)
    (only,) = versions_shown(panel(user_client, bakery))
    assert "Asked: “Change 0”, “Change 1”, “Change 2” and 1 more " in only


def test_many_files_are_counted_with_a_few_names(user_client: Client, bakery: Project) -> None:
    published(bakery)
    for number in range(5):
        write(bakery, f"/page{number}.html", page(f"<h1>{number}</h1>"))
    published(bakery)
    latest = versions_shown(panel(user_client, bakery))[0]
    assert latest.endswith("5 added: page0.html, page1.html, page2.html and 2 more.")


# --- a version looked at before it is made live ---------------------------------------


def preview_address(html: str, number: int) -> str:
    found = re.search(
        rf'href="(http://sites\.testserver/preview/[^"]+/@v{number}-[^"]+/)"[^>]*>Preview', html
    )
    assert found is not None, f"no preview of version {number}"
    return unescape(found.group(1))


def test_an_earlier_version_is_previewed_on_the_sites_origin_as_it_was_published(
    user_client: Client, sites_client: Client, bakery: Project
) -> None:
    write(bakery, "/about/index.html", page("<h1>About us</h1>"))
    published(bakery)
    write(bakery, "/index.html", page("<h1>Fresh bread, daily</h1>"))
    published(bakery)
    html = panel(user_client, bakery)
    assert "@v2-" not in html, "the live version is at its address"
    address = preview_address(html, 1)

    path = address.removeprefix("http://sites.testserver")
    answer = sites_client.get(path)
    assert answer.status_code == 200
    assert "Fresh bread</h1>" in answer.content.decode()
    assert answer["Content-Security-Policy"].startswith("sandbox allow-scripts")
    assert "allow-same-origin" not in answer["Content-Security-Policy"]
    assert answer["Cache-Control"] == "no-store"
    folder = sites_client.get(path + "about")
    assert folder.status_code == 302
    assert folder["Location"].endswith("/about/")
    assert "About us" in sites_client.get(path + "about/").content.decode()
    assert sites_client.get(path + "styles.css").content == b"body { color: #333; }\n"
    assert sites_client.get(path + "nothing.html").status_code == 404
    # Never from the app's own origin.
    assert user_client.get(path).status_code == 404


def test_a_version_preview_needs_its_seal_which_names_one_version_of_one_project(
    user: User, user_client: Client, sites_client: Client, bakery: Project
) -> None:
    published(bakery)
    write(bakery, "/index.html", page("<h1>Changed</h1>"))
    published(bakery)
    path = preview_address(panel(user_client, bakery), 1).removeprefix("http://sites.testserver")
    token = bakery.preview_token
    assert "lapsed" in sites_client.get(path.replace("@v1-", "@v2-")).content.decode()
    other = Project.objects.create(owner=user, name="Other")
    forged = path.replace(token, other.preview_token)
    assert "lapsed" in sites_client.get(forged).content.decode()
    SiteVersion.objects.filter(number=1).delete()
    gone = sites_client.get(path)
    assert gone.status_code == 410
    assert "no longer kept" in gone.content.decode()


# --- findings published anyway ----------------------------------------------------------

BROKEN = page("<h1>Fresh bread</h1><a href='menu.html'>Menu</a>")


def test_findings_published_anyway_are_not_asked_about_again_until_they_change(
    user_client: Client, bakery: Project
) -> None:
    write(bakery, "/index.html", BROKEN)
    asked = publish(user_client, bakery, name="lisbon-bakery")
    assert "menu.html leads to no file." in asked
    marks = re.findall(r'name="accepted" value="([0-9a-f]{16})"', asked)
    assert len(marks) == 1
    said = publish(
        user_client, bakery, name="lisbon-bakery", anyway="1", checked="1", accepted=marks
    )
    assert "Version 1 is live." in said

    # Lines added above move it; it is still the finding the person read.
    write(bakery, "/index.html", BROKEN.replace("<body>", "<body>\n\n<p>Open daily</p>"))
    said = publish(user_client, bakery)
    assert "Version 2 is live." in said
    assert "1 finding of the check you published anyway before is unchanged" in said
    assert "Publish anyway" not in said

    # A new finding is asked about, alone; the old one is counted, not listed.
    write(bakery, "/index.html", BROKEN.replace("</a>", "</a><a href='shop.html'>Shop</a>"))
    asked = publish(user_client, bakery)
    assert "shop.html leads to no file." in asked
    assert "menu.html leads to no file." not in asked
    assert "Not listed again: 1 finding you published anyway before, unchanged." in asked
    assert "Publish anyway" in asked
    assert Site.objects.get().versions.count() == 2


def test_a_finding_fixed_and_back_again_is_asked_about_again(
    user_client: Client, bakery: Project
) -> None:
    write(bakery, "/index.html", BROKEN)
    marks = re.findall(r'name="accepted" value="([0-9a-f]{16})"', publish(user_client, bakery))
    publish(user_client, bakery, name="lisbon-bakery", anyway="1", checked="1", accepted=marks)
    write(bakery, "/index.html", page("<h1>Fresh bread</h1>"))
    assert "Version 2 is live." in publish(user_client, bakery)
    write(bakery, "/index.html", BROKEN)
    assert "menu.html leads to no file." in publish(user_client, bakery)


def test_a_second_finding_like_an_accepted_one_is_asked_about() -> None:
    one = Finding("missing_alt", "/index.html", "An image has no alt text.", line=3)
    two = Finding("missing_alt", "/index.html", "An image has no alt text.", line=9)
    accepted = {finding_mark(one): 1}
    asked = check_asked(SiteCheck((one, two), 0, {"missing_alt": 2}), accepted)
    assert asked.known == 1
    assert asked.check.findings == (two,)
    assert not asked.clean
    assert check_asked(SiteCheck((one,), 0, {"missing_alt": 1}), accepted).clean


def test_a_check_with_findings_past_its_list_asks_about_them_all() -> None:
    one = Finding("missing_alt", "/index.html", "An image has no alt text.", line=3)
    asked = check_asked(SiteCheck((one,), 5, {"missing_alt": 6}), {finding_mark(one): 1})
    assert asked.check.findings == (one,)
    assert not asked.clean


def test_only_marks_are_kept_and_at_most_as_many_as_a_check_lists() -> None:
    posted = ["0123456789abcdef", "nope", "0123456789ABCDEF", "'; drop", *["a" * 16] * 500]
    kept = marks_posted(posted)
    assert kept == {"0123456789abcdef": 1, "a" * 16: 199}


def test_publish_anyway_after_a_check_that_did_not_finish_keeps_what_was_accepted(
    user_client: Client, bakery: Project
) -> None:
    write(bakery, "/index.html", BROKEN)
    marks = re.findall(r'name="accepted" value="([0-9a-f]{16})"', publish(user_client, bakery))
    publish(user_client, bakery, name="lisbon-bakery", anyway="1", checked="1", accepted=marks)
    publish(user_client, bakery, anyway="1")  # as after "the check did not finish"
    assert Site.objects.get().accepted_findings == {marks[0]: 1}


def test_the_command_skips_what_was_published_anyway_as_the_dialog_does(
    bakery: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    write(bakery, "/index.html", BROKEN)
    with pytest.raises(CommandError):
        call_command("publish", str(bakery.pk), "--name", "lisbon-bakery")
    call_command("publish", str(bakery.pk), "--name", "lisbon-bakery", "--anyway")
    capsys.readouterr()
    write(bakery, "/index.html", BROKEN.replace("<body>", "<body>\n"))
    call_command("publish", str(bakery.pk))
    out, err = capsys.readouterr()
    assert "version 2 is live" in out
    assert "Not listed again: 1 published anyway before, unchanged." in err
    assert "menu.html" not in err


# --- the address to copy -----------------------------------------------------------------


def test_the_dashboard_card_of_a_published_project_shows_its_address_to_copy(
    user: User, user_client: Client, bakery: Project
) -> None:
    unpublished = Project.objects.create(owner=user, name="Draft")
    published(bakery)
    html = user_client.get("/").content.decode()
    card = html.split(f'id="project-{bakery.pk}"')[1].split("</li>")[0]
    assert "Published" in card
    assert 'href="http://lisbon-bakery.sites.testserver/"' in card
    assert 'data-copy="http://lisbon-bakery.sites.testserver/"' in card
    assert 'aria-label="Copy link to Lisbon Bakery"' in card
    other = html.split(f'id="project-{unpublished.pk}"')[1].split("</li>")[0]
    assert "Published" not in other
    assert "data-copy" not in other

    site = Site.objects.get()
    site.live = None
    site.save()
    assert "data-copy" not in user_client.get("/").content.decode(), "offline: nothing to share"


def test_the_workspace_offers_the_address_beside_publish_once_it_is_live(
    user_client: Client, bakery: Project
) -> None:
    workspace = user_client.get(f"/projects/{bakery.pk}/").content.decode()
    # No site address to copy (the Git panel's clone address is not a site's).
    assert 'data-copy="http://lisbon-bakery' not in workspace
    assert '<span id="site-link" class="site-link"></span>' in workspace
    said = publish(user_client, bakery, name="lisbon-bakery")
    assert "Version 1 is live." in said
    # The dialog's answer puts Copy link beside Publish and in the phone's menu.
    assert '<span id="site-link" class="site-link" hx-swap-oob="true">' in said
    assert '<span id="site-link-menu" class="site-link-menu" hx-swap-oob="true">' in said
    assert said.count('data-copy="http://lisbon-bakery.sites.testserver/"') == 3
    workspace = user_client.get(f"/projects/{bakery.pk}/").content.decode()
    assert workspace.count('data-copy="http://lisbon-bakery.sites.testserver/"') == 2
    said = user_client.post(f"/projects/{bakery.pk}/publish/off/").content.decode()
    assert "data-copy" not in said
    assert '<span id="site-link" class="site-link" hx-swap-oob="true"></span>' in said
