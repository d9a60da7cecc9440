"""The check before publishing (projects.publish.site_check): what a person is
told about their whole site, in words, and what is not worth telling."""

from __future__ import annotations

import pytest

from projects.publish.addresses import Found, file_for, link_target
from projects.publish.site_check import MAX_FINDINGS, Finding, site_check
from projects.starter import STARTER_FILES

HEAD = '<!doctype html><html lang="en"><head><meta charset="utf-8">'
VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">'


def page(body: str, *, title: str = "Bakery") -> str:
    return f"{HEAD}{VIEWPORT}<title>{title}</title></head><body>{body}</body></html>"


def found(files: dict[str, str | None], kind: str | None = None) -> list[tuple[str, str]]:
    return [(f.path, f.text) for f in site_check(files).findings if kind in {None, f.kind}]


def test_the_starter_site_is_clean() -> None:
    assert site_check(dict(STARTER_FILES)).clean


def test_links_and_assets_that_lead_nowhere_are_named_once_each() -> None:
    files: dict[str, str | None] = {
        "/index.html": page(
            '<a href="about">About</a> <a href="/contact.html">Contact</a> '
            '<img src="img/logo.png" alt="Logo"> <a href="/contact.html">again</a> '
            '<link rel="stylesheet" href="css/site.css"><script src="/js/app.js"></script>'
        ),
        "/about.html": page('<a href="./">Home</a> <a href="../../index.html">Up</a>'),
        "/css/site.css": "body { background: url('../img/paper.png') } @import 'reset.css';",
    }
    elsewhere = ": at your site's address it would reach someone else's site. "
    from_root = " starts at the server's root, not your site's" + elsewhere
    assert found(files, "broken_link") == [
        (
            "/about.html",
            "../../index.html climbs above your site's root"
            + elsewhere
            + "Write it relative to this file, within your site.",
        ),
        # In the order written: the stylesheet is read as tokens, not searched twice.
        ("/css/site.css", "../img/paper.png leads to no file."),
        ("/css/site.css", "reset.css leads to no file."),
        ("/index.html", "/contact.html" + from_root + "Write it as contact.html instead."),
        ("/index.html", "img/logo.png leads to no file."),
        ("/index.html", "/js/app.js" + from_root + "Write it as js/app.js instead."),
    ]


def test_a_root_absolute_reference_is_rewritten_for_the_page_it_is_in() -> None:
    files: dict[str, str | None] = {
        "/blog/post/one.html": page('<img src="/img/a.png" alt="a">'),
        "/img/a.png": None,
    }
    assert found(files, "broken_link") == [
        (
            "/blog/post/one.html",
            "/img/a.png starts at the server's root, not your site's: at your site's "
            "address it would reach someone else's site. Write it as ../../img/a.png instead.",
        )
    ]


def test_at_a_host_of_its_own_a_reference_from_the_root_is_one_of_the_sites_files() -> None:
    files: dict[str, str | None] = {
        "/blog/post/one.html": page(
            '<img src="/img/a.png" alt="a"> <a href="/about">About</a> '
            '<a href="../../../index.html">Home</a> <script src="/js/gone.js"></script>'
        ),
        "/img/a.png": None,
        "/about.html": page("About"),
        "/index.html": page("Home"),
    }
    findings = site_check(files, own_host=True).findings
    # Only the file that is not there; "../../../" stops at the root, as in a browser.
    assert [(f.path, f.text) for f in findings if f.kind == "broken_link"] == [
        ("/blog/post/one.html", "/js/gone.js leads to no file.")
    ]


def test_a_form_posting_to_the_sites_form_endpoint_is_not_a_broken_link() -> None:
    files: dict[str, str | None] = {
        "/index.html": page(
            '<form action="/_forms/contact" method="post"><button>Send</button></form>'
            '<form action="/_forms/rsvp/"><button formaction="/_forms/rsvp">Yes</button></form>'
            '<a href="/_forms/contact">Not a form</a><form action="/_forms/"></form>'
            '<form action="/_forms/a/b"></form>'
        )
    }
    for own_host in (False, True):
        told = [f.text.split(" ")[0] for f in site_check(files, own_host=own_host).findings]
        assert told == ["/_forms/contact", "/_forms/", "/_forms/a/b"], own_host


