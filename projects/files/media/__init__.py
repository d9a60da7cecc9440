"""What a binary file's bytes are, checked by their structure and within bounds
(projects.files.binaries asks): images decoded with Pillow (images), fonts read with
fontTools (fonts), PDF by its cross-reference structure (pdf), MP4 and WebM by
their boxes and elements (video). Each check returns a value, never raises: a
hostile file is refused with a sentence a person can act on."""
