"""The small starter site a new project can begin from, its owner's
instructions to the assistant (/AGENTS.md: projects.files.instructions), a
short start they can make their own, and the example requests the dashboard
offers under "What do you want to build?" (`STARTING_POINTS`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class StartingPoint:
    label: str  # what it is, in a word or two
    request: str  # what one click sends, as a person would write it


# Each builds with any model, the offline demo's included (tests/browser/
# test_dashboard_start_browser.py follows one through to the preview).
STARTING_POINTS: Final = (
    StartingPoint(
        "Bakery",
        "I need a website for my bakery called Crumb: the menu, opening hours and a contact form",
    ),
    StartingPoint(
        "Portfolio",
        "A portfolio site for my photography, with a gallery, a short bio and a way to reach me",
    ),
    StartingPoint(
        "Restaurant",
        "We want a website for our restaurant called Casa Verde: the menu, hours and bookings",
    ),
    StartingPoint(
        "Event",
        "A one-page site for our wedding on 14 June: the day's plan, the venue and an RSVP form",
    ),
    StartingPoint(
        "Local business",
        "A site for my plumbing business in Leeds, with services, prices and a call-back form",
    ),
    StartingPoint(
        "App landing page",
        "A landing page for Tally, our to-do app, with its features, pricing and a sign-up button",
    ),
)

# The session's key for a request the dashboard refused, shown in its box
# again (chat.views.start writes it, projects.views.dashboard reads it once).
START_DRAFT_KEY: Final = "builtit_start_draft"

_INDEX = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>My site</title>
  <link rel="stylesheet" href="styles.css">
</head>
<body>
  <header class="hero">
    <h1>Hello, world</h1>
    <p>This site was started with Built-It. Ask the assistant to make it yours.</p>
    <button id="greet" type="button">Say hello</button>
    <p id="greeting" aria-live="polite"></p>
  </header>
  <script src="script.js"></script>
</body>
</html>
"""

_STYLES = """:root {
  --accent: #4f46e5;
  --text: #1f2937;
  --muted: #6b7280;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--text);
}

body {
  margin: 0;
  min-height: 100vh;
  display: grid;
  place-items: center;
  background: linear-gradient(160deg, #eef2ff, #fdf2f8);
}

.hero {
  max-width: 36rem;
  padding: 2rem;
  text-align: center;
}

.hero p {
  color: var(--muted);
  line-height: 1.6;
}

button {
  font: inherit;
  padding: 0.6rem 1.2rem;
  border: 0;
  border-radius: 0.5rem;
  background: var(--accent);
  color: white;
  cursor: pointer;
}
"""

_SCRIPT = """document.getElementById("greet").addEventListener("click", () => {
  const hour = new Date().getHours();
  const part = hour < 12 ? "morning" : hour < 18 ? "afternoon" : "evening";
  document.getElementById("greeting").textContent = `Good ${part}!`;
});
"""

_AGENTS = """# Instructions for the assistant

The assistant reads this file before every request in this project. Change it
to say how you like your site made; it is never published. You can also ask the
assistant to remember something, and it adds a line here.

- Language: write the site's text in English.
- Tone: warm and plain; short sentences, no jargon.
- Accessibility: headings in order, a text alternative for every image, enough
  colour contrast, and everything usable with a keyboard.
- Design: keep it light and simple, with the colours kept in styles.css and reused.
"""

# The instructions alone: what a project started from a request begins with
# (chat.openings), the assistant building its site from nothing.
STARTER_INSTRUCTIONS: Final = {"/AGENTS.md": _AGENTS}

STARTER_FILES: Final = {
    "/index.html": _INDEX,
    "/styles.css": _STYLES,
    "/script.js": _SCRIPT,
    **STARTER_INSTRUCTIONS,
}