def test_what_a_static_host_serves_is_not_broken() -> None:
    files: dict[str, str | None] = {
        "/index.html": page(
            '<a href="about">a page without .html</a> <a href="blog/">a folder</a> '
            '<a href="blog">a folder without its slash</a> <a href="#top">here</a> '
            '<a href="https://example.org/x">elsewhere</a> <a href="//cdn.example/x.js">cdn</a> '
            '<a href="mailto:hi@bakery.test">mail</a> <img src="data:image/png;base64,AA==" alt="">'
            '<img srcset="img/a.png 1x, img/b.png 2x" alt="bread"> '
            '<a href="about.html?ref=home#team">query and fragment</a> '
            '<a href="photo%20one.png">encoded</a>'
        ),
        "/about.html": page("About"),
        "/blog/index.html": page("Blog"),
        "/img/a.png": None,
        "/img/b.png": None,
        "/photo one.png": None,
    }
    assert found(files, "broken_link") == []


def test_a_link_whose_case_differs_says_so() -> None:
    files: dict[str, str | None] = {"/index.html": page('<a href="About.html">About</a>')}
    files["/about.html"] = page("About")
    assert found(files, "broken_link") == [
        ("/index.html", "About.html leads to no file (there is /about.html: the case differs).")
    ]


def test_a_hostile_file_is_read_in_linear_time_and_broken_markup_is_said() -> None:
    """A review measured 21 s for 48 KB of "url(" with the first pattern, and
    `<![x>` made Python's HTML parser raise (a 500 on publish). html5lib reads
    it as browsers do, a comment made up to the next ">", so the page's links
    are still checked, and the markup is told instead of the page being
    "too broken to read"."""
    files: dict[str, str | None] = {
        "/a.css": "url(" * 200_000 + "@import '" * 50_000,
        "/b.css": "url(" + " " * 400_000 + "x",
        "/index.html": page('<a href="gone.html">x</a>') + "<![x>",
    }
    told = {(f.kind, f.path, f.text) for f in site_check(files).findings}
    assert ("broken_link", "/index.html", "gone.html leads to no file.") in told
    assert (
        "markup",
        "/index.html",
        "A <! that opens neither a comment (<!--) nor the doctype: browsers hide it, and "
        "what follows, up to the next >.",
    ) in told


def test_pages_without_title_language_or_viewport_are_named() -> None:
    files: dict[str, str | None] = {
        "/bare.html": "<p>Hello</p>",
        "/empty-title.html": page("Hi", title="  "),
        "/good.html": page("Hi"),
    }
    problems = found(files, "page")
    assert [path for path, _ in problems] == ["/bare.html"] * 3 + ["/empty-title.html"]
    said = " ".join(text for _, text in problems)
    for named in ("<title>", 'lang="en"', "viewport"):
        assert named in said


def test_text_left_from_a_template_is_quoted_but_not_code_or_ordinary_words() -> None:
    files: dict[str, str | None] = {
        "/index.html": page(
            "<h1>Lorem ipsum</h1><p>TODO: write this. Call 555-0123.</p>"
            "<p>Our todo list app keeps your day in order.</p>"
            "<script>// TODO refactor\nconst lorem = 'Lorem ipsum';</script>"
            "<style>/* FIXME */</style>"
        ),
        "/notes.md": "# Notes\n[Your name here] and Lorem Ipsum",
        "/app.js": "// TODO: nobody reads this",
    }
    assert found(files, "placeholder") == [
        ("/index.html", "“Lorem ipsum” looks like text left from a template."),
        ("/index.html", "“TODO” looks like text left from a template."),
        ("/index.html", "“555-0123” looks like text left from a template."),
        ("/notes.md", "“[Your name here]” looks like text left from a template."),
        ("/notes.md", "“Lorem Ipsum” looks like text left from a template."),
    ]


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("const key = 'sk-or-v1-" + "a1" * 32 + "';", "an OpenRouter key"),
        ("openai = 'sk-proj-" + "Ab9_" * 10 + "'", "an OpenAI or Anthropic key"),
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIE", "a private key"),
        ('{"aws": "AKIAIOSFODNN7EXAMPLE"}', "an AWS access key"),
        ("stripe = 'sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc" + "'", "a Stripe secret key"),
        ("token: ghp_" + "a" * 36, "a GitHub token"),
        ("maps = 'AIza" + "S" * 35 + "'", "a Google API key"),
    ],
)
def test_what_looks_like_a_secret_is_named_first_without_being_repeated(
    text: str, named: str
) -> None:
    files: dict[str, str | None] = {"/index.html": "<p>no title</p>", "/js/config.js": "\n" + text}
    check = site_check(files)
    first = check.findings[0]
    assert (first.kind, first.path) == ("secret", "/js/config.js")
    assert f"Line 2 holds what looks like {named}" in first.text
    assert sum(f.kind == "secret" for f in check.findings) == 1
    secret = text.split("'")[1] if "'" in text else text.rsplit(maxsplit=1)[-1]
    assert secret not in first.text  # shown cut short, never whole


