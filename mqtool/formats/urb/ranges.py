"""Raw URB streams on byte ranges: ``extract urb``, ``spark-extract urb`` and the
``mqtool.urb`` DataSource cut a large stream of back-to-back messages into ranges that are
decoded apart, locally and in Spark tasks, with the cut of CSQ1LOGP (``csq1logp.framing.
byte_ranges``: every ``split_size`` bytes, nothing read to plan them) and its ranged reads
(``read_chunks``: paths and ``pyarrow.fs`` URIs).

A range ``[start, end)`` owns the messages that start in it. Its reader finds its first
message itself: the first URBH at or after ``start`` that is a *restart point*, confirmed by
decoding its header (Software AG, Event Replicator for Adabas, *URBH*: eyecatcher in either
code page, URBHLEN, URBHVERS, URBHBORD as declared, then URBHLENT in the byte order URBHBORD
names) whose URBHLENT lands on the end of the input or on another such header that fits in
the input; and whose message is not the continuation of a transaction (its first element is
no URBC), so a continued transaction (URBTCONT = Y, then URBC) is never cut from its
continuations. The range reads on past ``end`` to the next restart point, finishing its
last message and any damaged stretch that starts in it. Every byte is decoded by exactly one
range and at the same place as in a whole-file read (``range_parts``), and rows name
messages, transactions, records and images by their offsets (``extract``), so the rows do
not depend on the cut.

A stretch of bytes inside one message that is itself a complete, chained URB message (a
record image holding URB messages) would be taken for a restart point by a range starting
inside it; the whole-file read does not cut there.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from mqtool.formats.urb.bulk import HSIZE
from mqtool.formats.urb.layout import (
    ASCII_URBH,
    CODEPAGES,
    EBCDIC_URBH,
    EYE_LEN,
    HEADER_PEEK,
)
from mqtool.formats.urb.stream import BLOCK, Part, blocks, message_length
from mqtool.io.ranges import ByteRange, byte_ranges, read_chunks

SPLIT_SIZE = 32 << 20  # the byte ranges of a raw stream, by default
SCAN = 1 << 20  # bytes read at a time while looking for a restart point
CONTINUATION = frozenset("URBC".encode(cp) for cp in CODEPAGES)  # a continued transaction's element

__all__ = ["ByteRange", "UrbRange", "byte_ranges", "first_start", "range_parts"]


@dataclass(frozen=True)
class UrbRange:
    """A byte range of one input: ``path`` is read (a path or URI), ``name`` names it in rows."""

    path: str
    name: str
    start: int
    end: int
    size: int


def plan(files: list[tuple[str, int]], split_size: int, names: Mapping[str, str] | None = None,
         ) -> list[UrbRange]:
    """The ranges of every ``(path, size)``: O(1) per range, no byte read. Inputs that turn
    out not to be raw streams (queue dumps, dump text) are decoded whole by their range
    at 0 (``range_parts`` knows which)."""
    names = names or {}
    return [UrbRange(path, names.get(path, path), r.start, r.end, size)
            for path, size in files for r in byte_ranges(path, size, "", split_size)]


class _Window:
    """Bytes of an input from a position on, read as far as asked (ranged reads)."""

    def __init__(self, path: str, at: int, size: int, options: Mapping[str, str] | None) -> None:
        self.path, self.size, self.options = path, size, options
        self.base, self.buf = at, b""
        self.chunks = read_chunks(path, at, None, SCAN, options)

    def cover(self, end: int) -> bool:
        """Read up to absolute ``end`` (False: the input ends before it)."""
        while self.base + len(self.buf) < end:
            chunk = next(self.chunks, None)
            if chunk is None:
                return False
            self.buf += chunk
        return True

    def peek(self, at: int, n: int) -> bytes:
        """``n`` bytes at ``at`` (fewer at the end): from the window, or by a ranged read
        when they lie far ahead (a big message is not read to see its successor)."""
        if at + n <= self.base + len(self.buf) + SCAN:
            self.cover(at + n)
            return self.buf[at - self.base:at - self.base + n]
        return b"".join(read_chunks(self.path, at, at + n, n, self.options))

    def drop(self, before: int) -> None:
        """Forget the bytes before ``before`` (nothing is looked at twice)."""
        if before > self.base:
            cut = min(before - self.base, len(self.buf))
            self.buf, self.base = self.buf[cut:], self.base + cut

    def find_eye(self, at: int) -> int | None:
        """The next URBH eyecatcher (either code page) at or after ``at``."""
        while True:
            self.drop(at)
            rel = max(0, at - self.base)
            hits = [i for i in (self.buf.find(EBCDIC_URBH, rel), self.buf.find(ASCII_URBH, rel))
                    if i >= 0]
            if hits:
                return self.base + min(hits)
            at = max(at, self.base + len(self.buf) - EYE_LEN + 1)
            if not self.cover(self.base + len(self.buf) + 1):
                return None


def _restarts_at(w: _Window, at: int) -> bool:
    """A message starts at ``at`` that no range boundary can split from what precedes it:
    its header chains (``stream.chains``, over the whole input) and it is no continuation."""
    lent = message_length(w.peek(at, HEADER_PEEK))
    if lent is None or at + lent > w.size:
        return False
    if lent >= HSIZE + EYE_LEN and w.peek(at + HSIZE, EYE_LEN) in CONTINUATION:
        return False
    nxt = at + lent
    if nxt == w.size:
        return True
    lent2 = message_length(w.peek(nxt, HEADER_PEEK))
    return lent2 is not None and nxt + lent2 <= w.size


def first_start(path: str, at: int, size: int, options: Mapping[str, str] | None = None) -> int:
    """The first restart point at or after ``at`` (``size`` when there is none)."""
    if at >= size:
        return size
    w = _Window(path, at, size, options)
    pos = at
    while True:
        cand = w.find_eye(pos)
        if cand is None:
            return size
        if _restarts_at(w, cand):
            return cand
        pos = cand + 1


def range_parts(path: str, start: int, end: int, size: int, name: str | None = None,
                options: Mapping[str, str] | None = None, block: int = BLOCK,
                ) -> Iterator[tuple[Part, int]]:
    """The parts of a raw stream a byte range owns (with the bytes read so far): from its
    first restart point (the input's first byte for the range at 0) to the first restart
    point at or after ``end``, in blocks cut at message boundaries (``stream.blocks``)."""
    first = 0 if start == 0 else first_start(path, start, size, options)
    if first >= min(end, size):
        return
    last = size if end >= size else first_start(path, end, size, options)
    chunks = read_chunks(path, first, last, block, options)
    yield from blocks(chunks, name or path, first, block, more=last < size)
