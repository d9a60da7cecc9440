// The conversation's log: it opens at the newest turn, or at the turn a link
// names; it keeps its place while hidden; Copy on an answer's code blocks; a
// site check opened on a phone comes into view.
import { on } from "../events.js";

on("DOMContentLoaded", () => {
  const box = document.getElementById("chat-log");
  if (box) box.scrollTop = box.scrollHeight;
  if (box) keepPlace(box);
  showLinkedTurn(20);
});

// A hidden log (the chat folded away, or another panel shown on a phone)
// forgets how far it was scrolled, and showed the oldest turn once back. It
// comes back where it was left: at the newest turn if it was there.
function keepPlace(box) {
  let place = { top: 0, atBottom: true };
  let hidden = box.clientHeight === 0;
  box.addEventListener("scroll", () => {
    if (!box.clientHeight) return;
    place = { top: box.scrollTop, atBottom: box.scrollHeight - box.scrollTop - box.clientHeight < 80 };
  });
  new ResizeObserver(() => {
    const wasHidden = hidden;
    hidden = box.clientHeight === 0;
    if (!wasHidden || hidden) return;
    box.scrollTop = place.atBottom ? box.scrollHeight : place.top;
  }).observe(box);
}

// A link to a turn (History's "See the turn": #t<id>) opens the chat on it,
// showing earlier messages, a page at a time, until the turn is there.
function showLinkedTurn(pagesLeft) {
  const wanted = /^#(t\d+)$/.exec(location.hash);
  if (!wanted) return;
  const turn = document.getElementById(wanted[1]);
  if (turn) {
    turn.classList.add("linked-turn");
    turn.tabIndex = -1;
    turn.scrollIntoView({ block: "start" });
    turn.focus({ preventScroll: true });
    return;
  }
  const earlier = document.querySelector("#chat-log .chat-earlier button");
  if (!earlier || pagesLeft <= 0) return;
  const off = on("htmx:afterSettle", () => {
    if (document.body.contains(earlier)) return;  // another swap settled
    off();
    showLinkedTurn(pagesLeft - 1);
  });
  earlier.click();
}
on("hashchange", () => showLinkedTurn(20), { target: window });

// A site check opened on a phone can reach below the fold: bring it in view.
on("toggle", (event) => {
  const opened = event.target;
  if (opened.matches && opened.matches(".site-check details") && opened.open) {
    opened.scrollIntoView({ block: "nearest" });
  }
}, { capture: true });

// ── Copy on an answer's code blocks (drawn by chat.render.markdown) ──────
on("click", (event) => {
  const button = event.target.closest && event.target.closest("[data-copy-code]");
  const code = button && button.parentElement.querySelector("pre");
  if (!code) return;
  const said = (words) => {
    button.textContent = words;
    setTimeout(() => { button.textContent = "Copy"; }, 1500);
  };
  if (!navigator.clipboard) { said("Select the code to copy it"); return; }
  navigator.clipboard.writeText(code.textContent).then(() => said("Copied"), () => said("Could not copy"));
});
