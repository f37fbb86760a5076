"""Byte ranges of inputs: what splits a large file or object between workers (local
processes, Spark tasks) without reading it, and the ranged reads each worker makes. The
CSQ1LOGP and URB readers find their first record or message in a range themselves
(``formats.csq1logp.framing.range_frames``, ``formats.urb.ranges``)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

HEAD = 65536  # bytes ``head_of`` reads by default


@dataclass(frozen=True)
class ByteRange:
    """A byte range of one file, cut anywhere (no pass over the data needed): its reader
    decodes the records or messages that start at a confirmed position inside it."""

    path: str  # a path or URI
    start: int
    end: int
    framing: str


def byte_ranges(path: str, size: int, framing: str, split_size: int) -> list[ByteRange]:
    """``size`` bytes cut every ``split_size`` bytes: O(1) per range, nothing read."""
    if size <= 0:
        return [ByteRange(path, 0, 0, framing)]
    return [ByteRange(path, a, min(a + split_size, size), framing)
            for a in range(0, size, max(1, split_size))]


def read_chunks(path: str, start: int = 0, end: int | None = None,
                chunk: int = 4 << 20, options: Mapping[str, str] | None = None) -> Iterator[bytes]:
    """Bytes ``start..end`` of a file or URI in chunks (ranged reads)."""
    from mqtool.io.uris import is_uri, read_range

    if is_uri(path):
        return read_range(path, start, end, chunk, options)
    from mqtool.io.inputs import iter_chunks

    return iter_chunks(path, start, None if end is None else end - start, chunk)


def head_of(path: str, n: int = HEAD, options: Mapping[str, str] | None = None) -> bytes:
    """The first ``n`` bytes of a file or URI."""
    return b"".join(read_chunks(path, 0, n, n, options))
