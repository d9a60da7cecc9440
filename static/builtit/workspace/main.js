// The workspace: the editor on the open file, its actions, uploads, the
// dialogs, the layout and the live preview's address, each a module here;
// this one opens the page and gives scripts and browser tests their handle.
import { on, action } from "../events.js";
import { grid, TAB, NARROW, saveLayout } from "./page.js";
import { currentEditor, currentText, isDirty, mountEditor, openPath, pageLoaded, watchTree } from "./editor.js";
import { applyLayout, panelShownLast, showPanel } from "./layout.js";
import { openAt } from "./files.js";
import "./follow.js";
import "./dialogs.js";
import "./address.js";
import "./uploads.js";
import "./presence.js";

// Every change this page asks for says which tab it came from (see TAB).
on("htmx:configRequest", (event) => {
  event.detail.headers["X-Builtit-Tab"] = TAB;
});

// The keyless notice, closed for good (chat/partials/setup.html).
action("close-setup-notice", (event, close) => {
  close.closest(".model-setup").remove();
  saveLayout({ setupNoticeClosed: true });
  const input = document.getElementById("composer-input");
  if (input) input.focus();
});

// Once a turn here was the demo's, the notice has said its piece: one line.
on("htmx:wsAfterMessage", () => {
  const notice = document.querySelector("#model-setup[data-demo-model]:not(.brief)");
  const footers = notice ? document.querySelectorAll("#chat-log .turn-footer") : [];
  const last = footers.length ? footers[footers.length - 1] : null;
  const model = last && !last.classList.contains("running") ? last.querySelector(".model") : null;
  if (model && model.textContent.trim() === notice.dataset.demoModel) notice.classList.add("brief");
});

// A request sent from the dashboard starts its turn as the page opens: the chat
// is the panel shown, and on a phone, where the message box would bring up the
// keyboard over the turn, the focus goes to the turn once it shows (unless the
// person has gone somewhere meanwhile).
let awaitingOpening = false;
on("htmx:wsAfterMessage", () => {
  if (!awaitingOpening) return;
  const turns = document.querySelectorAll("#chat-log article.turn");
  if (!turns.length) return;
  awaitingOpening = false;
  if (!NARROW.matches || (document.activeElement && document.activeElement !== document.body)) return;
  const turn = turns[turns.length - 1];
  turn.tabIndex = -1;
  turn.focus({ preventScroll: true });
});

on("DOMContentLoaded", () => {
  mountEditor();
  pageLoaded();
  watchTree();
  applyLayout();
  const panel = panelShownLast();
  awaitingOpening = grid() !== null && grid().hasAttribute("data-opening");
  // A link to a turn (#t<id>, from History) is a request to see the chat.
  if (awaitingOpening || /^#t\d+$/.test(location.hash)) showPanel("chat");
  else if (panel) showPanel(panel);
  // The page opens ready to talk to the assistant.
  const input = document.getElementById("composer-input");
  if (input && !NARROW.matches) input.focus();
});

// For scripts and browser tests: the open file's editor and text, without
// creating an editor of their own.
window.builtitWorkspace = {
  tab: TAB,
  openAt: openAt,
  editor: currentEditor,
  text: () => (openPath() ? currentText() : null),
  isDirty: isDirty,
};
