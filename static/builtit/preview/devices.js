// Device widths: the frame at a phone's or a tablet's width, shrunk to fit a
// narrower pane.
import { on } from "../events.js";
import { $, grid, PHONE, remembered, remember } from "./page.js";

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
export function applyDevice() {
  const box = grid();
  const name = remembered(sessionStorage, deviceKey());
  if (DEVICES[name] && !PHONE.matches) box.dataset.device = name;
  else delete box.dataset.device;
  markWidths();
  fitDevice();
}

export function markWidths() {
  const current = grid().dataset.device || "desktop";
  document.querySelectorAll("[data-preview-width]").forEach((button) => {
    button.setAttribute("aria-pressed", String(button.dataset.previewWidth === current));
  });
}

// The frame at the device's width, shrunk to fit a narrower pane.
export function fitDevice() {
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
