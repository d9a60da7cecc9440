// "Copy link": a button's data-copy to the clipboard, said on the button for a
// moment and, to screen readers, in the status beside it (its next sibling,
// .copy-said).
// Where the page may not use the clipboard (a plain-HTTP address other than
// localhost), the browser's older copy command is tried; failing both, the
// status shows the address, selected, to copy by hand.
import { on } from "./events.js";

const SHOWN_MS = 2500;

function copyByCommand(text) {
  const field = document.createElement("textarea");
  field.value = text;
  field.setAttribute("readonly", "");
  field.className = "visually-hidden";
  document.body.append(field);
  field.select();
  let done = false;
  try { done = document.execCommand("copy"); } catch (error) { done = false; }
  field.remove();
  return done;
}

function copied(text) {
  if (navigator.clipboard && window.isSecureContext) {
    return navigator.clipboard.writeText(text).then(() => true, () => copyByCommand(text));
  }
  return Promise.resolve(copyByCommand(text));
}

function say(button, done) {
  const status = button.nextElementSibling && button.nextElementSibling.matches(".copy-said")
    ? button.nextElementSibling : null;
  if (status) {
    status.textContent = done ? "Copied" : `Could not copy it here: ${button.dataset.copy}`;
    status.classList.toggle("failed", !done);
    // Selected, to copy by hand: the address alone.
    if (!done && status.lastChild) window.getSelection().setBaseAndExtent(
      status.lastChild, "Could not copy it here: ".length, status.lastChild, status.lastChild.length);
  }
  if (!button.dataset.label) button.dataset.label = button.textContent;
  if (done) button.textContent = "Copied ✓";
  clearTimeout(button._copyTimer);
  button._copyTimer = setTimeout(() => {
    button.textContent = button.dataset.label;
    if (status) {
      status.textContent = "";
      status.classList.remove("failed");
    }
  }, done ? SHOWN_MS : SHOWN_MS * 4);
}

on("click", (event) => {
  const button = event.target.closest && event.target.closest("button[data-copy]");
  if (!button) return;
  copied(button.dataset.copy).then((done) => say(button, done));
});
