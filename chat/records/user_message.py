"""A person's message, as stored."""

from __future__ import annotations

from dataclasses import dataclass

from common.jsontypes import JSONObject, as_list, as_str


@dataclass(frozen=True)
class UserRecord:
    """A person's message: the model it was sent to, what the preview gave it
    (chat.agent.attachments, as JSON), its pictures (ChatImage ids), and
    whether it began a plan turn (its answer is a plan to build, not work done)."""

    model: str = ""
    attachments: tuple[JSONObject, ...] = ()
    images: tuple[int, ...] = ()
    plan: bool = False

    def to_stored(self) -> JSONObject:
        stored: JSONObject = {"model": self.model}
        if self.attachments:
            stored["attachments"] = list(self.attachments)
        if self.images:
            stored["images"] = list(self.images)
        if self.plan:
            stored["plan"] = True
        return stored

    @classmethod
    def from_stored(cls, stored: object) -> UserRecord:
        record = stored if isinstance(stored, dict) else {}
        attachments = as_list(record.get("attachments"))
        images = as_list(record.get("images"))
        return cls(
            as_str(record.get("model")) or "",
            tuple(item for item in attachments if isinstance(item, dict)),
            tuple(item for item in images if isinstance(item, int) and not isinstance(item, bool)),
            record.get("plan") is True,
        )
