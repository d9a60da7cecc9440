// Uploads: binary files (images, fonts, media, PDF), from the button, as a
// replacement for the open file, or dropped on a folder of the tree. One
// request per file, in turn, with its progress; the server checks what each
// file is (projects.files.binaries) and answers as for a new file.
import { on, action } from "../events.js";
import { csrfToken } from "../app/preferences.js";
import { grid, TAB, NARROW, answerText } from "./page.js";
import { mountEditor, openPath } from "./editor.js";
import { showPanel } from "./layout.js";

// Resolves with the file's path in the project once stored, else null.
function uploadOne(file, fields) {
  return new Promise((resolve) => {
    const progress = document.getElementById("upload-progress");
    const body = new FormData();
    body.append("file", file);
    for (const [name, value] of Object.entries(fields)) body.append(name, value);
    const xhr = new XMLHttpRequest();
    xhr.open("POST", grid().dataset.uploadUrl);
    xhr.setRequestHeader("X-CSRFToken", csrfToken());
    xhr.setRequestHeader("HX-Request", "true");
    xhr.setRequestHeader("X-Builtit-Tab", TAB);
    xhr.upload.onprogress = (event) => {
      if (progress && event.lengthComputable) {
        progress.textContent = `Uploading ${file.name}: ${Math.round((100 * event.loaded) / event.total)}%`;
      }
    };
    xhr.onload = () => {
      if (xhr.status === 200) {
        htmx.swap("#editor-pane", xhr.responseText, { swapStyle: "innerHTML" });
        mountEditor();
        if (NARROW.matches) showPanel("editor");  // on a phone, show what was uploaded
        document.body.dispatchEvent(new CustomEvent("filesChanged", { detail: { paths: [] } }));
        resolve(openPath());
        return;
      }
      if (xhr.status === 413) {
        // The server's own answer (builtit.server.bodypages): too large for anyone,
        // or for someone whose session has ended. A proxy's page says neither.
        const page = new DOMParser().parseFromString(xhr.responseText, "text/html");
        const said = page.querySelector("p")?.textContent.trim();
        showUploadError(said ? `${file.name}: ${said}` : `${file.name} is too large to upload.`);
      } else {
        showUploadError(answerText(xhr.responseText) || `${file.name} could not be uploaded.`);
      }
      resolve(null);
    };
    xhr.onerror = () => { showUploadError("Could not reach the server; nothing was uploaded."); resolve(null); };
    xhr.send(body);
  });
}

// Each file refused in one batch says why, one line each: the last one's
// reason must not hide the others'.
function showUploadError(text) {
  const box = document.getElementById("new-file-error");
  if (!box) return;
  if (!text) { box.replaceChildren(); return; }
  const line = document.createElement("p");
  line.className = "status error";
  line.setAttribute("role", "alert");  // refused: said at once, as an error
  line.textContent = text;
  box.append(line);
}

async function uploadFiles(files, folder) {
  showUploadError("");
  const stored = [];
  for (const file of files) stored.push(await uploadOne(file, { folder: folder || "" }));
  sayUploaded(stored.filter(Boolean), "Uploaded");
}

// What worked, named, in the status beside the button (a refusal says itself
// below, and the next upload clears it).
function sayUploaded(paths, verb) {
  const progress = document.getElementById("upload-progress");
  if (!progress) return;
  const named = paths.length > 3
    ? `${paths.length} files: ${paths.slice(0, 2).join(", ")} and ${paths.length - 2} more`
    : paths.length > 1 ? `${paths.slice(0, -1).join(", ")} and ${paths[paths.length - 1]}` : paths[0];
  progress.textContent = paths.length ? `${verb} ${named}.` : "";
}

let replacing = null;  // the path an upload replaces, when "Replace…" was used
action("upload-files", () => {
  replacing = null;
  document.getElementById("upload-input").click();
});
action("replace-file", () => {
  replacing = openPath();
  document.getElementById("upload-input").click();
});

on("change", (event) => {
  if (event.target.id !== "upload-input") return;
  const files = [...event.target.files];
  event.target.value = "";
  if (replacing && files.length) {
    showUploadError("");
    uploadOne(files[0], { path: replacing }).then((path) => sayUploaded(path ? [path] : [], "Replaced"));
  } else {
    uploadFiles(files, "");
  }
});

// Files dropped on the tree go into the folder they are dropped on: that
// folder is what lights up (the tree itself stands for the top folder).
let dropZone = null;
function markDropZone(zone) {
  if (zone === dropZone) return;
  if (dropZone) dropZone.classList.remove("drop-target");
  dropZone = zone;
  if (zone) zone.classList.add("drop-target");
}
function dropZoneAt(target) {
  const tree = target.closest && target.closest("#file-tree");
  return tree ? target.closest("#file-tree [data-folder]") || tree : null;
}
on("dragover", (event) => {
  const zone = dropZoneAt(event.target);
  if (!zone || !event.dataTransfer || ![...event.dataTransfer.types].includes("Files")) return;
  event.preventDefault();
  markDropZone(zone);
});
on("dragleave", (event) => {
  // Leaving for a place outside the tree (or the window) ends the highlight.
  if (!event.relatedTarget || !dropZoneAt(event.relatedTarget)) markDropZone(null);
});
on("drop", (event) => {
  const zone = dropZoneAt(event.target);
  markDropZone(null);
  if (!zone || !event.dataTransfer || !event.dataTransfer.files.length) return;
  event.preventDefault();
  uploadFiles([...event.dataTransfer.files], zone.dataset.folder || "");
});
