// The layout: one panel at a time on a narrow screen; on a wide one the chat's
// and the files' widths, and either folded away. Kept with the person's
// preferences; the panel shown, in this tab.
import { on, action } from "../events.js";
import { grid, NARROW, preferences, saveLayout } from "./page.js";
import { currentEditor } from "./editor.js";

const layoutKey = () => "builtit:layout:" + (grid() ? grid().dataset.user : "");

export function showPanel(name) {
  const box = grid();
  if (!box) return;
  box.dataset.active = name;
  document.querySelectorAll("[data-show-panel]").forEach((tab) => {
    tab.setAttribute("aria-pressed", String(tab.dataset.showPanel === name));
  });
  try { sessionStorage.setItem(layoutKey() + ":panel", name); } catch (_) { /* private mode */ }
  const editor = currentEditor();
  if (name === "editor" && editor) editor.resize();
}

// The panel this tab showed last, if the page still has it.
export function panelShownLast() {
  let panel = null;
  try { panel = sessionStorage.getItem(layoutKey() + ":panel"); } catch (_) { /* private */ }
  return panel && document.querySelector(`[data-show-panel="${panel}"]`) ? panel : null;
}

const MIN_WIDTH = { chat: 240, files: 150 };
const COLLAPSED = "2.4rem";

export function applyLayout(layout = preferences) {
  const box = grid();
  if (!box) return;
  for (const name of ["chat", "files"]) {
    const panel = name === "chat" ? document.getElementById("chat-panel") : document.getElementById("files-panel");
    const collapsed = Boolean(layout[name + "Collapsed"]);
    panel.classList.toggle("collapsed", collapsed);
    const toggle = panel.querySelector(".collapse-toggle");
    if (toggle) nameToggle(toggle, name, collapsed);
    const width = collapsed ? COLLAPSED : (layout[name + "Width"] ? layout[name + "Width"] + "px" : "");
    if (width) box.style.setProperty("--" + name + "-w", width);
    else box.style.removeProperty("--" + name + "-w");
  }
  const editor = currentEditor();
  if (editor) editor.resize();
}

// The button says what it will do: hide the panel, or show it again.
const TOGGLE_WORDS = {
  chat: ["Hide the chat (more room for code and preview)", "Show the chat"],
  files: ["Hide the files", "Show the files"],
};
function nameToggle(toggle, name, collapsed) {
  const [hide, show] = TOGGLE_WORDS[name];
  toggle.setAttribute("aria-expanded", String(!collapsed));
  toggle.title = collapsed ? show : hide;
  const label = toggle.querySelector(".visually-hidden");
  if (label) label.textContent = (collapsed ? show : hide).replace(/ \(.*\)$/, "");
}

function resizeTo(name, width) {
  const max = Math.max(MIN_WIDTH[name], window.innerWidth * 0.45);
  const clamped = Math.round(Math.min(max, Math.max(MIN_WIDTH[name], width)));
  applyLayout(saveLayout({ [name + "Width"]: clamped, [name + "Collapsed"]: false }));
}

on("pointerdown", (event) => {
  const handle = event.target.closest && event.target.closest(".resizer");
  if (!handle || NARROW.matches) return;
  const name = handle.dataset.resize;
  const start = handle.parentElement.getBoundingClientRect().width;
  const x = event.clientX;
  handle.classList.add("dragging");
  handle.setPointerCapture(event.pointerId);
  const move = (moved) => resizeTo(name, start + moved.clientX - x);
  const end = () => {
    handle.classList.remove("dragging");
    handle.removeEventListener("pointermove", move);
    handle.removeEventListener("pointerup", end);
    handle.removeEventListener("pointercancel", end);
  };
  handle.addEventListener("pointermove", move);
  handle.addEventListener("pointerup", end);
  handle.addEventListener("pointercancel", end);
  event.preventDefault();
});

on("keydown", (event) => {
  const handle = event.target.closest && event.target.closest(".resizer");
  if (!handle || !["ArrowLeft", "ArrowRight"].includes(event.key)) return;
  const width = handle.parentElement.getBoundingClientRect().width;
  resizeTo(handle.dataset.resize, width + (event.key === "ArrowRight" ? 24 : -24));
  event.preventDefault();
});

on("click", (event) => {
  const tab = event.target.closest("[data-show-panel]");
  if (tab) { showPanel(tab.dataset.showPanel); return; }
  const toggle = event.target.closest("[data-collapse]");
  if (toggle) {
    const name = toggle.dataset.collapse;
    applyLayout(saveLayout({ [name + "Collapsed"]: toggle.getAttribute("aria-expanded") === "true" }));
  }
});
