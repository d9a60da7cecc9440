// The editor: Ace on the open file, its status line, unsaved edits, its theme,
// line wrap, and where its cursor was when the file comes back.
import { on, action } from "../events.js";
import { grid, NARROW, preferences, saveLayout } from "./page.js";
import { showPanel } from "./layout.js";
import { check as checkCss } from "./csscheck.js";

let editor = null;        // the Ace editor of the open file, if any
let dirty = false;        // unsaved edits in the editor
let keepPlace = null;     // where the cursor and scroll were, to restore once it re-mounts
let pageLoading = true;   // the page's own editor leaves the focus in the chat box
let pointing = false;     // the person's last move was with a pointer, not a key
let pendingLine = null;   // where to put the cursor once that file is open

// Who changed the open file, when someone else did.
export const CHANGED_BY = {
  assistant: "the assistant changed this file.",
  history: "an undo or restore changed this file.",
  person: "this file was saved in another tab.",
  preview: "you changed this file in the preview.",
};

// Who changed the open file, in words; another person is named ("Erin saved
// this file."), one's own other tab is not.
export function changedByText(by, who = "") {
  if (by === "person" && who) return `${who} saved this file.`;
  return CHANGED_BY[by];
}

export const currentEditor = () => editor;
export const isDirty = () => dirty;
// The edits are let go: the file is about to be replaced.
export function dropEdits() { dirty = false; }
export function placeKept(place) { keepPlace = place; }
export function pageLoaded() { pageLoading = false; }
export function goTo(place) { pendingLine = place; }

export function openPath() {
  const form = document.getElementById("editor-form");
  return form ? form.dataset.path : null;
}

// `follow`: the file came in because of a change elsewhere (a blank project's
// first home page), not because the person opened it: the focus stays put.
export function mountEditor({ follow = false } = {}) {
  const form = document.getElementById("editor-form");
  const place = keepPlace;
  keepPlace = null;
  if (editor && (!form || !form.contains(editor.container))) {
    editor.destroy();
    editor = null;
  }
  setDirty(false);
  markOpenFile(form ? form.dataset.path : null);
  // Who else is here sees which file this tab shows (workspace/presence.js).
  document.body.dispatchEvent(new CustomEvent("builtit:fileShown"));
  if (!form || editor || !window.ace || form.dataset.binary) return;
  const host = document.getElementById("ace-editor");
  const source = document.getElementById("editor-content");
  const fallback = document.getElementById("editor-fallback");
  window.ace.config.set("basePath", grid().dataset.aceBase);
  // ace.edit() hands back any editor already on the element and ignores the
  // options; start from a clean host so mode, theme and commands always apply.
  if (host.env && host.env.editor) host.env.editor.destroy();
  editor = window.ace.edit(host, {
    mode: "ace/mode/" + form.dataset.mode,
    theme: aceTheme(),
    tabSize: 2,
    useSoftTabs: true,
    showPrintMargin: false,
    fontSize: "13px",
    wrap: false,
    // Ace's own keyboard model (as CodeMirror's and VS Code's "Tab moves focus"):
    // the editor is one stop in the page's Tab order, Enter goes into its text,
    // where Tab indents, and Esc comes out again, so Tab never traps.
    enableKeyboardAccessibility: true,
    // A viewer reads the files: the page's root lists what the person may do.
    readOnly: !mayEdit(),
  });
  // The gutter would be a second stop of its own, before the text.
  editor.renderer.$gutter.setAttribute("tabindex", "-1");
  editor.renderer.scroller.setAttribute("aria-describedby", "editor-keys");
  // JSON keeps the file's exact characters (HTML parsing would drop CRs).
  editor.session.setValue(JSON.parse(source.textContent));
  editor.session.getUndoManager().reset();
  // Ace's CSS checker marks valid modern CSS as wrong: ours instead.
  if (form.dataset.mode === "css") checkCss(editor.session);
  host.hidden = false;
  fallback.hidden = true;
  editor.session.on("change", () => setDirty(true));
  editor.commands.addCommand({
    name: "save",
    bindKey: { win: "Ctrl-S", mac: "Command-S" },
    exec: () => htmx.trigger(form, "submit"),
  });
  editor.session.setUseWrapMode(wrapOn());
  applyWrap();
  if (place) restorePlace(place);
  else if (!pageLoading && !follow) focusEditor();
  goToPending();
}

// A file opened with a click is ready to type in; one opened from the keyboard
// gets the editor as a whole, so the next Tab goes on (Enter goes in).
function focusEditor() {
  if (pointing) editor.focus();
  else editor.renderer.scroller.focus();
}
on("pointerdown", () => { pointing = true; }, { capture: true });
on("keydown", () => { pointing = false; }, { capture: true });

// Ctrl+S saves from anywhere in the editor, its toolbar and the editor as a
// whole included; in the text, Ace's own command has saved.
on("keydown", (event) => {
  const form = document.getElementById("editor-form");
  if (!form || form.dataset.binary || !form.contains(event.target)) return;
  if (event.target.classList.contains("ace_text-input")) return;
  if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === "s") {
    event.preventDefault();
    htmx.trigger(form, "submit");
  }
});

function darkPage() {
  const picked = document.documentElement.dataset.theme;
  if (picked) return picked === "dark";
  return window.matchMedia("(prefers-color-scheme: dark)").matches;
}

