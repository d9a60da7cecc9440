// The preview as the main surface: the splitter between the editor
// and the preview, device widths, full screen, the site as it was at a turn or
// a file's version, and the tablet layout (the chat beside one other panel).
// The frames themselves are never moved or reloaded here: their pages stay.
import { on, stop } from "./events.js";

const grid = () => document.querySelector(".workspace-grid");
const $ = (id) => document.getElementById(id);
const WIDE = window.matchMedia("(min-width: 1000px)");
const STACKED = window.matchMedia("(min-width: 1000px) and (max-width: 1599px)");
const NARROW = window.matchMedia("(max-width: 999px)");
const TABLET = window.matchMedia("(min-width: 768px) and (max-width: 999px)");
const PHONE = window.matchMedia("(max-width: 599px)");

function remembered(storage, key) {
  try { return storage.getItem(key); } catch (_) { return null; }  // private mode
}

function remember(storage, key, value) {
  try { storage.setItem(key, value); } catch (_) { /* private mode */ }
}

function resizeEditor() {
  const editor = window.builtitWorkspace && window.builtitWorkspace.editor();
  if (editor) editor.resize();
}

// ── the splitter: the preview's share of the editor's and the preview's room ──
// Kept in this browser (a screen of its own decides what suits it), one for
// the editor above the preview (up to 1600 px), one for the two side by side.
const SHARE = { least: 0.15, most: 0.9, step: 0.05 };
const USUAL = { above: 0.66, beside: 0.55 };
const layoutName = () => (STACKED.matches ? "above" : "beside");
const splitKey = () => `builtit:preview-share:${layoutName()}:${grid().dataset.user}`;
let share = USUAL.above;

function splitter() { return document.querySelector(".splitter"); }

function applyShare(value, keep) {
  share = Math.min(SHARE.most, Math.max(SHARE.least, value));
  const box = grid();
  box.style.setProperty("--preview-part", (share * 100).toFixed(2) + "fr");
  box.style.setProperty("--editor-part", ((1 - share) * 100).toFixed(2) + "fr");
  const handle = splitter();
  if (handle) {
    // The separator's place, from the top (or the left): the editor's share.
    handle.setAttribute("aria-valuenow", String(Math.round((1 - share) * 100)));
    handle.setAttribute("aria-valuetext", `Preview ${Math.round(share * 100)}%, editor ${Math.round((1 - share) * 100)}%`);
  }
  if (keep) remember(localStorage, splitKey(), share.toFixed(3));
  resizeEditor();
  fitDevice();
}

// The separator's direction, and the share kept for this layout.
function orient() {
  const handle = splitter();
  if (handle) handle.setAttribute("aria-orientation", STACKED.matches ? "horizontal" : "vertical");
  const saved = parseFloat(remembered(localStorage, splitKey()) || "");
  applyShare(Number.isFinite(saved) ? saved : USUAL[layoutName()], false);
}

// The share where the pointer is: from the preview's far edge to the editor's near one.
function shareAt(event) {
  const editor = $("editor-panel").getBoundingClientRect();
  const preview = $("preview-pane").getBoundingClientRect();
  if (STACKED.matches) return (preview.bottom - event.clientY) / (preview.bottom - editor.top);
  return (preview.right - event.clientX) / (preview.right - editor.left);
}

on("pointerdown", (event) => {
  const handle = event.target.closest && event.target.closest(".splitter");
  if (!handle || !WIDE.matches) return;
  handle.classList.add("dragging");
  // The frames let the pointer through meanwhile: one moved onto (another
  // process's page) would take the drag's events before the capture does.
  grid().classList.add("splitting");
  handle.setPointerCapture(event.pointerId);
  const move = (moved) => applyShare(shareAt(moved), false);
  const end = () => {
    handle.classList.remove("dragging");
    grid().classList.remove("splitting");
    handle.removeEventListener("pointermove", move);
    handle.removeEventListener("pointerup", end);
    handle.removeEventListener("pointercancel", end);
    applyShare(share, true);
  };
  handle.addEventListener("pointermove", move);
  handle.addEventListener("pointerup", end);
  handle.addEventListener("pointercancel", end);
  event.preventDefault();
});

