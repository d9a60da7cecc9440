// The theme switch: auto (the system's), light, dark; read before the page
// paints by theme.js.
import { on } from "../events.js";
import { savePreferences } from "./preferences.js";

const THEMES = ["auto", "light", "dark"];
function currentTheme() {
  const chosen = document.documentElement.dataset.themePreference;
  if (chosen) return chosen;
  try { return localStorage.getItem("builtit:theme") || "auto"; } catch (_) { return "auto"; }
}
function showTheme() {
  const theme = currentTheme();
  if (theme === "auto") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  document.querySelectorAll(".theme-name").forEach((name) => { name.textContent = theme; });
  document.dispatchEvent(new CustomEvent("builtit:theme"));
}
on("click", (event) => {
  if (!event.target.closest("[data-action='cycle-theme']")) return;
  const next = THEMES[(THEMES.indexOf(currentTheme()) + 1) % THEMES.length];
  document.documentElement.dataset.themePreference = next;
  try { localStorage.setItem("builtit:theme", next); } catch (_) { /* private mode */ }
  savePreferences({ theme: next });
  showTheme();
});
on("DOMContentLoaded", showTheme);
