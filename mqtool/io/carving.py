"""What a format's carver answers about a structure it confirmed inside arbitrary bytes, and
the work it spent doing so.

Each format package has a ``carve`` module with the same small protocol (``mqtool.scan``
reads it)::

    FORMAT: str                         # the format name, as in the registry
    SIGNATURES: tuple[bytes, ...]       # byte strings every structure carries (declared facts)
    PATTERNS: tuple[bytes, ...]         # or regular expressions (Hyperscan / PCRE syntax)
    BEFORE: int                         # how far before its signature a structure can start
    ALIGN: int                          # (optional) structures start on multiples of this
    def confirm(view, at, final, work) -> Found | None
    def confirm_start(view, at, final, work) -> Found | None   # (optional) exactly at ``at``

``confirm`` is handed a window of the input (``view``, a memoryview) and the position of a
signature in it; it decides in constant time whether a structure can start there (None when
not), then decodes it with the format's decoder and says where it starts and ends, how sure
it is and what it is, in one line. Every byte it hands a decoder goes through
``Work.take`` so the scanner can prove its work stays linear in the input.
``confirm_start`` answers whether a structure starts exactly at ``at`` (a payload behind
MQ headers); without it, a carver whose ``BEFORE`` is 0 is asked ``confirm`` when one of its
signatures is there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

LONGEST = 16 << 20  # the longest structure a carver believes in (longer lengths are absurd)


class Found(NamedTuple):
    """A structure confirmed by decoding it. Offsets count from the start of the view
    handed to ``confirm`` until the scanner makes them absolute."""

    offset: int
    length: int
    format: str  # the codec (or queue-dump kind) that reads the carved bytes
    kind: str  # what was found, in the document's words: "URB message", "MQMD", "PCF message"
    confidence: float  # 0..1
    summary: str  # one line
    chain: tuple[str, ...] = ()  # the nesting, outermost first: ("MQXQH", "MQRFH2", "urb")
    options: Mapping[str, Any] = {}  # what decoding the carved bytes needs (codepage, part ...)
    errors: tuple[str, ...] = ()  # what the decoder said was wrong, one line each
    extension: str = "bin"  # of the carved file
    payload_at: int = -1  # where an undecided payload starts (the scanner asks the others)

    def shifted(self, delta: int) -> Found:
        return self._replace(offset=self.offset + delta)

    def to_json(self) -> dict[str, Any]:
        return {"offset": self.offset, "length": self.length, "format": self.format,
                "kind": self.kind, "confidence": round(self.confidence, 2),
                "summary": self.summary, "chain": list(self.chain),
                "options": dict(self.options), "errors": list(self.errors)}


@dataclass
class Work:
    """What a scan spent: signature candidates looked at, confirmations tried, bytes handed
    to decoders. A hostile input can raise the first two by at most one per byte and the
    last by a constant factor of the input (``tests/test_scan.py`` counts them)."""

    candidates: int = 0
    confirms: int = 0
    decoded: int = 0
    by_format: dict[str, int] = field(default_factory=dict)

    def take(self, view: memoryview | bytes, start: int, end: int) -> bytes:
        """``view[start:end]`` as bytes for a decoder, counted."""
        end = min(end, len(view))
        start = max(0, min(start, end))
        self.decoded += end - start
        return bytes(view[start:end])

    def count(self, n: int) -> None:
        """Bytes a decoder read in place (without ``take``)."""
        self.decoded += max(0, n)
