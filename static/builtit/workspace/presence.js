// Who else has the project open (chat.live.presence): this tab tells its socket
// which file its editor shows, and marks in the file tree the files the others
// have open and, in the top bar, the person whose turn is running. The dots
// themselves come drawn from the server (#presence, an out-of-band swap).
import { on } from "../events.js";
import { openPath } from "./editor.js";

let socket = null;   // htmx's socket wrapper, while the socket is open
let told = "";       // the file this socket was last told of
let telling = null;  // a pause first: a person clicking through files sends one frame

function tell() {
  clearTimeout(telling);
  telling = setTimeout(() => {
    const path = openPath() || "";
    if (!socket || path === told) return;
    told = path;
    socket.sendImmediately(JSON.stringify({ action: "open", path }));
  }, 300);
}

// A new socket starts with no file: it is told the one open now.
on("htmx:wsOpen", (event) => {
  socket = (event.detail && event.detail.socketWrapper) || null;
  told = "";
  tell();
});
on("htmx:wsClose", () => { socket = null; });
on("builtit:fileShown", tell, { target: document.body });

function others() {
  const box = document.getElementById("presence");
  try { return JSON.parse((box && box.dataset.files) || "{}"); } catch (_) { return {}; }
}

// A dot beside each file someone else has open, their names for screen readers.
export function markOthers() {
  const files = others();
  document.querySelectorAll("#file-tree .file-link").forEach((button) => {
    const names = files[button.dataset.path];
    let dot = button.querySelector(".others-open");
    if (!names) { if (dot) dot.remove(); return; }
    if (!dot) {
      dot = document.createElement("span");
      dot.className = "others-open";
      button.append(dot);
    }
    const text = `open for ${names.join(", ")}`;
    if (dot.dataset.names !== text) {
      dot.dataset.names = text;
      dot.title = text;
      dot.replaceChildren(Object.assign(document.createElement("span"), { className: "visually-hidden", textContent: ` (${text})` }));
    }
  });
}

// The person who asked the running turn ("Erin asked" over it, with their id:
// shared projects), by id, so two people of one name are told apart.
function markRunning() {
  const turns = document.querySelectorAll("#chat-log article.turn");
  const last = turns.length ? turns[turns.length - 1] : null;
  const running = last && last.querySelector(".turn-footer.running") ? last.querySelector(".bubble-by") : null;
  const asker = running ? running.dataset.user || "" : "";
  document.querySelectorAll("#presence .presence-dot").forEach((dot) => {
    const now = asker !== "" && asker !== "0" && dot.dataset.user === asker;
    if (now === dot.classList.contains("running")) return;
    dot.classList.toggle("running", now);
    const label = dot.dataset.label + (now ? ", running a turn" : "");
    dot.title = label;
    const words = dot.querySelector(".presence-label");
    if (words) words.textContent = label;
  });
}

on("htmx:wsAfterMessage", () => { markOthers(); markRunning(); });

on("DOMContentLoaded", () => {
  const tree = document.getElementById("file-tree");
  if (tree && tree.parentElement) {
    new MutationObserver(markOthers).observe(tree.parentElement, { childList: true, subtree: true });
  }
});
