// What the workspace's end of the bridge makes of a page's fields: each on one
// line, cut where the server cuts it (chat.agent.attachments, through the
// page's limits), and the preview's addresses as the project's paths.
import { LIMITS as CHAT_LIMITS } from "../chat/limits.js";

// Where each field is cut, how many problems one fix sends, and how many one
// load of a page reports: the server's.
export const LIMITS = CHAT_LIMITS.attachments.cut;
export const PROBLEMS_PER_FIX = CHAT_LIMITS.attachments.problem;
export const PROBLEMS_PER_PAGE = CHAT_LIMITS.page_problems;

export const $ = (id) => document.getElementById(id);
export const frame = () => $("preview-frame");
// The preview is served from the sites origin, never this page's own.
const previewForm = () => document.querySelector(".preview-address");
const previewBase = () => (previewForm() ? previewForm().dataset.previewBase : "");
const previewOrigin = () => (previewForm() ? previewForm().dataset.previewOrigin : "");

// Text as it shows: one line, without invisible characters, at most `limit`
// characters (code points). chat.agent.attachments._line does the same, so
// the server keeps exactly what the person saw: the whitespace Python knows,
// then the controls, format characters and lone surrogates it drops.
const SPACE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/g;
export function line(value, limit) {
  if (typeof value !== "string") return "";
  const kept = value.replace(SPACE, " ").replace(/\p{C}/gu, "").replace(/ +/g, " ").trim();
  return Array.from(kept).slice(0, limit).join("").trimEnd();
}

export function text(value, name) {
  return line(value, LIMITS[name]);
}

export function number(value) {
  return Number.isInteger(value) && value >= 0 && value < 1e7 ? value : 0;
}

// A URL of the preview as the project's path ("/js/app.js"), or "" for anything else.
function projectPath(url) {
  const base = previewOrigin() + previewBase();
  if (typeof url !== "string" || !previewOrigin() || !url.startsWith(base)) return "";
  const rest = url.slice(base.length).split(/[?#]/)[0];
  try { return "/" + decodeURIComponent(rest); } catch (_) { return ""; }
}

// A URL of the preview as the project's file: a folder ("/", "/about/")
// shows its index.html. An inline script's errors come with the address of
// its page, which for the home page names no file.
export function filePath(url) {
  const found = projectPath(url);
  return found.endsWith("/") ? found + "index.html" : found;
}

export function pagePath(path) {
  const base = previewBase();
  if (typeof path !== "string" || !path.startsWith(base)) return "";
  // A decoded path may hold what does not show.
  return line(filePath(previewOrigin() + path), LIMITS.page);
}

// A chip's words, as chat.agent.attachments.label draws them in the transcript.
export const bare = (path) => path.replace(/^\/+/, "");

// On a narrow screen the chat is another panel: show it where the chip went.
export function showChat() {
  const tab = document.querySelector("[data-show-panel='chat']");
  if (tab && window.matchMedia("(max-width: 999px)").matches) tab.click();
}

export function tell(order) {
  const preview = frame();
  if (preview && preview.contentWindow) preview.contentWindow.postMessage({ builtitBridge: order }, "*");
}
