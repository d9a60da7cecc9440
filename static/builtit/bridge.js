// The workspace's end of the preview bridge (projects/preview_bridge.js): the
// page's problems under a badge, with "Fix with the assistant"; the element
// picker. Anything in the frame can post messages, as often as it likes, so a
// message counts only from this workspace's preview frame, in the expected
// shape, with every field checked and cut; the rest is dropped and counted.
// Nothing a page sends starts a turn or changes a file: only the person's click.
(function () {
  "use strict";
  const MAX_PROBLEMS = 50;
  const MAX_FIX_IN_A_ROW = 3;
  const LIMITS = { message: 500, file: 300, stack: 1500, page: 300, selector: 300, tag: 40,
    id: 100, classes: 200, html: 1500, text: 300 };
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
  const previewBase = () => {
    const form = document.querySelector(".preview-address");
    return form ? form.dataset.previewBase : "";
  };

  function text(value, name) {
    return typeof value === "string" ? value.slice(0, LIMITS[name]) : "";
  }

  function number(value) {
    return Number.isInteger(value) && value >= 0 && value < 1e7 ? value : 0;
  }

  // A URL of the preview as the project's path ("/js/app.js"), or "" for anything else.
  function projectPath(url) {
    const base = location.origin + previewBase();
    if (typeof url !== "string" || !url.startsWith(base)) return "";
    const rest = url.slice(base.length).split(/[?#]/)[0];
    try { return "/" + decodeURIComponent(rest); } catch (_) { return ""; }
  }

  function pagePath(path) {
    const base = previewBase();
    if (typeof path !== "string" || !path.startsWith(base)) return "";
    const found = projectPath(location.origin + path);
    return found.endsWith("/") ? found + "index.html" : found;  // a folder shows its index.html
  }

  // ── messages from the page ─────────────────────────────────────────────
  window.addEventListener("message", (event) => {
    const preview = frame();
    if (!preview || event.source !== preview.contentWindow) return;
    const data = event.data && typeof event.data === "object" ? event.data.builtitPreview : null;
    if (!data || typeof data !== "object") { drop(); return; }
    if ("path" in data) return;  // the address box (workspace.js)
    if (typeof data.load === "string") { pageLoaded(); return; }
    if (data.problem && typeof data.problem === "object") { addProblem(data.problem); return; }
    if (data.picked && typeof data.picked === "object") { picked(data.picked); return; }
    if (data.pickEnded === true) { pickerShown(false); return; }
    drop();
  });

  function drop() {
    dropped += 1;
    schedule();
  }

  function pageLoaded() {
    problems = [];
    keys = new Set();
    schedule();
  }

  function addProblem(raw) {
    if (!KINDS.includes(raw.kind)) { drop(); return; }
    const message = text(raw.message, "message");
    if (!message) { drop(); return; }
    const url = text(raw.file, "file");
    const problem = {
      type: "problem", kind: raw.kind, message, url,
      file: projectPath(url), line: number(raw.line), column: number(raw.column),
      stack: text(raw.stack, "stack"), page: pagePath(text(raw.page, "page")),
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

  function picked(raw) {
    pickerShown(false);
    const selector = text(raw.selector, "selector");
    const tag = text(raw.tag, "tag");
    if (!selector || !/^[a-z][a-z0-9-]*$/.test(tag)) { drop(); return; }
    const page = pagePath(text(raw.page, "page")) || "/index.html";
    window.builtitChat.attach({
      type: "element", selector, tag, page, id: text(raw.id, "id"),
      classes: text(raw.classes, "classes"), html: text(raw.html, "html"), text: text(raw.text, "text"),
    }, `${selector} in ${page.replace(/^\//, "")}`);
    showChat();
  }

  // ── the problems badge and list (drawn at most every 150 ms, however many come) ─
  function schedule() {
    if (renderTimer === null) renderTimer = setTimeout(render, 150);
  }

  function where(problem) {
    const file = problem.file || problem.page;
    if (!file) return "";
    return file.replace(/^\//, "") + (problem.line ? `:${problem.line}` : "");
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
      const item = document.createElement("li");
      const kind = document.createElement("span");
      kind.className = "problem-kind";
      kind.textContent = NAMES[problem.kind] + " ";
      const message = document.createElement("span");
      message.className = "problem-message";
      message.textContent = problem.kind === "resource" && problem.page
        ? `${problem.file || problem.url} (asked for by ${problem.page.replace(/^\//, "")})`
        : problem.message;
      item.append(kind, message);
      const file = problem.kind === "resource" ? problem.page : problem.file;
      if (file) {
        const open = document.createElement("button");
        open.type = "button";
        open.className = "link small";
        open.dataset.problem = String(index);
        open.textContent = " " + (problem.kind === "resource" ? file.replace(/^\//, "") : where(problem));
        item.append(" ", open);
      }
      return item;
    }));
    const note = panel.querySelector(".problems-dropped");
    note.hidden = dropped === 0;
    note.textContent = `${dropped} message${dropped === 1 ? "" : "s"} from the page were not understood and ignored.`;
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

  document.addEventListener("click", (event) => {
    const target = event.target;
    if (!target.closest) return;
    if (target.closest("[data-action='toggle-problems']")) {
      openList($("problems-panel").hidden);
    } else if (target.closest("[data-action='fix-problems']")) {
      fixProblems();
    } else if (target.closest("[data-problem]")) {
      const problem = problems[Number(target.closest("[data-problem]").dataset.problem)];
      if (problem) window.builtitWorkspace.openAt(problem.kind === "resource" ? problem.page : problem.file,
        problem.kind === "resource" ? 0 : problem.line, problem.column);
    } else if (target.closest("[data-action='pick-element']")) {
      const button = target.closest("[data-action='pick-element']");
      picker(button.getAttribute("aria-pressed") !== "true");
    }
  });

  function fixProblems() {
    if (!problems.length || window.builtitChat.fixesInARow() >= MAX_FIX_IN_A_ROW) return;
    const attached = problems.slice(0, 10).map((p) => ({
      type: "problem", kind: p.kind, message: p.message, file: p.file, line: p.line,
      column: p.column, stack: p.stack, page: p.page,
    }));
    window.builtitChat.fix(attached, problems.slice(0, 10).map((p) => `${NAMES[p.kind]} ${where(p)}`.trim()));
    afterAssistant = false;
    openList(false);
    showChat();
  }

  // ── the picker ─────────────────────────────────────────────────────────
  function picker(on) {
    const preview = frame();
    if (!preview || !preview.contentWindow) return;
    preview.contentWindow.postMessage({ builtitBridge: { pick: on } }, "*");
    pickerShown(on);
    if (on) preview.focus();
  }

  function pickerShown(on) {
    const button = document.querySelector("[data-action='pick-element']");
    if (button) button.setAttribute("aria-pressed", String(on));
  }

  document.addEventListener("keydown", (event) => {
    const button = document.querySelector("[data-action='pick-element'][aria-pressed='true']");
    if (button && event.key === "Escape") picker(false);
  });

  // How many fixes in a row changed: the Fix button and the offer follow.
  document.addEventListener("builtit:fixes", schedule);

  // The assistant changed files: if the reloaded page then reports problems, offer the fix.
  document.body.addEventListener("filesChanged", (event) => {
    if ((event.detail || {}).source === "assistant") afterAssistant = true;
  });

  // The page in the frame may have reported before this script ran (it is
  // deferred; the frame loads on its own): ask it to say it all again.
  function askAgain() {
    const preview = frame();
    if (preview && preview.contentWindow) {
      preview.contentWindow.postMessage({ builtitBridge: { report: true } }, "*");
    }
  }
  askAgain();

  // For scripts and browser tests.
  window.builtitBridge = {
    problems: () => problems.map((p) => Object.assign({}, p)),
    dropped: () => dropped,
  };
})();
