// The dashboard's thumbnails: each card's frame gets its address only when the
// card comes near the screen, so a long list loads the few sites in view, not
// every one of them.
import { on } from "./events.js";

function load(frame) {
  if (frame.dataset.src && !frame.getAttribute("src")) frame.src = frame.dataset.src;
}
on("DOMContentLoaded", () => {
  const frames = document.querySelectorAll(".project-thumb iframe[data-src]");
  if (!("IntersectionObserver" in window)) { frames.forEach(load); return; }
  const watcher = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      load(entry.target);
      watcher.unobserve(entry.target);
    }
  }, { rootMargin: "200px 0px" });
  frames.forEach((frame) => watcher.observe(frame));
});
