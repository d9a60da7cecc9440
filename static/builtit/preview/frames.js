// A preview frame that loads while it is being shown again stays blank in
// Chromium (156 here): when a cross-origin frame's navigation commits around
// the moment its panel goes from display: none to shown (a phone's Preview tab
// pressed as the preview reloads after a change), the new page goes on being
// told that its frame is not displayed: it lays nothing out and paints
// nothing, until the frame's display changes again. In a 20-line page that
// reloads a cross-site frame as it shows it, 46 of 200 rounds stayed blank
// (stop 52's note); tests/browser/test_preview_shown_browser.py sets up the
// same race, and fails without this.
// So each time a frame that is shown loads, its display is changed and changed
// back in the same task: nothing is painted between, and the page is told
// again that it is shown.
import { on } from "../events.js";

const FRAMES = new Set(["preview-frame", "preview-past-frame"]);

on("load", (event) => {
  const frame = event.target;
  if (!(frame instanceof HTMLIFrameElement) || !FRAMES.has(frame.id)) return;
  if (!frame.getClientRects().length) return;  // not shown: told when it is
  const display = frame.style.display;
  frame.style.display = "none";
  void frame.offsetWidth;  // the frame's layout goes, and the page is told so
  frame.style.display = display;
}, { capture: true });
