// The numbers the chat keeps to, as the server checks them (chat.views.workspace
// puts them in the page): pictures per message, attachments of each kind,
// where each attached field is cut, and how many problems one load of a
// previewed page reports.
const data = document.getElementById("chat-limits");
export const LIMITS = data ? JSON.parse(data.textContent) : null;
