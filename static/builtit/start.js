// The dashboard's "What do you want to build?": Enter builds, as Enter sends in
// the chat; Shift+Enter adds a line. Sent once: a second Enter while the page
// is on its way would make a second project.
(function () {
  "use strict";
  document.addEventListener("keydown", (event) => {
    if (event.target.id !== "start-request" || event.key !== "Enter") return;
    if (event.shiftKey || event.isComposing) return;
    event.preventDefault();
    event.target.form.requestSubmit();
  });
  document.addEventListener("submit", (event) => {
    if (event.target.id !== "start-form") return;
    if (event.target.dataset.sent) { event.preventDefault(); return; }
    event.target.dataset.sent = "1";
    document.getElementById("start-build").disabled = true;
  });
  // Back to this page from the workspace: the form may be used again.
  window.addEventListener("pageshow", () => {
    const form = document.getElementById("start-form");
    if (!form) return;
    delete form.dataset.sent;
    document.getElementById("start-build").disabled = false;
  });
})();
