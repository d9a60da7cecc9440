"""The site check on forms: one that posts nowhere or to another site loses
what visitors send (the site's own /_forms/<name> keeps it); a field without a
label is announced without a name."""

from __future__ import annotations

from projects.publish.site_check import site_check
from tests.demo.test_demo_sites import built
from tests.projects.publish.test_site_check import found, page


def forms(body: str) -> list[str]:
    return [text for _, text in found({"/index.html": page(body)}, "form")]


def test_a_form_posting_to_the_sites_own_endpoint_with_labels_is_clean() -> None:
    assert (
        forms(
            '<form action="/_forms/contact" method="post">'
            '<label for="e">Email</label><input id="e" name="email" type="email">'
            '<label>Message <textarea name="message"></textarea></label>'
            '<input aria-label="Phone" name="phone"><input type="hidden" name="_next" value="/">'
            '<p hidden><input name="_gotcha"></p><button>Send</button></form>'
        )
        == []
    )


def test_a_form_that_posts_nowhere_is_told() -> None:
    for action in ("", ' action=""', ' action="#"', ' action="javascript:void(0)"'):
        said = forms(f'<form method="post"{action}><label>Name <input name="n"></label></form>')
        assert said == [
            "A form posts nowhere: the published site is static, so what visitors send is "
            "lost. Make its action /_forms/<name> (a contact form: /_forms/contact) to keep "
            'them here, with method="post".'
        ], action
    # Asking for a message or an address without an action loses it too.
    assert len(forms('<form><label>Message <textarea name="m"></textarea></label></form>')) == 1
    # A search that only reads is fine.
    assert forms('<form role="search"><label>Find <input name="q"></label></form>') == []


def test_a_form_that_sends_to_another_site_or_a_mail_program_is_told() -> None:
    [elsewhere] = forms(
        '<form action="https://formspree.io/f/abc" method="post"><label>A <input name="a">'
        "</label></form>"
    )
    assert "another site (formspree.io)" in elsewhere
    assert "/_forms/<name>" in elsewhere
    [mail] = forms('<form action="mailto:me@bakery.test"><label>A <input name="a"></label></form>')
    assert "opens the visitor's mail program" in mail


def test_a_field_without_a_label_is_told_once_each() -> None:
    said = forms(
        '<form action="/_forms/contact" method="post">'
        '<input name="email" placeholder="Email"><select name="size"></select>'
        '<label for="other">Not this one</label><textarea name="message"></textarea>'
        '<input type="submit" value="Send"></form>'
    )
    assert [text.split(" has no label")[0] for text in said] == [
        'The field <input name="email">',
        'The field <select name="size">',
        'The field <textarea name="message">',
    ]


def test_the_demo_bakerys_contact_form_is_clean() -> None:
    files: dict[str, str | None] = dict(built("a bakery called Crumb with a contact section"))
    assert [f.text for f in site_check(files).findings if f.kind == "form"] == []
