// The file panel's search (projects.views.search): Ctrl/Cmd+Shift+F goes to the
// box from anywhere, the editor included; Enter searches; ↓ and ↑ move through
// the results; Enter or a click on one opens its file at its line.
import { on } from "./events.js";

const input = () => document.getElementById("file-search-input");
const hits = () => [...document.querySelectorAll("#search-results .search-hit")];

// The box is in the file panel: on a narrow screen that panel is shown first,
// and where the person hid it, it comes back.
function focusSearch() {
  const box = input();
  if (!box) return;
  const tab = document.querySelector("[data-show-panel='files']");
  if (tab && tab.getClientRects().length) tab.click();
  const toggle = document.querySelector("[data-collapse='files'][aria-expanded='false']");
  if (toggle) toggle.click();
  box.focus();
  box.select();
}

// In the capture phase, so the editor does not take the keys first.
on("keydown", (event) => {
  if (!(event.ctrlKey || event.metaKey) || !event.shiftKey || event.altKey) return;
  if (event.key.toLowerCase() !== "f") return;
  event.preventDefault();
  event.stopPropagation();
  focusSearch();
}, { capture: true });

on("keydown", (event) => {
  if (!["ArrowDown", "ArrowUp"].includes(event.key)) return;
  const list = hits();
  if (!list.length) return;
  const at = list.indexOf(event.target);
  if (event.target === input() && event.key === "ArrowDown") list[0].focus();
  else if (at === 0 && event.key === "ArrowUp") input().focus();
  else if (at >= 0) list[Math.min(list.length - 1, at + (event.key === "ArrowDown" ? 1 : -1))].focus();
  else return;
  event.preventDefault();
});

on("click", (event) => {
  const hit = event.target.closest && event.target.closest("#search-results .search-hit");
  if (!hit || !window.builtitWorkspace) return;
  window.builtitWorkspace.openAt(hit.dataset.path, Number(hit.dataset.line) || 1, 0);
});

// Matching case or not: the same search again, the other way.
on("change", (event) => {
  if (!event.target.closest || !event.target.closest("#file-search .search-case")) return;
  if (input().value.trim()) event.target.form.requestSubmit();
});

// The box emptied (by hand or its ✕): the old results go with it.
on("input", (event) => {
  if (event.target !== input() || event.target.value.trim() !== "") return;
  document.getElementById("search-results").replaceChildren();
});
