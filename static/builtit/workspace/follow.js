// Changes made elsewhere: the assistant, an undo or restore, or the person in
// another tab changed files (chat/signals.js hears it over the socket): the open one
// follows, in place. This page's own saves already update its editor.
import { on } from "../events.js";
import { openUrl, answerText } from "./page.js";
import { changedByText, isDirty, mountEditor, openPath, placeKept, placeOf } from "./editor.js";

const HOME = "/index.html";
let changedBy = "assistant";
let changedWho = "";
let followTimer = null;
let reloads = 0;  // the latest reload; an earlier one's answer is not used

export function changedElsewhere(paths, by, who = "") {
  if (!Array.isArray(paths)) return;
  // An empty editor (a blank project's first turn) shows the home page once
  // it exists, as a page opened with one does, in place.
  if (!openPath() && paths.includes(HOME)) {
    clearTimeout(followTimer);
    followTimer = setTimeout(() => reload(HOME, null, { fromEmpty: true }), 250);
    return;
  }
  if (!paths.includes(openPath())) return;
  changedBy = by;
  changedWho = who || "";
  clearTimeout(followTimer);
  followTimer = setTimeout(() => reload(openPath(), changedBy, { who: changedWho }), 250);
}

// The open file again: after a change made elsewhere (`by`: who made it), or
// the saved version the person asked for (`by` null). Fetched and swapped in
// here rather than as an htmx request: those wait in line on the editor, and
// a second one's answer was taken for one the person asked for (on a phone it
// switched to the code mid-turn). Only the latest answer counts, and only
// while the file it is for is still the open one; after a change elsewhere,
// edits typed meanwhile are kept, with a warning, and the cursor stays.
export async function reload(path, by, { fromEmpty = false, who = "" } = {}) {
  if (!path) return;
  const still = () => openPath() === (fromEmpty ? null : path);
  const mine = ++reloads;
  let answer = null;
  let body = "";
  try {
    answer = await fetch(openUrl(path), { headers: { "HX-Request": "true" }, credentials: "same-origin" });
    body = await answer.text();
  } catch (_) {
    return;  // offline: the socket is down too, and catches up when it is back
  }
  if (mine !== reloads || !still()) return;
  if (!answer.ok && fromEmpty) return;  // removed again meanwhile: still nothing to show
  if (!answer.ok) {
    // The file's own "not found" is retargeted to the editor; any other
    // answer (the project itself gone) is said as the server words it.
    if (answer.status === 404 && answer.headers.get("HX-Retarget")) showGone(by, who);
    else editorNotice(answerText(body).slice(0, 300) || "The file could not be loaded again.", []);
    return;
  }
  if (by && isDirty()) { warnChangedUnderEdits(by, who); return; }
  placeKept(by ? { ...placeOf(), by, who } : null);
  htmx.swap("#editor-pane", body, { swapStyle: "innerHTML" });
  mountEditor({ follow: fromEmpty });
}

// What the editor's status line says when someone else changed the open file
// under it: who, what it means, and the buttons that deal with it.
function editorNotice(text, actions) {
  const status = document.getElementById("editor-status");
  if (!status) return;
  const notice = document.createElement("span");
  notice.className = "status warning";
  notice.setAttribute("role", "alert");
  notice.textContent = text;
  const buttons = document.createElement("span");
  buttons.className = "conflict-actions";
  for (const [action, label] of actions) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "small";
    button.dataset.action = action;
    button.textContent = label;
    buttons.append(button);
  }
  status.replaceChildren(notice, buttons);
}

const SAVE_AS_NEW = ["save-as-new", "Save my text as a new file"];

function warnChangedUnderEdits(by, who) {
  const what = changedByText(by, who);
  editorNotice(
    what[0].toUpperCase() + what.slice(1) + " " +
    "Your unsaved edits are still here, but Save will be refused because the file changed. " +
    "Load the saved version (discarding your edits), or save your text as a new file.",
    [["reload-file", "Load the saved version"], SAVE_AS_NEW],
  );
}

// A file someone else deleted (renamed away) under the open editor: the
// editor keeps the text and says so in its status line, with a way to keep
// it. Save then asks for a new name (a save to the old one could only fail).
function showGone(by, who = "") {
  const form = document.getElementById("editor-form");
  if (!form) return;
  form.dataset.gone = "true";
  const gone = {
    history: "An undo or restore deleted this file (or renamed it).",
    assistant: "The assistant deleted this file (or renamed it).",
    person: "This file was deleted (or renamed) in another tab.",
  }[by] || "Someone deleted this file (or renamed it).";
  const named = by === "person" && who ? `${who} deleted this file (or renamed it).` : "";
  const said = named || gone;
  if (form.dataset.binary) {
    editorNotice(`${said} Its versions stay in its History.`, []);
    return;
  }
  editorNotice(`${said} Your text is still here: save it as a new file to keep it.`, [SAVE_AS_NEW]);
}

// The chat's socket is back after a while down (chat/connection.js): the server
// sends the file tree as it is, and news of the open file if it changed since
// the version this editor holds; the preview loads again (workspace/address.js).
on("builtit:reconnected", (event) => {
  const version = Number(document.getElementById("editor-version")?.value) || 0;
  event.detail.ask({ open: openPath() || "", version });
}, { target: document.body });
