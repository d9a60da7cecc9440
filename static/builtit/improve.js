// "Improve my request": the draft in the message box rewritten by the model
// (chat.views.improve), put back in the box to read and edit. It never sends;
// the draft stays until the rewrite replaces it, and Undo (or Ctrl+Z in the
// box) brings it back.
import { on } from "./events.js";
import { csrfToken } from "./app/preferences.js";

const $ = (id) => document.getElementById(id);
let running = false;
let before = null;   // the draft the last rewrite replaced, for Undo
let after = null;    // that rewrite, as it was put in the box

function input() { return $("composer-input"); }
function busy() { return document.querySelector("#chat-status[data-busy]") !== null; }

// Offered when there is a draft to improve and no turn is running (whose
// end would leave the box to a message the person has not read yet).
function refresh() {
  const button = $("composer-improve");
  const box = input();
  if (!button || !box) return;
  button.disabled = running || busy() || !box.value.trim();
  button.querySelector(".improve-label").textContent = running ? "Improving…" : "Improve";
  button.querySelector(".improve-more").hidden = running;
  if (after !== null && !box.value.trim()) {  // sent, or emptied
    forget();
    box.style.height = "";
  }
}

function say(text, kind) {
  const line = $("improve-note-text");
  if (!line) return;
  line.textContent = text;
  line.className = kind || "";
}

function forget() {
  before = after = null;
  const undo = $("improve-undo");
  if (undo) undo.hidden = true;
  say("");
}

// Through the editing commands, so the browser's own undo (Ctrl+Z) steps
// back over the rewrite as over any typing; a plain assignment where they
// are missing.
function replace(box, text) {
  box.focus();
  box.select();
  const done = document.execCommand && document.execCommand("insertText", false, text);
  if (!done || box.value !== text) box.value = text;
  box.setSelectionRange(0, 0);
  // Tall enough to read it whole (the stylesheet caps the height).
  box.style.height = "";
  if (box.scrollHeight > box.clientHeight) box.style.height = `${box.scrollHeight + 4}px`;
  box.scrollTop = 0;
}

async function improve() {
  const button = $("composer-improve");
  const box = input();
  if (!button || !box || running || !box.value.trim()) return;
  const draft = box.value;
  const model = $("model-input");
  const body = new FormData();
  body.append("draft", draft);
  body.append("model", model ? model.value : "");
  body.append("conversation", button.dataset.conversation || "");
  running = true;
  box.readOnly = true;
  box.setAttribute("aria-busy", "true");
  forget();
  say("Improving your request…");
  refresh();
  let data = {};
  let ok = false;
  try {
    const answer = await fetch(button.dataset.improveUrl, {
      method: "POST", body, credentials: "same-origin",
      headers: { "X-CSRFToken": csrfToken() },
    });
    data = await answer.json().catch(() => ({}));
    ok = answer.ok && typeof data.text === "string";
    if (!ok && !data.error) data.error = "The request could not be improved just now.";
  } catch (_) {
    data = { error: "Could not reach the server; your request is as it was." };
  }
  running = false;
  box.readOnly = false;
  box.removeAttribute("aria-busy");
  if (!ok) {
    say(data.error, "error");
  } else if (box.value !== draft) {
    say("The box changed meanwhile, so the rewrite was not put in.");
  } else if (!data.changed) {
    say("Your request reads well as it is: nothing to change.");
  } else {
    before = draft;
    replace(box, data.text);
    after = box.value;
    say("Rewritten: read it, change what you like, then send.");
    $("improve-undo").hidden = false;
  }
  refresh();
}

function undo() {
  const box = input();
  if (!box || before === null) return;
  replace(box, before);
  forget();
  say("Your own words are back.");
  refresh();
}

on("click", (event) => {
  if (!event.target.closest) return;
  if (event.target.closest("#composer-improve")) improve();
  else if (event.target.closest("#improve-undo")) undo();
  else setTimeout(refresh);  // an idea or a next step put into the box
});
on("input", (event) => {
  if (event.target !== input()) return;
  if (before === null) say("");  // a problem or "back" said before this typing
  refresh();
});
for (const name of ["htmx:wsAfterMessage", "htmx:wsAfterSend", "htmx:wsClose", "DOMContentLoaded"]) {
  on(name, refresh);
}
refresh();
