// The site as it was (a turn's or a file version's Preview), and the note
// that says why the live site came back.
import { on } from "../events.js";
import { $, grid, NARROW } from "./page.js";
import { fitDevice, markWidths } from "./devices.js";
import { markFull } from "./full.js";

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
  const mine = !detail.source || detail.source === "preview"
    || (detail.source === "person" && workspace && detail.tab === workspace.tab);
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
