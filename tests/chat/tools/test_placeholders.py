"""The rule that finds lines standing for content left out (chat.tools.placeholders),
with the phrasings models really write (bolt.new #124 and the issues sent to it,
Dyad #1997) and honest texts that merely use the same words."""

from __future__ import annotations

import pytest

from chat.tools.placeholders import Placeholder, added_placeholder, is_placeholder, placeholders
from projects.starter import STARTER_FILES

LAZY = [
    # bolt.new #124 and the issues it gathered
    "// ... rest of the code remains the same",
    "<!-- Rest of the HTML remains unchanged -->",
    "// [Previous code remains unchanged]",
    "//rest stays the same",
    "// Rest of code remains unchanged",
    "// rest of the code will remain the same",
    "// ... (keep the existing interfaces)",
    "// Rest of the imports and component code remains the same until the results section",
    # Dyad #1997
    "// ... existing code ...",
    "{/* ... other components ... */}",
    "/* existing styles */",
    # the issue's own list, as comments and as plain lines
    "/* ... rest of the file ... */",
    "<!-- existing sections unchanged -->",
    "… (same as before)",
    "/* keep existing styles */",
    "keep existing styles",
    "<!-- remaining sections unchanged -->",
    "remaining sections unchanged",
    "// previous code here",
    "previous code here",
    "rest of the file",
    "[Previous code remains unchanged]",
    # a lone ellipsis standing for content, bare or commented
    "...",
    "…",
    "[...]",
    "{ … }",
    "// ...",
    "/* ... */",
    "<!-- … -->",
    "{/* ... */}",
    # more of the same, as models vary them
    "// The rest of your existing code",
    "// rest of the component",
    "// ...existing imports",
    "// Other existing code...",
    "<!-- Header section remains the same -->",
    "/* Previous styles unchanged */",
    "<!-- Same as before -->",
    "/* ... rest of the button styles ... */",
    "    <!-- ... existing navigation ... -->",
    "/* ... existing styles",
]

HONEST = [
    "The rest of the code is open source",
    "<p>The rest of the code is open source.</p>",
    "The rest of the code is open source, and so is the rest of the file.",
    "function total(...args) {",
    "  ...args,",
    "...rest",
    "  ...rest,",
    "const { title, ...rest } = props;",
    "setItems((previous) => [...previous, item]);",
    "  ...existing,",
    "Loading…",
    "<p>Loading…</p>",
    '<span class="spinner">Loading...</span>',
    'content: "…";',
    '  content: "...";',
    '  "…",',
    "He paused... and then went on.",
    "// keep the existing order: the API relies on it",
    "// Loading...",
    "// TODO: handle other cases...",
    "/* unchanged from the browser's defaults */",
    "// The code below is the same as in about.html",
    "/* Other styles */",
    "Other components",
    "// Remaining items are loaded when the list scrolls",
    "// Previous button handler",
    "<li>Existing customers get 10% off</li>",
    "",
    "   ",
    # Comments and headings that say what is there, honestly (a hostile review's).
    "<!-- previous page -->",
    "// remaining items",
    "// previous line",
    "## Existing files",
    "# previous page",
]


@pytest.mark.parametrize("line", LAZY)
def test_a_line_standing_for_content_left_out_is_a_placeholder(line):
    assert is_placeholder(line)


@pytest.mark.parametrize("line", HONEST)
def test_a_line_that_merely_uses_the_words_is_not_a_placeholder(line):
    assert not is_placeholder(line)


@pytest.mark.parametrize("path", list(STARTER_FILES))
def test_the_starter_files_hold_no_placeholder(path):
    assert list(placeholders(STARTER_FILES[path])) == []


def test_placeholders_are_found_with_their_line_numbers_and_stripped():
    text = (
        "function greet() {\n"
        "  // ... existing code ...\n"
        "  return `Good ${part}!`;\n"
        "}\n"
        "// ... rest of the code remains the same\n"
    )

    assert list(placeholders(text)) == [
        Placeholder(2, "// ... existing code ..."),
        Placeholder(5, "// ... rest of the code remains the same"),
    ]


def test_lines_are_counted_at_newlines_only_as_the_file_tools_count_them():
    # U+2028 and form feeds end no line for the editor, read_file or edit_file.
    text = "const a = 'x\u2028y';\f\r\n<!-- ... -->\r\n"

    assert [found.line for found in placeholders(text)] == [2]


