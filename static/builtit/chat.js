// The chat panel: keyboard, the server's per-frame signals, connection state, scrolling.
// htmx's ws extension does the talking and swapping; this only adds what a person needs.
(function () {
  "use strict";
  let lastSignal = 0;     // the server numbers its signals per socket
  let stickToBottom = true;
  let composerSent = null; // the composer's text, if the last frame sent was the composer's

  const $ = (id) => document.getElementById(id);

  function composerForm() { return $("composer"); }

  function send() {
    const form = composerForm();
    const input = $("composer-input");
    if (!form || !input) return;
    if (!input.value.trim()) { input.focus(); return; }
    form.requestSubmit();
  }

  function stop() {
    const form = $("stop-form");
    if (form) form.requestSubmit();
  }

  document.addEventListener("keydown", (event) => {
    if (event.target && event.target.id === "composer-input" && event.key === "Enter"
        && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      send();
    } else if (event.key === "Escape" && $("stop-form") && escapeStops(event.target)) {
      event.preventDefault();
      stop();
    }
  });

  // Esc stops from the chat panel (or with nothing focused), not from the
  // editor or another field, where it closes a search box or a menu.
  function escapeStops(target) {
    if (document.querySelector("dialog[open]")) return false;
    const panel = $("chat-panel");
    return target === document.body || (panel !== null && panel.contains(target));
  }

  // ── Plan first: while the switch is on, Send reads "Plan" and the box says
  // what will happen. It stays on from plan to plan (refining one) and across a
  // reload of this tab (a new tab starts without it); it goes off when a turn
  // that builds a plan starts, whichever tab sent it.
  function planKey() {
    const grid = document.querySelector(".workspace-grid");
    return "builtit:plan:" + (grid ? grid.dataset.project : "");
  }
  let newestTurn = 0;  // the newest turn this tab has seen (t<message id>)

  function planning(on) {
    const box = $("composer-plan");
    const send = $("composer-send");
    const input = $("composer-input");
    if (!box || !send || !input) return;
    box.checked = on;
    send.dataset.sendLabel = send.dataset.sendLabel || send.textContent;
    input.dataset.placeholder = input.dataset.placeholder || input.placeholder;
    send.textContent = on ? send.dataset.planLabel : send.dataset.sendLabel;
    input.placeholder = on ? input.dataset.planPlaceholder : input.dataset.placeholder;
    composerForm().classList.toggle("planning", on);
    try {
      if (on) sessionStorage.setItem(planKey(), "1");
      else sessionStorage.removeItem(planKey());
    } catch (_) { /* private mode */ }
  }

  function newTurns() {
    const found = [...document.querySelectorAll("#chat-log article.turn[id^='t']")]
      .filter((turn) => Number(turn.id.slice(1)) > newestTurn);
    for (const turn of found) newestTurn = Math.max(newestTurn, Number(turn.id.slice(1)));
    return found;
  }

  document.addEventListener("change", (event) => {
    if (event.target.id === "composer-plan") planning(event.target.checked);
  });
  document.addEventListener("htmx:wsAfterMessage", () => {
    const found = newTurns();
    if (found.some((turn) => turn.hasAttribute("data-builds-plan"))) planning(false);
    // For the rest of the page (workspace.js): a turn began, in any tab.
    if (found.length) document.dispatchEvent(new CustomEvent("builtit:turn"));
  });
  document.addEventListener("DOMContentLoaded", () => {
    newTurns();
    let on = false;
    try { on = sessionStorage.getItem(planKey()) === "1"; } catch (_) { /* private mode */ }
    planning(on);
  });

  // An empty message is not sent (a person pressing Send by accident). While
  // the socket reconnects, htmx keeps a message to send once it is back: the
  // composer says so, and a second press does not queue it twice.
  let connected = false;
  let waiting = false;
  document.addEventListener("htmx:wsConfigSend", (event) => {
    const elt = event.detail.elt || event.target;
    if (!elt || elt.id !== "composer") return;
    if (!String(event.detail.parameters.message || "").trim() || waiting) {
      event.preventDefault();
      return;
    }
    if (!connected) showWaiting(true);
  });

  function showWaiting(on) {
    waiting = on;
    const help = $("composer-help");
    const send = $("composer-send");
    if (send) send.disabled = on;
    if (!help) return;
    help.classList.toggle("composer-waiting", on);
    help.textContent = on
      ? "Waiting to send: your message goes as soon as the connection is back."
      : "Enter sends · Shift+Enter adds a line · Esc stops the assistant";
  }

  // ── attachments: problems and elements from the preview (bridge.js) ──────
  // Kept here and sent with the message as one form field (JSON); the server
  // checks them again (chat.agent.attachments).
  let attached = [];  // [{item, label}]
  let fixes = 0;      // turns in a row sent with the preview's problems ("Fix with the assistant")

  function drawChips() {
    const list = $("composer-chips");
    const field = $("composer-attachments");
    if (field) field.value = attached.length ? JSON.stringify(attached.map((a) => a.item)) : "";
    if (!list) return;
    list.replaceChildren(...attached.map((entry, index) => {
      const chip = document.createElement("li");
      chip.textContent = entry.label;
      if (entry.title) chip.title = entry.title;
      const remove = document.createElement("button");
      remove.type = "button";
      remove.dataset.unattach = String(index);
      remove.setAttribute("aria-label", "Remove " + entry.label);
      remove.textContent = "×";
      chip.append(remove);
      return chip;
    }));
  }

  function attach(item, label, title) {
    const limit = item.type === "element" ? 5 : 10;
    if (attached.filter((a) => a.item.type === item.type).length >= limit) return false;
    attached.push({ item, label, title });
    drawChips();
    const input = $("composer-input");
    if (input) input.focus();
    return true;
  }

  // "Fix with the assistant" from the preview's problems: they go with the
  // words into the box, as the site check's do; the person sends.
  function fix(items, labels) {
    attached = items.map((item, index) => ({ item, label: labels[index] || item.message }));
    drawChips();
    suggest("Fix the problems the preview shows.");
  }

  document.addEventListener("click", (event) => {
    const remove = event.target.closest && event.target.closest("[data-unattach]");
    if (!remove) return;
    attached.splice(Number(remove.dataset.unattach), 1);
    drawChips();
  });

  // ── pictures with a message: uploaded at once, sent by id with the message ──
  const MAX_PICTURES = 4;
  let pictures = [];  // [{id, url, name}]

  function drawPictures() {
    const field = $("composer-images");
    const list = $("composer-images-list");
    if (field) field.value = pictures.length ? JSON.stringify(pictures.map((p) => p.id)) : "";
    if (!list) return;
    list.replaceChildren(...pictures.map((picture, index) => {
      const item = document.createElement("li");
      const image = document.createElement("img");
      image.src = picture.url;
      image.alt = picture.name;
      const remove = document.createElement("button");
      remove.type = "button";
      remove.className = "remove small";
      remove.dataset.unpicture = String(index);
      remove.setAttribute("aria-label", "Remove " + picture.name);
      remove.textContent = "×";
      item.append(image, remove);
      return item;
    }));
  }

  async function attachPictures(files) {
    const grid = document.querySelector(".workspace-grid");
    for (const file of files) {
      if (!file.type.startsWith("image/")) continue;
      if (pictures.length >= MAX_PICTURES) {
        notice(`A message may carry at most ${MAX_PICTURES} pictures.`);
        return;
      }
      const body = new FormData();
      body.append("image", file, file.name || "pasted.png");
      try {
        const answer = await fetch(grid.dataset.chatImageUrl, {
          method: "POST", body, credentials: "same-origin", headers: { "X-CSRFToken": window.builtitCsrfToken() },
        });
        const data = await answer.json().catch(() => ({}));
        if (!answer.ok) { notice(data.error || "The picture could not be attached."); continue; }
        pictures.push(data);
        drawPictures();
      } catch (_) {
        notice("Could not reach the server; the picture was not attached.");
      }
    }
  }

  function notice(text) {
    const box = $("chat-notice");
    if (!box) return;
    box.innerHTML = "";
    const line = document.createElement("p");
    line.setAttribute("role", "alert");
    line.textContent = text;
    box.append(line);
  }

  document.addEventListener("click", (event) => {
    if (event.target.closest && event.target.closest("[data-action='attach-picture']")) {
      $("composer-picture-input").click();
      return;
    }
    const remove = event.target.closest && event.target.closest("[data-unpicture]");
    if (remove) {
      pictures.splice(Number(remove.dataset.unpicture), 1);
      drawPictures();
    }
  });
  document.addEventListener("change", (event) => {
    if (event.target.id !== "composer-picture-input") return;
    attachPictures([...event.target.files]);
    event.target.value = "";
  });
  document.addEventListener("paste", (event) => {
    if (!event.target || event.target.id !== "composer-input" || !event.clipboardData) return;
    const files = [...event.clipboardData.files].filter((file) => file.type.startsWith("image/"));
    if (!files.length) return;
    event.preventDefault();
    attachPictures(files);
  });
  document.addEventListener("dragover", (event) => {
    if (event.target.closest && event.target.closest("#composer") && event.dataTransfer
        && [...event.dataTransfer.types].includes("Files")) event.preventDefault();
  });
  document.addEventListener("drop", (event) => {
    if (!(event.target.closest && event.target.closest("#composer")) || !event.dataTransfer) return;
    if (!event.dataTransfer.files.length) return;
    event.preventDefault();
    attachPictures([...event.dataTransfer.files]);
  });

  // An idea from the empty chat, or what the site check found, goes into the
  // box, to send or change first; after a draft already there, never over it
  // (nor twice). The box has the focus, ready to type at the end.
  function suggest(text) {
    const input = $("composer-input");
    if (!input) return;
    const draft = input.value.trim();
    if (!draft.includes(text.trim())) input.value = draft ? `${draft}\n\n${text}` : text;
    input.focus();
    input.setSelectionRange(input.value.length, input.value.length);
    input.scrollTop = input.scrollHeight;
  }

  document.addEventListener("click", (event) => {
    const chip = event.target.closest && event.target.closest("[data-suggest]");
    if (chip) suggest(chip.dataset.suggest);
  });

  // A site check opened on a phone can reach below the fold: bring it in view.
  document.addEventListener("toggle", (event) => {
    const opened = event.target;
    if (opened.matches && opened.matches(".site-check details") && opened.open) {
      opened.scrollIntoView({ block: "nearest" });
    }
  }, true);

  // Which form the next "sent" signal answers: only the composer's own message
  // empties it (Try again leaves a draft in the composer alone).
  document.addEventListener("htmx:wsAfterSend", (event) => {
    const form = event.target;
    let frame = {};
    try { frame = JSON.parse(event.detail.message); } catch (_) { /* not ours */ }
    if (!frame || typeof frame.message !== "string") return;  // Stop says nothing about the composer
    composerSent = form && form.id === "composer" ? frame.message : null;
  });

  document.addEventListener("change", (event) => {
    if (event.target.matches && event.target.matches("select[data-autosubmit]")) {
      event.target.form.requestSubmit();
    }
  });

  // ── what the server says after each frame ────────────────────────────────
  function readSignal() {
    const box = $("chat-signal");
    if (!box || !box.dataset.signal) return;
    let signal;
    try { signal = JSON.parse(box.dataset.signal); } catch (_) { return; }
    if (!signal || typeof signal.n !== "number" || signal.n <= lastSignal) return;
    lastSignal = signal.n;
    if (signal.sent) {
      // The turn started: the message is in the log now, so the box can be emptied
      // (unless the person has typed on since sending). Their turn is worth seeing.
      const input = $("composer-input");
      if (input && composerSent !== null && input.value === composerSent) {
        input.value = "";
        fixes = attached.some((entry) => entry.item.type === "problem") ? fixes + 1 : 0;
        attached = [];  // they went with the message
        drawChips();
        pictures = [];
        drawPictures();
        document.dispatchEvent(new CustomEvent("builtit:fixes"));
      }
      composerSent = null;
      stickToBottom = true;
    }
    if (typeof signal.draft === "string" && signal.draft) {
      // The request a project was started with could not go (the notice says
      // why): it waits in the box, unless something is being written there.
      const input = $("composer-input");
      if (input && !input.value.trim()) input.value = signal.draft;
    }
    if (Array.isArray(signal.files) && signal.files.length) {
      // Who changed them: the assistant, an undo or restore ("history"), or the
      // person in a tab (`tab`: which one; workspace.js follows the others').
      const source = ["history", "person"].includes(signal.by) ? signal.by : "assistant";
      document.body.dispatchEvent(new CustomEvent("filesChanged", {
        detail: { paths: signal.files, source, tab: signal.tab || "" },
      }));
    }
  }

  function log() { return $("chat-log"); }

  document.addEventListener("htmx:wsBeforeMessage", () => {
    const box = log();
    if (box) stickToBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 80;
  });

  document.addEventListener("htmx:wsAfterMessage", () => {
    readSignal();
    const box = log();
    if (box && stickToBottom) box.scrollTop = box.scrollHeight;
  });

  // ── connection state ─────────────────────────────────────────────────────
  function connection(text) {
    const box = $("chat-connection");
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

  document.addEventListener("htmx:wsOpen", () => {
    lastSignal = 0;  // a new socket numbers from 1 again
    openedAt = Date.now();
    connected = true;
    connection("");
  });

  // htmx sends what waited once the socket is open again.
  document.addEventListener("htmx:wsAfterSend", () => { if (waiting) showWaiting(false); });
  // Daphne sends no close reason, so the page carries the server's close codes
  // and its words per code (chat.live.closing).
  function closing() {
    const data = $("chat-closing");
    return data ? JSON.parse(data.textContent) : { restart: null, reasons: {} };
  }
  const closeReasons = () => closing().reasons;
  document.addEventListener("htmx:wsClose", (event) => {
    connected = false;
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

  document.addEventListener("DOMContentLoaded", () => {
    const box = log();
    if (box) box.scrollTop = box.scrollHeight;
    if (box) keepPlace(box);
    showLinkedTurn(20);
  });

  // A hidden log (the chat folded away, or another panel shown on a phone)
  // forgets how far it was scrolled, and showed the oldest turn once back. It
  // comes back where it was left: at the newest turn if it was there.
  function keepPlace(box) {
    let place = { top: 0, atBottom: true };
    let hidden = box.clientHeight === 0;
    box.addEventListener("scroll", () => {
      if (!box.clientHeight) return;
      place = { top: box.scrollTop, atBottom: box.scrollHeight - box.scrollTop - box.clientHeight < 80 };
    });
    new ResizeObserver(() => {
      const wasHidden = hidden;
      hidden = box.clientHeight === 0;
      if (!wasHidden || hidden) return;
      box.scrollTop = place.atBottom ? box.scrollHeight : place.top;
    }).observe(box);
  }

  // A link to a turn (History's "See the turn": #t<id>) opens the chat on it,
  // showing earlier messages, a page at a time, until the turn is there.
  function showLinkedTurn(pagesLeft) {
    const wanted = /^#(t\d+)$/.exec(location.hash);
    if (!wanted) return;
    const turn = document.getElementById(wanted[1]);
    if (turn) {
      turn.classList.add("linked-turn");
      turn.tabIndex = -1;
      turn.scrollIntoView({ block: "start" });
      turn.focus({ preventScroll: true });
      return;
    }
    const earlier = document.querySelector("#chat-log .chat-earlier button");
    if (!earlier || pagesLeft <= 0) return;
    const onSettle = () => {
      if (document.body.contains(earlier)) return;  // another swap settled
      document.removeEventListener("htmx:afterSettle", onSettle);
      showLinkedTurn(pagesLeft - 1);
    };
    document.addEventListener("htmx:afterSettle", onSettle);
    earlier.click();
  }
  window.addEventListener("hashchange", () => showLinkedTurn(20));

  // ── Copy on an answer's code blocks (drawn by chat.render.markdown) ──────
  document.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest("[data-copy-code]");
    const code = button && button.parentElement.querySelector("pre");
    if (!code) return;
    const said = (words) => {
      button.textContent = words;
      setTimeout(() => { button.textContent = "Copy"; }, 1500);
    };
    if (!navigator.clipboard) { said("Select the code to copy it"); return; }
    navigator.clipboard.writeText(code.textContent).then(() => said("Copied"), () => said("Could not copy"));
  });

  // For scripts and browser tests.
  window.builtitChat = {
    send: send, stop: stop, attach: attach, fix: fix, fixesInARow: () => fixes,
    attachments: () => attached.map((a) => a.item),
    pictures: () => pictures.map((p) => p.id),
  };
})();
