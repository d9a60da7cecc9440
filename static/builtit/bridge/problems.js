// The page's problems under a badge, with "Fix with the assistant": what the
// page reported, checked and cut, at most so many per page load, listed as
// they go to the model; and how many messages from the page were ignored.
import { on, action } from "../events.js";
import {
  $, PROBLEMS_PER_FIX, PROBLEMS_PER_PAGE, bare, filePath, line, LIMITS, number, pagePath, showChat, text,
} from "./fields.js";

const MAX_FIX_IN_A_ROW = 3;
const KINDS = ["error", "rejection", "console.error", "console.warn", "resource"];
const NAMES = { error: "Error", rejection: "Unhandled rejection", "console.error": "console.error",
  "console.warn": "console.warn", resource: "Failed to load" };

let problems = [];
let keys = new Set();
let dropped = 0;
let afterAssistant = false;  // the assistant changed files since the page last loaded
let renderTimer = null;

// A message from the page not understood, or not asked for: counted.
export function drop() {
  dropped += 1;
  schedule();
}

// A new page in the frame: its problems start again.
export function problemsCleared() {
  problems = [];
  keys = new Set();
  schedule();
}

export function addProblem(raw) {
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
  if (keys.has(key) || problems.length >= PROBLEMS_PER_PAGE) return;
  keys.add(key);
  problems.push(problem);
  schedule();
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

action("toggle-problems", () => openList($("problems-panel").hidden));
action("fix-problems", () => fixProblems());
on("click", (event) => {
  const target = event.target;
  if (!target.closest || !target.closest("[data-problem]")) return;
  const problem = problems[Number(target.closest("[data-problem]").dataset.problem)];
  if (!problem) return;
  const seen = shown(problem);
  window.builtitWorkspace.openAt(seen.file || seen.page, seen.line, seen.column);
});

function fixProblems() {
  if (!problems.length || window.builtitChat.fixesInARow() >= MAX_FIX_IN_A_ROW) return;
  const attached = problems.slice(0, PROBLEMS_PER_FIX).map(shown);
  afterAssistant = false;
  openList(false);
  showChat();  // first: on a phone the box is in the chat's panel
  window.builtitChat.fix(attached, attached.map(problemLabel));
}

// How many fixes in a row changed: the Fix button and the offer follow.
on("builtit:fixes", schedule);

// The assistant changed files: if the reloaded page then reports problems, offer the fix.
on("filesChanged", (event) => {
  if ((event.detail || {}).source === "assistant") afterAssistant = true;
}, { target: document.body });

export const problemsNow = () => problems.map((p) => Object.assign({}, p));
export const droppedNow = () => dropped;
