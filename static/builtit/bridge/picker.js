// The element picker: on while the person's Pick is pressed; the first
// element picked in the page goes to the composer as a chip.
import { on, action } from "../events.js";
import { $, bare, frame, pagePath, showChat, tell, text } from "./fields.js";
import { drop } from "./problems.js";
import { visualSelect } from "../visual/main.js";

// Whether it is on is the Pick button's state, which only the person's press
// sets: what they see is what holds, and a new preview pane (New link) comes
// with the button off.
const pickButton = () => document.querySelector("[data-action='pick-element']");

export function picking() {
  const button = pickButton();
  return button !== null && button.getAttribute("aria-pressed") === "true";
}

function picker(active) {
  const preview = frame();
  const button = pickButton();
  if (!preview || !button) return;
  tell({ pick: active });
  button.setAttribute("aria-pressed", String(active));
  const hint = $("pick-hint");
  if (hint) hint.hidden = !active;
  if (active) preview.focus();
}

// Esc in the page: the keyboard comes back to the Pick button.
export function pickerLeft() {
  picker(false);
  pickButton().focus();
}

on("keydown", (event) => {
  if (picking() && event.key === "Escape") picker(false);
});

action("pick-element", (event, button) => picker(button.getAttribute("aria-pressed") !== "true"));

// A pick counts only while the person's Pick is on, and only the first one:
// the page cannot attach anything by itself, nor a second thing per press.
export function picked(raw) {
  if (!picking()) { drop(); return; }
  picker(false);
  const selector = text(raw.selector, "selector");
  const tag = text(raw.tag, "tag");
  if (!selector || !/^[a-z][a-z0-9-]*$/.test(tag)) { drop(); return; }
  const page = pagePath(text(raw.page, "page")) || "/index.html";
  const item = { type: "element", selector, tag, page, text: text(raw.text, "text") };
  window.builtitChat.attach(item, elementLabel(item), `Selector: ${selector}`);
  visualSelect(raw, page);
  showChat();
}

function elementLabel(item) {
  const shows = item.text ? ` “${item.text}”` : "";
  return `<${item.tag}>${shows} in ${bare(item.page) || "the page"}`;
}
