// Asking the person: a dialog in the page, never the browser's; forms and
// requests that ask first.
import { on } from "../events.js";

// Chromium closes a tab's confirm() and prompt(), answered "no", when any of
// its frames commits a navigation, and the preview frame loads again after
// every change to the files: a Delete, a Restore or "Save my text as a new
// file" asked while the assistant worked was refused without a word (seen in
// the browser tests, the dialog closed the instant the preview loaded).
// `ask` resolves true or false; with `value` (a text to edit), the text or null.
let asked = 0;
export function ask({ message, confirm = "OK", cancel = "Cancel", danger = false, value = null, label = "" }) {
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

// Before a request that asks first (hx-confirm), or that would lose something
// (a page registers the check: workspace/files.js, unsaved edits), the person is
// asked in the page; the request goes only if every answer was yes.
const checksBeforeRequests = [];
export function checkBeforeRequests(check) { checksBeforeRequests.push(check); }
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
