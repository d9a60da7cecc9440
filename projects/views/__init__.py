"""The projects app's views: the dashboard and trash (dashboard), the
workspace's file endpoints (files), the search in files (search), file history
(history), and the sandboxed preview (preview). Nothing outside projects imports
a view module: what the chat app reuses (the page context, the tree) is in
projects.web.workspace."""
