// The composer: Enter sends, Esc stops, Plan first, an idea put into the box,
// and a message kept while the socket reconnects.
import { on } from "../events.js";

const $ = (id) => document.getElementById(id);
let composerSent = null;  // the composer's text, if the last frame sent was the composer's

export function composerForm() { return $("composer"); }

export function send() {
  const form = composerForm();
  const input = $("composer-input");
  if (!form || !input) return;
  if (!input.value.trim()) { input.focus(); return; }
  form.requestSubmit();
}

export function stop() {
  const form = $("stop-form");
  if (form) form.requestSubmit();
}

on("keydown", (event) => {
  if (event.target && event.target.id === "composer-input" && event.key === "Enter"
      && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    send();
  } else if (event.key === "Escape" && $("stop-form") && escapeStops(event.target)) {
    event.preventDefault();
    stop();
  }
});

// Esc stops from the chat panel (or with nothing focused), not from the
// editor or another field, where it closes a search box or a menu.
function escapeStops(target) {
  if (document.querySelector("dialog[open]")) return false;
  const panel = $("chat-panel");
  return target === document.body || (panel !== null && panel.contains(target));
}

// ── Plan first: while the switch is on, Send reads "Plan" and the box says
// what will happen. It stays on from plan to plan (refining one) and across a
// reload of this tab (a new tab starts without it); it goes off when a turn
// that builds a plan starts, whichever tab sent it.
function planKey() {
  const grid = document.querySelector(".workspace-grid");
  return "builtit:plan:" + (grid ? grid.dataset.project : "");
}
let newestTurn = 0;  // the newest turn this tab has seen (t<message id>)

function planning(on) {
  const box = $("composer-plan");
  const send = $("composer-send");
  const input = $("composer-input");
  if (!box || !send || !input) return;
  box.checked = on;
  send.dataset.sendLabel = send.dataset.sendLabel || send.textContent;
  input.dataset.placeholder = input.dataset.placeholder || input.placeholder;
  send.textContent = on ? send.dataset.planLabel : send.dataset.sendLabel;
  input.placeholder = on ? input.dataset.planPlaceholder : input.dataset.placeholder;
  composerForm().classList.toggle("planning", on);
  try {
    if (on) sessionStorage.setItem(planKey(), "1");
    else sessionStorage.removeItem(planKey());
  } catch (_) { /* private mode */ }
}

function newTurns() {
  const found = [...document.querySelectorAll("#chat-log article.turn[id^='t']")]
    .filter((turn) => Number(turn.id.slice(1)) > newestTurn);
  for (const turn of found) newestTurn = Math.max(newestTurn, Number(turn.id.slice(1)));
  return found;
}

on("change", (event) => {
  if (event.target.id === "composer-plan") planning(event.target.checked);
});
on("htmx:wsAfterMessage", () => {
  const found = newTurns();
  if (found.some((turn) => turn.hasAttribute("data-builds-plan"))) planning(false);
  // For the rest of the page (workspace/editor.js, preview/past.js): a turn began, in any tab.
  if (found.length) document.dispatchEvent(new CustomEvent("builtit:turn"));
});
// Stop goes with the turn it stopped: a person who pressed it from the keyboard
// goes on in the message box, not from the top of the page.
let stopFocused = false;
on("htmx:wsBeforeMessage", () => {
  stopFocused = Boolean(document.activeElement && document.activeElement.closest("#chat-status"));
});
on("htmx:wsAfterMessage", () => {
  // Only when the button went and took the focus with it.
  const lost = !document.activeElement || document.activeElement === document.body;
  if (stopFocused && lost) document.getElementById("composer-input")?.focus();
  stopFocused = false;
});
on("DOMContentLoaded", () => {
  newTurns();
  let on = false;
  try { on = sessionStorage.getItem(planKey()) === "1"; } catch (_) { /* private mode */ }
  planning(on);
});

// An empty message is not sent (a person pressing Send by accident). While
// the socket reconnects, htmx keeps a message to send once it is back: the
// composer says so, and a second press does not queue it twice.
let connected = false;
let waiting = false;
export function setConnected(value) { connected = value; }

on("htmx:wsConfigSend", (event) => {
  const elt = event.detail.elt || event.target;
  if (!elt || elt.id !== "composer") return;
  if (!String(event.detail.parameters.message || "").trim() || waiting) {
    event.preventDefault();
    return;
  }
  if (!connected) showWaiting(true);
});

function showWaiting(on) {
  waiting = on;
  const help = $("composer-help");
  const send = $("composer-send");
  if (send) send.disabled = on;
  if (!help) return;
  help.classList.toggle("composer-waiting", on);
  help.textContent = on
    ? "Waiting to send: your message goes as soon as the connection is back."
    : "Enter sends · Shift+Enter adds a line · Esc stops the assistant";
}

// An idea from the empty chat, or what the site check found, goes into the
// box, to send or change first; after a draft already there, never over it
// (nor twice). The box has the focus, ready to type at the end.
export function suggest(text) {
  const input = $("composer-input");
  if (!input) return;
  const draft = input.value.trim();
  if (!draft.includes(text.trim())) input.value = draft ? `${draft}\n\n${text}` : text;
  input.focus();
  input.setSelectionRange(input.value.length, input.value.length);
  input.scrollTop = input.scrollHeight;
}

on("click", (event) => {
  const chip = event.target.closest && event.target.closest("[data-suggest]");
  if (chip) suggest(chip.dataset.suggest);
});

// Which form the next "sent" signal answers: only the composer's own message
// empties it (Try again leaves a draft in the composer alone).
on("htmx:wsAfterSend", (event) => {
  const form = event.target;
  let frame = {};
  try { frame = JSON.parse(event.detail.message); } catch (_) { /* not ours */ }
  if (!frame || typeof frame.message !== "string") return;  // Stop says nothing about the composer
  composerSent = form && form.id === "composer" ? frame.message : null;
});

// htmx sends what waited once the socket is open again.
on("htmx:wsAfterSend", () => { if (waiting) showWaiting(false); });

// The text the composer sent last, once: the "sent" signal empties the box
// only if it still holds that text.
export function takeSent() {
  const sent = composerSent;
  composerSent = null;
  return sent;
}

on("change", (event) => {
  if (event.target.matches && event.target.matches("select[data-autosubmit]")) {
    event.target.form.requestSubmit();
  }
});
