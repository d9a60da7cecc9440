// The workspace's end of the preview bridge (page.js, beside it): the
// page's problems under a badge, with "Fix with the assistant"; the element
// picker. Anything in the frame can post messages, as often as it likes, so a
// message counts only from this workspace's preview frame, in the expected
// shape, with every field checked and cut; the rest is dropped and counted.
// Nothing a page sends starts a turn or changes a file: only the person's click.
// What goes to the model is what the person sees: a problem as the panel lists
// it, an element as its chip shows it; chat.agent.attachments keeps
// the same fields, cut and cleaned the same way, and draws the same chips.
import { on } from "../events.js";
import { LIMITS as CHAT_LIMITS } from "../chat/limits.js";

const MAX_PROBLEMS = 50;
const MAX_FIX_IN_A_ROW = 3;
// Where each field is cut, and how many problems one fix sends: the server's.
const LIMITS = CHAT_LIMITS.attachments.cut;
const PROBLEMS_PER_FIX = CHAT_LIMITS.attachments.problem;
const KINDS = ["error", "rejection", "console.error", "console.warn", "resource"];
const NAMES = { error: "Error", rejection: "Unhandled rejection", "console.error": "console.error",
  "console.warn": "console.warn", resource: "Failed to load" };

let problems = [];
let keys = new Set();
let dropped = 0;
let afterAssistant = false;  // the assistant changed files since the page last loaded
let renderTimer = null;

const $ = (id) => document.getElementById(id);
const frame = () => $("preview-frame");
// The preview is served from the sites origin, never this page's own.
const previewForm = () => document.querySelector(".preview-address");
const previewBase = () => (previewForm() ? previewForm().dataset.previewBase : "");
const previewOrigin = () => (previewForm() ? previewForm().dataset.previewOrigin : "");

// Text as it shows: one line, without invisible characters, at most `limit`
// characters (code points). chat.agent.attachments._line does the same, so
// the server keeps exactly what the person saw: the whitespace Python knows,
// then the controls, format characters and lone surrogates it drops.
const SPACE = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/g;
function line(value, limit) {
  if (typeof value !== "string") return "";
  const kept = value.replace(SPACE, " ").replace(/\p{C}/gu, "").replace(/ +/g, " ").trim();
  return Array.from(kept).slice(0, limit).join("").trimEnd();
}

function text(value, name) {
  return line(value, LIMITS[name]);
}

