// The preview bridge: a script tag for it is added to HTML pages served into
// the workspace's preview frame, on a line the page already has so that the
// page's lines stay the stored file's (projects/views/preview.py); never to
// the stored files or the ZIP.
// It only reports to the workspace, by postMessage: the page's errors, failed
// loads, console errors and warnings, where the page is, and the element the
// person picks. Deduplicated and capped per page load. The page runs in an
// opaque origin (sandbox without allow-same-origin): nothing here can reach
// the app, and the workspace checks every field of every message it gets.
// How many problems a load reports and where each field is cut are the
// server's (common.bridge), given on this script's tag (data-bounds).
(() => {
  if (parent === window) return;
  const BOUNDS = JSON.parse(document.currentScript.dataset.bounds);
  const MAX_PROBLEMS = BOUNDS.problems;
  const CUT = BOUNDS.cut;
  const fetchFirst = window.fetch;  // before the page's scripts (and ours, below) change it
  const seen = new Set();
  let problems = 0;
  const sent = [];  // this page's problems, to send again if the workspace asks
  const cut = (value, size) => {
    let text = "";
    try { text = String(value === undefined ? "" : value); } catch (e) { text = "(unreadable)"; }
    return text.length > size ? text.slice(0, size - 1) + "…" : text;
  };
  const post = (message) => {
    try { parent.postMessage({ builtitPreview: message }, "*"); } catch (e) { /* gone */ }
  };
  const where = () => location.pathname + location.search + location.hash;
  // No stack: the workspace's problems panel shows what it sends to the model,
  // and a stack is too long to show.
  const problem = (kind, message, file, line, column) => {
    const key = [kind, message, file, line].join("|");
    if (seen.has(key) || problems >= MAX_PROBLEMS) return;
    seen.add(key);
    problems += 1;
    sent.push({
      problem: {
        kind, message: cut(message, CUT.message), file: cut(file, CUT.file),
        line: Number(line) > 0 ? Math.floor(Number(line)) : 0,
        column: Number(column) > 0 ? Math.floor(Number(column)) : 0,
        page: cut(where(), CUT.page),
      },
    });
    post(sent[sent.length - 1]);
  };

  // The page is an opaque origin, so an error in any of its scripts reaches
  // onerror only as "Script error." unless the script was fetched with CORS
  // (the preview answers with Access-Control-Allow-Origin: *). The parser
  // gives microtasks a turn before it fetches a script, so marking the
  // project's own scripts here comes in time; other sites' scripts are left
  // as they are (they may not allow CORS).
  const own = new URL(document.URL).origin;
  new MutationObserver((records) => {
    for (const record of records) {
      for (const node of record.addedNodes) {
        if (node.nodeName !== "SCRIPT" || !node.src || node.hasAttribute("crossorigin")) continue;
        try {
          if (new URL(node.src, document.baseURI).origin === own) node.crossOrigin = "anonymous";
        } catch (e) { /* not a URL: the browser will say so */ }
      }
    }
  }).observe(document.documentElement, { childList: true, subtree: true });

  // Where the page is: on load, and on every navigation it makes itself.
  const report = () => post({ path: where() });
  post({ load: where() });
  report();
  addEventListener("load", report);
  addEventListener("hashchange", report);
  addEventListener("popstate", report);
  for (const name of ["pushState", "replaceState"]) {
    const original = history[name];
    history[name] = function (...args) {
      const result = original.apply(this, args);
      report();
      return result;
    };
  }

  // The line of the page where a failed element asks for what it names:
  // the tag the person has to fix, not line 1 of a file that is not there.
  // The page's source is read again (the served page's lines are the stored
  // file's), once per load and only after something failed. The first
  // elements of a kind naming the same address are matched in order with
  // the source's; one a script added is not in the source: no line.
  let source = null;
  const pageSource = () => {
    if (source === null) {
      source = fetchFirst.call(window, location.href.split("#")[0], { cache: "no-store" })
        .then((response) => (response.ok ? response.text() : ""))
        .catch(() => "");
    }
    return source;
  };
  const escaped = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const lineOf = async (element) => {
    const tag = element.tagName.toLowerCase();
    const name = element.hasAttribute("src") ? "src" : "href";
    const wrote = element.getAttribute(name);
    if (!wrote || !/^[a-z][a-z0-9-]*$/.test(tag)) return 0;
    const value = escaped(wrote);
    const asked = new RegExp(`<${tag}\\b[^>]*?[\\s"'/]${name}\\s*=\\s*`
      + `(?:"${value}"|'${value}'|${value}(?=[\\s>]))`, "gi");
    const same = [...document.getElementsByTagName(tag)].filter((each) => each.getAttribute(name) === wrote);
    const text = await pageSource();
    const found = [...text.matchAll(asked)][same.indexOf(element)];
    if (!found) return 0;
    const at = found.index + found[0].search(new RegExp(`${name}\\s*=`, "i"));
    return text.slice(0, at).split(/\r\n?|\n/).length;
  };

  // Uncaught errors, rejected promises, and what failed to load (capture phase:
  // a <script>, <link>, <img> that fails fires "error" on itself, not on window).
  // An error in an inline script comes with the page's address and the line in
  // the page: the stored file's line, as nothing the preview adds breaks a line.
  addEventListener("error", (event) => {
    const target = event.target;
    if (target && target !== window && target.tagName) {
      const url = target.src || target.href || "";
      const said = `${target.tagName.toLowerCase()} could not load ${url}`;
      lineOf(target).catch(() => 0).then((line) => problem("resource", said, url, line, 0));
      return;
    }
    const error = event.error;
    problem("error", event.message || (error && error.message), event.filename, event.lineno,
      event.colno);
  }, true);
  addEventListener("unhandledrejection", (event) => {
    const reason = event.reason;
    problem("rejection", (reason && reason.message) || reason, "", 0, 0);
  });
  for (const level of ["error", "warn"]) {
    const original = console[level];
    console[level] = function (...args) {
      problem(`console.${level}`, args.map((arg) => cut(arg, 200)).join(" "), "", 0, 0);
      return original.apply(this, args);
    };
  }
  if (fetchFirst) {
    window.fetch = function (input, init) {
      return fetchFirst.call(this, input, init).then((response) => {
        if (response.status === 404) {
          problem("resource", `fetch of ${response.url} found nothing (404)`, response.url, 0, 0);
        }
        return response;
      });
    };
  }

  // The element picker: the workspace turns it on; hover outlines, a click
  // picks, Esc leaves. Only the workspace (this frame's parent) may turn it on.
  // A pick says what the person can see of the element: its tag, its rendered
  // text (innerText: hidden children and markup are not sent) and where it is.
  let picking = false;
  let outlined = null;
  let chosen = null;  // the element picked last, for visual edits
  const box = document.createElement("div");
  box.style.cssText = "position:fixed;pointer-events:none;z-index:2147483647;"
    + "outline:2px solid #4f46e5;background:rgba(79,70,229,.12);display:none";
  const show = (el) => {
    outlined = el;
    const r = el.getBoundingClientRect();
    Object.assign(box.style, { display: "block", left: r.left + "px", top: r.top + "px",
      width: r.width + "px", height: r.height + "px" });
  };
  const selectorOf = (el) => {
    if (el.id && document.querySelectorAll("#" + CSS.escape(el.id)).length === 1) {
      return "#" + CSS.escape(el.id);
    }
    const parts = [];
    for (let node = el; node && node.nodeType === 1 && parts.length < 8; node = node.parentElement) {
      if (node.id && document.querySelectorAll("#" + CSS.escape(node.id)).length === 1) {
        parts.unshift("#" + CSS.escape(node.id));
        break;
      }
      const tag = node.tagName.toLowerCase();
      if (tag === "html") break;
      const same = node.parentElement
        ? [...node.parentElement.children].filter((c) => c.tagName === node.tagName) : [];
      parts.unshift(same.length > 1 ? `${tag}:nth-of-type(${same.indexOf(node) + 1})` : tag);
    }
    return parts.join(" > ");
  };
  const stopPicking = () => {
    picking = false;
    box.style.display = "none";
    document.documentElement.style.cursor = "";
  };
  addEventListener("mousemove", (event) => {
    if (picking && event.target && event.target.nodeType === 1 && event.target !== box) show(event.target);
  }, true);
  addEventListener("click", (event) => {
    // Only the person's own click picks, not one the page's scripts make.
    if (!picking || !event.isTrusted) return;
    event.preventDefault();
    event.stopPropagation();
    const el = outlined || event.target;
    stopPicking();
    if (!el || el.nodeType !== 1) return;
    const shown = typeof el.innerText === "string" ? el.innerText : el.textContent || "";
    chosen = el;
    post({
      picked: {
        selector: cut(selectorOf(el), CUT.selector), tag: el.tagName.toLowerCase(),
        text: cut(shown.replace(/\s+/g, " ").trim(), CUT.text),
        page: cut(location.pathname, CUT.page), ...described(el),
      },
    });
  }, true);
  addEventListener("dblclick", (event) => {
    if (chosen && chosen.contains(event.target) && !editing) { event.preventDefault(); editText(); }
  }, true);
  addEventListener("keydown", (event) => {
    if (picking && event.key === "Escape") { stopPicking(); post({ pickEnded: true }); }
    if (!picking && chosen && event.key === "Enter" && document.activeElement === document.body) {
      event.preventDefault();
      editText();
    }
  }, true);
  addEventListener("message", (event) => {
    if (event.source !== parent) return;
    const order = event.data && event.data.builtitBridge;
    if (order && order.report === true) {
      // The workspace's listener may have started after this page first spoke.
      post({ load: where() });
      sent.forEach(post);
      report();
      return;
    }
    if (order && Array.isArray(order.select)) { reselect(order.select, order.check); return; }
    if (order && order.apply && typeof order.apply === "object") { applyWritten(order); return; }
    if (order && order.editText === true) { editText(); return; }
    // Words edited here were written as shown: the page stays, naming the file's new text.
    if (order && typeof order.source === "string") { SOURCE = order.source; return; }
    if (order && Array.isArray(order.restyle)) { restyle(order.restyle.map(String), order.check); return; }
    if (!order || typeof order.pick !== "boolean") return;
    if (order.pick) {
      picking = true;
      (document.body || document.documentElement).appendChild(box);
      document.documentElement.style.cursor = "crosshair";
    } else {
      stopPicking();
    }
  });

  // Visual edits (the workspace's visual/ modules): what the picked element is
  // in the page's file -- its path of element children from <html>, without
  // what the preview added (this script, the dialog notices, the outline) --
  // with its text nodes and styles; and its words edited in place, kept with
  // Enter or a click outside, Esc leaving them as they were.
  let SOURCE = document.currentScript.dataset.source || "";
  const added = new Set([document.currentScript, box]);
  const before = document.currentScript.previousElementSibling;
  if (before && before.tagName === "SCRIPT" && !before.src) added.add(before);
  const kids = (el) => [...el.children].filter((c) => !added.has(c));
  const pathOf = (el) => {
    const path = [];
    for (let node = el; node !== document.documentElement; node = node.parentElement) {
      if (!node || !node.parentElement) return [];
      path.unshift(kids(node.parentElement).indexOf(node));
    }
    return path;
  };
  const at = (path) => path.reduce((el, index) => el && kids(el)[index], document.documentElement);
  const textsOf = (el) => {
    const found = [];
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) found.push(walker.currentNode.data);
    return found;
  };
  const STYLES = ["color", "background-color", "font-size", "padding", "margin", "border-radius",
    "text-align"];
  const described = (el) => {
    const computed = getComputedStyle(el);
    return {
      path: pathOf(el), source: SOURCE, texts: textsOf(el).map((t) => cut(t, 4000)),
      content: cut((el.textContent || "").replace(/\s+/g, " ").trim(), 300),
      href: cut(el.getAttribute("href") || "", 2000), src: cut(el.getAttribute("src") || "", 2000),
      alt: cut(el.getAttribute("alt") || "", 2000),
      styles: Object.fromEntries(STYLES.map((name) => [name, computed.getPropertyValue(name)])),
    };
  };
  const reselect = (path, check) => {
    // Asked as the page starts: its elements and stylesheets are there once it has loaded.
    if (document.readyState !== "complete") {
      addEventListener("load", () => reselect(path, check), { once: true });
      return;
    }
    const el = at(path);
    chosen = el || null;
    post({ selected: el ? { tag: el.tagName.toLowerCase(), ...described(el) } : null, shows: shows(el, check) });
  };
  // A visual edit of the page's HTML, once written: what the server wrote
  // (an attribute set, the element removed, or swapped with the sibling the
  // file names) done to the element here too, so the page need not load again.
  // Anything else, or an element that is not what the file's edit was for,
  // is left to a reload (applied: false).
  const WRITTEN = ["href", "src", "alt", "hidden", "class"];
  const applyWritten = ({ apply, path, tag, source, id }) => {
    const el = Array.isArray(path) && path.length ? at(path) : null;
    const siblings = el ? kids(el.parentElement) : [];
    const other = el && siblings[siblings.indexOf(el) + (apply.up ? -1 : 1)];
    let done = Boolean(el && el.tagName.toLowerCase() === tag && (!editing || editing.el !== el));
    if (done && apply.kind === "attribute" && WRITTEN.includes(apply.name) && typeof apply.value === "string") {
      el.setAttribute(apply.name, apply.value);
    } else if (done && apply.kind === "move" && other && other.tagName.toLowerCase() === apply.sibling) {
      const mark = document.createComment("");
      el.replaceWith(mark);
      other.replaceWith(el);
      mark.replaceWith(other);  // each where the other was: the white space between stays
    } else if (done && apply.kind === "remove") {
      el.remove();
    } else {
      done = false;
    }
    if (done && typeof source === "string") SOURCE = source;
    if (done) chosen = apply.kind === "remove" ? null : el;
    const selected = done && chosen ? { tag: chosen.tagName.toLowerCase(), ...described(chosen) } : null;
    post({ applied: done, id, selected });
  };
  // A visual edit that changed only stylesheets: those are loaded again in
  // place (a fresh <link> beside the old, which goes once it has loaded), so
  // the page need not be loaded again; then the element is described afresh.
  // A stylesheet the page does not link itself (an @import) cannot be: the
  // workspace loads the page again.
  // Whether the element shows the value asked: what it computes to with the
  // value set on it alone (an !important inline value, which no rule beats)
  // against what it computes to from the stylesheets. They differ when a more
  // specific rule than the edited one still sets the property. The element's
  // own style attribute is put back as it was before anything is drawn.
  const shows = (el, check) => {
    if (!el || !check || typeof check.name !== "string" || typeof check.value !== "string") return null;
    if (!STYLES.includes(check.name)) return null;
    const before = el.getAttribute("style");
    el.style.setProperty(check.name, check.value, "important");
    const asked = getComputedStyle(el).getPropertyValue(check.name);
    if (before === null) el.removeAttribute("style");
    else el.setAttribute("style", before);
    return getComputedStyle(el).getPropertyValue(check.name) === asked;
  };
  const restyle = (paths, check) => {
    const links = [...document.querySelectorAll("link[rel~='stylesheet'][href]")].filter((link) => {
      const path = new URL(link.href, document.baseURI).pathname;
      return paths.some((wanted) => path.endsWith(wanted));
    });
    if (links.length === 0) { post({ restyled: false }); return; }
    let waiting = links.length;
    for (const link of links) {
      const fresh = link.cloneNode();
      fresh.href = new URL(link.href, document.baseURI).pathname + "?v=" + Date.now();
      const done = () => {
        link.remove();
        waiting -= 1;
        if (waiting === 0) {
          post({
            restyled: true, shows: shows(chosen, check),
            selected: chosen ? { tag: chosen.tagName.toLowerCase(), ...described(chosen) } : null,
          });
        }
      };
      fresh.addEventListener("load", done, { once: true });
      fresh.addEventListener("error", done, { once: true });
      link.after(fresh);
    }
  };
  let editing = null;
  const editText = () => {
    if (!chosen || editing) return;
    const el = chosen;
    editing = { el, html: el.innerHTML, before: textsOf(el) };
    el.contentEditable = "true";
    el.focus();
    const done = (keep) => {
      if (!editing || editing.el !== el) return;
      const was = editing;
      editing = null;
      el.removeEventListener("keydown", keys, true);
      el.removeEventListener("blur", blurred);
      el.removeAttribute("contenteditable");
      if (!keep) { el.innerHTML = was.html; post({ edited: null }); return; }
      const after = textsOf(el);
      // Its bold, italic or links changed too: the content as it is now goes with it.
      // Never cut: a part of it would be written as the whole (too long: refused instead).
      const whole = el.innerHTML;
      const markup = after.length === was.before.length || whole.length > 20000 ? "" : whole;
      post({ edited: { before: was.before, after, markup } });
    };
    const keys = (event) => {
      if (event.key === "Enter" && !event.shiftKey) { event.preventDefault(); done(true); }
      if (event.key === "Escape") { event.preventDefault(); event.stopPropagation(); done(false); }
    };
    const blurred = () => done(true);
    el.addEventListener("keydown", keys, true);
    el.addEventListener("blur", blurred);
  };
})();
