"""The forms the offline demo writes: a contact form and a wedding's RSVP.

Each posts to `/_forms/<name>` on the site's own host, where a published site
receives what people send, with what a form people can use needs: a visible
`<label>` for every field, the `autocomplete` tokens that let a browser fill in
a name and an email address, `required` where the form is no use without it,
and a `_gotcha` honeypot. People never see the honeypot (`hidden`), assistive
technology does not read it (`aria-hidden`) and the keyboard never reaches it
(`tabindex="-1"`); a robot that fills in every field it finds gives itself away.
"""

from __future__ import annotations

import textwrap

HONEYPOT = "_gotcha"


def form_action(name: str) -> str:
    return f"/_forms/{name}"


def contact_form(*, indent: int = 6) -> str:
    """The contact section's form: name, email and a message."""
    fields = (
        _field("contact-name", "Your name", 'type="text" name="name" autocomplete="name"'),
        _field("contact-email", "Email", 'type="email" name="email" autocomplete="email"'),
        _lines(
            '<p class="field">',
            '  <label for="contact-message">Message</label>',
            '  <textarea id="contact-message" name="message" rows="5" required></textarea>',
            "</p>",
        ),
    )
    return _form("contact", "Send a message", fields, "Send message", indent)


def rsvp_form(*, indent: int = 6) -> str:
    """A wedding's RSVP: who, whether they come, and what to know."""
    choices = [
        f'  <label class="choice"><input type="radio" name="attending" value="{value}"'
        f"{' required' if value == 'yes' else ''}> {words}</label>"
        for value, words in (("yes", "Yes, I'll be there"), ("no", "Sadly, I can't come"))
    ]
    fields = (
        _field("rsvp-name", "Your name", 'type="text" name="name" autocomplete="name"'),
        _field("rsvp-email", "Email", 'type="email" name="email" autocomplete="email"'),
        _lines(
            '<fieldset class="field">', "  <legend>Will you come?</legend>", *choices, "</fieldset>"
        ),
        _lines(
            '<p class="field">',
            '  <label for="rsvp-notes">Anything we should know? (food, access)</label>',
            '  <textarea id="rsvp-notes" name="notes" rows="3"></textarea>',
            "</p>",
        ),
    )
    return _form("rsvp", "Reply to the invitation", fields, "Send reply", indent)


def _field(field_id: str, label: str, attributes: str) -> str:
    return _lines(
        '<p class="field">',
        f'  <label for="{field_id}">{label}</label>',
        f'  <input id="{field_id}" {attributes} required>',
        "</p>",
    )


def _lines(*lines: str) -> str:
    return "\n".join(lines)


def _form(name: str, title: str, fields: tuple[str, ...], send: str, indent: int) -> str:
    honeypot = f'<input type="text" name="{HONEYPOT}" tabindex="-1" autocomplete="off">'
    form = _lines(
        f'<form class="site-form" action="{form_action(name)}" method="post" aria-label="{title}">',
        textwrap.indent("\n".join(fields), "  "),
        '  <p class="gotcha" hidden aria-hidden="true">',
        f"    <label>Leave this empty {honeypot}</label>",
        "  </p>",
        f'  <p><button type="submit">{send}</button></p>',
        "</form>",
    )
    return textwrap.indent(form, " " * indent)
