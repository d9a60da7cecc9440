// The chat's connection: what the page says while the socket is down, and
// when it tries again.
import { on } from "../events.js";
import { setConnected } from "./composer.js";
import { signalsRestart } from "./signals.js";

function connection(text) {
  const box = document.getElementById("chat-connection");
  if (!box) return;
  box.textContent = text || "";
  box.hidden = !text;
}

// htmx's ws extension forgets its retry count whenever a socket opens, so a
// socket the server accepts and then closes was retried about once a second,
// for ever. The delay is ours instead: it doubles with each failure (with
// jitter, up to a minute) and is forgotten only after a connection that held.
const HEALTHY_MS = 30000;
const MAX_DELAY_MS = 60000;
let failures = 0;
let openedAt = 0;
let retryIn = 0;

htmx.config.wsReconnectDelay = () => {
  failures = openedAt && Date.now() - openedAt >= HEALTHY_MS ? 1 : failures + 1;
  openedAt = 0;
  const cap = Math.min(MAX_DELAY_MS, 1000 * Math.pow(2, failures - 1));
  retryIn = cap / 2 + Math.random() * (cap / 2);
  return retryIn;
};

let opened = false;
on("htmx:wsOpen", (event) => {
  signalsRestart();
  openedAt = Date.now();
  setConnected(true);
  connection("");
  // Back after the socket was down: what changed meanwhile came to no one here.
  // The workspace asks for the files as they are (workspace/follow.js).
  const wrapper = event.detail && event.detail.socketWrapper;
  const ask = (frame) => wrapper.sendImmediately(JSON.stringify({ action: "files", ...frame }));
  if (opened && wrapper) {
    document.body.dispatchEvent(new CustomEvent("builtit:reconnected", { detail: { ask } }));
  } else if (wrapper) {
    // The first: what changed between the page's drawing and this socket's
    // joining the project reached no one here; the server says what, if anything.
    const drawn = Number(document.getElementById("chat-panel")?.dataset.filesDrawn);
    if (Number.isInteger(drawn) && drawn >= 0) ask({ since: drawn });
  }
  opened = true;
});

// Daphne sends no close reason, so the page carries the server's close codes
// and its words per code (chat.live.closing).
function closing() {
  const data = document.getElementById("chat-closing");
  return data ? JSON.parse(data.textContent) : { restart: null, reasons: {} };
}
const closeReasons = () => closing().reasons;
on("htmx:wsClose", (event) => {
  setConnected(false);
  const closed = event.detail && event.detail.event ? event.detail.event : {};
  const code = closed.code || 0;
  if ([1006, 1011, 1012, 1013].includes(code)) {
    const seconds = Math.max(1, Math.round(retryIn / 1000));
    const attempt = failures > 1 ? ` (attempt ${failures})` : "";
    connection(`Lost the connection to the server; retrying in ${seconds} s${attempt}. ` +
               "The assistant keeps working meanwhile, and your message stays in the box.");
  } else if (code === closing().restart) {
    // This server is restarting (chat.live.draining): reconnect at once, through
    // the proxy, to one that stays; htmx itself reconnects only on 10xx codes.
    const wait = htmx.config.wsReconnectDelay();
    const wrapper = event.detail && event.detail.socketWrapper;
    if (wrapper) setTimeout(() => wrapper.reconnect(), wait);
    connection(`The server is restarting; reconnecting in ${Math.max(1, Math.round(wait / 1000))} s. ` +
               "What the assistant did is kept, and your message stays in the box.");
  } else if (code >= 4000 && (closed.reason || closeReasons()[code])) {
    // The server said why, and it will not change by retrying.
    connection(closed.reason || closeReasons()[code]);
  } else if (code !== 1000 && code !== 1001) {
    connection("The chat is not connected. Reload the page to try again.");
  }
});