def test_a_new_placeholder_is_one_the_old_text_does_not_hold():
    old = "body { margin: 0; }\n"
    new = "/* existing styles */\n.hero h1 { color: tomato; }\n"

    assert added_placeholder(old=old, new=new) == Placeholder(1, "/* existing styles */")
    assert added_placeholder(old="", new=new) == Placeholder(1, "/* existing styles */")


def test_a_placeholder_the_old_text_holds_may_stay_or_move():
    # A page may show one on purpose, in a code sample.
    old = "<pre>\nfunction f() {\n  // ...\n}\n</pre>\n<p>Old news</p>\n"
    moved = "<p>New news</p>\n<pre>\nfunction f() {\n    // ...\n}\n</pre>\n"

    assert added_placeholder(old=old, new=old.replace("Old", "Fresh")) is None
    assert added_placeholder(old=old, new=moved) is None


def test_a_second_copy_of_a_placeholder_the_old_text_holds_is_new():
    old = "<pre>\n// ...\n</pre>\n<p>Old news</p>\n"
    new = "<pre>\n// ...\n</pre>\n// ...\n"

    assert added_placeholder(old=old, new=new) == Placeholder(4, "// ...")


def test_the_copy_named_is_the_new_one_not_the_one_kept_in_place():
    old = "<pre>\n// ...\n</pre>\n"
    new = "// ...\n<pre>\n// ...\n</pre>\n"

    assert added_placeholder(old=old, new=new) == Placeholder(1, "// ...")


def test_a_placeholder_of_another_wording_than_the_old_one_is_new():
    old = "// ... existing code ...\n"
    new = "// ... existing code ...\n// ... rest of the code remains the same\n"

    assert added_placeholder(old=old, new=new) == Placeholder(
        2, "// ... rest of the code remains the same"
    )


def test_a_whole_honest_page_has_no_placeholder():
    page = (
        "<!doctype html>\n"
        '<html lang="en">\n'
        "<body>\n"
        "  <p>\n"
        "    The rest of the code is open source\n"
        "  </p>\n"
        "  <p>Loading…</p>\n"
        "  <script>\n"
        "    // keep the existing order: the API relies on it\n"
        "    const sum = (...args) => args.reduce((a, b) => a + b, 0);\n"
        "  </script>\n"
        "  <style>\n"
        '    .more::after { content: "…"; }\n'
        "  </style>\n"
        "</body>\n"
        "</html>\n"
    )

    assert added_placeholder(old="", new=page) is None


def test_a_long_line_is_never_a_placeholder_so_the_scan_stays_linear():
    # A minified file is one long line: it is skipped once stripped, never searched.
    minified = "/* ... rest of the code remains the same */" + "a{b:c}" * 100_000

    assert not is_placeholder(minified)
    assert list(placeholders(minified + "\n" + "." * 200_000 + "\n")) == []


def test_a_file_at_the_size_limit_of_placeholders_is_scanned_whole():
    line = "// ... rest of the code remains the same\n"
    text = line * (512 * 1024 // len(line))

    found = list(placeholders(text))

    assert len(found) == text.count("\n")
    assert added_placeholder(old=text, new=text) is None
    assert added_placeholder(old=text, new=text + line) == Placeholder(len(found) + 1, line.strip())


def test_a_long_placeholder_is_shown_shortened():
    line = "// Rest of the imports and component code remains the same until the results section"

    shown = Placeholder(1, line).shown

    assert len(shown) == 80
    assert shown.endswith("…")
    assert line.startswith(shown[:-1])
    assert Placeholder(1, "// ...").shown == "// ..."


def test_code_shown_as_an_example_is_never_a_placeholder():
    """Inside HTML's <pre> or a Markdown fence, "// ..." is what the page shows."""
    page = "<p>Call it like this:</p>\n<pre><code>\nstart();\n// ...\n...\n</code></pre>\n"
    markdown = "Usage:\n\n```js\nstart();\n// ... rest of the code\n```\n"
    assert list(placeholders(page)) == []
    assert list(placeholders(markdown)) == []
    # ...and past the example, a placeholder is one again.
    assert [p.line for p in placeholders(page + "<!-- rest of the page unchanged -->")] == [7]
