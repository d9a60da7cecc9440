"""What a preview page may do: the sandbox of the workspace's preview frame and
of the pages served into it (projects.views.preview), one value for both."""

# No allow-modals: a page's alert/confirm/prompt would open over the workspace,
# where "Session expired, enter your password" looks like the app asking.
SANDBOX = "allow-scripts allow-forms allow-popups allow-downloads"
