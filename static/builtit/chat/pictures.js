// Pictures with a message: uploaded at once (chosen, pasted or dropped in the
// composer), sent by id with the message.
import { on, action } from "../events.js";
import { csrfToken } from "../app/preferences.js";
import { LIMITS } from "./limits.js";

const $ = (id) => document.getElementById(id);
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
    if (pictures.length >= LIMITS.pictures) {
      notice(`A message may carry at most ${LIMITS.pictures} pictures.`);
      return;
    }
    const body = new FormData();
    body.append("image", file, file.name || "pasted.png");
    try {
      const answer = await fetch(grid.dataset.chatImageUrl, {
        method: "POST", body, credentials: "same-origin", headers: { "X-CSRFToken": csrfToken() },
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

// The message went: its pictures with it.
export function sentWithMessage() {
  pictures = [];
  drawPictures();
}

export const pictureIds = () => pictures.map((p) => p.id);

action("attach-picture", () => { $("composer-picture-input").click(); });
on("click", (event) => {
  const remove = event.target.closest && event.target.closest("[data-unpicture]");
  if (remove) {
    pictures.splice(Number(remove.dataset.unpicture), 1);
    drawPictures();
  }
});
on("change", (event) => {
  if (event.target.id !== "composer-picture-input") return;
  attachPictures([...event.target.files]);
  event.target.value = "";
});
on("paste", (event) => {
  if (!event.target || event.target.id !== "composer-input" || !event.clipboardData) return;
  const files = [...event.clipboardData.files].filter((file) => file.type.startsWith("image/"));
  if (!files.length) return;
  event.preventDefault();
  attachPictures(files);
});
on("dragover", (event) => {
  if (event.target.closest && event.target.closest("#composer") && event.dataTransfer
      && [...event.dataTransfer.types].includes("Files")) event.preventDefault();
});
on("drop", (event) => {
  if (!(event.target.closest && event.target.closest("#composer")) || !event.dataTransfer) return;
  if (!event.dataTransfer.files.length) return;
  event.preventDefault();
  attachPictures([...event.dataTransfer.files]);
});
