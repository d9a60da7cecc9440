// The page's listeners: one per event type (and phase) on each of document,
// body and window; the modules hand it their handlers, which run in the order
// they were given. A handler that throws is reported and the next one runs, as
// with listeners of their own. `stop(event)` ends the event here: no later
// handler of the page sees it.
const lists = new Map();
const stopped = new WeakSet();

export function on(type, handler, { capture = false, target = document } = {}) {
  const key = `${type}|${capture}`;
  let byTarget = lists.get(target);
  if (!byTarget) { byTarget = new Map(); lists.set(target, byTarget); }
  let handlers = byTarget.get(key);
  if (!handlers) {
    handlers = [];
    byTarget.set(key, handlers);
    target.addEventListener(type, (event) => {
      for (const each of [...handlers]) {
        if (stopped.has(event)) return;
        try { each(event); } catch (error) { reportError(error); }
      }
    }, capture);
  }
  handlers.push(handler);
  return () => {
    const at = handlers.indexOf(handler);
    if (at >= 0) handlers.splice(at, 1);
  };
}

export function stop(event) {
  stopped.add(event);
  event.stopImmediatePropagation();
}

// Clicks on [data-action] elements: handlers by action name, given the event
// and the element; they run where the first of them was given, among the
// page's click handlers.
const actions = new Map();

export function action(name, handler) {
  if (!actions.size) on("click", runAction);
  if (!actions.has(name)) actions.set(name, []);
  actions.get(name).push(handler);
}

function runAction(event) {
  const button = event.target.closest && event.target.closest("[data-action]");
  const handlers = button ? actions.get(button.dataset.action) : null;
  if (!handlers) return;
  for (const each of handlers) each(event, button);
}
