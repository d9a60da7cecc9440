"""Staff views of projects, files, revisions, sites and their forms, one module
each; Django finds this package, and importing the modules registers them."""

from projects.admin import files, forms, history, members, projects, publish  # noqa: F401
