// The editor's check of a CSS file, in place of Ace's own. Ace's
// CSS worker runs CSSLint, whose grammar stops at 2013: it marks var(),
// clamp(), min(), rgb(0 0 0 / 50%), :is(), @layer and nesting, all valid, as
// mistakes, in the files the assistant writes too. A person expects no red
// mark on valid CSS; what can be checked without knowing every property is
// what breaks the rest of the file: a bracket or brace not closed or closing
// nothing, a string not closed on its line, a comment never closed.
const MAX_MARKS = 20;
const PAIRS = { "}": "{", ")": "(", "]": "[" };
const UNQUOTED_URL = /url\([\t\n\f\r ]*(?=[^\t\n\f\r "')])/iy;

// [{row, column, text, type}] for Ace's gutter, in the order they occur.
function cssMistakes(css) {
  const marks = [];
  const open = [];  // {char, row, column}
  let row = 0;
  let column = 0;
  let i = 0;
  const mark = (at, text) => marks.push({ row: at.row, column: at.column, text, type: "error" });
  const here = () => ({ row, column });
  const step = () => {
    if (css[i] === "\n") { row += 1; column = 0; } else { column += 1; }
    i += 1;
  };
  while (i < css.length && marks.length < MAX_MARKS) {
    const char = css[i];
    if (char === "\\") { step(); if (i < css.length) step(); continue; }
    if (char === "/" && css[i + 1] === "*") {
      const start = here();
      step(); step();
      while (i < css.length && !(css[i] === "*" && css[i + 1] === "/")) step();
      if (i >= css.length) { mark(start, "This comment is never closed: */ is missing."); break; }
      step(); step();
      continue;
    }
    if (char === '"' || char === "'") {
      const start = here();
      step();
      while (i < css.length && css[i] !== char && css[i] !== "\n") {
        if (css[i] === "\\") step();
        if (i < css.length) step();
      }
      if (css[i] !== char) mark(start, `This string is not closed on its line: ${char} is missing.`);
      else step();
      continue;
    }
    // url(...) without quotes may hold anything but ")" (a data: address's braces).
    UNQUOTED_URL.lastIndex = i;
    if (UNQUOTED_URL.test(css) && !/[\w-]/.test(css[i - 1] || "")) {
      const start = here();
      while (i < css.length && css[i] !== ")") step();
      if (i >= css.length) { mark(start, "This url( is never closed: ) is missing."); break; }
      step();
      continue;
    }
    if (char === "{" || char === "(" || char === "[") {
      open.push({ char, row, column });
    } else if (char in PAIRS) {
      closing(open, char, here(), mark);
    }
    step();
  }
  for (const left of open) {
    if (marks.length >= MAX_MARKS) break;
    mark(left, `This ${left.char} is never closed.`);
  }
  return marks.sort((a, b) => a.row - b.row || a.column - b.column);
}

// A closer ends the innermost matching opener; any opened inside it and not
// closed are the mistake. One that matches nothing open is the mistake.
function closing(open, char, at, mark) {
  const wanted = PAIRS[char];
  let index = open.length - 1;
  while (index >= 0 && open[index].char !== wanted) index -= 1;
  if (index < 0) { mark(at, `This ${char} closes nothing: there is no ${wanted} before it.`); return; }
  for (const left of open.splice(index).slice(1)) mark(left, `This ${left.char} is never closed.`);
}

// Ace's own check off for `session`, this one on, as the text changes.
export function check(session) {
  session.setUseWorker(false);
  let timer = null;
  const run = () => { timer = null; session.setAnnotations(cssMistakes(session.getValue())); };
  session.on("change", () => {
    if (timer === null) timer = setTimeout(run, 300);
  });
  run();
}
