"""Bytes in for ``extract urb``: input files (raw streams, queue dumps, dump text,
directories), raw streams cut into parts at message boundaries, queue-dump bodies in
batches, and resynchronisation after damage."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mqtool.errors import InputError
from mqtool.formats.urb.bulk import HEADERS, HSIZE, _chain
from mqtool.formats.urb.layout import (
    ASCII_URBH,
    EBCDIC_URBH,
    HEADER_PEEK,
    URBHLENT_AT,
)
from mqtool.formats.urb.tables import Provenance
from mqtool.io.inputs import missing_input
from mqtool.io.undump import is_dump_text

# A block's tables cost some 15 times its bytes while they are made (32 MiB blocks peaked
# at 1.1 GB): small blocks keep extract urb bounded (about 190 MB) and cost no speed.
BLOCK = 2 << 20  # raw streams are read in blocks of about this size
BATCH = 2 << 20  # queue-dump bodies are decoded together up to this size


# --------------------------------------------------------------------------- inputs


@dataclass
class Part:
    """Bytes decoded as one stream: a block of a raw file, or queue-dump bodies."""

    file: str
    data: bytes
    base: int = 0  # offset of data[0]: in the file (raw files), in the dump's bodies (dumps)
    bodies: list[tuple[int, int, int | None, str | None]] = field(default_factory=list)
    # (start in data, dump message number, MsgType, CorrelId hex) of each dump body
    more: bool = False  # the stream goes on after data (a message starts there)

    def dump(self) -> Callable[[int], Provenance] | None:
        if not self.bodies:
            return None
        import bisect

        starts = [b[0] for b in self.bodies]

        def where(offset: int) -> Provenance:
            _start, message, msgtype, correlid = self.bodies[bisect.bisect_right(starts, offset) - 1]
            return Provenance(message, msgtype, correlid)

        return where


def _natural(name: str) -> list[object]:
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", name)]


def input_files(paths: Iterable[str], options: Mapping[str, str] | None = None) -> Iterator[str]:
    """Files and directories (walked in natural order; an mqtool queue-dump directory is
    one input); a URI as the objects it names (``io.uris.list_files``)."""
    from mqtool.io.uris import is_uri, list_files

    for path in paths:
        if is_uri(path):
            yield from (name for name, _size in list_files([path], options))
            continue
        p = Path(path)
        if not p.exists():
            raise missing_input(path)
        if p.is_dir():
            if (p / "index.jsonl").is_file():
                yield path
                continue
            inner = sorted((c for c in p.iterdir() if not c.name.startswith(".")),
                           key=lambda c: _natural(c.name))
            yield from input_files(str(c) for c in inner if c.is_dir() or c.is_file())
        elif p.is_file():
            yield path
        else:
            raise InputError(f"{path}: not a regular file (a FIFO or device is not read)")


def _kind(path: str, options: Mapping[str, str] | None = None) -> str:
    """``raw`` (URB messages) or the queue-dump kind (a path or URI)."""
    from mqtool.formats.mq.dumps.read import sniff
    from mqtool.io.ranges import head_of
    from mqtool.io.uris import is_uri

    if not is_uri(path) and Path(path).is_dir():
        return "mqtool-dir"
    head = head_of(path, 65536, options)
    if head[:len(EBCDIC_URBH)] in (EBCDIC_URBH, ASCII_URBH):
        return "raw"
    kind = sniff(head)
    if kind is None and is_dump_text(head):  # as every decoder and decode auto tell it
        return "dump-text"
    return kind or "raw"


def message_length(head: bytes) -> int | None:
    """URBHLENT of a regular URBH (``head``: its first ``HEADER_PEEK`` bytes; eyecatcher in
    either code page, URBHLEN, URBHVERS and URBHBORD as declared, URBHLENT in the byte
    order URBHBORD names), None when these bytes are no regular header."""
    cs_big = _PREFIXES.get(head[:URBHLENT_AT])
    if cs_big is None or len(head) < HEADER_PEEK:
        return None
    lent = int.from_bytes(head[URBHLENT_AT:HEADER_PEEK], "big" if cs_big[1] else "little")
    return lent if lent >= HSIZE else None


_PREFIXES = {v: k for k, v in HEADERS.items()}


def chains(data: bytes, at: int) -> bool:
    """A regular URBH at ``at`` whose URBHLENT lands on the end of ``data`` or on another
    regular URBH whose message fits in ``data``."""
    lent = message_length(data[at:at + HEADER_PEEK])
    n = len(data)
    if lent is None or at + lent > n:
        return False
    nxt = at + lent
    if nxt == n:
        return True
    lent2 = message_length(data[nxt:nxt + HEADER_PEEK])
    return lent2 is not None and nxt + lent2 <= n


def resync(data: bytes, start: int) -> int:
    """The next offset after ``start`` where a regular URBH chains to the next one (or to
    the end of ``data``, ``chains``); ``len(data)`` when there is none."""
    n = len(data)
    pos = start + 1
    while pos < n:
        hits = [i for i in (data.find(EBCDIC_URBH, pos), data.find(ASCII_URBH, pos)) if i >= 0]
        if not hits:
            return n
        cand = min(hits)
        if chains(data, cand):
            return cand
        pos = cand + 1
    return n


def raw_parts(path: str, block: int = BLOCK) -> Iterator[tuple[Part, int]]:
    """A raw stream in blocks cut at message boundaries (``blocks``)."""
    from mqtool.io.inputs import iter_chunks

    return blocks(iter_chunks(path, 0, None, block), path, 0, block)


def blocks(chunks: Iterable[bytes], file: str, base: int = 0, block: int = BLOCK,
           more: bool = False) -> Iterator[tuple[Part, int]]:
    """Bytes of a raw stream (``chunks``, from offset ``base`` of ``file``) in parts cut at
    message boundaries (bytes read so far with each); a damaged stretch is cut off at the
    next regular header (``resync``). One block ahead is read, so bytes that fit a block
    are never walked twice. ``more``: the bytes end where a message starts (a byte range's
    end), so every part is followed by more of the stream (``Part.more``)."""
    it = iter(chunks)
    carry = b""
    chunk = _fill(it, block)
    done = len(chunk)
    while True:
        ahead = _fill(it, block)
        data = carry + chunk
        if not ahead:  # the end: the rest, however it ends
            if data:
                yield Part(file, data, base, more=more), done
            return
        done += len(ahead)
        offs, lens, _big, _cs = _chain(data, None)  # regular messages from the start
        cut = offs[-1] + lens[-1] if offs else 0
        found = True  # a message starts at the cut
        if cut == 0:  # damage (or a message longer than a block) at the start
            cut = resync(data, 0)
            if cut >= len(data):
                cut, found = max(1, len(data) - HEADER_PEEK), False
        yield Part(file, data[:cut], base, more=found), done
        base += cut
        carry, chunk = data[cut:], ahead


def _fill(chunks: Iterator[bytes], block: int) -> bytes:
    """The next ``block`` bytes of ``chunks`` (fewer at the end)."""
    out = []
    n = 0
    while n < block:
        c = next(chunks, None)
        if c is None:
            break
        out.append(c)
        n += len(c)
    return b"".join(out)


def dump_parts(path: str, progress: Callable[[int], None] | None = None,
               batch: int = BATCH) -> Iterator[tuple[Part, list[Any]]]:
    """Queue-dump bodies, batched; with each batch the dump's unusable-message problems.
    The bodies are read as one stream, back to back in dump order: a batch's ``base`` is
    the stream offset of its first body (the bytes of the bodies before it), so offsets
    grow in reading order across batches."""
    from mqtool.formats.mq.dumps.read import QueueDump

    dump = QueueDump(path, progress=progress)
    part = Part(path, b"")
    chunks: list[bytes] = []
    size = 0
    seen = 0
    for msg in dump:
        body = msg.body
        cid = msg.correlid.hex().upper() if msg.correlid else None
        part.bodies.append((size, msg.position, msg.msgtype, cid))
        chunks.append(body)
        size += len(body)
        if size >= batch:
            part.data = b"".join(chunks)
            yield part, dump.errors[seen:]
            seen = len(dump.errors)
            part, chunks, size = Part(path, b"", part.base + size), [], 0
    if chunks or not part.bodies:
        part.data = b"".join(chunks)
        yield part, dump.errors[seen:]


