"""How the offline demo words what it writes, in each tone the owner's
instructions may ask for (chat.demo.rules): the sections' headings and texts,
the tagline, a new page's text and the first line of its answer.

"plain" is the demo's own voice (warm, plain, short sentences): the headings
and texts of chat.demo.site.SECTIONS. The others have wordings of their own,
so a person can see the instruction was followed.
"""

from __future__ import annotations

from typing import Literal

Tone = Literal["plain", "friendly", "formal", "playful"]

# How the answer names each tone ("Following your instructions: a friendly tone").
TONE_NAMES: dict[Tone, str] = {
    "plain": "a warm, plain tone",
    "friendly": "a friendly, casual tone",
    "formal": "a formal tone",
    "playful": "a playful tone",
}

# Section id (chat.demo.site.SECTIONS) → (heading, text), per tone but plain.
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
        "hours": ("When we're open", "Monday to Saturday, 8 to 6. Pop in any time!"),
        "location": ("Come find us", "Right in the heart of town, by the old square."),
        "projects": ("Our work", "A few things we've made lately. Have a browse!"),
        "blog": ("What's new", "What we've been up to lately."),
        "events": ("What's on", "Here's what's coming up. Hope to see you there!"),
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
        "hours": ("Opening hours", "Monday to Saturday, 8:00 to 18:00."),
        "location": ("Location", "We are located in the town centre, beside the old square."),
        "projects": ("Selected projects", "A selection of our recent work."),
        "blog": ("News", "The latest news from our organisation."),
        "events": ("Upcoming events", "Details of our forthcoming events."),
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
        "hours": ("Doors open", "Monday to Saturday, 8 till 6. Night owls, sorry!"),
        "location": ("Where the magic happens", "Smack in the middle of town, by the old square."),
        "projects": ("Stuff we made", "A few recent things we're rather proud of."),
        "blog": ("Hot off the press", "The latest scoop from behind the scenes."),
        "events": ("Coming up!", "Mark your calendar: fun things ahead."),
    },
}
_MORE: dict[Tone, str] = {
    "plain": "More to come here.",
    "friendly": "More coming soon. Stay tuned!",
    "formal": "Further information will follow.",
    "playful": "Something great is brewing here. Watch this space!",
}
_PAGE_TEXT: dict[Tone, str] = {
    "plain": "Write about {topic} here.",
    "friendly": "Say a few friendly words about {topic} here.",
    "formal": "Information about {topic} will appear here.",
    "playful": "Something wonderful about {topic} goes here. Watch this space!",
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
    },
    "friendly": {
        "build": "All set: your site is ready!",
        "colour": "All set: the new colour is in!",
        "heading": "All set: your new heading is up!",
        "section": "All set: your new section is in!",
        "page": "All set: your new page is up!",
        "remember": "Got it: noted in AGENTS.md!",
    },
    "formal": {
        "build": "The site has been built.",
        "colour": "The colour has been changed.",
        "heading": "The heading has been changed.",
        "section": "The section has been added.",
        "page": "The page has been added.",
        "remember": "Your instruction has been recorded in AGENTS.md.",
    },
    "playful": {
        "build": "Ta-da! Your site is alive!",
        "colour": "Splash! A fresh coat of colour!",
        "heading": "Boom! A brand-new heading!",
        "section": "Pop! A shiny new section!",
        "page": "Ta-da! A whole new page!",
        "remember": "Noted, and tied a string round my finger (well, AGENTS.md)!",
    },
}


def section_words(section_id: str, heading: str, text: str, tone: Tone) -> tuple[str, str]:
    """The heading and text of a section in `tone`; `heading` and `text` are
    the plain ones."""
    if tone == "plain":
        return heading, text
    return _SECTIONS[tone].get(section_id, (heading, _MORE[tone]))


def more_text(tone: Tone) -> str:
    """The text of a section the demo has no words for."""
    return _MORE[tone]


def tagline(kind: str, tone: Tone) -> str:
    if tone == "friendly":
        return f"Hi there! Welcome to our little {kind}. Come on in and look around."
    if tone == "formal":
        return f"Welcome. Please find below everything you need to know about our {kind}."
    if tone == "playful":
        return f"A {kind} with a twist! Grab a seat and have a wander."
    if kind == "site":
        return "Welcome: everything you need to know, on one page."
    return f"A {kind} made with care. Have a look around."


def page_text(topic: str, tone: Tone) -> str:
    return _PAGE_TEXT[tone].format(topic=topic)


def done_line(intent: str, tone: Tone) -> str:
    return _DONE[tone].get(intent, "Done.")
