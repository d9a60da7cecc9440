"""The chat app's pages: the workspace with its chat panel, and Settings."""
