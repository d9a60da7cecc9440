// The live preview's address box, and the frame loaded again after a change to
// the files (with the open file following it: follow.js).
import { on } from "../events.js";
import { TAB } from "./page.js";
import { CHANGED_BY } from "./editor.js";
import { changedElsewhere } from "./follow.js";

const MAX_ADDRESS = 1000;
let previewTimer = null;

// A path on the sites origin, which serves the preview (never this page's origin).
function previewBase() {
  return document.querySelector(".preview-address").dataset.previewBase;
}

function previewOrigin() {
  return document.querySelector(".preview-address").dataset.previewOrigin;
}

// The address box holds a path relative to the preview base, perhaps with a
// ?query or #fragment, which are kept as they are.
function previewUrl() {
  const address = document.getElementById("preview-address").value.trim().replace(/^\/+/, "");
  const cut = address.search(/[?#]/);
  const path = cut < 0 ? address : address.slice(0, cut);
  const rest = cut < 0 ? "" : address.slice(cut);
  return previewOrigin() + previewBase() + path.split("/").map(encodeURIComponent).join("/") + rest;
}

function decoded(segment) {
  try { return decodeURIComponent(segment); } catch (error) { return segment; }
}

const UNSHOWABLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const showable = (text) => text.replace(UNSHOWABLE, "");

// The page in the frame reports where it is (projects/views/preview.py adds the
// script). Anything in the frame can send messages, so the message is only
// ever text for the address box: from the frame, in the expected shape, under
// this project's preview base, without control or direction-changing
// characters, of a sane length. A browser-made path has no "." or ".."
// segments, even once decoded, so one that does is not the frame's location.
function reportedAddress(event) {
  const frame = document.getElementById("preview-frame");
  if (!frame || event.source !== frame.contentWindow) return null;
  const data = event.data;
  const report = data && typeof data === "object" ? data.builtitPreview : null;
  const path = report && typeof report === "object" ? report.path : null;
  const base = previewBase();
  if (typeof path !== "string" || path.length > MAX_ADDRESS || !path.startsWith(base)) return null;
  const relative = path.slice(base.length);
  const cut = relative.search(/[?#]/);
  const pagePath = cut < 0 ? relative : relative.slice(0, cut);
  const page = showable(pagePath.split("/").map(decoded).join("/"));
  if (page.split("/").some((segment) => segment === "." || segment === "..")) return null;
  return page + showable(cut < 0 ? "" : relative.slice(cut));
}

on("message", (event) => {
  const address = reportedAddress(event);
  const input = document.getElementById("preview-address");
  // Someone typing an address is not interrupted.
  if (address === null || !input || document.activeElement === input) return;
  input.value = address;
  document.getElementById("preview-open").href = previewUrl();
}, { target: window });

function reloadPreview() {
  const frame = document.getElementById("preview-frame");
  if (!frame) return;
  const url = previewUrl();
  document.getElementById("preview-open").href = url;
  // A sandboxed frame has an opaque origin: it cannot be reloaded in place,
  // but setting src (even to the same address) navigates it again.
  frame.src = url;
}

// One reload for a burst of changes; it returns to the page the frame last
// reported, since that is what the address box holds.
on("filesChanged", (event) => {
  const detail = event.detail || {};
  if (detail.source === "person" && detail.tab === TAB) return;  // followed already
  if (detail.shown) {  // a visual edit the preview shows already, in place (visual/main.js)
    if (detail.source in CHANGED_BY) changedElsewhere(detail.paths, detail.source, detail.who);
    return;
  }
  clearTimeout(previewTimer);
  // A visual edit made here is shown at once (visual/main.js).
  previewTimer = setTimeout(reloadPreview, detail.now ? 0 : 250);
  if (detail.source in CHANGED_BY) changedElsewhere(detail.paths, detail.source, detail.who);
}, { target: document.body });

on("submit", (event) => {
  if (event.target.matches(".preview-address")) { event.preventDefault(); reloadPreview(); }
});

// Back after the chat's socket was down: the files may have changed meanwhile.
on("builtit:reconnected", () => reloadPreview(), { target: document.body });