function aceTheme() { return darkPage() ? "ace/theme/tomorrow_night" : "ace/theme/tomorrow"; }

on("builtit:theme", () => { if (editor) editor.setTheme(aceTheme()); });
window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => {
  if (editor) editor.setTheme(aceTheme());
});

export function placeOf() {
  if (!editor) return {};
  const cursor = editor.getCursorPosition();
  return {
    row: cursor.row, column: cursor.column, focused: editor.isFocused(),
    whole: document.activeElement === editor.renderer.scroller,
    top: editor.session.getScrollTop(), left: editor.session.getScrollLeft(),
  };
}

// Ace clips a position past the end of the new text to its last line.
function restorePlace(place) {
  if (place.row !== undefined) {
    editor.moveCursorTo(place.row, place.column);
    editor.clearSelection();
    editor.session.setScrollTop(place.top);
    editor.session.setScrollLeft(place.left);
  }
  if (place.focused) editor.focus();
  else if (place.whole) editor.renderer.scroller.focus();
  setStatus("ok followed", "Updated: " + changedByText(place.by, place.who));
}

// News of the last change only: with the next turn, a file it does not
// touch no longer says it was updated.
on("builtit:turn", () => {
  const followed = document.querySelector("#editor-status .followed");
  if (followed) followed.remove();
});

export function currentText() {
  if (editor) return editor.getValue();
  const fallback = document.getElementById("editor-fallback");
  return fallback ? fallback.value : "";
}

function setStatus(kind, text) {
  const status = document.getElementById("editor-status");
  if (!status) return;
  const span = document.createElement("span");
  span.className = "status " + kind;
  span.textContent = text;
  status.replaceChildren(span);
}

function setDirty(value) {
  dirty = value;
  const status = document.getElementById("editor-status");
  // An error or warning stays until it is dealt with: it says why Save will fail.
  if (value && status && !status.querySelector(".error, .warning")) {
    setStatus("pending", "Unsaved changes");
  }
  document.title = (value ? "● " : "") + document.title.replace(/^● /, "");
}

function markOpenFile(path) {
  document.querySelectorAll("#file-tree .file-link").forEach((button) => {
    if (button.dataset.path === path) button.setAttribute("aria-current", "true");
    else button.removeAttribute("aria-current");
  });
}

export function goToPending() {
  const form = document.getElementById("editor-form");
  if (!pendingLine || !editor || !form || form.dataset.path !== pendingLine.path) return;
  // On a phone the editor shows first: Ace scrolls to a line only in a pane it can measure.
  if (NARROW.matches) showPanel("editor");
  editor.resize(true);
  editor.gotoLine(pendingLine.line, Math.max(0, pendingLine.column - 1), false);
  editor.focus();
  pendingLine = null;
}

// The editor's text travels with any request that carries a `content` field.
on("htmx:configRequest", (event) => {
  if (event.detail.elt && event.detail.elt.id === "editor-form") {
    event.detail.formData.set("content", currentText());
  }
});

on("htmx:afterRequest", (event) => {
  const elt = event.detail.elt;
  // 4xx answers are swapped in (they carry the explanation) but are not successes.
  if (!event.detail.xhr || event.detail.xhr.status >= 300) return;
  if (elt && elt.id === "editor-form") setDirty(false);
});

on("htmx:afterSettle", (event) => {
  if (event.detail.target && event.detail.target.id === "editor-pane") mountEditor();
});

// On a narrow screen, a file the person opened (made, renamed, restored) is
// shown. Only their own requests swap the editor through htmx: following
// someone else's change (reload) never takes them from the panel they are on.
on("htmx:afterSettle", (event) => {
  if (!event.detail.target || event.detail.target.id !== "editor-pane") return;
  if (NARROW.matches && document.getElementById("editor-form")) showPanel("editor");
});

// The tree is replaced out of band by the workspace's answers and by the
// assistant's websocket messages, which do not fire htmx:afterSettle; watching
// the tree's panel marks the open file whatever replaced the tree.
export function watchTree() {
  const tree = document.getElementById("file-tree");
  if (!tree || !tree.parentElement) return;
  new MutationObserver(() => markOpenFile(openPath()))
    .observe(tree.parentElement, { childList: true, subtree: true });
}

on("beforeunload", (event) => {
  if (dirty) { event.preventDefault(); event.returnValue = ""; }
}, { target: window });

// ── line wrap ─────────────────────────────────────────────────────────
function wrapOn() { return preferences.wrap === true; }

function applyWrap() {
  const button = document.querySelector("[data-action='toggle-wrap']");
  if (button) {
    button.setAttribute("aria-pressed", String(wrapOn()));
    button.title = "Wrap long lines: " + (wrapOn() ? "on" : "off");
  }
  if (editor) editor.session.setUseWrapMode(wrapOn());
}

action("toggle-wrap", () => {
  saveLayout({ wrap: !wrapOn() });
  applyWrap();
});

// The server renders the person's allowed actions on the page's root
// (projects.web.workspace.role_context); with none listed, the page is the owner's.
function mayEdit() {
  const may = document.documentElement.dataset.may;
  return may === undefined || may.split(" ").includes("edit");
}
