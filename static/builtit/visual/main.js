// Edit what you see: after Pick, the element's words are edited in place in the
// preview (bridge/page.js) and its style, link, image, place in the panel
// (projects/partials/visual_panel.html). Each change goes to the server
// (projects.views.visual), which writes the smallest edit to the files as the
// person's revision; no model is asked. The preview shows what was written
// without loading the page again where it can (words as typed, a stylesheet
// loaded again, what the server says it wrote to the page done to the element
// there); else the page loads again and the element is picked again there. The
// next change follows on; the editor and the other tabs follow as after a save.
import { on, action } from "../events.js";
import { csrfToken } from "../app/preferences.js";
import { frame, tell, showChat } from "../bridge/fields.js";
import { fill, noColour, relative } from "./fields.js";

const $ = (id) => document.getElementById(id);
const panel = () => $("visual-panel");
const NO_WORDS = ["img", "input", "br", "hr", "video", "audio", "iframe", "select", "textarea"];
let current = null;  // what the page said of the element: path, tag, texts, styles…
let page = "";  // its page's path in the project
let lastRevisions = [];
let reselecting = false;
let made = 0;  // edits made here; a page loaded before the latest one is not taken
let madeAtLoad = 0;
let editingText = false;

// The element the person picked (bridge/picker.js), or picked again after a reload.
export function visualSelect(raw, pagePath, { again = false } = {}) {
  if (!panel() || !raw || !Array.isArray(raw.path) || !raw.path.length) return;
  if (!raw.path.every(Number.isInteger) || typeof raw.tag !== "string") return;
  if (!again) reselecting = false;  // the person's pick wins over picking the last one again
  current = raw;
  page = pagePath || page;
  const box = panel();
  box.hidden = false;
  box.classList.remove("visual-unpicked");
  $("visual-title").firstChild.data = "Edit ";
  box.querySelector(".visual-what").textContent = `<${raw.tag}>`;
  box.querySelectorAll("[data-for-tag]").forEach((row) => { row.hidden = row.dataset.forTag !== raw.tag; });
  box.querySelector("[data-action='visual-edit-text']").hidden = NO_WORDS.includes(raw.tag);
  fill(raw);
  loadChoices();
}

let choicesFor = "";
async function loadChoices() {
  if (choicesFor === page) return;
  choicesFor = page;
  const url = panel().dataset.choicesUrl + "?page=" + encodeURIComponent(page);
  let choices = null;
  try { choices = await (await fetch(url, { credentials: "same-origin" })).json(); } catch (_) { return; }
  document.querySelectorAll("#visual-panel .visual-swatches").forEach((box) => {
    box.replaceChildren(...choices.colours.map((colour) => swatch(colour, $(box.dataset.for))));
  });
  $("visual-links").replaceChildren(...[...choices.pages.map((path) => relative(page, path)), ...choices.sections].map((value) => {
    const option = document.createElement("option");
    option.value = value;
    return option;
  }));
  const images = $("visual-image");
  images.replaceChildren(new Option("— choose an image —", ""), ...choices.images.map((path) => new Option(path, path)));
}

function swatch(colour, input) {
  const button = document.createElement("button");
  button.type = "button";
  button.style.background = colour;
  button.title = colour;
  button.setAttribute("aria-label", `${input.labels[0].textContent}: ${colour}`);
  button.addEventListener("click", () => apply({ kind: "style", name: input.dataset.style, value: colour }));
  return button;
}

// ── one change to the server ───────────────────────────────────────────
// One at a time, in the order made: each names the page as the one before left it.
let queue = Promise.resolve();
function apply(change) {
  queue = queue.then(() => send(change)).catch(() => {});
}

