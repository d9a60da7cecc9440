"""The workspace drawn by role: a viewer reads (no message box, no controls
that change files), an editor works but neither publishes nor renames nor
deletes the project, the owner sees everything as before."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from chat.models import Conversation, Message
from chat.selectors.askers import turn_asker
from projects.models import GitRemote, Membership, Project, Site
from projects.publish.domains import site_domain_set
from projects.publish.services import site_publish


def _as(project: Project, role: str | None) -> Client:
    client = Client()
    if role is None:
        client.force_login(project.owner)
        return client
    person = User.objects.create_user(role, f"{role}@example.com", "pw-for-tests-1")
    Membership.objects.create(project=project, user=person, role=role, added_by=project.owner)
    client.force_login(person)
    return client


def _page(project: Project, role: str | None) -> str:
    response = _as(project, role).get(reverse("workspace", args=[project.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_a_viewer_reads_the_workspace_and_is_told_who_can_make_them_an_editor(
    starter_project: Project,
) -> None:
    page = _page(starter_project, "viewer")
    assert 'data-may="view"' in page
    # The message box is there, hidden (a role change brings it back without a
    # reload), and the line that says why in its place.
    assert '<form id="composer" class="composer" ws-send hidden>' in page
    owner = starter_project.owner.get_username()
    said = f"You can look at this project; {owner} can make you an editor."
    assert f'<p id="chat-viewer-line" class="role-note" role="note">{said}</p>' in page
    assert reverse("project_rename", args=[starter_project.pk]) not in page
    assert reverse("forms_inbox", args=[starter_project.pk]) not in page
    # Controls the stylesheet hides for a viewer are marked with what they need.
    assert 'class="new-file" data-needs="edit"' in page
    assert 'data-needs="edit" data-action="rename-file"' not in page
    assert 'data-action="rename-file" data-needs="edit"' in page
    assert 'title="Save (Ctrl+S)" data-needs="edit"' in page
    # The editor's text is read-only (Ace reads data-may; without script, the box).
    assert " readonly" in page.split('id="editor-fallback"')[1].split(">")[0]


def test_a_viewer_opening_a_project_with_no_conversation_writes_none(
    starter_project: Project,
) -> None:
    """A viewer cannot chat, so cannot start a conversation either: opening the
    project shows an empty chat that says so, and the socket follows the
    project with no conversation."""
    assert not Conversation.objects.filter(project=starter_project).exists()
    page = _page(starter_project, "viewer")
    assert not Conversation.objects.filter(project=starter_project).exists()
    assert "No one has chatted about this project yet" in page
    assert f'ws-connect="/ws/projects/{starter_project.pk}/chat/?role=viewer"' in page
    # Someone who may chat starts one, as before; the next to open it sees that one.
    _page(starter_project, "editor")
    started = Conversation.objects.get(project=starter_project)
    owner = _as(starter_project, None).get(reverse("workspace", args=[starter_project.pk]))
    assert "No one has chatted about this project yet" not in owner.content.decode()
    assert Conversation.objects.get(project=starter_project) == started


def test_the_workspace_names_the_owner_as_the_chat_names_people(
    starter_project: Project,
) -> None:
    """ "Ada Lovelace can make you an editor", as her turns read "Ada Lovelace
    asked" (common.users.person_name), not by her username."""
    owner = starter_project.owner
    owner.first_name, owner.last_name = "Ada", "Lovelace"
    owner.save()
    client = _as(starter_project, "viewer")
    page = client.get(reverse("workspace", args=[starter_project.pk])).content.decode()
    share = client.get(reverse("share_panel", args=[starter_project.pk])).content.decode()

    assert "You can look at this project; Ada Lovelace can make you an editor." in page
    assert 'title="Ada Lovelace shared this project with you"' in page
    assert '<span class="share-name">Ada Lovelace</span>' in share
    assert '<span class="share-name">viewer (you)</span>' in share  # no full name: the username
    assert turn_asker(project=starter_project, sender=owner) == "Ada Lovelace"


