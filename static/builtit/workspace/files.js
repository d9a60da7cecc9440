// The open file's actions: open (at a line), load again, rename, delete, save
// as a new file, its history; and the question before unsaved edits are lost.
import { on, action } from "../events.js";
import { checkBeforeRequests } from "../app/ask.js";
import { grid, ask, request, openUrl } from "./page.js";
import { currentEditor, currentText, dropEdits, goTo, goToPending, isDirty, openPath } from "./editor.js";
import { reload } from "./follow.js";

function discardQuestion() {
  return { message: `You have unsaved changes in ${openPath()}. Discard them?`, confirm: "Discard them",
    cancel: "Keep editing", danger: true };
}

// True when there are no unsaved edits, or the person agrees to lose them.
async function discardAgreed() {
  return !isDirty() || ask(discardQuestion());
}

// Open `path` with the cursor at `line` (a problem's place in a file).
export async function openAt(path, line, column) {
  if (!path) return;
  goTo({ path, line: line || 1, column: column || 0 });
  if (openPath() === path && currentEditor()) { goToPending(); return; }
  if (!(await discardAgreed())) { goTo(null); return; }
  dropEdits();
  request("GET", openUrl(path));
}

// The tree's links and buttons are replaced whenever the tree is (by the
// assistant's changes, an undo, another tab): a request made from one would
// be answered into a page it is no longer part of, and its error lost. So they
// go through the workspace's own requests, made from the page itself.
async function openFile(path) {
  if (!path || !(await discardAgreed())) return;
  dropEdits();
  request("GET", openUrl(path));
}

async function reloadFile() {
  const path = openPath();
  if (!path || !(await discardAgreed())) return;
  dropEdits();
  reload(path, null);
}

// The version the person saw when they asked: a file changed while the
// question was open is refused as changed, not renamed or deleted unseen.
async function renameFile() {
  const path = openPath();
  if (!path) return;
  const version = document.getElementById("editor-version").value;
  const next = await ask({ message: `Rename ${path} to:`, value: path, label: "New path", confirm: "Rename" });
  if (!next || next === path) return;
  if (isDirty() && !(await ask({ message: "Renaming reloads the file: your unsaved edits would be lost. " +
      "Rename anyway and discard them?", confirm: "Discard and rename", danger: true }))) return;
  dropEdits();
  request("POST", grid().dataset.renameUrl, { path: path, new_path: next, version: version });
}

async function deleteFile() {
  const path = openPath();
  if (!path) return;
  const version = document.getElementById("editor-version").value;
  if (!(await ask({ message: `Delete ${path}? Its history is kept, but the file leaves the site.`,
    confirm: "Delete", danger: true }))) return;
  dropEdits();
  request("POST", grid().dataset.deleteUrl, { path: path, version: version });
}

async function saveAsNew() {
  const path = openPath();
  const next = await ask({ message: "Save your text as a new file named:", value: path || "",
    label: "New file's path", confirm: "Save" });
  if (!next) return;
  const form = document.querySelector("form.new-file");
  dropEdits();
  request("POST", form.getAttribute("hx-post"), { path: next, content: currentText() });
}

function showHistory() {
  const path = openPath();
  if (!path) return;
  const dialog = document.getElementById("history-dialog");
  // settle:0ms: htmx wires up swapped-in buttons (View, Restore) only when the
  // swap settles, 20 ms later by default, and the promise resolves before that;
  // a click in between did nothing (a Restore with no confirm, no request).
  htmx.ajax("GET", grid().dataset.historyUrl + "?path=" + encodeURIComponent(path),
    { target: "#history-body", swap: "innerHTML settle:0ms" }).then(() => dialog.showModal());
}

function overwrite(version) {
  const form = document.getElementById("editor-form");
  document.getElementById("editor-version").value = version;
  htmx.trigger(form, "submit");
}

const ACTIONS = {
  "open-file": (button) => {
    // From a popover (the instructions' "Open in the editor", the menu): it has
    // done its part. Never a folder of the file tree, which stays open.
    const popover = button.closest("details.instructions[open], details.account-menu[open]");
    if (popover) popover.removeAttribute("open");
    openFile(button.dataset.path);
  },
  "add-picture": (button) => request("POST", button.dataset.url),
  "restore-revision": (button) => request("POST", grid().dataset.restoreUrl, { revision: button.dataset.revision }),
  "reload-file": reloadFile,
  "rename-file": renameFile,
  "delete-file": deleteFile,
  "save-as-new": saveAsNew,
  "show-history": showHistory,
  "overwrite": (button) => overwrite(button.dataset.version),
};
for (const [name, run] of Object.entries(ACTIONS)) {
  action(name, (event, button) => { event.preventDefault(); run(button); });
}

// Opening another file (or creating one) replaces the editor: ask first (in
// app/ask.js's check before requests).
checkBeforeRequests((detail) => {
  const target = detail.target;
  if (!isDirty() || !target || target.id !== "editor-pane") return null;
  return { ...discardQuestion(), then: dropEdits };
});

// Save on a file deleted under the editor asks for a new name instead.
on("htmx:confirm", (event) => {
  const form = event.detail.elt;
  if (form && form.id === "editor-form" && form.dataset.gone) {
    event.preventDefault();
    saveAsNew();
  }
});

// A new file made: the form is ready for the next.
on("htmx:afterRequest", (event) => {
  const elt = event.detail.elt;
  if (!event.detail.xhr || event.detail.xhr.status >= 300) return;
  if (elt && elt.matches && elt.matches("form.new-file")) {
    elt.reset();
    document.getElementById("new-file-error").textContent = "";
  }
});