async function send(change) {
  if (!current) return;
  say("Saving…");
  const body = {
    page, source: current.source, kind: change.kind,
    picked: { path: current.path, tag: current.tag, text: current.content || "" }, ...change,
  };
  let answer = null;
  let data = {};
  try {
    answer = await fetch(panel().dataset.editUrl, {
      method: "POST", credentials: "same-origin", body: JSON.stringify(body),
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken(), "X-Builtit-Tab": tabName() },
    });
    data = await answer.json();
  } catch (_) {
    refuse("The change could not reach the server: nothing was changed. Try again.", "");
    return;
  }
  if (!answer.ok || !data.ok) {
    // The rule already says so (chosen again): whether the page shows it is asked again.
    if (change.kind === "style" && data.code === "no_change" && current) { recheck(change); return; }
    refuse(data.error || "The change was not made.", data.ask || describe(change));
    // Words typed in place that were not written must not stay shown as if they were.
    if (answer.status === 409 || change.kind === "text") followed([page]);
    return;
  }
  lastRevisions = data.revisions || [];
  made += 1;
  carriedOn(change, data.source);
  $("visual-panel").querySelector("[data-action='visual-undo']").hidden = false;
  say(`${data.note}. Saved as your edit.`);
  const paths = data.paths || [];
  if (change.kind === "text") {
    // The preview shows the words as they were typed, which is what was written:
    // it stays (no reload, no flash), told the page's new text for the next change.
    tell({ source: current.source });
    document.body.dispatchEvent(new CustomEvent("filesChanged", {
      detail: { paths, source: "preview", shown: true },
    }));
    return;
  }
  if (change.kind === "style" && paths.every((path) => path.endsWith(".css"))) { restyle(change, paths); return; }
  if (data.in_place && typeof data.in_place === "object") { inPlace(change, body.picked, data, paths); return; }
  checking = change.kind === "style" ? change : null;
  followed(paths, change.kind !== "delete");
}

// A change to the page's HTML that the server says it wrote as the preview can
// do it too (move, hide, delete, a link, an image): done to the element there,
// the page not loaded again, told the page's new text for the next change.
// If the preview could not (the element is not what the edit was for), the
// page loads again and shows the file's truth.
const placing = new Map();  // what the preview is doing in place, by order
const PLACING_MOST = 8;  // a frame that navigated away never answers: its orders go
let orders = 0;
function inPlace(change, picked, data, paths) {
  orders += 1;
  placing.set(orders, { change, paths });
  if (placing.size > PLACING_MOST) placing.delete(placing.keys().next().value);
  tell({ apply: data.in_place, path: picked.path, tag: picked.tag, source: data.source, id: orders });
}

export function placed(id, done, raw) {
  const edit = placing.get(id);
  if (!edit) return;
  placing.delete(id);
  const again = edit.change.kind !== "delete";
  if (!done) { checking = edit.change.kind === "style" ? edit.change : null; followed(edit.paths, again); return; }
  // A style's new class is on the element: its stylesheet next, loaded again in place.
  if (edit.change.kind === "style") { restyle(edit.change, edit.paths); return; }
  if (!again) unselect();
  else if (raw && current && raw.tag === current.tag) visualSelect(raw, page, { again: true });
  document.body.dispatchEvent(new CustomEvent("filesChanged", {
    detail: { paths: edit.paths, source: "preview", shown: true },
  }));
}

// The page loaded its stylesheets again in place (or could not: then it loads again).
// A style the page does not show (a more specific rule of the stylesheet still
// sets it) was saved all the same: the person is told, with Undo and the
// request for the assistant at hand, rather than "Saved" over no change.
let restyling = null;
const STYLE_WORDS = {
  color: "colour", "background-color": "background colour", "font-size": "font size",
  padding: "padding", margin: "margin", "border-radius": "corners", "text-align": "alignment",
};
function restyle(change, paths) {
  restyling = change;
  const sheets = paths.filter((path) => path.endsWith(".css"));
  tell({ restyle: sheets, check: { name: change.name, value: change.value } });  // shown in place; the editor and the rest follow
  document.body.dispatchEvent(new CustomEvent("filesChanged", {
    detail: { paths, source: "preview", shown: true },
  }));
}

