"""Where each sequenced message's bytes sit in a rebuilt external file, so that a missing
message leaves a hole at its offset instead of shifting what follows.

SAS Application Messaging sends an external file as message 1 (``lrecl``, ``filesize``)
and messages 2..N holding the file's ``len|record`` stream (each record preceded by its
length in a C long, optionally followed by a NUL), cut into messages of the queue's
maximum size. Binary files are cut into records of ``lrecl`` bytes, the last one shorter
(SAS 9.4 Integration Technologies, "Application Messaging": attachments, external files).
So when every message but the last carries the same number of stream bytes ``L``, the
stream offset of message ``k`` is ``(k - 2) * L`` and the file offset of any stream
offset follows from ``lrecl``: that is a ``Placement``. Anything that does not fit that
shape (records of other lengths, messages of several sizes, text files re-encoded on the
way out, ``lrecl`` or the file size unknown) has no placement: the bytes after a gap are
not placed by guessing.
"""

from __future__ import annotations

from dataclasses import dataclass

from mqtool.formats.sas.layout import INT_MAX


@dataclass(frozen=True)
class Placement:
    """The shape of one file's record stream: ``long``-byte lengths, records of ``lrecl``
    bytes (the last shorter), ``nul`` bytes after each, cut into messages of ``size`` stream
    bytes (message ``last`` shorter), ``filesize`` bytes of data in all."""

    long: int
    lrecl: int
    nul: int
    filesize: int
    size: int  # stream bytes of every data message but the last
    last: int  # sequence number of the last message (the count)

    @property
    def record(self) -> int:
        """Stream bytes of one whole record: its length field, its data, its NUL."""
        return self.long + self.lrecl + self.nul

    @property
    def stream_size(self) -> int:
        return stream_size(self.filesize, self.long, self.lrecl, self.nul)

    def offset(self, p: int) -> int:
        """The file offset of stream offset ``p`` (the next data byte at or after it)."""
        r, within = divmod(p, self.record)
        return min(r * self.lrecl + min(max(within - self.long, 0), self.lrecl), self.filesize)

    def stream_start(self, seq: int) -> int:
        """Stream offset of the first byte of message ``seq`` (2..last)."""
        return (seq - 2) * self.size

    def body_length(self, seq: int) -> int:
        """The stream bytes message ``seq`` must hold."""
        return self.size if seq < self.last else self.stream_size - self.stream_start(seq)

    def span(self, seq: int) -> tuple[int, int]:
        """The file bytes of message ``seq``: ``(start, end)``."""
        start = self.stream_start(seq)
        return self.offset(start), self.offset(start + self.body_length(seq))

    def pieces(self, seq: int, body_length: int) -> list[tuple[str, int, int, int]]:
        """What the bytes of message ``seq`` are: ``("len", a, b, record length)`` for a
        length field wholly inside it, ``("data", a, b, file offset)`` for record data; ``a``
        and ``b`` are offsets in the body."""
        q = self.stream_start(seq)
        out: list[tuple[str, int, int, int]] = []
        last_record = (self.filesize - 1) // self.lrecl if self.filesize else -1
        for r in range(q // self.record, (q + body_length - 1) // self.record + 1):
            rs = r * self.record
            length = self.lrecl if r < last_record else self.filesize - r * self.lrecl
            if rs >= q and rs + self.long <= q + body_length:
                out.append(("len", rs - q, rs + self.long - q, length))
            a = max(rs + self.long, q)
            b = min(rs + self.long + length, q + body_length)
            if b > a:
                out.append(("data", a - q, b - q, r * self.lrecl + a - rs - self.long))
        return out


def stream_size(filesize: int, long: int, lrecl: int, nul: int) -> int:
    """Stream bytes of a file of ``filesize`` bytes cut into records of ``lrecl``."""
    whole, rest = divmod(filesize, lrecl)
    return whole * (long + lrecl + nul) + (long + rest + nul if rest else 0)


def placement(*, long: int, lrecl: int, nul: int, filesize: int | None, count: int | None,
              lengths: dict[int, int]) -> Placement | None:
    """The ``Placement`` the messages seen agree on, or None. ``lengths``: the stream bytes
    of each data message seen (sequence number 2.. -> body length); ``count``: the count
    message's number of messages (None: missing; then it follows from the size)."""
    if not lrecl or lrecl < 0 or filesize is None or not 0 < filesize <= INT_MAX:
        return None
    total = stream_size(filesize, long, lrecl, nul)
    size = _message_size(lengths, count, total)
    if size is None or size <= 0:
        return None
    last = count if count is not None else 1 + -(-total // size)
    if last < 2 or max(lengths, default=2) > last or not (last - 2) * size < total <= (last - 1) * size:
        return None
    p = Placement(long, lrecl, nul, filesize, size, last)
    if any(p.body_length(k) != n for k, n in lengths.items()):
        return None
    return p


def _message_size(lengths: dict[int, int], count: int | None, total: int) -> int | None:
    """The one body length of every data message but the last, from those seen (or, when
    only the last was seen, from the count and the total)."""
    if count == 2:
        return total  # one data message: it holds everything
    top = count if count is not None else max(lengths, default=None)
    others = {n for k, n in lengths.items() if k != top}
    if len(others) == 1:
        return others.pop()
    if others or top is None or top not in lengths:
        return None
    if count is None:  # one message seen, the count unknown: take it for a whole one
        return lengths[top]
    size, left = divmod(total - lengths[count], count - 2)
    return size if not left and size >= lengths[count] else None
