// The workspace's dialogs: a turn's changes (diffs, undo and restore), a
// file's history, Publish; and the conversation compacted by hand.
import { on, action } from "../events.js";
import { grid } from "./page.js";

// A diff is side by side where there is room for two columns, inline otherwise,
// unless the person picked a layout.
const DIFF_URL = /\/turns\/\d+\/changes\/|\/revisions\/\d+\/diff\//;
on("htmx:configRequest", (event) => {
  const path = event.detail.path || "";
  if (!DIFF_URL.test(path) || /[?&]layout=/.test(path)) return;
  event.detail.parameters.layout = window.matchMedia("(min-width: 1100px)").matches ? "split" : "inline";
});

// The changes, Publish and Share dialogs open when their content arrives.
const DIALOG_BODIES = {
  "changes-body": "changes-dialog", "publish-body": "publish-dialog", "share-body": "share-dialog",
};
on("htmx:afterSwap", (event) => {
  const target = event.detail.target;
  const id = target ? DIALOG_BODIES[target.id] : null;
  const dialog = id ? document.getElementById(id) : null;
  if (!dialog) return;
  const opening = !dialog.open;
  if (opening) dialog.showModal();
  if (target.id === "changes-body") showFromTop(dialog, opening);
});
// A closed Publish dialog asks the server nothing more (its domain's proof
// is asked after every few seconds while it is open), and Share opens on who
// is in now: a closed one's content goes.
for (const [body, id] of [["publish-body", "publish-dialog"], ["share-body", "share-dialog"]]) {
  const dialog = document.getElementById(id);
  if (dialog) dialog.addEventListener("close", () => { document.getElementById(body).replaceChildren(); });
}

// A turn's changes read from their title down: the dialog's own first stop
// (Close, under a long list of new files) would open it scrolled to the end.
// The title takes the focus on opening, or when what had it was replaced.
function showFromTop(dialog, opening) {
  dialog.scrollTop = 0;
  const title = dialog.querySelector("#changes-title");
  if (!title || !(opening || !dialog.contains(document.activeElement))) return;
  title.tabIndex = -1;
  title.focus({ preventScroll: true });
}

// Folded unchanged lines travel hidden in the row group after the button.
action("unfold", (event, button) => {
  event.preventDefault();
  const group = button.closest("tbody");
  const hidden = group ? group.nextElementSibling : null;
  if (hidden) hidden.hidden = false;
  button.closest("tr").remove();
});

// A form that closes its dialog (data-closes-dialog) does so once it worked.
on("htmx:afterRequest", (event) => {
  const elt = event.detail.elt;
  // 4xx answers are swapped in (they carry the explanation) but are not successes.
  if (!event.detail.xhr || event.detail.xhr.status >= 300) return;
  if (elt && elt.hasAttribute && elt.hasAttribute("data-closes-dialog")) {
    const dialog = elt.closest("dialog");
    if (dialog) dialog.close();
  }
});

// The conversation's earlier turns summarised for the model, by hand: the
// answer goes to the chat's notice, and redraws the latest turn with its mark.
action("compact", (event, button) => {
  event.preventDefault();
  const select = document.getElementById("conversation-select");
  if (!select || !select.value) return;
  document.querySelectorAll("[data-action=compact]").forEach((each) => { each.disabled = true; });
  button.textContent = "Compacting…";
  const notice = document.getElementById("chat-notice");
  if (notice) {
    notice.setAttribute("role", "status");
    notice.innerHTML = '<p class="compact-result">Summarising the earlier turns for the model…</p>';
  }
  htmx.ajax("POST", grid().dataset.compactUrl, {
    values: { conversation: select.value }, target: "#chat-notice", swap: "outerHTML",
  }).finally(() => {
    document.querySelectorAll("[data-action=compact]").forEach((each) => { each.disabled = false; });
    if (button.isConnected) button.textContent = "Compact the conversation";
  });
});
