// The workspace's end of the preview bridge (page.js, beside it): the
// page's problems under a badge, with "Fix with the assistant" (problems.js);
// the element picker (picker.js). Anything in the frame can post messages, as often as it likes, so a
// message counts only from this workspace's preview frame, in the expected
// shape, with every field checked and cut; the rest is dropped and counted.
// Nothing a page sends starts a turn or changes a file: only the person's click.
// What goes to the model is what the person sees: a problem as the panel lists
// it, an element as its chip shows it; chat.agent.attachments keeps
// the same fields, cut and cleaned the same way, and draws the same chips.
import { on } from "../events.js";
import { frame, tell } from "./fields.js";
import { addProblem, drop, droppedNow, problemsCleared, problemsNow } from "./problems.js";
import { picked, picking, pickerLeft } from "./picker.js";
import { pageLoaded as visualPageLoaded, placed, reselected, restyled, textEdited } from "../visual/main.js";

// ── messages from the page ─────────────────────────────────────────────
on("message", (event) => {
  const preview = frame();
  if (!preview || event.source !== preview.contentWindow) return;
  const data = event.data && typeof event.data === "object" ? event.data.builtitPreview : null;
  if (!data || typeof data !== "object") { drop(); return; }
  if ("path" in data) return;  // the address box (workspace/address.js)
  if (typeof data.load === "string") { pageLoaded(); return; }
  if (data.problem && typeof data.problem === "object") { addProblem(data.problem); return; }
  if (data.picked && typeof data.picked === "object") { picked(data.picked); return; }
  if (data.pickEnded === true && picking()) { pickerLeft(); return; }
  if ("restyled" in data) {
    restyled(data.restyled === true, data.selected && typeof data.selected === "object" ? data.selected : null, data.shows !== false);
    return;
  }
  if ("applied" in data) {
    const selected = data.selected && typeof data.selected === "object" ? data.selected : null;
    placed(data.id, data.applied === true, selected);
    return;
  }
  if ("selected" in data) {
    reselected(data.selected && typeof data.selected === "object" ? data.selected : null, data.shows !== false);
    return;
  }
  if ("edited" in data) { textEdited(editedFields(data.edited)); return; }
  drop();
}, { target: window });

// Words edited in place: two lists of text, as long as the element has pieces.
function editedFields(raw) {
  if (!raw || typeof raw !== "object") return null;
  const list = (value) => (Array.isArray(value) && value.length <= 200 && value.every((t) => typeof t === "string")
    ? value : null);
  const before = list(raw.before);
  const after = list(raw.after);
  const markup = typeof raw.markup === "string" && raw.markup.length <= 20000 ? raw.markup : "";
  return before && after ? { before, after, markup } : null;
}

function pageLoaded() {
  visualPageLoaded();
  problemsCleared();
  if (picking()) tell({ pick: true });  // a new page in the frame picks on
}

// The page in the frame may have reported before this script ran (it is
// deferred; the frame loads on its own): ask it to say it all again.
tell({ report: true });

// For scripts and browser tests.
window.builtitBridge = {
  problems: problemsNow,
  dropped: droppedNow,
};