// Arrows move the separator their way (up or left: a larger preview); Home
// and End to either end, as a separator does.
const MOVES = { ArrowUp: 1, ArrowLeft: 1, ArrowDown: -1, ArrowRight: -1 };
on("keydown", (event) => {
  const handle = event.target.closest && event.target.closest(".splitter");
  if (!handle) return;
  if (event.key in MOVES) applyShare(share + MOVES[event.key] * SHARE.step, true);
  else if (event.key === "Home") applyShare(SHARE.most, true);
  else if (event.key === "End") applyShare(SHARE.least, true);
  else return;
  event.preventDefault();
});

// ── device widths ──────────────────────────────────────────────────────
const DEVICES = { phone: 390, tablet: 768 };
const deviceKey = () => "builtit:preview-width:" + grid().dataset.project;
let watched = null;  // the stage the size watcher follows (the pane is redrawn by "New link")
const watcher = new ResizeObserver(() => fitDevice());

function setDevice(name) {
  remember(sessionStorage, deviceKey(), DEVICES[name] ? name : "desktop");
  applyDevice();
}

// The width picked, except on a phone, where the pane is phone-wide already
// and offers no width buttons: the pick waits for a wider screen.
function applyDevice() {
  const box = grid();
  const name = remembered(sessionStorage, deviceKey());
  if (DEVICES[name] && !PHONE.matches) box.dataset.device = name;
  else delete box.dataset.device;
  markWidths();
  fitDevice();
}

function markWidths() {
  const current = grid().dataset.device || "desktop";
  document.querySelectorAll("[data-preview-width]").forEach((button) => {
    button.setAttribute("aria-pressed", String(button.dataset.previewWidth === current));
  });
}

// The frame at the device's width, shrunk to fit a narrower pane.
function fitDevice() {
  const box = grid();
  const stage = document.querySelector(".preview-stage");
  const note = $("preview-width-note");
  if (stage && stage !== watched) {
    watcher.disconnect();
    watcher.observe(stage);
    watched = stage;
  }
  const width = DEVICES[box.dataset.device];
  if (!width || !stage) {
    box.style.removeProperty("--device-w");
    box.style.removeProperty("--device-scale");
    if (note) note.hidden = true;
    return;
  }
  const room = stage.clientWidth;
  if (room <= 0) return;  // not shown (another panel on a phone): measured when it is
  const scale = Math.min(1, room / width);
  box.style.setProperty("--device-w", width + "px");
  box.style.setProperty("--device-scale", scale.toFixed(4));
  if (note) {
    note.hidden = false;
    note.textContent = scale < 1 ? `${width} px at ${Math.round(scale * 100)}%` : `${width} px`;
  }
}

on("click", (event) => {
  const button = event.target.closest("[data-preview-width]");
  if (button) setDevice(button.dataset.previewWidth);
});

// ── "More" (on a phone: Open and New link, folded so the bar is one row) ──
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
function isFull() { return grid().hasAttribute("data-preview-full"); }

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

