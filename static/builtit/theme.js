// Light, dark, or as the system is: read before the page paints (not deferred),
// so a dark page does not flash white. The switch is in app/theme.js.
(function () {
  "use strict";
  // The signed-in person's choice comes with the page; otherwise this browser's.
  let theme = document.documentElement.dataset.themePreference || "";
  if (!theme) {
    try { theme = localStorage.getItem("builtit:theme") || "auto"; } catch (_) { /* private mode */ }
  }
  if (theme === "light" || theme === "dark") document.documentElement.dataset.theme = theme;
})();