def test_an_editor_chats_and_edits_but_sees_no_owner_controls(starter_project: Project) -> None:
    page = _page(starter_project, "editor")
    assert 'data-may="chat edit forms view"' in page
    assert '<form id="composer" class="composer" ws-send>' in page
    assert 'id="chat-viewer-line" class="role-note" role="note" hidden>' in page
    assert reverse("forms_inbox", args=[starter_project.pk]) in page
    assert reverse("project_rename", args=[starter_project.pk]) not in page
    assert ">Editor</span>" in page


def test_the_owner_sees_the_workspace_as_before(starter_project: Project) -> None:
    page = _page(starter_project, None)
    assert 'data-may="chat delete edit forms hand_over publish settings share view"' in page
    assert 'id="composer"' in page
    assert reverse("project_rename", args=[starter_project.pk]) in page
    assert 'id="chat-viewer-line" class="role-note" role="note" hidden>' in page


@pytest.mark.parametrize("role", ["viewer", "editor"])
def test_the_remote_is_the_owner_s_a_member_neither_sees_it_nor_pulls(
    starter_project: Project, role: str
) -> None:
    # Pushing and pulling sign in to the Git host with the owner's token.
    GitRemote.objects.create(project=starter_project, url="https://github.com/ada/site.git")
    pull = reverse("git_remote_pull", args=[starter_project.pk])
    assert pull in _page(starter_project, None)
    client = _as(starter_project, role)
    page = client.get(reverse("workspace", args=[starter_project.pk])).content.decode()
    assert "Clone with Git" in page
    assert 'id="remote-heading"' not in page
    assert "https://github.com/ada/site.git" not in page
    assert pull not in page
    assert reverse("git_remote_save", args=[starter_project.pk]) not in page
    refused = client.post(pull)
    assert refused.status_code == 403
    said = refused.content.decode().replace("&#x27;", "'")
    assert "Only the project's owner can change the project's settings." in said


@pytest.mark.parametrize("role", ["viewer", "editor"])
def test_a_member_sees_the_published_site_s_settings_read_only(
    starter_project: Project, role: str, dns: object
) -> None:
    site_publish(project=starter_project, user=starter_project.owner, name="roles-bakery")
    site = Site.objects.get(project=starter_project)
    site_domain_set(site=site, domain="shop.example.com")
    client = _as(starter_project, role)
    panel = client.get(reverse("site_panel", args=[starter_project.pk])).content.decode()
    owner = starter_project.owner.get_username()
    assert f"Only the project's owner, {owner}, can publish it or change these settings." in panel
    assert "shop.example.com" in panel
    assert reverse("site_publish", args=[starter_project.pk]) not in panel
    assert reverse("site_version_live", args=[starter_project.pk, 1]) not in panel
    assert 'id="site-domain"' not in panel
    assert reverse("site_version_zip", args=[starter_project.pk, 1]) in panel


def test_the_owner_s_publish_panel_keeps_its_controls(starter_project: Project) -> None:
    site_publish(project=starter_project, user=starter_project.owner, name="roles-bakery")
    client = _as(starter_project, None)
    panel = client.get(reverse("site_panel", args=[starter_project.pk])).content.decode()
    assert reverse("site_publish", args=[starter_project.pk]) in panel
    assert 'id="site-domain"' in panel
    assert "role-note" not in panel


def test_an_editor_reads_the_forms_inbox_but_not_its_mail_settings(
    starter_project: Project,
) -> None:
    starter_project.owner.email = "owner@example.com"
    starter_project.owner.save()
    client = _as(starter_project, "editor")
    page = client.get(reverse("forms_inbox", args=[starter_project.pk])).content.decode()
    owner = starter_project.owner.get_username()
    assert f"Where submissions are mailed is for the project's owner, {owner}, to choose." in page
    assert reverse("forms_settings", args=[starter_project.pk]) not in page
    assert "owner@example.com" not in page
    assert 'id="forms-mail-title"' in page


def test_a_viewer_previewing_a_turn_is_offered_no_restore(starter_project: Project) -> None:
    conversation = Conversation.objects.create(project=starter_project)
    turn = Message.objects.create(
        conversation=conversation, sequence=1, role="user", content="Add an about page"
    )
    client = _as(starter_project, "viewer")
    url = reverse("turn_preview", args=[starter_project.pk, turn.pk])
    answer = client.get(url).content.decode()
    assert 'data-needs="edit"' in answer.split("Restore the project to here")[0][-300:]
