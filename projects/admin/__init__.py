"""Staff views of projects, files, revisions and sites, one module each; Django
finds this package, and importing the modules registers them."""

from projects.admin import files, history, projects, publish  # noqa: F401
