// A person's preferences, saved on the server (projects.web.preferences); the
// token htmx sends (base.html's hx-headers), for requests made by hand.
export function csrfToken() {
  try { return JSON.parse(document.body.getAttribute("hx-headers"))["X-CSRFToken"]; } catch (_) { return ""; }
}

export function savePreferences(changes) {
  if (!Object.keys(changes).length) return Promise.resolve();
  return fetch("/preferences/", {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
    body: JSON.stringify(changes),
    credentials: "same-origin",
  }).catch(() => { /* kept in this page; tried again with the next change */ });
}
