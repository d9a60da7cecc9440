"""The offline demo: a stateless responder that builds a small site with the file tools.

It reads everything it needs from the request (the last user message, the
tools offered, the files the system prompt lists, the tool calls already made
and their results), so it works for any number of turns and any number of
clients without remembering anything. A file the project already holds (the
starter's index.html, styles.css and script.js) is rewritten with update_file,
not created again; the summary names any call that failed.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

from tests.fakes.script import RecordedRequest, Reply, Scripted, ToolCallScript, never_stops

MODEL = "openai/gpt-4o-mini"
# A model that ignores max_tokens and writes without end, to see the spending
# caps stop it (listed, with a price, in the fake's model list).
NEVER_STOPS = "builtit-test/never-stops"
DEFAULT_FILES = ("index.html", "styles.css", "script.js")
HEADING_LIMIT = 60
# gpt-4o-mini's price per token, so the demo's costs look like the real ones.
PROMPT_PRICE = 0.15 / 1_000_000
COMPLETION_PRICE = 0.6 / 1_000_000


def demo_responder(request: RecordedRequest) -> Scripted:
    body: dict[str, Any] = request.json if isinstance(request.json, dict) else {}
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    since = messages[last_user + 1 :]
    model = body.get("model") if isinstance(body.get("model"), str) else MODEL
    if model == NEVER_STOPS:
        return never_stops()
    prompt_tokens = max(1, len(request.body) // 4)
    if any(m.get("role") == "tool" for m in since):
        return _reply(_summary(since), prompt_tokens, model=model)
    tools = _tool_names(body)
    if "create_file" in tools:
        heading = heading_from(_text(messages[last_user]) if last_user >= 0 else "")
        there = _listed_files(messages) if "update_file" in tools else set()
        calls = [
            ToolCallScript(
                "update_file" if f"/{path}" in there else "create_file",
                {"path": path, "content": content},
            )
            for path, content in site_files(heading).items()
        ]
        intro = f"I'll build “{html.unescape(heading)}” as a small responsive site: "
        intro += "a page, its styles and a script."
        return _reply(intro, prompt_tokens, model=model, tool_calls=calls)
    content = (
        "This is the **offline demo** of the fake OpenRouter: no model was asked. "
        "Offer the `create_file` tool and I will build a small site for you."
    )
    return _reply(content, prompt_tokens, model=model)


def heading_from(message: str) -> str:
    """The user's words as a page heading: one line, at most ~60 characters, HTML-escaped."""
    words = " ".join(message.split())
    if len(words) > HEADING_LIMIT:
        words = words[:HEADING_LIMIT].rsplit(" ", 1)[0].rstrip(" ,.;:") + "…"
    return html.escape(words or "Your new site")


def site_files(heading: str) -> dict[str, str]:
    """index.html, styles.css and script.js for `heading` (already HTML-escaped)."""
    return {"index.html": _HTML % {"heading": heading}, "styles.css": _CSS, "script.js": _JS}


def _reply(content: str, prompt_tokens: int, **kw: Any) -> Reply:
    calls: list[ToolCallScript] = kw.get("tool_calls", [])
    completion_tokens = max(1, (len(content) + sum(len(str(c.arguments)) for c in calls)) // 4)
    usage = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "cost": round(prompt_tokens * PROMPT_PRICE + completion_tokens * COMPLETION_PRICE, 8),
        "completion_tokens_details": {"reasoning_tokens": 0},
        "prompt_tokens_details": {"cached_tokens": 0},
    }
    # Small pauses and many pieces so a UI shows the reply arriving live.
    return Reply(
        content=content,
        usage=usage,
        content_pieces=8,
        argument_pieces=24,
        pause=0.01,
        **kw,
    )


def _summary(since: list[dict[str, Any]]) -> str:
    results = {
        str(m.get("tool_call_id")): _succeeded(m.get("content"))
        for m in since
        if m.get("role") == "tool"
    }
    names: list[str] = []
    done: list[str] = []
    failed: list[str] = []
    for message in since:
        for call in message.get("tool_calls") or []:
            function = call.get("function") if isinstance(call, dict) else None
            if not isinstance(function, dict):
                continue
            names.append(str(function.get("name", "")))
            path = _path_of(function.get("arguments")) or "?"
            ok = results.get(str(call.get("id")), True)
            (done if ok else failed).append(path)
    verb = "built" if names and all(n == "create_file" for n in names) else "updated"
    if failed:
        opening = "Part of it worked; some steps failed:" if done else "Nothing was changed:"
        lines = [f"- `{p}`" for p in dict.fromkeys(done)]
        lines += [f"- **Failed:** `{p}`" for p in dict.fromkeys(failed)]
        return opening + "\n\n" + "\n".join(lines)
    listed = "\n".join(f"- `{p}`" for p in dict.fromkeys(done) or DEFAULT_FILES)
    return (
        f"Done: I {verb} your site.\n\n{listed}\n\n"
        "Open the preview and press the button to see the script at work."
    )


