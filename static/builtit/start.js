// The dashboard's "What do you want to build?": Enter builds, as Enter sends in
// the chat; Shift+Enter adds a line. An example under the box builds at one
// click. Sent once: a second Enter or click while the page is on its way would
// make a second project.
import { on } from "./events.js";

const FORMS = ["start-form", "start-examples"];
let sent = false;

on("keydown", (event) => {
  if (event.target.id !== "start-request" || event.key !== "Enter") return;
  if (event.shiftKey || event.isComposing) return;
  event.preventDefault();
  event.target.form.requestSubmit();
});

function setBusy(busy) {
  const build = document.getElementById("start-build");
  if (build) build.disabled = busy;
  // Not `disabled`: the example clicked must still send its request with the form.
  for (const example of document.querySelectorAll("#start-examples .example")) {
    if (busy) example.setAttribute("aria-disabled", "true");
    else example.removeAttribute("aria-disabled");
  }
}

on("submit", (event) => {
  if (!FORMS.includes(event.target.id)) return;
  if (sent) { event.preventDefault(); return; }
  sent = true;
  setBusy(true);
});
// Back to this page from the workspace: the forms may be used again.
on("pageshow", () => {
  sent = false;
  setBusy(false);
}, { target: window });
