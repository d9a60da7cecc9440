"""Forms that work on a published site.

A form on a site (`<form action="/_forms/contact" method="post">`) posts to
the site's own host, `/s/<name>/_forms/<form>` or the preview; `endpoint`
answers it: bounded (`bounds`, `throttle`), parsed (`fields`), stored for the
project's owner (`services`; on a site's own host through the process's one
`writer`, a commit for every batch), mailed after the answer (`mail`), and read back
in the owner's inbox (`selectors`, `table` for CSV)."""
