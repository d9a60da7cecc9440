"""How the offline demo words what it writes, in each tone the owner's
instructions may ask for (demo.rules): the sections' headings and texts,
the tagline, a new page's text and the first line of its answer.

"plain" is the demo's own voice (warm, plain, short sentences): the headings
and texts of demo.site.SECTIONS. The others have wordings of their own,
so a person can see the instruction was followed.
"""

from __future__ import annotations

import re
from typing import Literal

Tone = Literal["plain", "friendly", "formal", "playful"]

# How the answer names each tone ("Following your instructions: a friendly tone").
TONE_NAMES: dict[Tone, str] = {
    "plain": "a warm, plain tone",
    "friendly": "a friendly, casual tone",
    "formal": "a formal tone",
    "playful": "a playful tone",
}

# The tone a request asks for; the first that matches wins ("less formal" is friendly).
_ASKED: tuple[tuple[Tone, str], ...] = (
    ("friendly", r"less\s+(?:formal|stiff|serious|corporate)"),
    ("plain", r"less\s+(?:playful|silly|jokey|casual|chatty)"),
    ("playful", r"playful|fun|funnier|cheeky|whimsical|witty|quirky|cheerful"),
    ("formal", r"formal|professional|businesslike|business-like|serious|polite"),
    ("friendly", r"friendl(?:y|ier)|casual|informal|chatty|relaxed|warm(?:er)?"),
    ("plain", r"plain(?:er)?|simpler|neutral|calmer|toned?\s+down"),
)
# Words that make a tone word about the texts, not about a colour or a button.
_ABOUT_WORDS = re.compile(
    r"\b(?:tone|voice|wording|copy|texts?|writing|words|sound|language)\b"
    r"|\b(?:more|less)\s+\w+|\b(?:friendlier|funnier|plainer|simpler)\b"
    r"|\bmake\s+(?:it|the\s+(?:whole\s+)?(?:site|website|page))\s+(?:sound\s+|feel\s+)?\w+\s*[.!]?$",
    re.IGNORECASE,
)
_TEXT_WORDS = re.compile(r"\b(?:tone|voice|wording|copy|texts?|writing|words)\b")
# "make the colours more playful": a look, which the demo cannot change by tone.
_LOOK_WORDS = re.compile(
    r"\b(?:colou?rs?|fonts?|buttons?|header|background|layout|images?|photos?|look|design)\b"
)


def tone_asked(request: str) -> Tone | None:
    """The tone `request` asks the site's texts to take, or None."""
    lowered = request.lower()
    if not _ABOUT_WORDS.search(lowered):
        return None
    if _LOOK_WORDS.search(lowered) and not _TEXT_WORDS.search(lowered):
        return None
    return next((tone for tone, words in _ASKED if re.search(rf"\b(?:{words})\b", lowered)), None)