def test_ordinary_code_is_not_taken_for_a_secret() -> None:
    files: dict[str, str | None] = {
        "/app.js": "const skip = 'sk-' + name; const task = 'ask-for-help-with-the-form-please';",
        "/index.html": page("<p>The AKIA brand, GitHub and Slack links.</p>"),
    }
    assert found(files, "secret") == []


def test_a_huge_number_of_findings_is_cut_and_counted() -> None:
    links = " ".join(f'<a href="/missing-{n}.html">{n}</a>' for n in range(MAX_FINDINGS + 50))
    check = site_check({"/index.html": page(links)})
    assert len(check.findings) == MAX_FINDINGS
    assert check.more == 50
    assert check.by_kind()[0][0] == "Links and files that lead nowhere"


def test_the_kinds_come_in_the_order_a_person_should_read_them() -> None:
    files: dict[str, str | None] = {
        "/index.html": "<p id=a>Lorem ipsum</p><a id=a href='/gone.html'><img src=x.png></a>"
        "<style>a { color red }</style>",
        "/k.js": "AKIAIOSFODNN7EXAMPLE",
    }
    headings = [heading for heading, _ in site_check(files).by_kind()]
    assert headings == [
        "Files that look like secrets",
        "Links and files that lead nowhere",
        "Markup browsers will read differently from how it is written",  # no doctype
        "Styles browsers will skip",
        "Pages browsers and search engines will read badly",
        "Ids used more than once on a page",
        "Images without a text alternative",
        "Text left from a template",
    ]


@pytest.mark.parametrize(
    ("address", "served"),
    [
        ("/", Found("/index.html")),
        ("/about", Found("/about.html")),
        ("/about.html", Found("/about.html")),
        ("/blog/", Found("/blog/index.html")),
        ("/blog", Found("/blog/index.html", folder=True)),
        ("/missing", None),
        ("/empty/", None),
    ],
)
def test_an_address_serves_what_a_static_host_serves(address: str, served: Found | None) -> None:
    paths = {"/index.html", "/about.html", "/blog/index.html", "/empty/x.css"}
    assert file_for(address, paths) == served


@pytest.mark.parametrize(
    ("page_path", "reference", "target"),
    [
        ("/a/b.html", "c.html", "/a/c.html"),
        ("/a/b.html", "../c.html", "/c.html"),
        ("/a/b.html", "../../../c.html", "/c.html"),  # a browser stops at the root
        ("/a/b.html", "./", "/a/"),
        ("/a/b.html", "..", "/"),
        ("/a/b.html", "/x/y.png?v=2#top", "/x/y.png"),
        ("/a/b.html", "caf%C3%A9.html", "/a/café.html"),
        ("/a/b.html", "https://example.org/", None),
        ("/a/b.html", "#top", None),
        ("/a/b.html", "javascript:void(0)", None),
        ("/a/b.html", "  ", None),
    ],
)
def test_a_reference_is_read_as_a_browser_reads_it(
    page_path: str, reference: str, target: str | None
) -> None:
    assert link_target(page_path, reference) == target


def test_a_finding_is_a_plain_value() -> None:
    assert Finding("page", "/a.html", "x") == Finding("page", "/a.html", "x")
