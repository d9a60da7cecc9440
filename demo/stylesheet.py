"""The stylesheet of a site the offline demo builds: its custom properties,
filled in from a look (demo.looks), then the rules that use them. Plain
CSS a person can read and change: one declaration a line, no build step."""

VARIABLES = """:root {{
  --header-bg: {header_bg};
  --header-text: {header_text};
  --accent: {accent};
  --accent-text: {accent_text};
  --page-bg: {page_bg};
  --surface: {surface};
  --text: {text};
  --muted: {muted};
  --line: {line};
  --button-radius: {button_radius};
  --heading-font: {heading_font};
  --body-font: {body_font};
  font-family: var(--body-font);
  color: var(--text);
}}
"""
RULES = """
* {
  box-sizing: border-box;
}

body {
  margin: 0;
  background: var(--page-bg);
  line-height: 1.6;
}

h1,
h2,
h3 {
  font-family: var(--heading-font);
  line-height: 1.2;
}

a {
  color: var(--accent);
}

.site-header {
  display: flex;
  flex-wrap: wrap;
  gap: 0.75rem 1.5rem;
  align-items: center;
  justify-content: space-between;
  padding: 1rem 1.5rem;
  background: var(--header-bg);
  color: var(--header-text);
}

.site-header a {
  color: inherit;
  text-decoration: none;
}

.site-nav a:hover,
.site-nav a:focus-visible {
  text-decoration: underline;
}

.brand {
  font-family: var(--heading-font);
  font-weight: 700;
  font-size: 1.35rem;
}

.site-nav {
  display: flex;
  flex-wrap: wrap;
  gap: 0.25rem 1.25rem;
}

main {
  max-width: 56rem;
  margin: 0 auto;
  padding: 0 1.5rem 2rem;
}

.hero {
  padding: clamp(3rem, 10vw, 6rem) 0 2.5rem;
  text-align: center;
}

.hero h1 {
  margin: 0;
  font-size: clamp(2.25rem, 7vw, 4rem);
  color: var(--accent);
}

.tagline {
  max-width: 36rem;
  margin: 1rem auto 1.75rem;
  font-size: 1.2rem;
  color: var(--muted);
}

.button,
button {
  display: inline-block;
  padding: 0.75rem 1.5rem;
  border: 0;
  border-radius: var(--button-radius);
  background: var(--accent);
  color: var(--accent-text);
  font: inherit;
  font-weight: 600;
  text-decoration: none;
  cursor: pointer;
}

.button:hover,
.button:focus-visible,
button:hover {
  filter: brightness(1.12);
}

.section {
  padding: 2.5rem 0;
  border-top: 1px solid var(--line);
}

.section h2 {
  margin: 0 0 0.5rem;
  font-size: 1.75rem;
}

.lead {
  margin-top: 0;
  color: var(--muted);
}

.menu {
  display: grid;
  gap: 0.75rem;
  margin: 1.5rem 0 0;
  padding: 0;
  list-style: none;
}

.menu li {
  display: flex;
  justify-content: space-between;
  gap: 1rem;
  padding-bottom: 0.5rem;
  border-bottom: 1px dotted var(--line);
}

.menu small {
  display: block;
  color: var(--muted);
}

.menu-group {
  margin: 1.5rem 0 0;
  font-size: 1.2rem;
}

.price {
  font-weight: 600;
  white-space: nowrap;
}

.hours {
  display: grid;
  grid-template-columns: max-content 1fr;
  gap: 0.25rem 1.5rem;
  margin: 1.5rem 0 0;
}

.hours dt {
  font-weight: 600;
}

.hours dd {
  margin: 0;
}

.cards {
  display: grid;
  grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr));
  gap: 1rem;
  margin: 1.5rem 0 0;
  padding: 0;
  list-style: none;
}

.card {
  padding: 1.25rem;
  border: 1px solid var(--line);
  border-radius: 0.75rem;
  background: var(--surface);
}

.card h3 {
  margin: 0 0 0.25rem;
}

.card p {
  margin: 0;
}

.gallery {
  display: grid;
  grid-template-columns: repeat(auto-fill, minmax(14rem, 1fr));
  gap: 0.75rem;
  margin-top: 1.5rem;
}

.tile {
  display: flex;
  align-items: flex-end;
  aspect-ratio: 4 / 3;
  margin: 0;
  padding: 0.75rem;
  border-radius: 0.5rem;
  background: linear-gradient(135deg, var(--accent), var(--header-bg));
  color: #ffffff;
  font-weight: 600;
  text-shadow: 0 1px 3px rgb(0 0 0 / 0.6);
}

.tile:nth-child(even) {
  background: linear-gradient(200deg, var(--header-bg), var(--accent));
}

.quotes {
  display: grid;
  gap: 1rem;
  margin-top: 1.5rem;
}

.quotes blockquote {
  margin: 0;
  padding: 1.25rem;
  border-left: 4px solid var(--accent);
  border-radius: 0.5rem;
  background: var(--surface);
}

.quotes p {
  margin: 0 0 0.5rem;
  font-size: 1.1rem;
}

.quotes footer {
  color: var(--muted);
}

.faq details {
  padding: 0.75rem 0;
  border-bottom: 1px solid var(--line);
}

.faq summary {
  font-weight: 600;
  cursor: pointer;
}

.contact-details {
  display: grid;
  gap: 0.25rem;
  margin-top: 1.5rem;
  font-style: normal;
}

.contact-grid {
  display: grid;
  grid-template-columns: repeat(auto-fit, minmax(16rem, 1fr));
  gap: 1.5rem 2.5rem;
  align-items: start;
  margin-top: 1.5rem;
}

.contact-grid .contact-details {
  margin-top: 0;
}

.site-form {
  display: grid;
  gap: 1rem;
  margin-top: 1.5rem;
}

.contact-grid .site-form {
  margin-top: 0;
}

.site-form p {
  margin: 0;
}

.field {
  display: grid;
  gap: 0.35rem;
  margin: 0;
}

fieldset.field {
  padding: 0;
  border: 0;
}

.field label,
.field legend {
  padding: 0;
  font-weight: 600;
}

.field input:not([type="radio"]),
.field textarea {
  width: 100%;
  padding: 0.65rem 0.75rem;
  border: 1px solid var(--muted);
  border-radius: 0.375rem;
  background: var(--surface);
  color: var(--text);
  font: inherit;
}

.field textarea {
  resize: vertical;
}

.field .choice {
  display: flex;
  gap: 0.5rem;
  align-items: center;
  font-weight: 400;
}

.field input:focus-visible,
.field textarea:focus-visible,
.button:focus-visible,
button:focus-visible {
  outline: 3px solid var(--accent);
  outline-offset: 2px;
}

.gotcha {
  display: none;
}

.card .price {
  margin-top: 0.5rem;
}

.timetable {
  width: 100%;
  margin-top: 1.5rem;
  border-collapse: collapse;
}

.timetable th,
.timetable td {
  padding: 0.6rem 0.75rem 0.6rem 0;
  border-bottom: 1px solid var(--line);
  text-align: left;
  vertical-align: top;
}

.timetable thead th {
  color: var(--muted);
  font-size: 0.85rem;
  letter-spacing: 0.04em;
  text-transform: uppercase;
}

.site-footer {
  padding: 2rem 1rem;
  text-align: center;
  color: var(--muted);
}
"""
