// The edit panel's fields (projects/partials/visual_panel.html) as the picked
// element has them, and a project path as its page would write it.
const $ = (id) => document.getElementById(id);

export function fill(raw) {
  const styles = raw.styles || {};
  // The field the person is in keeps what they are typing.
  document.querySelectorAll("#visual-panel [data-style]").forEach((input) => {
    if (input === document.activeElement) return;
    const value = styles[input.dataset.style] || "";
    if (input.type === "color") { colourShown(input, value); return; }
    input.value = input.tagName === "SELECT" ? "" : value;
    input.dataset.applied = input.value;
  });
  for (const [id, value] of [["visual-href", raw.href], ["visual-alt", raw.alt], ["visual-image", ""]]) {
    if ($(id) === document.activeElement) continue;
    $(id).value = value || "";
    $(id).dataset.applied = $(id).value;
  }
}

// A colour input has no "none": a colour the element does not have
// (transparent, as most backgrounds are) shows as "None" beside a chequered
// swatch, and any colour then chosen goes, black included; untouched, nothing does.
function colourShown(input, value) {
  const parts = (value.match(/[\d.]+/g) || []).map(Number);
  const none = parts.length < 3 || parts[3] === 0;
  input.value = none ? "#ffffff" : hex(parts);
  input.dataset.applied = none ? "" : input.value;
  noColour(input, none);
}

export function noColour(input, none) {
  input.classList.toggle("visual-no-colour", none);
  const label = document.querySelector(`.visual-none[data-for='${input.id}']`);
  if (label) label.hidden = !none;
}

// rgb(…)'s numbers as the colour input wants them (#rrggbb).
function hex(parts) {
  return "#" + parts.slice(0, 3).map((n) => Math.round(n).toString(16).padStart(2, "0")).join("");
}

// A project path as the page would write it: from its own folder.
export function relative(page, path) {
  const from = page.split("/").slice(0, -1);
  const to = path.split("/");
  let same = 0;
  while (same < from.length && same < to.length - 1 && from[same] === to[same]) same += 1;
  return "../".repeat(from.length - same) + to.slice(same).join("/");
}

