"""Small helpers both apps and the site's wiring may import, and that import
none of them: the bottom of the dependency graph (a contract in pyproject.toml
says so). Each module does one thing and knows no app."""