def _succeeded(content: object) -> bool:
    """A tool result's success, as the file tools report it (true when unsaid)."""
    try:
        result = json.loads(content) if isinstance(content, str) else None
    except ValueError:
        return True
    return not (isinstance(result, dict) and result.get("success") is False)


def _listed_files(messages: list[dict[str, Any]]) -> set[str]:
    """The files the system prompt says the project holds (chat.agent.prompt)."""
    system = next((m for m in messages if m.get("role") == "system"), None)
    text = _text(system) if system is not None else ""
    at = text.find("Current files:")
    return set(re.findall(r"^- (/\S+) \(", text[at:], re.MULTILINE)) if at >= 0 else set()


def _path_of(arguments: object) -> str | None:
    try:
        parsed = json.loads(arguments) if isinstance(arguments, str) else None
    except ValueError:
        return None
    path = parsed.get("path") if isinstance(parsed, dict) else None
    return path.lstrip("/") if isinstance(path, str) else None


def _tool_names(body: dict[str, Any]) -> set[str]:
    names = set()
    for tool in body.get("tools") or []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            names.add(function["name"])
    return names


def _text(message: dict[str, Any]) -> str:
    # Content is a string, or a list of parts of which the text ones count.
    content = message.get("content")
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else []
    return " ".join(
        p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)
    )


_HTML = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>%(heading)s</title>
  <link rel="stylesheet" href="styles.css">
</head>
<body>
  <header class="hero">
    <p class="eyebrow">Built offline with the demo model</p>
    <h1>%(heading)s</h1>
    <p class="lead">A small, responsive starting point. Edit any file and the preview follows.</p>
    <button id="cheer" type="button">Brighten my day</button>
    <p id="message" class="message" aria-live="polite"></p>
  </header>
  <main class="cards">
    <article class="card">
      <h2>Fast</h2>
      <p>Plain HTML, CSS and JavaScript: nothing to build.</p>
    </article>
    <article class="card">
      <h2>Responsive</h2>
      <p>The grid reflows from phone to wide screen.</p>
    </article>
    <article class="card">
      <h2>Yours</h2>
      <p>Ask for changes in the chat and watch them land.</p>
    </article>
  </main>
  <footer class="footer">Made with Built-It</footer>
  <script src="script.js"></script>
</body>
</html>
"""

_CSS = """:root {
  --ink: #1d2330;
  --paper: #f7f5f0;
  --accent: #e4572e;
  --card: #ffffff;
  font-family: system-ui, -apple-system, "Segoe UI", sans-serif;
}

* { box-sizing: border-box; }

body {
  margin: 0;
  color: var(--ink);
  background: var(--paper);
  line-height: 1.6;
}

.hero {
  padding: clamp(2rem, 8vw, 6rem) 1.5rem;
  text-align: center;
  background: linear-gradient(135deg, #ffe8d6, #d6e4ff);
}

.hero h1 { margin: 0.25rem 0; font-size: clamp(2rem, 6vw, 3.5rem); line-height: 1.1; }
.eyebrow { margin: 0; text-transform: uppercase; letter-spacing: 0.12em; font-size: 0.8rem; }
.lead { max-width: 40rem; margin: 1rem auto 1.5rem; }

button {
  padding: 0.75rem 1.5rem;
  border: 0;
  border-radius: 999px;
  color: #fff;
  background: var(--accent);
  font: inherit;
  font-weight: 600;
  cursor: pointer;
  transition: transform 0.15s ease;
}

button:hover { transform: translateY(-2px); }
.message { min-height: 1.6em; font-weight: 600; }
.message.pop { animation: pop 0.4s ease; }

@keyframes pop {
  from { transform: scale(0.8); opacity: 0; }
  to { transform: scale(1); opacity: 1; }
}

.cards {
  display: grid;
  grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr));
  gap: 1.25rem;
  max-width: 64rem;
  margin: 0 auto;
  padding: 2.5rem 1.5rem;
}

.card {
  padding: 1.25rem 1.5rem;
  border-radius: 1rem;
  background: var(--card);
  box-shadow: 0 10px 30px rgb(29 35 48 / 0.08);
}

.card h2 { margin-top: 0; }
.footer { padding: 2rem; text-align: center; font-size: 0.9rem; opacity: 0.7; }

@media (max-width: 30rem) {
  .hero { text-align: left; }
  button { width: 100%; }
}
"""

_JS = """const messages = [
  "You look great today.",
  "Every website starts with one file.",
  "Small steps, shipped often.",
  "That button works. So does the preview.",
];

const button = document.getElementById("cheer");
const output = document.getElementById("message");
let clicks = 0;

button.addEventListener("click", () => {
  clicks += 1;
  output.textContent = `${messages[clicks % messages.length]} (${clicks})`;
  output.classList.remove("pop");
  void output.offsetWidth; // restart the animation
  output.classList.add("pop");
});
"""
