"""Staff read what sites' forms received, and may delete it, never change it."""

from __future__ import annotations

from html import unescape

from django.test import Client

from projects.models import FormSubmission, Project
from projects.publish.forms.fields import Fields, Sent
from projects.publish.forms.services import submission_receive
from tests.projects.admin.test_admin import admin_client, admin_user

__all__ = ["admin_client", "admin_user"]  # fixtures, used by name

LIST = "/admin/projects/formsubmission/"


def test_staff_list_search_read_and_delete_submissions(admin_client: Client, project: Project):
    sent = Sent(fields=Fields((("name", "Ana <b>Lima</b>"), ("message", "Hi"))), spam=True, next="")
    row = submission_receive(
        project_id=project.pk, form="contact", sent=sent, page="/", address_hash="h", test=False
    )
    assert isinstance(row, FormSubmission)
    listed = unescape(admin_client.get(LIST).content.decode())
    assert "contact" in listed
    assert "Empty site" in listed
    assert "ada" in listed
    assert "contact" in unescape(admin_client.get(LIST, {"q": "Lima"}).content.decode())
    assert "0 form submissions" in unescape(
        admin_client.get(LIST, {"q": "nobody"}).content.decode()
    )
    shown = admin_client.get(f"{LIST}{row.pk}/change/")
    assert shown.status_code == 200
    assert "<strong>name</strong>: Ana &lt;b&gt;Lima&lt;/b&gt;" in shown.content.decode()
    assert admin_client.post(f"{LIST}{row.pk}/change/", {"form": "x"}).status_code == 403
    assert admin_client.get(f"{LIST}add/").status_code == 403
    admin_client.post(f"{LIST}{row.pk}/delete/", {"post": "yes"})
    assert not FormSubmission.objects.exists()
