"""Events and stored messages as people see them: HTML for the page (the
transcript, the live turn, the panel, Markdown) and text for the terminal."""
