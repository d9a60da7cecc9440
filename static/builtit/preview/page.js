// What the preview's modules share: the page's grid, the screen widths they
// follow, what this browser keeps, and the editor's size.
export const grid = () => document.querySelector(".workspace-grid");
export const $ = (id) => document.getElementById(id);
export const WIDE = window.matchMedia("(min-width: 1000px)");
export const STACKED = window.matchMedia("(min-width: 1000px) and (max-width: 1599px)");
export const NARROW = window.matchMedia("(max-width: 999px)");
export const TABLET = window.matchMedia("(min-width: 768px) and (max-width: 999px)");
export const PHONE = window.matchMedia("(max-width: 599px)");

export function remembered(storage, key) {
  try { return storage.getItem(key); } catch (_) { return null; }  // private mode
}

export function remember(storage, key, value) {
  try { storage.setItem(key, value); } catch (_) { /* private mode */ }
}

export function resizeEditor() {
  const editor = window.builtitWorkspace && window.builtitWorkspace.editor();
  if (editor) editor.resize();
}
