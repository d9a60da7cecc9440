"""Server-sent events, incrementally: bytes in, the `data` of each event out.

Follows the SSE rules the providers rely on: lines end with LF or CRLF (a
line may arrive split across network reads, even inside a UTF-8 character),
lines starting with ":" are comments (OpenRouter's keep-alive
`: OPENROUTER PROCESSING`), an event's data lines are joined with "\\n" and
the event ends at a blank line. Everything else (event:, id:, retry:) is
ignored: no provider we speak to needs it.
"""

from __future__ import annotations

from chat.llm.errors import AnswerTooLargeError
from common.sizes import human_size

_BOM = b"\xef\xbb\xbf"
# Far beyond any real chunk (a whole file in one tool-call fragment is a few
# hundred KB); past it the stream is abandoned rather than held in memory.
# It bounds one line and one event (an event of endless `data:` lines too).
MAX_LINE_BYTES = 32 * 1024 * 1024


class SSEDecoder:
    def __init__(self, *, max_line: int = MAX_LINE_BYTES) -> None:
        # Pieces of a line that has not ended yet; joined once, when it ends,
        # so a long line arriving in many small reads costs linear time.
        self._partial: list[bytes] = []
        self._partial_size = 0
        self._data: list[bytes] = []
        self._data_size = 0  # of the event being gathered
        self._max_line = max_line
        self._started = False

    def feed(self, chunk: bytes) -> list[bytes]:
        """The data of every event completed by `chunk`."""
        if not self._started and chunk:
            self._started = True
            chunk = chunk.removeprefix(_BOM)  # allowed by the SSE rules, once
        if b"\n" not in chunk:
            self._hold(chunk)
            return []
        if self._partial:
            self._partial.append(chunk)
            chunk = b"".join(self._partial)
            self._partial = []
            self._partial_size = 0
        lines = chunk.split(b"\n")
        self._hold(lines.pop())
        events: list[bytes] = []
        data = self._data
        for line in lines:
            # The common lines inlined (this runs for every chunk of every
            # answer): a blank line ending an event, and a `data: ` line.
            if not line:
                if data:
                    events.append(data[0] if len(data) == 1 else b"\n".join(data))
                    data = self._data = []
                    self._data_size = 0
            elif line.startswith(b"data: ") and not line.endswith(b"\r"):
                data.append(line[6:])
                self._data_size += len(line)
            else:
                self._line(line, events)
                data = self._data
        if self._data_size > self._max_line:
            raise self._too_long("an event")
        return events

    def _hold(self, piece: bytes) -> None:
        if not piece:
            return
        self._partial.append(piece)
        self._partial_size += len(piece)
        if self._partial_size > self._max_line:
            raise self._too_long("a line")

    def _too_long(self, what: str) -> AnswerTooLargeError:
        return AnswerTooLargeError(
            f"The provider sent {what} longer than {human_size(self._max_line)}; "
            "the answer was abandoned"
        )

    def close(self) -> list[bytes]:
        """At the end of the stream: an unterminated last line and event still count."""
        events: list[bytes] = []
        if self._partial:
            self._line(b"".join(self._partial), events)
            self._partial = []
        self._line(b"", events)
        return events

    def _line(self, line: bytes, events: list[bytes]) -> None:
        if line.endswith(b"\r"):
            line = line[:-1]
        if not line:
            if self._data:
                events.append(self._data[0] if len(self._data) == 1 else b"\n".join(self._data))
                self._data = []
                self._data_size = 0
            return
        if line.startswith(b"data:"):
            value = line[5:]
            self._data.append(value[1:] if value.startswith(b" ") else value)
            self._data_size += len(line)
        # Comments (":...") and other fields carry nothing we use.
