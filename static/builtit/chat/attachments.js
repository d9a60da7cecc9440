// What goes with a message from the preview (bridge/workspace.js): problems
// and picked elements as chips, kept here and sent with the message as one
// form field (JSON); the server checks them again (chat.agent.attachments).
import { on } from "../events.js";
import { LIMITS } from "./limits.js";
import { suggest } from "./composer.js";

const $ = (id) => document.getElementById(id);
let attached = [];  // [{item, label}]
let fixes = 0;      // turns in a row sent with the preview's problems ("Fix with the assistant")

function drawChips() {
  const list = $("composer-chips");
  const field = $("composer-attachments");
  if (field) field.value = attached.length ? JSON.stringify(attached.map((a) => a.item)) : "";
  if (!list) return;
  list.replaceChildren(...attached.map((entry, index) => {
    const chip = document.createElement("li");
    chip.textContent = entry.label;
    if (entry.title) chip.title = entry.title;
    const remove = document.createElement("button");
    remove.type = "button";
    remove.dataset.unattach = String(index);
    remove.setAttribute("aria-label", "Remove " + entry.label);
    remove.textContent = "×";
    chip.append(remove);
    return chip;
  }));
}

export function attach(item, label, title) {
  const limit = LIMITS.attachments[item.type === "element" ? "element" : "problem"];
  if (attached.filter((a) => a.item.type === item.type).length >= limit) return false;
  attached.push({ item, label, title });
  drawChips();
  const input = $("composer-input");
  if (input) input.focus();
  return true;
}

// "Fix with the assistant" from the preview's problems: they go with the
// words into the box, as the site check's do; the person sends.
export function fix(items, labels) {
  attached = items.map((item, index) => ({ item, label: labels[index] || item.message }));
  drawChips();
  suggest("Fix the problems the preview shows.");
}

// The message went: its attachments with it. Fixes in a row are counted.
export function sentWithMessage() {
  fixes = attached.some((entry) => entry.item.type === "problem") ? fixes + 1 : 0;
  attached = [];
  drawChips();
}

export const fixesInARow = () => fixes;
export const attachments = () => attached.map((a) => a.item);

on("click", (event) => {
  const remove = event.target.closest && event.target.closest("[data-unattach]");
  if (!remove) return;
  attached.splice(Number(remove.dataset.unattach), 1);
  drawChips();
});