# Section id (demo.site.SECTIONS) → (heading, text), per tone but plain.
_SECTIONS: dict[Tone, dict[str, tuple[str, str]]] = {
    "friendly": {
        "menu": ("What we make", "Our favourites, made fresh every morning. Come and try them!"),
        "contact": ("Say hello", "Drop us a line or pop by. We'd love to hear from you!"),
        "about": ("About us", "We're a small team who love what we do. Here's our story."),
        "gallery": ("Have a look", "A few snaps of our work. We hope you like them!"),
        "pricing": ("Prices", "Fair prices, no surprises. Just ask if you're unsure!"),
        "testimonials": ("Kind words", "“Absolutely lovely!” — one of our regulars."),
        "services": ("What we do", "Here's how we can help you out."),
        "team": ("Meet the team", "The friendly faces behind it all."),
        "faq": ("Got questions?", "Here are the answers to what folks ask most."),
        "hours": ("When we're open", "Pop in any time we're open. We'd love to see you!"),
        "location": ("Come find us", "Right in the heart of town, by the old square."),
        "projects": ("Our work", "A few things we've made lately. Have a browse!"),
        "blog": ("What's new", "What we've been up to lately."),
        "events": ("What's on", "Here's what's coming up. Hope to see you there!"),
        "posts": ("Fresh from the blog", "The latest stories, newest first. Enjoy!"),
        "schedule": ("When's what", "Here's when everything happens. See you there!"),
        "products": ("Our favourites", "A few things we love. We think you will too!"),
        "tickets": ("Get your tickets", "Grab yours early: places go fast!"),
        "rsvp": ("Will you come?", "Let us know if you can make it. We'd love to see you!"),
    },
    "formal": {
        "menu": ("Our menu", "A selection of our products, prepared fresh each morning."),
        "contact": ("Contact us", "Please write to us or visit us; we respond to every enquiry."),
        "about": ("About us", "Our history, our values and our commitment to quality."),
        "gallery": ("Gallery", "A selection of images of our work."),
        "pricing": ("Pricing", "Our prices are transparent, with no additional charges."),
        "testimonials": ("Testimonials", "“Excellent service throughout.” — a valued client."),
        "services": ("Our services", "An overview of the services we provide."),
        "team": ("Our team", "The professionals behind our work."),
        "faq": ("Frequently asked questions", "Answers to the questions we receive most often."),
        "hours": ("Opening hours", "Our opening hours are as follows."),
        "location": ("Location", "We are located in the town centre, beside the old square."),
        "projects": ("Selected projects", "A selection of our recent work."),
        "blog": ("News", "The latest news from our organisation."),
        "events": ("Upcoming events", "Details of our forthcoming events."),
        "posts": ("Recent articles", "Our most recent articles, in order of publication."),
        "schedule": ("Schedule", "Times and details are listed below."),
        "products": ("Our products", "A selection of our products."),
        "tickets": ("Tickets", "Tickets are available below; places are limited."),
        "rsvp": ("RSVP", "Kindly let us know whether you will attend."),
    },
    "playful": {
        "menu": ("The goodies", "Fresh every morning and gone by lunch. You have been warned!"),
        "contact": ("Holler at us", "Send a message, send a pigeon, or just swing by!"),
        "about": ("Our story", "Once upon a time, we fell for what we do. The rest is history!"),
        "gallery": ("Feast your eyes", "Our favourite shots. Go on, take a peek!"),
        "pricing": ("The damage", "Prices so friendly they practically wave at you."),
        "testimonials": ("Fan mail", "“Best thing since sliced bread!” — a very happy human."),
        "services": ("Our bag of tricks", "Here's what we can pull out of the hat for you."),
        "team": ("The crew", "The wonderful bunch behind it all."),
        "faq": ("Burning questions", "You asked, we answered. Ask away!"),
        "hours": ("Doors open", "When the doors swing open (night owls, sorry!)."),
        "location": ("Where the magic happens", "Smack in the middle of town, by the old square."),
        "projects": ("Stuff we made", "A few recent things we're rather proud of."),
        "blog": ("Hot off the press", "The latest scoop from behind the scenes."),
        "events": ("Coming up!", "Mark your calendar: fun things ahead."),
        "posts": ("Hot off the keyboard", "Fresh stories, still warm. Dig in!"),
        "schedule": ("What's happening when", "Mark your calendar and set an alarm!"),
        "products": ("The good stuff", "Our favourite things. Try not to want them all!"),
        "tickets": ("Grab a ticket!", "They're going, going… don't miss out!"),
        "rsvp": ("Are you in?", "Say yes! (Or no, but we'd rather you said yes.)"),
    },
}
_MORE: dict[Tone, str] = {
    "plain": "News about {topic} is on its way.",
    "friendly": "News about {topic} is coming soon. Stay tuned!",
    "formal": "Further information about {topic} will follow.",
    "playful": "Something great about {topic} is brewing. Watch this space!",
}
_PAGE_TEXT: dict[Tone, str] = {
    "plain": "Everything about {topic} at {name}, in one place.",
    "friendly": "Here's all about {topic} at {name}. Have a look around!",
    "formal": "Information about {topic} at {name}.",
    "playful": "All the good stuff about {topic} at {name}. Dig in!",
}
# The first line of the answer once every write worked, by what was asked.
_DONE: dict[Tone, dict[str, str]] = {
    "plain": {
        "build": "Done: the site is built.",
        "colour": "Done: the colour is changed.",
        "heading": "Done: the heading is changed.",
        "section": "Done: the section is added.",
        "page": "Done: the page is added.",
        "remember": "Done: noted in AGENTS.md.",
        "text": "Done: the text is changed.",
        "buttons": "Done: the buttons are changed.",
        "fix": "Done: fixed what I could.",
        "problems": "Done: fixed what I could of the preview's problems.",
        "tone": "Done: the texts are reworded.",
        "rename": "Done: the site is renamed.",
    },
    "friendly": {
        "build": "All set: your site is ready!",
        "colour": "All set: the new colour is in!",
        "heading": "All set: your new heading is up!",
        "section": "All set: your new section is in!",
        "page": "All set: your new page is up!",
        "remember": "Got it: noted in AGENTS.md!",
        "text": "All set: the new text is in!",
        "buttons": "All set: your buttons are done!",
        "fix": "All set: fixed what I could!",
        "problems": "All set: fixed what I could of the preview's problems!",
        "tone": "All set: your texts are reworded!",
        "rename": "All set: your site has its new name!",
    },
    "formal": {
        "build": "The site has been built.",
        "colour": "The colour has been changed.",
        "heading": "The heading has been changed.",
        "section": "The section has been added.",
        "page": "The page has been added.",
        "remember": "Your instruction has been recorded in AGENTS.md.",
        "text": "The text has been changed.",
        "buttons": "The buttons have been changed.",
        "fix": "The findings I can fix have been fixed.",
        "problems": "The problems the preview reported that I can fix have been fixed.",
        "tone": "The texts have been reworded.",
        "rename": "The site has been renamed.",
    },
    "playful": {
        "build": "Ta-da! Your site is alive!",
        "colour": "Splash! A fresh coat of colour!",
        "heading": "Boom! A brand-new heading!",
        "section": "Pop! A shiny new section!",
        "page": "Ta-da! A whole new page!",
        "remember": "Noted, and tied a string round my finger (well, AGENTS.md)!",
        "text": "Poof! New words!",
        "buttons": "Boing! Buttons reshaped!",
        "fix": "Patched up what I could!",
        "problems": "Squashed what bugs I could!",
        "tone": "Abracadabra! Fresh new words!",
        "rename": "Ta-da! A brand-new name!",
    },
}


