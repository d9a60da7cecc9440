// Site-wide: tell the person when a request failed instead of failing silently.
import { on } from "./events.js";

let hideTimer = null;

function toast(text) {
  const box = document.getElementById("toast");
  if (!box) return;
  box.textContent = text;
  box.hidden = false;
  clearTimeout(hideTimer);
  hideTimer = setTimeout(() => { box.hidden = true; }, 8000);
}
window.builtitToast = toast;

const CHANGED_MEANWHILE = "The page changed while the server answered, so its answer was not " +
  "shown. Reload the page to see where things stand.";

// No answer replaces the whole page: every request here is made for a part
// of it. One whose part has gone (replaced while it was on its way) is told,
// never swapped into the page around it.
on("htmx:beforeSwap", (event) => {
  const target = event.detail.target;
  if (target === document.body || target === document.documentElement) {
    event.detail.shouldSwap = false;
    toast(CHANGED_MEANWHILE);
  }
});
on("htmx:targetError", () => toast(CHANGED_MEANWHILE));

on("htmx:responseError", () => {
  toast("The server could not finish that request. Nothing was lost; please try again.");
});
on("htmx:sendError", () => {
  toast("Could not reach the server. Check your connection; your edits are still here.");
});
on("click", (event) => {
  if (event.target.closest("#toast")) document.getElementById("toast").hidden = true;
  // The page's messages (an import's list of what it left out…) close on request.
  if (event.target.closest("[data-action='close-messages']")) {
    document.getElementById("messages").remove();
    window.dispatchEvent(new Event("resize"));  // the space it took goes to the page
  }
});

// ── asking the person: a dialog in the page, never the browser's ─────────
// Chromium closes a tab's confirm() and prompt(), answered "no", when any of
// its frames commits a navigation, and the preview frame loads again after
// every change to the files: a Delete, a Restore or "Save my text as a new
// file" asked while the assistant worked was refused without a word (seen in
// the browser tests, the dialog closed the instant the preview loaded).
// `ask` resolves true or false; with `value` (a text to edit), the text or null.
let asked = 0;
function ask({ message, confirm = "OK", cancel = "Cancel", danger = false, value = null, label = "" }) {
  return new Promise((resolve) => {
    const dialog = document.createElement("dialog");
    dialog.className = "ask-dialog";
    const form = document.createElement("form");
    form.method = "dialog";
    const text = document.createElement("p");
    text.id = `ask-message-${++asked}`;
    text.textContent = message;
    dialog.setAttribute("aria-labelledby", text.id);
    form.append(text);
    let input = null;
    if (value !== null) {
      input = document.createElement("input");
      input.value = value;
      input.spellcheck = false;
      input.setAttribute("aria-label", label || message);
      form.append(input);
    }
    const actions = document.createElement("div");
    actions.className = "dialog-actions";
    // Cancel is no submit button: Enter in the text field submits with the
    // form's first submit button, which must be the one that says yes.
    const no = document.createElement("button");
    no.type = "button";
    no.value = "cancel";
    no.textContent = cancel;
    no.addEventListener("click", () => dialog.close("cancel"));
    const yes = document.createElement("button");
    yes.value = "ok";
    yes.className = danger ? "danger" : "primary";
    yes.textContent = confirm;
    actions.append(no, yes);
    form.append(actions);
    dialog.append(form);
    dialog.addEventListener("close", () => {
      const ok = dialog.returnValue === "ok";
      dialog.remove();
      if (input === null) resolve(ok);
      else resolve(ok && input.value.trim() ? input.value.trim() : null);
    });
    document.body.append(dialog);
    dialog.showModal();
    // A question that would lose something starts on its safe answer.
    if (input) { input.focus(); input.select(); } else if (danger) { no.focus(); } else { yes.focus(); }
  });
}
window.builtitAsk = ask;

// A plain form that asks first (data-ask, with data-ask-confirm naming the
// yes button) is sent only after a yes in the page's own dialog.
on("submit", (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.dataset.ask || form.dataset.asked) return;
  event.preventDefault();
  ask({ message: form.dataset.ask, confirm: form.dataset.askConfirm || "OK", danger: true }).then((yes) => {
    if (!yes) return;
    form.dataset.asked = "1";
    form.requestSubmit();
  });
});

