// The preview as the main surface: the splitter between the editor and the
// preview, device widths, full screen, the site as it was at a turn or a
// file's version, and the tablet layout (the chat beside one other panel),
// each a module here. The frames themselves are never moved or reloaded: their
// pages stay.
import { on } from "../events.js";
import { grid, STACKED, TABLET, PHONE, resizeEditor } from "./page.js";
import { currentShare, orient } from "./split.js";
import { applyDevice } from "./devices.js";
import { isFull } from "./full.js";
import "./past.js";
import "./frames.js";

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
  share: currentShare,
  device: () => grid().dataset.device || "desktop",
  full: isFull,
  past: () => grid().hasAttribute("data-past"),
};
