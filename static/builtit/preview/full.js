// Full screen, and "More" (on a phone: Open and New link, folded so the bar
// is one row).
import { on, stop } from "../events.js";
import { $, grid, resizeEditor } from "./page.js";
import { fitDevice } from "./devices.js";

function more(open, { focus = false } = {}) {
  const toggle = document.querySelector("[data-action='preview-more']");
  const menu = $("preview-more");
  if (!toggle || !menu) return;
  toggle.setAttribute("aria-expanded", String(open));
  menu.classList.toggle("open", open);
  if (open) menu.querySelector("a, button").focus();
  else if (focus) toggle.focus();
}

on("click", (event) => {
  const toggle = event.target.closest("[data-action='preview-more']");
  if (toggle) { more(toggle.getAttribute("aria-expanded") !== "true"); return; }
  // A choice made, or a click elsewhere: the menu closes.
  if ($("preview-more") && $("preview-more").classList.contains("open")) more(false);
});

on("focusin", (event) => {
  const menu = $("preview-more");
  const toggle = document.querySelector("[data-action='preview-more']");
  if (!menu || !menu.classList.contains("open")) return;
  if (!menu.contains(event.target) && !(toggle && toggle.contains(event.target))) more(false);
});

on("keydown", (event) => {
  const menu = $("preview-more");
  if (event.key !== "Escape" || !menu || !menu.classList.contains("open")) return;
  more(false, { focus: true });
  event.preventDefault();
  stop(event);  // this Esc closes the menu, nothing else
});

// ── full screen: the pane over the whole window, Esc or the button leaves ─
// The rest of the page is inert meanwhile: covered, so out of the way of Tab.
export function isFull() { return grid().hasAttribute("data-preview-full"); }

function setFull(on) {
  const box = grid();
  box.toggleAttribute("data-preview-full", on);
  document.querySelectorAll(".topbar, .panel-tabs, .workspace-grid > :not(.preview-panel)").forEach((part) => {
    part.inert = on;
  });
  markFull();
  resizeEditor();
  fitDevice();
}

export function markFull() {
  const button = document.querySelector("[data-action='preview-full']");
  if (!button) return;
  button.setAttribute("aria-pressed", String(isFull()));
  button.title = isFull() ? "Leave full screen (Esc)" : "Full screen (Esc leaves)";
}

on("click", (event) => {
  if (event.target.closest("[data-action='preview-full']")) setFull(!isFull());
});

// First of the page's Esc handlers (this module comes before the chat's and
// the bridge's): leaving full screen is all this Esc does. An open dialog, or
// the element picker, has it first.
on("keydown", (event) => {
  if (event.key !== "Escape" || !isFull()) return;
  if (document.querySelector("dialog[open]")) return;
  const pick = document.querySelector("[data-action='pick-element'][aria-pressed='true']");
  if (pick) return;
  setFull(false);
  const button = document.querySelector("[data-action='preview-full']");
  if (button) button.focus();
  event.preventDefault();
  stop(event);
});
