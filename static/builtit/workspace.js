// The workspace: Ace editor on the open file, save/rename/delete, live preview.
(function () {
  "use strict";
  const grid = () => document.querySelector(".workspace-grid");
  let editor = null;        // the Ace editor of the open file, if any
  let dirty = false;        // unsaved edits in the editor
  let previewTimer = null;

  // ── editor ────────────────────────────────────────────────────────────
  function mountEditor() {
    const form = document.getElementById("editor-form");
    if (editor && (!form || !form.contains(editor.container))) {
      editor.destroy();
      editor = null;
    }
    setDirty(false);
    markOpenFile(form ? form.dataset.path : null);
    if (!form || editor || !window.ace) return;
    const host = document.getElementById("ace-editor");
    const source = document.getElementById("editor-content");
    const fallback = document.getElementById("editor-fallback");
    window.ace.config.set("basePath", grid().dataset.aceBase);
    // ace.edit() hands back any editor already on the element and ignores the
    // options; start from a clean host so mode, theme and commands always apply.
    if (host.env && host.env.editor) host.env.editor.destroy();
    editor = window.ace.edit(host, {
      mode: "ace/mode/" + form.dataset.mode,
      theme: "ace/theme/tomorrow",
      tabSize: 2,
      useSoftTabs: true,
      showPrintMargin: false,
      fontSize: "13px",
      wrap: false,
    });
    // JSON keeps the file's exact characters (HTML parsing would drop CRs).
    editor.session.setValue(JSON.parse(source.textContent));
    editor.session.getUndoManager().reset();
    host.hidden = false;
    fallback.hidden = true;
    editor.session.on("change", () => setDirty(true));
    editor.commands.addCommand({
      name: "save",
      bindKey: { win: "Ctrl-S", mac: "Command-S" },
      exec: () => htmx.trigger(form, "submit"),
    });
    editor.focus();
  }

  function currentText() {
    if (editor) return editor.getValue();
    const fallback = document.getElementById("editor-fallback");
    return fallback ? fallback.value : "";
  }

  function setDirty(value) {
    dirty = value;
    const status = document.getElementById("editor-status");
    if (value && status && !status.querySelector(".error")) {
      status.innerHTML = '<span class="status pending">Unsaved changes</span>';
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

  function confirmDiscard() {
    return !dirty || window.confirm("You have unsaved changes in " + openPath() + ". Discard them?");
  }

  function request(method, url, values, target) {
    return htmx.ajax(method, url, { values: values, target: target || "#editor-pane", swap: "innerHTML" });
  }

  function reloadFile() {
    const path = openPath();
    if (!path || !confirmDiscard()) return;
    dirty = false;
    request("GET", grid().dataset.openUrl + "?path=" + encodeURIComponent(path));
  }

  function renameFile() {
    const path = openPath();
    if (!path) return;
    const next = window.prompt("Rename " + path + " to:", path);
    if (!next || next === path) return;
    if (dirty && !window.confirm("Save or discard your edits first? Renaming reloads the file. Continue and discard them?")) return;
    dirty = false;
    request("POST", grid().dataset.renameUrl, {
      path: path, new_path: next, version: document.getElementById("editor-version").value,
    });
  }

  function deleteFile() {
    const path = openPath();
    if (!path || !window.confirm("Delete " + path + "? Its history is kept, but the file leaves the site.")) return;
    dirty = false;
    request("POST", grid().dataset.deleteUrl, {
      path: path, version: document.getElementById("editor-version").value,
    });
  }

  function saveAsNew() {
    const path = openPath();
    const next = window.prompt("Save your text as a new file named:", path || "");
    if (!next) return;
    const form = document.querySelector("form.new-file");
    dirty = false;
    request("POST", form.getAttribute("hx-post"), { path: next, content: currentText() });
  }

  function showHistory() {
    const path = openPath();
    if (!path) return;
    const dialog = document.getElementById("history-dialog");
    htmx.ajax("GET", grid().dataset.historyUrl + "?path=" + encodeURIComponent(path),
      { target: "#history-body", swap: "innerHTML" }).then(() => dialog.showModal());
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
      "reload-file": reloadFile,
      "rename-file": renameFile,
      "delete-file": deleteFile,
      "save-as-new": saveAsNew,
      "show-history": showHistory,
      "overwrite": () => overwrite(button.dataset.version),
    };
    const action = actions[button.dataset.action];
    if (action) { event.preventDefault(); action(); }
  });

  // The editor's text travels with any request that carries a `content` field.
  document.addEventListener("htmx:configRequest", (event) => {
    if (event.detail.elt && event.detail.elt.id === "editor-form") {
      event.detail.formData.set("content", currentText());
    }
  });

  // Opening another file (or creating one) replaces the editor: ask first.
  document.addEventListener("htmx:confirm", (event) => {
    const target = event.detail.target;
    if (!dirty || !target || target.id !== "editor-pane") return;
    event.preventDefault();
    if (confirmDiscard()) { dirty = false; event.detail.issueRequest(true); }
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
    else markOpenFile(openPath());
  });

  window.addEventListener("beforeunload", (event) => {
    if (dirty) { event.preventDefault(); event.returnValue = ""; }
  });

  // ── preview ───────────────────────────────────────────────────────────
  function previewUrl() {
    const form = document.querySelector(".preview-address");
    const address = document.getElementById("preview-address").value.trim().replace(/^\/+/, "");
    return form.dataset.previewBase + address.split("/").map(encodeURIComponent).join("/");
  }

  function reloadPreview() {
    const frame = document.getElementById("preview-frame");
    if (!frame) return;
    const url = previewUrl();
    document.getElementById("preview-open").href = url;
    // A sandboxed frame has an opaque origin: it cannot be reloaded in place,
    // but setting src (even to the same address) navigates it again.
    frame.src = url;
  }

  document.body.addEventListener("filesChanged", () => {
    clearTimeout(previewTimer);
    previewTimer = setTimeout(reloadPreview, 250);
  });

  document.addEventListener("submit", (event) => {
    if (event.target.matches(".preview-address")) { event.preventDefault(); reloadPreview(); }
  });

  document.addEventListener("DOMContentLoaded", mountEditor);

  // For scripts and browser tests: the open file's editor and text, without
  // creating an editor of their own.
  window.builtitWorkspace = {
    editor: () => editor,
    text: () => (openPath() ? currentText() : null),
    isDirty: () => dirty,
  };
})();