function markFull() {
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

// ── the site as it was (a turn's or a file version's Preview) ────────────
// The bar comes from the server (projects.views.preview_past, chat's
// turn_preview) with the address of the past on the sites origin; it shows
// in a second frame, the live one kept unseen with its page.
function previewRoot() {
  const form = document.querySelector(".preview-address");
  return form ? form.dataset.previewOrigin + form.dataset.previewBase : null;
}

function showPast() {
  note("");
  const banner = document.querySelector("#preview-past .past-banner");
  const frame = $("preview-past-frame");
  const root = previewRoot();
  const src = banner ? banner.dataset.pastSrc || "" : "";
  if (!frame || !root || !src.startsWith(root + "@")) { showLive(); return; }
  frame.src = src;
  frame.hidden = false;
  grid().dataset.past = "";
  // On a phone the preview is what the person asked to see.
  const tab = document.querySelector("[data-show-panel='preview']");
  if (NARROW.matches && tab) tab.click();
}

function showLive() {
  const past = $("preview-past");
  const frame = $("preview-past-frame");
  if (past) past.replaceChildren();
  if (frame && !frame.hidden) { frame.hidden = true; frame.src = "about:blank"; }
  delete grid().dataset.past;
}

on("htmx:afterSwap", (event) => {
  if (event.detail.target && event.detail.target.id === "preview-past") showPast();
});

on("click", (event) => {
  if (!event.target.closest("[data-action='preview-live']")) return;
  showLive();
  const reload = document.querySelector(".preview-address button[type=submit]");
  if (reload) reload.focus();
});

// Restored (from the bar, or from the restore it opens): the live preview
// shows it now.
const TURN_RESTORE = /\/turns\/\d+\/restore\/$/;
on("htmx:afterRequest", (event) => {
  const detail = event.detail;
  if (!detail.xhr || detail.xhr.status >= 300 || !grid().hasAttribute("data-past")) return;
  const config = detail.requestConfig || {};
  const elt = detail.elt;
  const fromBar = elt && elt.hasAttribute && elt.hasAttribute("data-restores-past");
  if (fromBar || (config.verb === "post" && TURN_RESTORE.test(config.path || ""))) showLive();
});

// The site changed while the past showed (a turn, an undo or restore, a save
// here or in another tab, an upload): what is live now is what matters, so
// the preview goes back to it, saying why. chat/signals.js and workspace/uploads.js say who
// changed it ("filesChanged"); the live frame reloads on its own.
const BACK_LIVE = {
  assistant: "Back to the live site: the assistant changed it.",
  history: "Back to the live site: an undo or restore changed it.",
  person: "Back to the live site: it was saved in another tab.",
  mine: "Back to the live site, with your change.",
};

on("filesChanged", (event) => {
  const box = grid();
  if (!box || !box.hasAttribute("data-past")) return;
  const detail = event.detail || {};
  const workspace = window.builtitWorkspace;
  const mine = !detail.source || (detail.source === "person" && workspace && detail.tab === workspace.tab);
  const hadFocus = $("preview-past").contains(document.activeElement);  // its bar goes
  showLive();
  note(BACK_LIVE[mine ? "mine" : detail.source] || BACK_LIVE.mine);
  if (hadFocus) document.querySelector("[data-action='close-preview-note']").focus();
}, { target: document.body });

function note(text) {
  const line = $("preview-note");
  if (!line) return;
  line.querySelector(".preview-note-text").textContent = text;
  line.hidden = !text;
}

// Said until closed, or until the next turn begins (chat/composer.js).
on("builtit:turn", () => note(""));

on("click", (event) => {
  if (!event.target.closest("[data-action='close-preview-note']")) return;
  note("");
  const reload = document.querySelector(".preview-address button[type=submit]");
  if (reload) reload.focus();
});

// "New link" redraws the whole pane: the buttons say again what is on, and
// a past whose bar went with it is left.
on("htmx:afterSettle", () => {
  if (grid() && grid().hasAttribute("data-past") && !document.querySelector("#preview-past .past-banner")) showLive();
  markWidths();
  markFull();
  fitDevice();
});

// ── a tablet: the chat, and beside it the panel last picked ──────────────
// workspace/layout.js picks the panel (data-active); beside the chat goes the last
// one that is not the chat, and its tab is the one pressed.
function followActive() {
  const box = grid();
  if (box.dataset.active && box.dataset.active !== "chat") box.dataset.beside = box.dataset.active;
  const current = TABLET.matches ? box.dataset.beside : box.dataset.active;
  document.querySelectorAll("[data-show-panel]").forEach((tab) => {
    tab.setAttribute("aria-pressed", String(tab.dataset.showPanel === current));
  });
  resizeEditor();
}

function start() {
  const box = grid();
  if (!box) return;
  orient();
  STACKED.addEventListener("change", orient);
  applyDevice();
  PHONE.addEventListener("change", applyDevice);
  new MutationObserver(followActive).observe(box, { attributes: true, attributeFilter: ["data-active"] });
  TABLET.addEventListener("change", followActive);
  followActive();
}

if (document.readyState === "loading") on("DOMContentLoaded", start);
else start();

// For scripts and browser tests.
window.builtitPreview = {
  share: () => share,
  device: () => grid().dataset.device || "desktop",
  full: isFull,
  past: () => grid().hasAttribute("data-past"),
};
