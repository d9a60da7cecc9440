// The chat panel: htmx's ws extension does the talking and swapping; these
// modules add what a person needs (the composer, what goes with a message,
// the server's signals, the connection, the log). This one gives scripts and
// browser tests their handle.
import { send, stop } from "./composer.js";
import { attach, attachments, fix, fixesInARow } from "./attachments.js";
import { pictureIds } from "./pictures.js";
import "./signals.js";
import "./connection.js";
import "./log.js";

window.builtitChat = {
  send: send, stop: stop, attach: attach, fix: fix, fixesInARow: fixesInARow,
  attachments: attachments,
  pictures: pictureIds,
};
