"""What a page in the preview reports through the bridge, bounded: how many
problems one load of a page reports, and where each field it sends is cut.

Every end keeps to these numbers, none has a copy of its own: the page's
script is given them on its tag (projects.views.preview), the workspace in its
page's limits (chat.views.workspace), and the server cuts what a message
carries the same (chat.agent.attachments), so the chip the person saw and the
one the transcript draws are the same.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Final

# Problems one load of a page reports; past it, the page and the workspace drop the rest.
PROBLEMS_PER_PAGE: Final = 50
# Where each field is cut, in characters (code points).
FIELD_CHARS: Final = MappingProxyType(
    {
        "message": 500,
        "file": 300,
        "page": 300,
        "selector": 200,
        "tag": 40,
        "text": 100,  # an element's rendered text: what a chip can show readably
    }
)