// A field cut short by its width shows its whole text on hover (data-title-is-value).
on("input", (event) => {
  const field = event.target;
  if (field.matches && field.matches("input[data-title-is-value]")) field.title = field.value || field.placeholder;
});
// A picker's choice can be renamed while the page is open (a conversation's title).
on("mouseover", (event) => {
  const picker = event.target.closest && event.target.closest("select[data-title-is-value]");
  if (picker && picker.selectedOptions[0]) picker.title = picker.selectedOptions[0].textContent;
});

// A Copy button (data-copy-from: the id of the element whose text it copies)
// says on itself that it copied, for a moment.
on("click", (event) => {
  const button = event.target.closest("button[data-copy-from]");
  if (!button) return;
  const source = document.getElementById(button.dataset.copyFrom);
  if (!source || !navigator.clipboard) return;
  navigator.clipboard.writeText(source.textContent.trim()).then(() => {
    button.textContent = "Copied";
    setTimeout(() => { button.textContent = "Copy"; }, 2000);
  }, () => toast("Could not copy: select the text and copy it by hand."));
});

// Before a request that asks first (hx-confirm), or that would lose something
// (a page registers the check: workspace/files.js, unsaved edits), the person is
// asked in the page; the request goes only if every answer was yes.
const checksBeforeRequests = [];
window.builtitCheckBeforeRequests = (check) => { checksBeforeRequests.push(check); };
on("htmx:confirm", (event) => {
  const questions = checksBeforeRequests.map((check) => check(event.detail)).filter(Boolean);
  if (event.detail.question) {
    // The yes button says what it does where the element names it (data-confirm-label).
    questions.push({ message: event.detail.question, confirm: event.detail.elt.dataset.confirmLabel || "OK" });
  }
  if (!questions.length) return;
  event.preventDefault();
  (async () => {
    for (const question of questions) {
      if (!(await ask(question))) return;
      if (question.then) question.then();
    }
    event.detail.issueRequest(true);
  })();
});

// ── a person's preferences, saved on the server (projects.web.preferences) ──
// The token htmx sends (base.html's hx-headers), for requests made by hand.
function csrfToken() {
  try { return JSON.parse(document.body.getAttribute("hx-headers"))["X-CSRFToken"]; } catch (_) { return ""; }
}
window.builtitCsrfToken = csrfToken;
window.builtitSavePreferences = (changes) => {
  if (!Object.keys(changes).length) return Promise.resolve();
  return fetch("/preferences/", {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
    body: JSON.stringify(changes),
    credentials: "same-origin",
  }).catch(() => { /* kept in this page; tried again with the next change */ });
};

// ── theme: auto (the system's), light, dark ─────────────────────────────
const THEMES = ["auto", "light", "dark"];
function currentTheme() {
  const chosen = document.documentElement.dataset.themePreference;
  if (chosen) return chosen;
  try { return localStorage.getItem("builtit:theme") || "auto"; } catch (_) { return "auto"; }
}
function showTheme() {
  const theme = currentTheme();
  if (theme === "auto") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  document.querySelectorAll(".theme-name").forEach((name) => { name.textContent = theme; });
  document.dispatchEvent(new CustomEvent("builtit:theme"));
}
on("click", (event) => {
  if (!event.target.closest("[data-action='cycle-theme']")) return;
  const next = THEMES[(THEMES.indexOf(currentTheme()) + 1) % THEMES.length];
  document.documentElement.dataset.themePreference = next;
  try { localStorage.setItem("builtit:theme", next); } catch (_) { /* private mode */ }
  window.builtitSavePreferences({ theme: next });
  showTheme();
});
on("DOMContentLoaded", showTheme);

// A menu closes when a choice in it is made or the person clicks elsewhere.
on("click", (event) => {
  document.querySelectorAll("details.account-menu[open]").forEach((menu) => {
    if (!menu.contains(event.target) || event.target.closest("a")) menu.removeAttribute("open");
  });
});
