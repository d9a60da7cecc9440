"""The small starter site a new project can begin from, and its owner's
instructions to the assistant (/AGENTS.md: projects.files.instructions), a
short start they can make their own."""

from __future__ import annotations

from typing import Final

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
