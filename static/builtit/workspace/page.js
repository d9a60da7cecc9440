// What the workspace's modules share: the page's grid and its addresses, this
// tab's name, the narrow layout, the page's own questions and requests, and
// the person's preferences.
import { savePreferences } from "../app/preferences.js";

export const grid = () => document.querySelector(".workspace-grid");

// This page among the project's open tabs: its own changes come back to it over
// the chat's socket (chat.live.broadcast) and are not followed twice.
export const TAB = Math.random().toString(36).slice(2, 12) + Date.now().toString(36);

export const NARROW = window.matchMedia("(max-width: 999px)");

// The page's own dialog (app/ask.js), never the browser's: a preview loading
// again closes those, answered "no".
export { ask } from "../app/ask.js";

export function request(method, url, values, target) {
  return htmx.ajax(method, url, { values: values, target: target || "#editor-pane", swap: "innerHTML" });
}

export function openUrl(path) {
  return grid().dataset.openUrl + "?path=" + encodeURIComponent(path);
}

// What an error answer says, as text (parsed inert: nothing in it runs or loads).
export function answerText(html) {
  const page = new DOMParser().parseFromString(html || "", "text/html");
  return page.body ? page.body.textContent.trim() : "";
}

// The person's preferences come with the page and go back to the server
// (projects.web.preferences), so they follow the person to any browser.
export let preferences = {};
try {
  const data = document.getElementById("workspace-preferences");
  preferences = (data && JSON.parse(data.textContent)) || {};
} catch (_) { preferences = {}; }

let pending = {};
let saveTimer = null;
export function saveLayout(change) {
  Object.assign(preferences, change);
  Object.assign(pending, change);
  clearTimeout(saveTimer);
  saveTimer = setTimeout(() => { savePreferences(pending); pending = {}; }, 400);
  return preferences;
}