def section_words(section_id: str, heading: str, text: str, tone: Tone) -> tuple[str, str]:
    """The heading and text of a section in `tone`; `heading` and `text` are
    the plain ones."""
    if tone == "plain":
        return heading, text
    return _SECTIONS[tone].get(section_id, (heading, more_text(heading.lower(), tone)))


def more_text(topic: str, tone: Tone) -> str:
    """The first line of a section the demo has no words for."""
    return _MORE[tone].format(topic=topic)


def tagline(kind: str, label: str, tone: Tone) -> str:
    """The line under the site's name: a `kind` of place (demo.kinds),
    named `label` ("yoga studio"), in `tone`. It always names the label, for
    the demo to find the kind again (demo.kinds.kind_found_in)."""
    named = _a(label)
    if tone == "friendly":
        return f"Hi there! Welcome to our little {label}. Come on in and look around."
    if tone == "formal":
        return f"Welcome. Please find below everything you need to know about our {label}."
    if tone == "playful":
        return f"{named[:1].upper()}{named[1:]} with a twist! Grab a seat and have a wander."
    said = _TAGLINES.get(kind, "{A} made with care. Have a look around.")
    return said.format(A=named[:1].upper() + named[1:], label=label)


def _a(words: str) -> str:
    return f"{'an' if words[:1].lower() in 'aeiou' else 'a'} {words}"


# The demo's own taglines, by kind: "{A}" is the label with its article.
_TAGLINES = {
    "site": "Welcome: everything you need to know, on one page.",
    "bakery": "A neighbourhood bakery: bread, pastries and cakes, baked every morning.",
    "café": "A little café: good coffee, simple food and a seat by the window.",
    "coffee shop": "A coffee shop for slow mornings, good beans and a seat by the window.",
    "restaurant": "{A} of seasonal cooking, with a table waiting for you.",
    "portfolio": "A portfolio of selected work, and the story behind each piece.",
    "photography studio": "A photography studio for portraits, events and everything between.",
    "shop": "{A} of hand-picked things, run by people who know them well.",
    "studio": "A small {label} for design and making, done with care.",
    "band": "{A}: loud, live and coming to a stage near you.",
    "wedding": "Our wedding: we would love you to be there.",
    "product": "Everything you need to get started, in one simple product.",
    "app": "Everything you need to get started, in one simple app.",
    "blog": "A blog of notes, stories and lessons learned along the way.",
    "business": "A local {label} that does things properly, with a clear price up front.",
    "class": "{A} with classes for every level, and a warm welcome for beginners.",
    "event": "{A} worth keeping the date free for: everything you need to know, in one place.",
    "club": "{A} for everyone: new faces are always welcome.",
    "school": "{A} where everyone is known by name and helped to do their best.",
}


def page_text(topic: str, name: str, tone: Tone) -> str:
    """The first line of a new page about `topic` on the site `name`."""
    return _PAGE_TEXT[tone].format(topic=topic, name=name)


def done_line(intent: str, tone: Tone) -> str:
    return _DONE[tone].get(intent, "Done.")