function number(value) {
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
function filePath(url) {
  const found = projectPath(url);
  return found.endsWith("/") ? found + "index.html" : found;
}

function pagePath(path) {
  const base = previewBase();
  if (typeof path !== "string" || !path.startsWith(base)) return "";
  // A decoded path may hold what does not show.
  return line(filePath(previewOrigin() + path), LIMITS.page);
}

// ── messages from the page ─────────────────────────────────────────────
on("message", (event) => {
  const preview = frame();
  if (!preview || event.source !== preview.contentWindow) return;
  const data = event.data && typeof event.data === "object" ? event.data.builtitPreview : null;
  if (!data || typeof data !== "object") { drop(); return; }
  if ("path" in data) return;  // the address box (workspace.js)
  if (typeof data.load === "string") { pageLoaded(); return; }
  if (data.problem && typeof data.problem === "object") { addProblem(data.problem); return; }
  if (data.picked && typeof data.picked === "object") { picked(data.picked); return; }
  if (data.pickEnded === true && picking()) { pickerLeft(); return; }
  drop();
}, { target: window });

function drop() {
  dropped += 1;
  schedule();
}

function pageLoaded() {
  problems = [];
  keys = new Set();
  schedule();
  if (picking()) tell({ pick: true });  // a new page in the frame picks on
}

function addProblem(raw) {
  if (!KINDS.includes(raw.kind)) { drop(); return; }
  const message = text(raw.message, "message");
  if (!message) { drop(); return; }
  const url = text(raw.file, "file");
  const problem = {
    type: "problem", kind: raw.kind, message, url,
    file: line(filePath(url), LIMITS.file), line: number(raw.line), column: number(raw.column),
    page: pagePath(text(raw.page, "page")),
  };
  const key = [problem.kind, problem.message, problem.url, problem.line].join("|");
  if (keys.has(key) || problems.length >= MAX_PROBLEMS) return;
  keys.add(key);
  problems.push(problem);
  schedule();
}

// On a narrow screen the chat is another panel: show it where the chip went.
function showChat() {
  const tab = document.querySelector("[data-show-panel='chat']");
  if (tab && window.matchMedia("(max-width: 999px)").matches) tab.click();
}

// A pick counts only while the person's Pick is on, and only the first one:
// the page cannot attach anything by itself, nor a second thing per press.
function picked(raw) {
  if (!picking()) { drop(); return; }
  picker(false);
  const selector = text(raw.selector, "selector");
  const tag = text(raw.tag, "tag");
  if (!selector || !/^[a-z][a-z0-9-]*$/.test(tag)) { drop(); return; }
  const page = pagePath(text(raw.page, "page")) || "/index.html";
  const item = { type: "element", selector, tag, page, text: text(raw.text, "text") };
  window.builtitChat.attach(item, elementLabel(item), `Selector: ${selector}`);
  showChat();
}

// A chip's words, as chat.agent.attachments.label draws them in the transcript.
const bare = (path) => path.replace(/^\/+/, "");

function elementLabel(item) {
  const shows = item.text ? ` “${item.text}”` : "";
  return `<${item.tag}>${shows} in ${bare(item.page) || "the page"}`;
}

function problemLabel(item) {
  const place = bare(item.file) || bare(item.page) || "the page";
  return `${NAMES[item.kind]} in ${place}${item.line ? `:${item.line}` : ""}`;
}

// ── the problems badge and list (drawn at most every 150 ms, however many come) ─
function schedule() {
  if (renderTimer === null) renderTimer = setTimeout(render, 150);
}

// A problem as the panel lists it, which is all "Fix" sends: its kind, its
// message (for a failed load: what and for which page), where it is. A
// failed load is placed in the page that asked for it, at the line of the
// tag that did (the missing file has no line to show); an error, in its
// script's file, if the project has it (another site's script: no line).
function shown(problem) {
  if (problem.kind === "resource") {
    const message = problem.page
      ? text(`${problem.file || problem.url} (asked for by ${bare(problem.page)})`, "message")
      : problem.message;
    return { type: "problem", kind: problem.kind, message, file: problem.page,
      line: problem.page ? problem.line : 0, column: 0, page: problem.page };
  }
  const placed = Boolean(problem.file);
  return {
    type: "problem", kind: problem.kind, message: problem.message, file: problem.file,
    line: placed ? problem.line : 0, column: placed && problem.line ? problem.column : 0,
    page: problem.page,
  };
}

function where(item) {
  const place = item.file || item.page;
  if (!place) return "";
  const at = item.line ? `:${item.line}` + (item.column ? `:${item.column}` : "") : "";
  return bare(place) + at;
}

function render() {
  renderTimer = null;
  const badge = $("preview-problems");
  const panel = $("problems-panel");
  if (!badge || !panel) return;
  badge.hidden = problems.length === 0;
  badge.querySelector(".problems-count").textContent = String(problems.length);
  if (!problems.length) { panel.hidden = true; badge.setAttribute("aria-expanded", "false"); }
  const list = panel.querySelector(".problems-list");
  list.replaceChildren(...problems.map((problem, index) => {
    const seen = shown(problem);
    const item = document.createElement("li");
    const kind = document.createElement("span");
    kind.className = "problem-kind";
    kind.textContent = NAMES[seen.kind] + " ";
    const message = document.createElement("span");
    message.className = "problem-message";
    message.textContent = seen.message;
    item.append(kind, message);
    const place = where(seen);
    if (place) {
      const open = document.createElement("button");
      open.type = "button";
      open.className = "link small";
      open.dataset.problem = String(index);
      open.textContent = " " + place;
      item.append(" ", open);
    }
    return item;
  }));
  const note = panel.querySelector(".problems-dropped");
  note.hidden = dropped === 0;
  note.textContent = `${dropped} message${dropped === 1 ? "" : "s"} from the page ignored: `
    + "not understood, or not asked for.";
  const offer = panel.querySelector(".problems-offer");
  const fix = panel.querySelector("[data-action='fix-problems']");
  const tired = window.builtitChat.fixesInARow() >= MAX_FIX_IN_A_ROW;
  fix.disabled = tired || !problems.length;
  offer.hidden = !(problems.length && (afterAssistant || tired));
  offer.textContent = tired
    ? `The assistant has tried to fix problems ${MAX_FIX_IN_A_ROW} times in a row. Have a look yourself, or describe what you see.`
    : "The preview reports problems after the assistant's last change.";
  if (problems.length && afterAssistant && !tired && panel.hidden) openList(true);
}

function openList(open) {
  const panel = $("problems-panel");
  const badge = $("preview-problems");
  if (!panel || !badge) return;
  panel.hidden = !open;
  badge.setAttribute("aria-expanded", String(open));
}

on("click", (event) => {
  const target = event.target;
  if (!target.closest) return;
  if (target.closest("[data-action='toggle-problems']")) {
    openList($("problems-panel").hidden);
  } else if (target.closest("[data-action='fix-problems']")) {
    fixProblems();
  } else if (target.closest("[data-problem]")) {
    const problem = problems[Number(target.closest("[data-problem]").dataset.problem)];
    if (!problem) return;
    const seen = shown(problem);
    window.builtitWorkspace.openAt(seen.file || seen.page, seen.line, seen.column);
  } else if (target.closest("[data-action='pick-element']")) {
    const button = target.closest("[data-action='pick-element']");
    picker(button.getAttribute("aria-pressed") !== "true");
  }
});

function fixProblems() {
  if (!problems.length || window.builtitChat.fixesInARow() >= MAX_FIX_IN_A_ROW) return;
  const attached = problems.slice(0, PROBLEMS_PER_FIX).map(shown);
  afterAssistant = false;
  openList(false);
  showChat();  // first: on a phone the box is in the chat's panel
  window.builtitChat.fix(attached, attached.map(problemLabel));
}

// ── the picker ─────────────────────────────────────────────────────────
// Whether it is on is the Pick button's state, which only the person's press
// sets: what they see is what holds, and a new preview pane (New link) comes
// with the button off.
const pickButton = () => document.querySelector("[data-action='pick-element']");

function picking() {
  const button = pickButton();
  return button !== null && button.getAttribute("aria-pressed") === "true";
}

function tell(order) {
  const preview = frame();
  if (preview && preview.contentWindow) preview.contentWindow.postMessage({ builtitBridge: order }, "*");
}

function picker(on) {
  const preview = frame();
  const button = pickButton();
  if (!preview || !button) return;
  tell({ pick: on });
  button.setAttribute("aria-pressed", String(on));
  const hint = $("pick-hint");
  if (hint) hint.hidden = !on;
  if (on) preview.focus();
}

// Esc in the page: the keyboard comes back to the Pick button.
function pickerLeft() {
  picker(false);
  pickButton().focus();
}

on("keydown", (event) => {
  if (picking() && event.key === "Escape") picker(false);
});

// How many fixes in a row changed: the Fix button and the offer follow.
on("builtit:fixes", schedule);

// The assistant changed files: if the reloaded page then reports problems, offer the fix.
on("filesChanged", (event) => {
  if ((event.detail || {}).source === "assistant") afterAssistant = true;
}, { target: document.body });

// The page in the frame may have reported before this script ran (it is
// deferred; the frame loads on its own): ask it to say it all again.
tell({ report: true });

// For scripts and browser tests.
window.builtitBridge = {
  problems: () => problems.map((p) => Object.assign({}, p)),
  dropped: () => dropped,
};
