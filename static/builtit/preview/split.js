// The splitter: the preview's share of the editor's and the preview's room.
import { on } from "../events.js";
import { $, grid, WIDE, STACKED, remembered, remember, resizeEditor } from "./page.js";
import { fitDevice } from "./devices.js";

// Kept in this browser (a screen of its own decides what suits it), one for
// the editor above the preview (up to 1600 px), one for the two side by side.
const SHARE = { least: 0.15, most: 0.9, step: 0.05 };
const USUAL = { above: 0.66, beside: 0.55 };
const layoutName = () => (STACKED.matches ? "above" : "beside");
const splitKey = () => `builtit:preview-share:${layoutName()}:${grid().dataset.user}`;
let share = USUAL.above;
export const currentShare = () => share;

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
export function orient() {
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
