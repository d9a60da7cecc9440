// What the page tells the person: a request that failed, or whose answer had
// nowhere to go, said in the toast instead of failing silently; and the
// page's messages, closed on request.
import { on } from "../events.js";

let hideTimer = null;

export function toast(text) {
  const box = document.getElementById("toast");
  if (!box) return;
  box.textContent = text;
  box.hidden = false;
  clearTimeout(hideTimer);
  hideTimer = setTimeout(() => { box.hidden = true; }, 8000);
}

const CHANGED_MEANWHILE = "The page changed while the server answered, so its answer was not " +
  "shown. Reload the page to see where things stand.";

// No answer replaces the whole page: every request here is made for a part
// of it. One whose part has gone (replaced while it was on its way) is told,
// never swapped into the page around it.
on("htmx:beforeSwap", (event) => {
  const target = event.detail.target;
  if (target === document.body || target === document.documentElement) {
    event.detail.shouldSwap = false;
    toast(CHANGED_MEANWHILE);
  }
});
on("htmx:targetError", () => toast(CHANGED_MEANWHILE));

on("htmx:responseError", () => {
  toast("The server could not finish that request. Nothing was lost; please try again.");
});
on("htmx:sendError", () => {
  toast("Could not reach the server. Check your connection; your edits are still here.");
});
on("click", (event) => {
  if (event.target.closest("#toast")) document.getElementById("toast").hidden = true;
  // The page's messages (an import's list of what it left out…) close on request.
  if (event.target.closest("[data-action='close-messages']")) {
    document.getElementById("messages").remove();
    window.dispatchEvent(new Event("resize"));  // the space it took goes to the page
  }
});
