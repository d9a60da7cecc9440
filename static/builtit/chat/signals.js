// What the server says after each frame (#chat-signal): the message went, a
// draft to put back, files changed, the person's role changed; and the log kept at its newest turn while
// the person reads there.
import { on } from "../events.js";
import { takeSent } from "./composer.js";
import * as attachments from "./attachments.js";
import * as pictures from "./pictures.js";

const $ = (id) => document.getElementById(id);
let lastSignal = 0;     // the server numbers its signals per socket
let stickToBottom = true;

// A new socket numbers from 1 again.
export function signalsRestart() { lastSignal = 0; }

function readSignal() {
  const box = $("chat-signal");
  if (!box || !box.dataset.signal) return;
  let signal;
  try { signal = JSON.parse(box.dataset.signal); } catch (_) { return; }
  if (!signal || typeof signal.n !== "number" || signal.n <= lastSignal) return;
  lastSignal = signal.n;
  if (signal.sent) {
    // The turn started: the message is in the log now, so the box can be emptied
    // (unless the person has typed on since sending). Their turn is worth seeing.
    const input = $("composer-input");
    const sent = takeSent();
    if (input && sent !== null && input.value === sent) {
      input.value = "";
      attachments.sentWithMessage();  // they went with the message
      pictures.sentWithMessage();
      document.dispatchEvent(new CustomEvent("builtit:fixes"));
    }
    stickToBottom = true;
  }
  if (typeof signal.draft === "string" && signal.draft) {
    // The request a project was started with could not go (the notice says
    // why): it waits in the box, unless something is being written there.
    const input = $("composer-input");
    if (input && !input.value.trim()) input.value = signal.draft;
  }
  if (typeof signal.role === "string" && signal.role) {
    // The owner changed this person's role: the message box goes (the viewer
    // line in its place), or comes back, with what was typed in it
    // kept; the page's other parts that depend on the role follow this event.
    const composer = $("composer");
    if (composer) composer.hidden = signal.role === "viewer";
    const line = $("chat-viewer-line");
    if (line) line.hidden = signal.role !== "viewer";
    // The controls the role no longer allows hide (app.css: data-may and data-needs).
    if (typeof signal.may === "string") document.documentElement.dataset.may = signal.may;
    let badge = document.querySelector(".role-badge");
    if (badge && signal.role === "owner") badge.remove();
    else if (signal.role !== "owner") {
      if (!badge) {
        // The owner handed the project over: they stay on, with a member's badge.
        badge = document.createElement("span");
        badge.className = "role-badge";
        const after = $("presence") || $("project-name");
        if (after) after.after(badge);
      }
      badge.textContent = signal.role === "viewer" ? "Viewer" : "Editor";
    }
    document.body.dispatchEvent(new CustomEvent("builtit:role", { detail: { role: signal.role } }));
  }
  if (Array.isArray(signal.files) && signal.files.length) {
    // Who changed them: the assistant, an undo or restore ("history"), or the
    // person in a tab (`tab`: which one; workspace/address.js follows the others').
    const source = ["history", "person"].includes(signal.by) ? signal.by : "assistant";
    document.body.dispatchEvent(new CustomEvent("filesChanged", {
      detail: { paths: signal.files, source, tab: signal.tab || "", who: signal.who || "" },
    }));
  }
}

on("htmx:wsBeforeMessage", () => {
  const box = $("chat-log");
  if (box) stickToBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 80;
});

on("htmx:wsAfterMessage", () => {
  readSignal();
  const box = $("chat-log");
  if (box && stickToBottom) box.scrollTop = box.scrollHeight;
});