export function restyled(done, raw, shows = true) {
  const change = restyling;
  if (!change) return;
  restyling = null;
  if (!done) { checking = change; followed([page]); return; }
  if (raw && current && raw.tag === current.tag) visualSelect(raw, page, { again: true });
  if (!shows) notShown(change);
}

function notShown(change, { already = false } = {}) {
  if (!current) return;
  const words = STYLE_WORDS[change.name] || change.name;
  refuse(
    `${already ? "Already saved" : "Saved"}, but another rule of the stylesheet still sets the ` +
      `${words} of this <${current.tag}>, so it does not show. Undo it, or ask the assistant.`,
    `${describe(change)}: a more specific rule of the stylesheet still wins over the edit`,
  );
}

// The element as the change left it, for the next change made before the
// preview has loaded again (which then says it all afresh).
function carriedOn(change, source) {
  if (typeof source === "string" && source) current.source = source;
  if (change.kind === "text") {
    current.texts = change.after;
    current.content = change.after.join("").replace(/\s+/g, " ").trim();
  }
  if (change.kind === "move") {
    current.path = [...current.path.slice(0, -1), current.path[current.path.length - 1] + (change.up ? -1 : 1)];
  }
}

function tabName() {
  return (window.builtitWorkspace && window.builtitWorkspace.tab) || "";
}

// The files changed here: the preview loads again (at once) and picks the same
// element there; the open editor follows.
function followed(paths, pickAgain = true) {
  reselecting = pickAgain;
  if (!pickAgain) unselect();
  document.body.dispatchEvent(new CustomEvent("filesChanged", {
    detail: { paths, source: "preview", now: true },
  }));
}

// A style edit that also wrote the page (a class added for its rule) is
// checked once the page has loaded again, as restyled() checks one in place.
let checking = null;

export function pageLoaded() {
  madeAtLoad = made;
  if (!reselecting || !current) return;
  tell({ select: current.path, check: checking ? { name: checking.name, value: checking.value } : null });
}

// A style chosen again that the stylesheet has already: the page is asked
// whether the element shows it, and the person told why not if it does not.
let rechecking = null;
function recheck(change) {
  rechecking = change;
  tell({ select: current.path, check: { name: change.name, value: change.value } });
}

export function reselected(raw, shows = true) {
  if (rechecking) {
    const change = rechecking;
    rechecking = null;
    if (!shows) { notShown(change, { already: true }); return; }
    const words = STYLE_WORDS[change.name] || change.name;
    if (current) say(`This <${current.tag}> has that ${words} already: nothing to change.`);
    return;
  }
  if (!reselecting || madeAtLoad !== made) return;
  reselecting = false;
  const change = checking;
  checking = null;
  if (raw && current && raw.tag === current.tag) {
    visualSelect(raw, page, { again: true });
    if (change && !shows) notShown(change);
  }
}

// The element is gone (deleted): nothing is picked, and the panel keeps only
// what was said and Undo, until the next pick.
function unselect() {
  current = null;
  panel().classList.add("visual-unpicked");
  $("visual-title").firstChild.data = "Deleted ";
}

function say(text) {
  const box = panel();
  const status = box.querySelector(".visual-status");
  status.textContent = text;
  box.querySelector(".visual-refusal").hidden = true;
  status.scrollIntoView({ block: "nearest" });
}

function refuse(text, ask) {
  const box = panel();
  box.querySelector(".visual-status").textContent = "";
  box.querySelector(".visual-refusal").hidden = false;
  box.querySelector(".visual-refusal-text").textContent = text;
  const offer = box.querySelector("[data-action='visual-ask']");
  offer.dataset.suggest = ask;
  offer.hidden = !ask;  // nothing to ask for (the server could not be reached)
  box.querySelector(".visual-refusal").scrollIntoView({ block: "nearest" });
}

