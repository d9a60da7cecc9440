// Site-wide: tell the person when a request failed instead of failing silently.
(function () {
  "use strict";
  let hideTimer = null;

  function toast(text) {
    const box = document.getElementById("toast");
    if (!box) return;
    box.textContent = text;
    box.hidden = false;
    clearTimeout(hideTimer);
    hideTimer = setTimeout(() => { box.hidden = true; }, 8000);
  }
  window.builtitToast = toast;

  document.addEventListener("htmx:responseError", () => {
    toast("The server could not finish that request. Nothing was lost; please try again.");
  });
  document.addEventListener("htmx:sendError", () => {
    toast("Could not reach the server. Check your connection; your edits are still here.");
  });
  document.addEventListener("click", (event) => {
    if (event.target.closest("#toast")) document.getElementById("toast").hidden = true;
  });
})();
