// The workspace: Ace editor on the open file, save/rename/delete, live preview.
(function () {
  "use strict";
  const grid = () => document.querySelector(".workspace-grid");
  let editor = null;        // the Ace editor of the open file, if any
  let dirty = false;        // unsaved edits in the editor
  let previewTimer = null;
  let keepPlace = null;     // where the cursor and scroll were, to restore once it re-mounts
  // This page among the project's open tabs: its own changes come back to it over
  // the chat's socket (chat.live.broadcast) and are not followed twice.
  const TAB = Math.random().toString(36).slice(2, 12) + Date.now().toString(36);

  // ── editor ────────────────────────────────────────────────────────────
  // `follow`: the file came in because of a change elsewhere (a blank project's
  // first home page), not because the person opened it: the focus stays put.
  function mountEditor({ follow = false } = {}) {
    const form = document.getElementById("editor-form");
    const place = keepPlace;
    keepPlace = null;
    if (editor && (!form || !form.contains(editor.container))) {
      editor.destroy();
      editor = null;
    }
    setDirty(false);
    markOpenFile(form ? form.dataset.path : null);
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
    });
    // The gutter would be a second stop of its own, before the text.
    editor.renderer.$gutter.setAttribute("tabindex", "-1");
    editor.renderer.scroller.setAttribute("aria-describedby", "editor-keys");
    // JSON keeps the file's exact characters (HTML parsing would drop CRs).
    editor.session.setValue(JSON.parse(source.textContent));
    editor.session.getUndoManager().reset();
    // Ace's CSS checker marks valid modern CSS as wrong: ours instead.
    if (form.dataset.mode === "css") window.builtitCssCheck.check(editor.session);
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
  let pointing = false;  // the person's last move was with a pointer, not a key

  // A file opened with a click is ready to type in; one opened from the keyboard
  // gets the editor as a whole, so the next Tab goes on (Enter goes in).
  function focusEditor() {
    if (pointing) editor.focus();
    else editor.renderer.scroller.focus();
  }
  document.addEventListener("pointerdown", () => { pointing = true; }, true);
  document.addEventListener("keydown", () => { pointing = false; }, true);

  // Ctrl+S saves from anywhere in the editor, its toolbar and the editor as a
  // whole included; in the text, Ace's own command has saved.
  document.addEventListener("keydown", (event) => {
    const form = document.getElementById("editor-form");
    if (!form || form.dataset.binary || !form.contains(event.target)) return;
    if (event.target.classList.contains("ace_text-input")) return;
    if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === "s") {
      event.preventDefault();
      htmx.trigger(form, "submit");
    }
  });
  let pageLoading = true;  // the page's own editor leaves the focus in the chat box

  function darkPage() {
    const picked = document.documentElement.dataset.theme;
    if (picked) return picked === "dark";
    return window.matchMedia("(prefers-color-scheme: dark)").matches;
  }

  function aceTheme() { return darkPage() ? "ace/theme/tomorrow_night" : "ace/theme/tomorrow"; }

  document.addEventListener("builtit:theme", () => { if (editor) editor.setTheme(aceTheme()); });
  window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => {
    if (editor) editor.setTheme(aceTheme());
  });

  function placeOf() {
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
    setStatus("ok followed", "Updated: " + CHANGED_BY[place.by]);
  }

  // News of the last change only: with the next turn, a file it does not
  // touch no longer says it was updated.
  document.addEventListener("builtit:turn", () => {
    const followed = document.querySelector("#editor-status .followed");
    if (followed) followed.remove();
  });

  function currentText() {
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

  function openPath() {
    const form = document.getElementById("editor-form");
    return form ? form.dataset.path : null;
  }

  // The page's own dialog (app.js), never the browser's: a preview loading again
  // closes those, answered "no".
  const ask = (question) => window.builtitAsk(question);

  function discardQuestion() {
    return { message: `You have unsaved changes in ${openPath()}. Discard them?`, confirm: "Discard them",
      cancel: "Keep editing", danger: true };
  }

  // True when there are no unsaved edits, or the person agrees to lose them.
  async function discardAgreed() {
    return !dirty || ask(discardQuestion());
  }

  function request(method, url, values, target) {
    return htmx.ajax(method, url, { values: values, target: target || "#editor-pane", swap: "innerHTML" });
  }

  function openUrl(path) {
    return grid().dataset.openUrl + "?path=" + encodeURIComponent(path);
  }

  // Open `path` with the cursor at `line` (a problem's place in a file).
  let pendingLine = null;
  async function openAt(path, line, column) {
    if (!path) return;
    pendingLine = { path, line: line || 1, column: column || 0 };
    if (openPath() === path && editor) { goToPending(); return; }
    if (!(await discardAgreed())) { pendingLine = null; return; }
    dirty = false;
    request("GET", openUrl(path));
  }

  function goToPending() {
    const form = document.getElementById("editor-form");
    if (!pendingLine || !editor || !form || form.dataset.path !== pendingLine.path) return;
    // On a phone the editor shows first: Ace scrolls to a line only in a pane it can measure.
    if (NARROW.matches) showPanel("editor");
    editor.resize(true);
    editor.gotoLine(pendingLine.line, Math.max(0, pendingLine.column - 1), false);
    editor.focus();
    pendingLine = null;
  }

  // The tree's links and buttons are replaced whenever the tree is (by the
  // assistant's changes, an undo, another tab): a request made from one would
  // be answered into a page it is no longer part of, and its error lost. So they
  // go through the workspace's own requests, made from the page itself.
  async function openFile(path) {
    if (!path || !(await discardAgreed())) return;
    dirty = false;
    request("GET", openUrl(path));
  }

  async function reloadFile() {
    const path = openPath();
    if (!path || !(await discardAgreed())) return;
    dirty = false;
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
    if (dirty && !(await ask({ message: "Renaming reloads the file: your unsaved edits would be lost. " +
        "Rename anyway and discard them?", confirm: "Discard and rename", danger: true }))) return;
    dirty = false;
    request("POST", grid().dataset.renameUrl, { path: path, new_path: next, version: version });
  }

  async function deleteFile() {
    const path = openPath();
    if (!path) return;
    const version = document.getElementById("editor-version").value;
    if (!(await ask({ message: `Delete ${path}? Its history is kept, but the file leaves the site.`,
      confirm: "Delete", danger: true }))) return;
    dirty = false;
    request("POST", grid().dataset.deleteUrl, { path: path, version: version });
  }

  async function saveAsNew() {
    const path = openPath();
    const next = await ask({ message: "Save your text as a new file named:", value: path || "",
      label: "New file's path", confirm: "Save" });
    if (!next) return;
    const form = document.querySelector("form.new-file");
    dirty = false;
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

  // The conversation's earlier turns summarised for the model, by hand: the
  // answer goes to the chat's notice, and redraws the latest turn with its mark.
  function compact(button) {
    const select = document.getElementById("conversation-select");
    if (!select || !select.value) return;
    document.querySelectorAll("[data-action=compact]").forEach((each) => { each.disabled = true; });
    button.textContent = "Compacting…";
    const notice = document.getElementById("chat-notice");
    if (notice) {
      notice.setAttribute("role", "status");
      notice.innerHTML = '<p class="compact-result">Summarising the earlier turns for the model…</p>';
    }
    htmx.ajax("POST", grid().dataset.compactUrl, {
      values: { conversation: select.value }, target: "#chat-notice", swap: "outerHTML",
    }).finally(() => {
      document.querySelectorAll("[data-action=compact]").forEach((each) => { each.disabled = false; });
      if (button.isConnected) button.textContent = "Compact the conversation";
    });
  }

  function overwrite(version) {
    const form = document.getElementById("editor-form");
    document.getElementById("editor-version").value = version;
    htmx.trigger(form, "submit");
  }

  document.addEventListener("click", (event) => {
    const button = event.target.closest("[data-action]");
    if (!button) return;
    const actions = {
      "open-file": () => {
        // From a popover (the instructions' "Open in the editor", the menu): it has
        // done its part. Never a folder of the file tree, which stays open.
        const popover = button.closest("details.instructions[open], details.account-menu[open]");
        if (popover) popover.removeAttribute("open");
        openFile(button.dataset.path);
      },
      "add-picture": () => request("POST", button.dataset.url),
      "compact": () => compact(button),
      "restore-revision": () => request("POST", grid().dataset.restoreUrl, { revision: button.dataset.revision }),
      "reload-file": reloadFile,
      "rename-file": renameFile,
      "delete-file": deleteFile,
      "save-as-new": saveAsNew,
      "show-history": showHistory,
      "overwrite": () => overwrite(button.dataset.version),
      "unfold": () => unfold(button),
    };
    const action = actions[button.dataset.action];
    if (action) { event.preventDefault(); action(); }
  });

  // ── diffs, undo and restore (the changes dialog) ─────────────────────
  // A diff is side by side where there is room for two columns, inline otherwise,
  // unless the person picked a layout.
  const DIFF_URL = /\/turns\/\d+\/changes\/|\/revisions\/\d+\/diff\//;
  document.addEventListener("htmx:configRequest", (event) => {
    const path = event.detail.path || "";
    if (!DIFF_URL.test(path) || /[?&]layout=/.test(path)) return;
    event.detail.parameters.layout = window.matchMedia("(min-width: 1100px)").matches ? "split" : "inline";
  });

  // The changes and Publish dialogs open when their content arrives.
  const DIALOG_BODIES = { "changes-body": "changes-dialog", "publish-body": "publish-dialog" };
  document.addEventListener("htmx:afterSwap", (event) => {
    const target = event.detail.target;
    const id = target ? DIALOG_BODIES[target.id] : null;
    const dialog = id ? document.getElementById(id) : null;
    if (!dialog) return;
    const opening = !dialog.open;
    if (opening) dialog.showModal();
    if (target.id === "changes-body") showFromTop(dialog, opening);
  });
  // A closed Publish dialog asks the server nothing more (its domain's proof
  // is asked after every few seconds while it is open): its content goes.
  const publishDialog = document.getElementById("publish-dialog");
  if (publishDialog) {
    publishDialog.addEventListener("close", () => { document.getElementById("publish-body").replaceChildren(); });
  }

  // A turn's changes read from their title down: the dialog's own first stop
  // (Close, under a long list of new files) would open it scrolled to the end.
  // The title takes the focus on opening, or when what had it was replaced.
  function showFromTop(dialog, opening) {
    dialog.scrollTop = 0;
    const title = dialog.querySelector("#changes-title");
    if (!title || !(opening || !dialog.contains(document.activeElement))) return;
    title.tabIndex = -1;
    title.focus({ preventScroll: true });
  }

  // Folded unchanged lines travel hidden in the row group after the button.
  function unfold(button) {
    const group = button.closest("tbody");
    const hidden = group ? group.nextElementSibling : null;
    if (hidden) hidden.hidden = false;
    button.closest("tr").remove();
  }

  // Every change this page asks for says which tab it came from (see TAB).
  document.addEventListener("htmx:configRequest", (event) => {
    event.detail.headers["X-Builtit-Tab"] = TAB;
  });

  // The editor's text travels with any request that carries a `content` field.
  document.addEventListener("htmx:configRequest", (event) => {
    if (event.detail.elt && event.detail.elt.id === "editor-form") {
      event.detail.formData.set("content", currentText());
    }
  });

  // Opening another file (or creating one) replaces the editor: ask first (in
  // app.js's check before requests).
  window.builtitCheckBeforeRequests((detail) => {
    const target = detail.target;
    if (!dirty || !target || target.id !== "editor-pane") return null;
    return { ...discardQuestion(), then: () => { dirty = false; } };
  });

  // Save on a file deleted under the editor asks for a new name instead.
  document.addEventListener("htmx:confirm", (event) => {
    const form = event.detail.elt;
    if (form && form.id === "editor-form" && form.dataset.gone) {
      event.preventDefault();
      saveAsNew();
    }
  });

  document.addEventListener("htmx:afterRequest", (event) => {
    const elt = event.detail.elt;
    // 4xx answers are swapped in (they carry the explanation) but are not successes.
    if (!event.detail.xhr || event.detail.xhr.status >= 300) return;
    if (elt && elt.id === "editor-form") setDirty(false);
    if (elt && elt.hasAttribute && elt.hasAttribute("data-closes-dialog")) {
      const dialog = elt.closest("dialog");
      if (dialog) dialog.close();
    }
    if (elt && elt.matches && elt.matches("form.new-file")) {
      elt.reset();
      document.getElementById("new-file-error").textContent = "";
    }
  });

  document.addEventListener("htmx:afterSettle", (event) => {
    if (event.detail.target && event.detail.target.id === "editor-pane") mountEditor();
  });

  // The tree is replaced out of band by the workspace's answers and by the
  // assistant's websocket messages, which do not fire htmx:afterSettle; watching
  // the tree's panel marks the open file whatever replaced the tree.
  function watchTree() {
    const tree = document.getElementById("file-tree");
    if (!tree || !tree.parentElement) return;
    new MutationObserver(() => markOpenFile(openPath()))
      .observe(tree.parentElement, { childList: true, subtree: true });
  }

  // ── changes made elsewhere ────────────────────────────────────────────
  // The assistant, an undo or restore, or the person in another tab changed
  // files (chat.js hears it over the socket): the open one follows, in place.
  // This page's own saves already update its editor.
  const HOME = "/index.html";
  const CHANGED_BY = {
    assistant: "the assistant changed this file.",
    history: "an undo or restore changed this file.",
    person: "this file was saved in another tab.",
  };
  let changedBy = "assistant";
  let followTimer = null;
  let reloads = 0;  // the latest reload; an earlier one's answer is not used

  function changedElsewhere(paths, by) {
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
    clearTimeout(followTimer);
    followTimer = setTimeout(() => reload(openPath(), changedBy), 250);
  }

  // The open file again: after a change made elsewhere (`by`: who made it), or
  // the saved version the person asked for (`by` null). Fetched and swapped in
  // here rather than as an htmx request: those wait in line on the editor, and
  // a second one's answer was taken for one the person asked for (on a phone it
  // switched to the code mid-turn). Only the latest answer counts, and only
  // while the file it is for is still the open one; after a change elsewhere,
  // edits typed meanwhile are kept, with a warning, and the cursor stays.
  async function reload(path, by, { fromEmpty = false } = {}) {
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
      if (answer.status === 404 && answer.headers.get("HX-Retarget")) showGone(by);
      else editorNotice(answerText(body).slice(0, 300) || "The file could not be loaded again.", []);
      return;
    }
    if (by && dirty) { warnChangedUnderEdits(by); return; }
    keepPlace = by ? { ...placeOf(), by } : null;
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

  function warnChangedUnderEdits(by) {
    const what = CHANGED_BY[by];
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
  function showGone(by) {
    const form = document.getElementById("editor-form");
    if (!form) return;
    form.dataset.gone = "true";
    const who = {
      history: "An undo or restore deleted this file (or renamed it).",
      assistant: "The assistant deleted this file (or renamed it).",
      person: "This file was deleted (or renamed) in another tab.",
    }[by] || "Someone deleted this file (or renamed it).";
    if (form.dataset.binary) {
      editorNotice(`${who} Its versions stay in its History.`, []);
      return;
    }
    editorNotice(`${who} Your text is still here: save it as a new file to keep it.`, [SAVE_AS_NEW]);
  }

  window.addEventListener("beforeunload", (event) => {
    if (dirty) { event.preventDefault(); event.returnValue = ""; }
  });

  // ── preview ───────────────────────────────────────────────────────────
  const MAX_ADDRESS = 1000;

  // A path on the sites origin, which serves the preview (never this page's origin).
  function previewBase() {
    return document.querySelector(".preview-address").dataset.previewBase;
  }

  function previewOrigin() {
    return document.querySelector(".preview-address").dataset.previewOrigin;
  }

  // The address box holds a path relative to the preview base, perhaps with a
  // ?query or #fragment, which are kept as they are.
  function previewUrl() {
    const address = document.getElementById("preview-address").value.trim().replace(/^\/+/, "");
    const cut = address.search(/[?#]/);
    const path = cut < 0 ? address : address.slice(0, cut);
    const rest = cut < 0 ? "" : address.slice(cut);
    return previewOrigin() + previewBase() + path.split("/").map(encodeURIComponent).join("/") + rest;
  }

  function decoded(segment) {
    try { return decodeURIComponent(segment); } catch (error) { return segment; }
  }

  const UNSHOWABLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
  const showable = (text) => text.replace(UNSHOWABLE, "");

  // The page in the frame reports where it is (projects/preview.py adds the
  // script). Anything in the frame can send messages, so the message is only
  // ever text for the address box: from the frame, in the expected shape, under
  // this project's preview base, without control or direction-changing
  // characters, of a sane length. A browser-made path has no "." or ".."
  // segments, even once decoded, so one that does is not the frame's location.
  function reportedAddress(event) {
    const frame = document.getElementById("preview-frame");
    if (!frame || event.source !== frame.contentWindow) return null;
    const data = event.data;
    const report = data && typeof data === "object" ? data.builtitPreview : null;
    const path = report && typeof report === "object" ? report.path : null;
    const base = previewBase();
    if (typeof path !== "string" || path.length > MAX_ADDRESS || !path.startsWith(base)) return null;
    const relative = path.slice(base.length);
    const cut = relative.search(/[?#]/);
    const pagePath = cut < 0 ? relative : relative.slice(0, cut);
    const page = showable(pagePath.split("/").map(decoded).join("/"));
    if (page.split("/").some((segment) => segment === "." || segment === "..")) return null;
    return page + showable(cut < 0 ? "" : relative.slice(cut));
  }

  window.addEventListener("message", (event) => {
    const address = reportedAddress(event);
    const input = document.getElementById("preview-address");
    // Someone typing an address is not interrupted.
    if (address === null || !input || document.activeElement === input) return;
    input.value = address;
    document.getElementById("preview-open").href = previewUrl();
  });

  function reloadPreview() {
    const frame = document.getElementById("preview-frame");
    if (!frame) return;
    const url = previewUrl();
    document.getElementById("preview-open").href = url;
    // A sandboxed frame has an opaque origin: it cannot be reloaded in place,
    // but setting src (even to the same address) navigates it again.
    frame.src = url;
  }

  // One reload for a burst of changes; it returns to the page the frame last
  // reported, since that is what the address box holds.
  document.body.addEventListener("filesChanged", (event) => {
    const detail = event.detail || {};
    if (detail.source === "person" && detail.tab === TAB) return;  // followed already
    clearTimeout(previewTimer);
    previewTimer = setTimeout(reloadPreview, 250);
    if (detail.source in CHANGED_BY) changedElsewhere(detail.paths, detail.source);
  });

  document.addEventListener("submit", (event) => {
    if (event.target.matches(".preview-address")) { event.preventDefault(); reloadPreview(); }
  });

  // ── uploads: binary files (images, fonts, media, PDF) ─────────────────
  // One request per file, in turn, with its progress; the server checks what
  // each file is (projects.files.binaries) and answers as for a new file.
  // Resolves with the file's path in the project once stored, else null.
  function uploadOne(file, fields) {
    return new Promise((resolve) => {
      const progress = document.getElementById("upload-progress");
      const body = new FormData();
      body.append("file", file);
      for (const [name, value] of Object.entries(fields)) body.append(name, value);
      const xhr = new XMLHttpRequest();
      xhr.open("POST", grid().dataset.uploadUrl);
      xhr.setRequestHeader("X-CSRFToken", window.builtitCsrfToken());
      xhr.setRequestHeader("HX-Request", "true");
      xhr.setRequestHeader("X-Builtit-Tab", TAB);
      xhr.upload.onprogress = (event) => {
        if (progress && event.lengthComputable) {
          progress.textContent = `Uploading ${file.name}: ${Math.round((100 * event.loaded) / event.total)}%`;
        }
      };
      xhr.onload = () => {
        if (xhr.status === 200) {
          htmx.swap("#editor-pane", xhr.responseText, { swapStyle: "innerHTML" });
          mountEditor();
          if (NARROW.matches) showPanel("editor");  // on a phone, show what was uploaded
          document.body.dispatchEvent(new CustomEvent("filesChanged", { detail: { paths: [] } }));
          resolve(openPath());
          return;
        }
        if (xhr.status === 413) {
          // The server's own answer (builtit.bodypages): too large for anyone,
          // or for someone whose session has ended. A proxy's page says neither.
          const page = new DOMParser().parseFromString(xhr.responseText, "text/html");
          const said = page.querySelector("p")?.textContent.trim();
          showUploadError(said ? `${file.name}: ${said}` : `${file.name} is too large to upload.`);
        } else {
          showUploadError(answerText(xhr.responseText) || `${file.name} could not be uploaded.`);
        }
        resolve(null);
      };
      xhr.onerror = () => { showUploadError("Could not reach the server; nothing was uploaded."); resolve(null); };
      xhr.send(body);
    });
  }

  // What an error answer says, as text (parsed inert: nothing in it runs or loads).
  function answerText(html) {
    const page = new DOMParser().parseFromString(html || "", "text/html");
    return page.body ? page.body.textContent.trim() : "";
  }

  // Each file refused in one batch says why, one line each: the last one's
  // reason must not hide the others'.
  function showUploadError(text) {
    const box = document.getElementById("new-file-error");
    if (!box) return;
    if (!text) { box.replaceChildren(); return; }
    const line = document.createElement("p");
    line.className = "status error";
    line.setAttribute("role", "alert");  // refused: said at once, as an error
    line.textContent = text;
    box.append(line);
  }

  async function uploadFiles(files, folder) {
    showUploadError("");
    const stored = [];
    for (const file of files) stored.push(await uploadOne(file, { folder: folder || "" }));
    sayUploaded(stored.filter(Boolean), "Uploaded");
  }

  // What worked, named, in the status beside the button (a refusal says itself
  // below, and the next upload clears it).
  function sayUploaded(paths, verb) {
    const progress = document.getElementById("upload-progress");
    if (!progress) return;
    const named = paths.length > 3
      ? `${paths.length} files: ${paths.slice(0, 2).join(", ")} and ${paths.length - 2} more`
      : paths.length > 1 ? `${paths.slice(0, -1).join(", ")} and ${paths[paths.length - 1]}` : paths[0];
    progress.textContent = paths.length ? `${verb} ${named}.` : "";
  }

  let replacing = null;  // the path an upload replaces, when "Replace…" was used
  document.addEventListener("click", (event) => {
    if (event.target.closest("[data-action='upload-files']")) {
      replacing = null;
      document.getElementById("upload-input").click();
    } else if (event.target.closest("[data-action='replace-file']")) {
      replacing = openPath();
      document.getElementById("upload-input").click();
    }
  });

  document.addEventListener("change", (event) => {
    if (event.target.id !== "upload-input") return;
    const files = [...event.target.files];
    event.target.value = "";
    if (replacing && files.length) {
      showUploadError("");
      uploadOne(files[0], { path: replacing }).then((path) => sayUploaded(path ? [path] : [], "Replaced"));
    } else {
      uploadFiles(files, "");
    }
  });

  // Files dropped on the tree go into the folder they are dropped on: that
  // folder is what lights up (the tree itself stands for the top folder).
  let dropZone = null;
  function markDropZone(zone) {
    if (zone === dropZone) return;
    if (dropZone) dropZone.classList.remove("drop-target");
    dropZone = zone;
    if (zone) zone.classList.add("drop-target");
  }
  function dropZoneAt(target) {
    const tree = target.closest && target.closest("#file-tree");
    return tree ? target.closest("#file-tree [data-folder]") || tree : null;
  }
  document.addEventListener("dragover", (event) => {
    const zone = dropZoneAt(event.target);
    if (!zone || !event.dataTransfer || ![...event.dataTransfer.types].includes("Files")) return;
    event.preventDefault();
    markDropZone(zone);
  });
  document.addEventListener("dragleave", (event) => {
    // Leaving for a place outside the tree (or the window) ends the highlight.
    if (!event.relatedTarget || !dropZoneAt(event.relatedTarget)) markDropZone(null);
  });
  document.addEventListener("drop", (event) => {
    const zone = dropZoneAt(event.target);
    markDropZone(null);
    if (!zone || !event.dataTransfer || !event.dataTransfer.files.length) return;
    event.preventDefault();
    uploadFiles([...event.dataTransfer.files], zone.dataset.folder || "");
  });

  // ── layout: one panel at a time on a narrow screen; sizes on a wide one ───
  const NARROW = window.matchMedia("(max-width: 999px)");
  const layoutKey = () => "builtit:layout:" + (grid() ? grid().dataset.user : "");

  function showPanel(name) {
    const box = grid();
    if (!box) return;
    box.dataset.active = name;
    document.querySelectorAll("[data-show-panel]").forEach((tab) => {
      tab.setAttribute("aria-pressed", String(tab.dataset.showPanel === name));
    });
    try { sessionStorage.setItem(layoutKey() + ":panel", name); } catch (_) { /* private mode */ }
    if (name === "editor" && editor) editor.resize();
  }

  // The person's preferences come with the page and go back to the server
  // (projects.web.preferences), so they follow the person to any browser.
  let preferences = {};
  try {
    const data = document.getElementById("workspace-preferences");
    preferences = (data && JSON.parse(data.textContent)) || {};
  } catch (_) { preferences = {}; }

  function savedLayout() { return preferences; }

  let pending = {};
  let saveTimer = null;
  function saveLayout(change) {
    Object.assign(preferences, change);
    Object.assign(pending, change);
    clearTimeout(saveTimer);
    saveTimer = setTimeout(() => { window.builtitSavePreferences(pending); pending = {}; }, 400);
    return preferences;
  }

  const MIN_WIDTH = { chat: 240, files: 150 };
  const COLLAPSED = "2.4rem";

  function applyLayout(layout) {
    const box = grid();
    if (!box) return;
    for (const name of ["chat", "files"]) {
      const panel = name === "chat" ? document.getElementById("chat-panel") : document.getElementById("files-panel");
      const collapsed = Boolean(layout[name + "Collapsed"]);
      panel.classList.toggle("collapsed", collapsed);
      const toggle = panel.querySelector(".collapse-toggle");
      if (toggle) nameToggle(toggle, name, collapsed);
      const width = collapsed ? COLLAPSED : (layout[name + "Width"] ? layout[name + "Width"] + "px" : "");
      if (width) box.style.setProperty("--" + name + "-w", width);
      else box.style.removeProperty("--" + name + "-w");
    }
    if (editor) editor.resize();
  }

  // The button says what it will do: hide the panel, or show it again.
  const TOGGLE_WORDS = {
    chat: ["Hide the chat (more room for code and preview)", "Show the chat"],
    files: ["Hide the files", "Show the files"],
  };
  function nameToggle(toggle, name, collapsed) {
    const [hide, show] = TOGGLE_WORDS[name];
    toggle.setAttribute("aria-expanded", String(!collapsed));
    toggle.title = collapsed ? show : hide;
    const label = toggle.querySelector(".visually-hidden");
    if (label) label.textContent = (collapsed ? show : hide).replace(/ \(.*\)$/, "");
  }

  function resizeTo(name, width) {
    const max = Math.max(MIN_WIDTH[name], window.innerWidth * 0.45);
    const clamped = Math.round(Math.min(max, Math.max(MIN_WIDTH[name], width)));
    applyLayout(saveLayout({ [name + "Width"]: clamped, [name + "Collapsed"]: false }));
  }

  document.addEventListener("pointerdown", (event) => {
    const handle = event.target.closest && event.target.closest(".resizer");
    if (!handle || NARROW.matches) return;
    const name = handle.dataset.resize;
    const start = handle.parentElement.getBoundingClientRect().width;
    const x = event.clientX;
    handle.classList.add("dragging");
    handle.setPointerCapture(event.pointerId);
    const move = (moved) => resizeTo(name, start + moved.clientX - x);
    const end = () => {
      handle.classList.remove("dragging");
      handle.removeEventListener("pointermove", move);
      handle.removeEventListener("pointerup", end);
      handle.removeEventListener("pointercancel", end);
    };
    handle.addEventListener("pointermove", move);
    handle.addEventListener("pointerup", end);
    handle.addEventListener("pointercancel", end);
    event.preventDefault();
  });

  document.addEventListener("keydown", (event) => {
    const handle = event.target.closest && event.target.closest(".resizer");
    if (!handle || !["ArrowLeft", "ArrowRight"].includes(event.key)) return;
    const width = handle.parentElement.getBoundingClientRect().width;
    resizeTo(handle.dataset.resize, width + (event.key === "ArrowRight" ? 24 : -24));
    event.preventDefault();
  });

  document.addEventListener("click", (event) => {
    const tab = event.target.closest("[data-show-panel]");
    if (tab) { showPanel(tab.dataset.showPanel); return; }
    const toggle = event.target.closest("[data-collapse]");
    if (toggle) {
      const name = toggle.dataset.collapse;
      applyLayout(saveLayout({ [name + "Collapsed"]: toggle.getAttribute("aria-expanded") === "true" }));
    }
  });

  // On a narrow screen, a file the person opened (made, renamed, restored) is
  // shown. Only their own requests swap the editor through htmx: following
  // someone else's change (reload) never takes them from the panel they are on.
  document.addEventListener("htmx:afterSettle", (event) => {
    if (!event.detail.target || event.detail.target.id !== "editor-pane") return;
    if (NARROW.matches && document.getElementById("editor-form")) showPanel("editor");
  });

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

  document.addEventListener("click", (event) => {
    if (!event.target.closest("[data-action='toggle-wrap']")) return;
    saveLayout({ wrap: !wrapOn() });
    applyWrap();
  });

  // The keyless notice, closed for good (chat/partials/setup.html).
  document.addEventListener("click", (event) => {
    const close = event.target.closest("[data-action='close-setup-notice']");
    if (!close) return;
    close.closest(".model-setup").remove();
    saveLayout({ setupNoticeClosed: true });
    const input = document.getElementById("composer-input");
    if (input) input.focus();
  });

  // Once a turn here was the demo's, the notice has said its piece: one line.
  document.addEventListener("htmx:wsAfterMessage", () => {
    const notice = document.querySelector("#model-setup[data-demo-model]:not(.brief)");
    const footers = notice ? document.querySelectorAll("#chat-log .turn-footer") : [];
    const last = footers.length ? footers[footers.length - 1] : null;
    const model = last && !last.classList.contains("running") ? last.querySelector(".model") : null;
    if (model && model.textContent.trim() === notice.dataset.demoModel) notice.classList.add("brief");
  });

  // A request sent from the dashboard starts its turn as the page opens: the chat
  // is the panel shown, and on a phone, where the message box would bring up the
  // keyboard over the turn, the focus goes to the turn once it shows (unless the
  // person has gone somewhere meanwhile).
  let awaitingOpening = false;
  document.addEventListener("htmx:wsAfterMessage", () => {
    if (!awaitingOpening) return;
    const turns = document.querySelectorAll("#chat-log article.turn");
    if (!turns.length) return;
    awaitingOpening = false;
    if (!NARROW.matches || (document.activeElement && document.activeElement !== document.body)) return;
    const turn = turns[turns.length - 1];
    turn.tabIndex = -1;
    turn.focus({ preventScroll: true });
  });

  document.addEventListener("DOMContentLoaded", () => {
    mountEditor();
    pageLoading = false;
    watchTree();
    applyLayout(savedLayout());
    let panel = null;
    try { panel = sessionStorage.getItem(layoutKey() + ":panel"); } catch (_) { /* private */ }
    awaitingOpening = grid() !== null && grid().hasAttribute("data-opening");
    // A link to a turn (#t<id>, from History) is a request to see the chat.
    if (awaitingOpening || /^#t\d+$/.test(location.hash)) showPanel("chat");
    else if (panel && document.querySelector(`[data-show-panel="${panel}"]`)) showPanel(panel);
    // The page opens ready to talk to the assistant.
    const input = document.getElementById("composer-input");
    if (input && !NARROW.matches) input.focus();
  });

  // For scripts and browser tests: the open file's editor and text, without
  // creating an editor of their own.
  window.builtitWorkspace = {
    tab: TAB,
    openAt: openAt,
    editor: () => editor,
    text: () => (openPath() ? currentText() : null),
    isDirty: () => dirty,
  };
})();