function describe(change) {
  const what = current ? `the <${current.tag}> “${(current.content || "").slice(0, 60)}” on ${page}` : "it";
  const said = {
    text: `Change the text of ${what} to “${(change.after || []).join("")}”`,
    style: `Set ${change.name} of ${what} to ${change.value}`,
    attribute: `Set the ${change.name} of ${what} to “${change.value}”`,
    hide: `Hide ${what}`, delete: `Delete ${what}`,
    move: `Move ${what} ${change.up ? "up" : "down"}`,
  };
  return said[change.kind] || "";
}

// ── the controls ───────────────────────────────────────────────────────
// A field's value goes when it changes (a colour or a choice picked, a field
// left) or with Enter; once per value.
function commit(input) {
  if (input.id === "visual-upload") { if (input.files.length) upload(input); return; }
  if (!input.value || input.value === input.dataset.applied) return;
  input.dataset.applied = input.value;
  if (input.type === "color") noColour(input, false);
  if (input.dataset.style) apply({ kind: "style", name: input.dataset.style, value: input.value });
  // The project's files as the page writes them: from its own folder (the
  // preview is served under an address of its own, so "/x" would leave it).
  const value = input.id === "visual-image" ? relative(page, input.value) : input.value;
  if (input.dataset.attribute) apply({ kind: "attribute", name: input.dataset.attribute, value });
}

const inPanel = (target) => target.closest && target.closest("#visual-panel") && target.matches("input, select");
on("change", (event) => { if (inPanel(event.target)) commit(event.target); });
on("keydown", (event) => {
  if (event.key === "Enter" && inPanel(event.target) && event.target.tagName === "INPUT") {
    event.preventDefault();
    commit(event.target);
  }
});

async function upload(input) {
  const form = new FormData();
  form.append("file", input.files[0]);
  form.append("folder", "images");
  let answer = null;
  try {
    answer = await fetch(document.querySelector("[data-upload-url]")?.dataset.uploadUrl || uploadUrl(), {
      // Named as this tab's: its preview shows the image in place once the page names it.
      method: "POST", credentials: "same-origin", body: form,
      headers: { "X-CSRFToken": csrfToken(), "X-Builtit-Tab": tabName() },
    });
  } catch (_) { answer = null; }
  input.value = "";
  if (!answer || !answer.ok) { refuse("The image could not be uploaded.", ""); return; }
  const name = answer.headers.get("HX-Trigger") || "";
  const path = (name.match(/"paths":\s*\["([^"]+)"/) || [])[1];
  choicesFor = "";
  if (path) apply({ kind: "attribute", name: "src", value: relative(page, path) });
}

function uploadUrl() {
  return panel().dataset.editUrl.replace(/preview-edit\/$/, "files/upload/");
}

action("visual-close", () => { panel().hidden = true; current = null; });
action("visual-hide", () => apply({ kind: "hide" }));
action("visual-delete", () => apply({ kind: "delete" }));
action("visual-move", (event, button) => apply({ kind: "move", up: button.dataset.up === "true" }));
action("visual-edit-text", () => { editingText = true; tell({ editText: true }); frame().focus(); });
action("visual-ask", () => showChat());
action("visual-undo", async () => {
  const answer = await fetch(panel().dataset.undoUrl, {
    method: "POST", credentials: "same-origin", body: JSON.stringify(lastRevisions),
    headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken(), "X-Builtit-Tab": tabName() },
  }).catch(() => null);
  const data = answer ? await answer.json().catch(() => ({})) : {};
  if (!answer || !answer.ok) { refuse(data.error || "The edit could not be taken back.", ""); return; }
  panel().querySelector("[data-action='visual-undo']").hidden = true;
  say("Undone: the files are as they were before that edit.");
  followed(data.paths || []);
});

// The words edited in place (bridge/page.js): kept with Enter or a click outside.
export function textEdited(edited) {
  if (!current) return;
  editingText = false;
  if (!edited) { say("Text left as it was."); return; }
  const same = edited.before.length === edited.after.length && edited.before.every((t, i) => t === edited.after[i]);
  if (same) return;
  apply({ kind: "text", before: edited.before, after: edited.after, markup: edited.markup });
}

export const editing = () => editingText;
