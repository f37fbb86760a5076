"""Hex dump text -> bytes: the documents' dumps exactly as printed, xxd, ``hexdump -C``,
amqsbcg data lines, plain hex (``xxd -p``, any length), ``X'...'`` literals, and mqtool's
own output.

Only offsets and hex words are trusted: character columns are typeset, often garbled,
may hold blanks, may be missing, and the documents sometimes run several dump lines into
one text line. A document-style line is "offset, hex words"; its character column is
skipped by looking for the offset the next line must have. ``N identical line(s)
suppressed`` and ``*`` repeat the line before. A dump whose offsets restart (several
dumps in one text) becomes several segments.

The style is that of the first dump line; a line of that style that cannot be read (a cut
last line, a damaged word) is an error naming its line and column, never re-read as
another style. xxd input honours its offsets as ``xxd -r`` does (a gap is zero bytes).
Plain ``hexdump`` output (16-bit words in the machine's byte order) is refused: use
``hexdump -C``. Line styles stream (``iter_undump``): memory does not grow with the text.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import pairwise
from typing import IO, Any, TypeVar

from mqtool.errors import ExitStatus, MqtoolError, UndumpError

_T = TypeVar("_T")
_HEX = re.compile(r"^[0-9A-Fa-f]+$")
_HEXCHARS = re.compile(r"[0-9A-Fa-f]+")
_OFFSET = re.compile(r"^[0-9A-Fa-f]{4,16}$")
_XXD_LINE = re.compile(r"^\s*([0-9A-Fa-f]+): ?(.*)$")
_XXD_FIRST = re.compile(r"^\s*[0-9A-Fa-f]+: [0-9A-Fa-f]")
_CANON_LINE = re.compile(r"^([0-9A-Fa-f]{6,16})(?:\s{2}(.*?))?\s*(\|.*)?$")
_CANON_FIRST = re.compile(r"^[0-9A-Fa-f]{6,16}  [0-9A-Fa-f]{2} ")
_AMQSBCG_LINE = re.compile(r"^\s*([0-9A-Fa-f]{8}): {2,}")
_HEXDUMP_LINE = re.compile(r"^[0-9a-fA-F]{7}(?: [0-9a-fA-F]{4})+\s*$")
_LITERAL = re.compile(r"X'([0-9A-Fa-f \t]*)'")
_SUPPRESSED = re.compile(r"^(\d+) identical line\(s\) suppressed$", re.IGNORECASE)
AMQSBCG_MAX = 16 + 3  # a data line's bytes and a multi-byte character's overrun
LINE_STYLES = ("xxd", "canonical", "plain", "amqsbcg", "literal")
SCAN = 200  # lines looked at to find the first dump line
GAP_LIMIT = 16 << 20  # the largest xxd offset jump filled with zeros in memory
LINE_MAX = 64 << 10  # the longest line of a line style but plain hex (which may be one line)
PIECE = 1 << 20  # characters of a long plain-hex line read at a time
DOCUMENT_LIMIT = 8 << 20  # document text that is not one plain dump is read whole up to this


@dataclass(frozen=True)
class Hole:
    """Bytes the text stands for without listing them: zeros an xxd dump skips (its
    offsets jump; ``xxd -r`` fills them), or ``pattern`` repeated (``*``, ``N identical
    line(s) suppressed``). Read at ``line``. A file gets zeros as a hole (sparse where the
    file system allows); memory never holds more than a piece of either."""

    size: int
    line: int
    pattern: bytes = b"\0"

    def pieces(self) -> Iterator[bytes]:
        """The bytes, a piece of about ``PIECE`` bytes at a time."""
        return _repeated(self.pattern, self.size)


@dataclass(frozen=True)
class Segment:
    """One dump read back: the address printed for its first byte, its bytes, where it began."""

    address: int
    data: bytes
    line: int


@dataclass(frozen=True, slots=True)
class _Tok:
    text: str
    line: int  # 1-based
    col: int  # 1-based
    bol: bool  # first token of its text line


def undump(text: str, cols: int | None = None) -> bytes:
    """All bytes of all dumps in ``text``, concatenated (what ``dump -r`` writes)."""
    return b"".join(s.data for s in undump_segments(text, cols))


def undump_segments(text: str, cols: int | None = None) -> list[Segment]:
    """The dumps in ``text``; raises ``UndumpError`` naming line and column on bad text.

    Line styles, and document text that is one plain dump, are read a line at a time
    (no token list: memory is the text and the bytes)."""
    kind = detect(text)
    if kind == "hexdump":
        raise _hexdump_refused()
    if kind in LINE_STYLES:
        cut = bool(text) and not text.endswith(("\n", "\r"))
        data = _joined(iter_undump(_lines(text), kind, cut=cut, holes=True))
        first, address = _first_line(text, kind)
        return [Segment(address, data, first)]
    if cols is None and len(text) > _STREAM_FROM:
        try:
            data = _joined(iter_document(_lines(text)))
        except NotPlainError:
            pass
        else:
            first, address = _first_line(text, kind)
            return [Segment(address, data, first)]
    width, phase = _infer_cols(text)
    return _Document(_tokens(text), cols or width, phase if cols is None else 0).read()


def _joined(pieces: Iterable[bytes | Hole]) -> bytes:
    """The bytes of ``pieces`` in memory: a hole larger than ``GAP_LIMIT`` is refused."""
    out = bytearray()
    for piece in pieces:
        if isinstance(piece, Hole):
            _check_fill(piece.size, piece.line)
            for part in piece.pieces():
                out += part
        else:
            out += piece
    return bytes(out)


def _check_fill(size: int, line: int) -> None:
    """Refuse to hold more than ``GAP_LIMIT`` bytes that one line of text stands for."""
    if size > GAP_LIMIT:
        raise UndumpError(line, 1, f"this line stands for {size:,} bytes not written out (an "
                          f"offset jump or repeated lines): more than are read back in memory "
                          f"({GAP_LIMIT >> 20} MiB); 'mqtool dump -r -o FILE' writes them")


_STREAM_FROM = 1 << 20  # smaller document texts take the token reader directly


def _lines(text: str) -> Iterator[str]:
    """The lines of ``text`` without a list of them."""
    for line in io.StringIO(text, newline=None):
        yield line.rstrip("\n")


def _first_line(text: str, kind: str) -> tuple[int, int]:
    """The number and address of the first dump line."""
    pattern = {"xxd": _XXD_LINE, "canonical": _CANON_LINE, "amqsbcg": _AMQSBCG_LINE}.get(kind)
    for n, ln in enumerate(_lines(text), 1):
        if not ln.strip():
            continue
        if kind == "document":
            words = ln.split()
            if _OFFSET.match(words[0]):
                return n, int(words[0], 16)
            continue
        if pattern is None:
            return n, 0
        hit = pattern.match(ln)
        if hit and ln.strip() != "*":
            return n, int(hit.group(1), 16)
    return 1, 0


def detect(text: str) -> str:
    """``document``, ``xxd``, ``canonical``, ``amqsbcg``, ``plain`` (``xxd -p``), ``literal``
    (``X'...'``) or ``hexdump`` (plain hexdump, refused), from the first dump line."""
    return detect_lines(text.splitlines()[:SCAN])


def detect_lines(lines: list[str]) -> str:
    """``detect`` of the first lines of a text."""
    body = [ln for ln in lines if ln.strip()]
    if not body:
        return "document"
    first = body[0]
    if _HEXDUMP_LINE.match(first) and not any("|" in ln or "*" in ln for ln in body[:8]):
        return "hexdump"
    if _LITERAL.search(first) and first.strip().upper().startswith("X'"):
        return "literal"
    if any(_AMQSBCG_LINE.match(ln) and "'" in ln for ln in body):
        return "amqsbcg"
    xxd = _XXD_LINE.match(first)
    if _XXD_FIRST.match(first) or (xxd and not _AMQSBCG_LINE.match(first)
                                   and xxd.group(2).strip() == ""):
        return "xxd"
    if _CANON_FIRST.match(first) and "|" in first:
        return "canonical"
    if _is_plain(body[:8]):
        return "plain"
    return "document"


def _is_plain(lines: list[str]) -> bool:
    """Lines of hex only: ``xxd -p`` (one run a line) or words of one width on one line
    (``E4D9C2C8 00000040``); not document lines whose first word is the offset."""
    rows = [ln.split() for ln in lines]
    if not all(all(_HEX.match(t) for t in row) for row in rows):
        return False
    if all(len(row) == 1 for row in rows):
        return True
    if len(rows) == 1:
        return len({len(t) for t in rows[0]}) == 1
    return False


def looks_like_dump(text: str) -> bool:
    """True when ``text`` reads back as at least one dump line (for ``identify``); looks
    at the first 256 KiB only (whole lines)."""
    if len(text) > _LOOK:
        cut = max(text.rfind("\n", 0, _LOOK), text.rfind("\r", 0, _LOOK))
        text = text[:cut + 1] if cut > 0 else text[:_LOOK]
    try:
        return bool(undump_segments(text))
    except UndumpError:
        return False


_LOOK = 256 << 10


def plain_text(text: str) -> bool:
    """No control characters (C0, DEL, C1) but tab and line ends."""
    return not any((ord(c) < 0x20 and c not in "\t\r\n") or 0x7F <= ord(c) < 0xA0 for c in text)


def text_of(data: bytes) -> str:
    """Bytes of dump text as text: UTF-8, else latin-1."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def is_dump_text(data: bytes) -> bool:
    """Do these bytes (the start of an input) read as hex dump text? Text in its first
    4 KiB that reads back as a dump line."""
    head = data[:4096]
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as e:
        if e.start < len(head) - 3 or len(data) <= len(head):  # not a character we cut
            return False
        text = head[:e.start].decode("utf-8")
    return plain_text(text) and looks_like_dump(text)


def unit_bytes(data: bytes, hex_text: bool, source: str, fmt: str = "input") -> bytes:
    """The bytes of an input to decode as ``fmt``: ``data``, or those of the dump text it
    holds — with ``hex_text`` (``--hex``) always, else when ``is_dump_text`` recognises it,
    as ``decode auto`` and ``identify`` do (binary input never reads as dump text: it is
    not UTF-8 text free of control characters whose lines read back as dump lines). No
    bytes is ``EmptyInputError``."""
    from mqtool.errors import EmptyInputError

    if hex_text or is_dump_text(data):
        data = undump(text_of(data))
    if not data:
        raise EmptyInputError(fmt, source)
    return data


def _hexdump_refused() -> UndumpError:
    return UndumpError(1, 1, "plain hexdump output (16-bit words in the byte order of the "
                             "machine that ran it) cannot be read back reliably; use "
                             "'hexdump -C' (or xxd) instead")


# --------------------------------------------------------------------------- streaming


def iter_undump(lines: Iterable[str], kind: str | None = None,
                cut: bool | Callable[[], bool] = False, first_line: int = 1,
                holes: bool = False) -> Iterator[Any]:
    """Bytes of the dump text in ``lines`` (a line style), a line at a time. ``cut``: the
    text does not end with a line end (its last line may be incomplete); a callable is
    asked when the last line comes (streams learn it late). An xxd offset jump is yielded
    as a ``Hole`` (``holes``) or as zero bytes a piece at a time; a ``*`` repeat a piece at
    a time: memory does not grow with what the text stands for."""
    it = iter(lines)
    if kind is None:
        head: list[str] = []
        for ln in it:
            head.append(ln)
            if len(head) >= SCAN:
                break
        kind = detect_lines(head)
        it = _chain(head, it)
    if kind == "hexdump":
        raise _hexdump_refused()
    reader = {"xxd": _XxdReader, "canonical": _CanonicalReader, "plain": _PlainReader,
              "amqsbcg": _AmqsbcgReader, "literal": _LiteralReader}.get(kind)
    if reader is None:
        raise ValueError(f"{kind}: not a line style")
    for out in reader(cut).read(_last_flagged(it), first_line):
        if holes or not isinstance(out, Hole):
            yield out
        else:
            yield from out.pieces()


def _repeated(pattern: bytes, size: int) -> Iterator[bytes]:
    """``size`` bytes of ``pattern`` repeated, in pieces of about ``PIECE`` bytes."""
    if not pattern or size <= 0:
        return
    unit = pattern * max(1, PIECE // len(pattern))
    while size > 0:
        piece = unit[:size]
        size -= len(piece)
        yield piece


def _chain(head: list[_T], rest: Iterable[_T]) -> Iterator[_T]:
    yield from head
    yield from rest


def _last_flagged(lines: Iterator[str]) -> Iterator[tuple[str, bool]]:
    """Each line and whether it is the last."""
    prev: str | None = None
    for ln in lines:
        if prev is not None:
            yield prev, False
        prev = ln
    if prev is not None:
        yield prev, True


class _LineReader:
    """A line-oriented style; subclasses turn one line into bytes."""

    style = ""

    def __init__(self, cut: bool | Callable[[], bool]) -> None:
        self.cut = cut
        self.pos: int | None = None  # the address the next byte has
        self.prev = b""
        self.repeat = False
        self.count = 0
        self.fill: tuple[bytes, int] | None = None  # (pattern, bytes) before the next chunk

    def read(self, lines: Iterator[tuple[str, bool]], first_line: int) -> Iterator[Any]:
        ln = first_line - 1
        for ln, (line, last) in enumerate(lines, first_line):
            if not line.strip():
                continue
            cut = last and (self.cut() if callable(self.cut) else self.cut)
            try:
                out = self.line(line, ln, cut)
            except UndumpError as e:
                if cut:
                    raise UndumpError(e.line, e.column, f"{e.reason}; the text ends inside this "
                                      "line: it is cut") from None
                raise
            if self.fill is not None:
                pattern, size = self.fill
                self.fill = None
                self.count += size
                yield Hole(size, ln, pattern)
            if out:
                self.count += len(out)
                yield out
        yield from self.finish(ln)

    def line(self, line: str, ln: int, cut: bool) -> bytes:
        raise NotImplementedError

    def finish(self, ln: int) -> Iterator[bytes]:
        if not self.count and self.pos is None:
            raise UndumpError(1, 1, f"no {self.style} dump line found")
        return iter(())

    def place(self, off: int, chunk: bytes, ln: int, fill_gaps: bool) -> bytes:
        """Bytes to write for ``chunk`` at address ``off`` (``*`` repeats, gaps)."""
        if self.pos is None:
            self.pos = off
        if off > self.pos:
            gap = off - self.pos
            if self.repeat and self.prev:
                self.fill = (self.prev, gap)
            elif fill_gaps:
                self.fill = (b"\0", gap)  # as xxd -r: the bytes a gap skips are zero
            else:
                raise UndumpError(ln, 1, f"offset {off:#x} where {self.pos:#x} was expected: "
                                  "lines are missing")
        elif off < self.pos:
            raise UndumpError(ln, 1, f"offset {off:#x} goes back (expected {self.pos:#x})")
        self.repeat = False
        self.pos = off + len(chunk)
        if chunk:
            self.prev = chunk
        return chunk


class _XxdReader(_LineReader):
    style = "xxd"

    def line(self, line: str, ln: int, cut: bool) -> bytes:
        if line.strip() == "*":
            self.repeat = True
            return b""
        m = _XXD_LINE.match(line)
        if not m:
            raise UndumpError(ln, 1, f"not an xxd line (offset: hex...): {line[:20]!r}")
        area = m.group(2)
        if cut and "  " not in area.rstrip():
            raise UndumpError(ln, 1, "the line has no character column")
        hexpart = area.split("  ", 1)[0]
        try:
            chunk = bytes.fromhex(hexpart)
            if len(hexpart.replace(" ", "")) != 2 * len(chunk) or "\t" in hexpart:
                raise ValueError
        except ValueError:
            chunk = _hex_tokens(hexpart, ln, m.start(2))
        if not self.count and self.pos is None:
            self.pos = int(m.group(1), 16)
        off = int(m.group(1), 16)
        if off == self.pos and not self.repeat:  # the common case: the next line
            self.pos = off + len(chunk)
            if chunk:
                self.prev = chunk
            return chunk
        return self.place(off, chunk, ln, fill_gaps=True)

    def finish(self, ln: int) -> Iterator[bytes]:
        if self.repeat:
            raise UndumpError(ln, 1, "'*' ends the dump: how many lines it repeats is unknown")
        return super().finish(ln)


class _CanonicalReader(_LineReader):
    style = "hexdump -C"

    def line(self, line: str, ln: int, cut: bool) -> bytes:
        if line.strip() == "*":
            self.repeat = True
            return b""
        m = _CANON_LINE.match(line.rstrip("\n"))
        if not m:
            raise UndumpError(ln, 1, "not a hexdump -C line (offset, bytes, |chars|)")
        off = int(m.group(1), 16)
        if m.group(2) is None and m.group(3) is None:  # the closing offset line
            return self.place(off, b"", ln, fill_gaps=False)
        if cut and m.group(3) is None:
            raise UndumpError(ln, 1, "the line has no |character column|")
        return self.place(off, _hex_tokens(m.group(2) or "", ln, m.start(2)), ln, fill_gaps=False)

    def finish(self, ln: int) -> Iterator[bytes]:
        if self.repeat:
            raise UndumpError(ln, 1, "'*' ends the dump: how many lines it repeats is unknown")
        return super().finish(ln)


class _PlainReader(_LineReader):
    style = "plain hex"

    def __init__(self, cut: bool | Callable[[], bool]) -> None:
        super().__init__(cut)
        self.pos = 0

    def line(self, line: str, ln: int, cut: bool) -> bytes:
        out = bytearray()
        for m in re.finditer(r"\S+", line):
            tok = m.group()
            if not _HEX.match(tok):
                raise UndumpError(ln, m.start() + 1, f"{tok[:20]!r} is not hex")
            if len(tok) % 2:
                raise UndumpError(ln, m.start() + 1, f"{tok[:20]!r} has an odd number of hex "
                                  f"digits ({len(tok)})")
            out += bytes.fromhex(tok)
        return bytes(out)


class _LiteralReader(_PlainReader):
    style = "X'...' literal"

    def line(self, line: str, ln: int, cut: bool) -> bytes:
        out = bytearray()
        pos = 0
        for m in _LITERAL.finditer(line):
            if line[pos:m.start()].strip():
                col = pos + len(line[pos:m.start()]) - len(line[pos:m.start()].lstrip()) + 1
                raise UndumpError(ln, col, f"{line[pos:m.start()].strip()[:20]!r} is not an "
                                  "X'...' literal")
            digits = "".join(m.group(1).split())
            if len(digits) % 2:
                raise UndumpError(ln, m.start() + 1, f"X'{digits[:20]}' has an odd number of "
                                  f"hex digits ({len(digits)})")
            out += bytes.fromhex(digits)
            pos = m.end()
        if line[pos:].strip():
            lead = len(line[pos:]) - len(line[pos:].lstrip())
            raise UndumpError(ln, pos + lead + 1, f"{line[pos:].strip()[:20]!r} is not an X'...' literal"
                              + (" (no closing quote)" if "X'" in line[pos:] else ""))
        return bytes(out)


class _AmqsbcgReader(_LineReader):
    """amqsbcg data lines (``00000000:  4142 4344 ...  'AB..'``); other lines are skipped.
    A line may hold up to 3 bytes more (a multi-byte character crossing the 16th byte)."""

    style = "amqsbcg"

    def line(self, line: str, ln: int, cut: bool) -> bytes:
        m = _AMQSBCG_LINE.match(line)
        if not m:
            return b""  # the listing's other lines
        words: list[bytes] = []
        pos, size = m.end(), len(line)
        while pos < size:
            while pos < size and line[pos] in " \t":
                pos += 1
            w = _HEXCHARS.match(line, pos)
            if w is None or (w.end() < size and line[w.end()] not in " \t"):
                break  # the character column
            if len(w.group()) % 2:
                raise UndumpError(ln, pos + 1, f"{w.group()!r} has an odd number of hex digits")
            words.append(bytes.fromhex(w.group()))
            pos = w.end()
        chunk = b"".join(words)
        if len(chunk) > AMQSBCG_MAX:
            raise UndumpError(ln, m.end() + 1, f"{len(chunk)} bytes on one amqsbcg line (at "
                              f"most {AMQSBCG_MAX}): its character column reads as hex")
        if cut and pos >= size:
            raise UndumpError(ln, 1, "the line has no character column")
        off = int(m.group(1), 16)
        if self.pos is not None and off < self.pos and off == 0:
            self.pos = None  # the next message of a listing starts at 0 again
        return self.place(off, chunk, ln, fill_gaps=False)


# --------------------------------------------------------------------------- document style


def _tokens(text: str) -> list[_Tok]:
    toks: list[_Tok] = []
    for ln, line in enumerate(text.splitlines(), 1):
        first = True
        for m in re.finditer(r"\S+", line):
            toks.append(_Tok(m.group(), ln, m.start() + 1, first))
            first = False
    return toks


def _infer_cols(text: str) -> tuple[int, int]:
    """Bytes per line and the alignment of lines (their offset modulo that width): from the
    offsets that start consecutive text lines when two or more steps agree, else from the
    most bytes a line before a ``*...*`` column holds (a dump of a few lines, squeezed
    lines); 16 by default. The
    first line may be partial (a storage dump starting mid-line), the last short; ``dump
    -s 5`` prints lines at 5, X'15', ..."""
    starts, counts = [], []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2 and _OFFSET.match(parts[0]) and _HEX.match(parts[1]):
            starts.append(int(parts[0], 16))
            n = 0
            for w in parts[1:]:
                if w.startswith("*"):  # mqtool's character column: the words before it count
                    counts.append(n)
                    break
                if not (_HEX.match(w) and len(w) % 2 == 0):
                    break
                n += len(w) // 2
    diffs = [b - a for a, b in pairwise(starts) if b > a]
    common = Counter(diffs[1:]).most_common(1)  # the first line may be partial
    if common and common[0][1] >= 2 and 0 < common[0][0] <= 256:
        cols = common[0][0]
    elif counts and 0 < max(counts) <= 256:
        cols = max(counts)
    else:
        cols = 16
    phase = (starts[1] if len(starts) > 1 else starts[0]) % cols if starts else 0
    return cols, phase


class _Document:
    def __init__(self, toks: list[_Tok], cols: int, phase: int = 0) -> None:
        self.t, self.cols, self.phase = toks, cols, phase
        self.i = 0
        self.segments: list[Segment] = []

    def _is_line_start(self, i: int) -> bool:
        """An offset token followed by a hex word."""
        if i + 1 >= len(self.t):
            return False
        off, word = self.t[i].text, self.t[i + 1].text
        return bool(_OFFSET.match(off)) and bool(_HEX.match(word)) and len(word) % 2 == 0

    def _suppressed(self, i: int) -> int:
        if i + 3 < len(self.t):
            phrase = " ".join(tok.text for tok in self.t[i:i + 4])
            if m := _SUPPRESSED.match(phrase):
                return int(m.group(1))
        return 0

    def read(self) -> list[Segment]:
        while self.i < len(self.t):
            if self._is_line_start(self.i):
                self._segment()
            else:
                self.i += 1
        if not self.segments:
            first = self.t[0] if self.t else _Tok("", 1, 1, True)
            raise UndumpError(first.line, first.col,
                              "no dump line found: expected an offset followed by hex words")
        return self.segments

    def _segment(self) -> None:
        start_tok = self.t[self.i]
        start = address = int(start_tok.text, 16)
        data = bytearray()
        while True:
            line_addr = address
            line, short_at = self._words(address)
            data += line
            address += len(line)
            if short_at is not None:  # a short line must be the dump's last
                self._check_last(line_addr, line, short_at, address)
                break
            found = self._next_line_start(address)
            while isinstance(found, int):  # N identical line(s) suppressed
                _check_fill(len(line) * found, self.t[self.i - 1].line)
                data += line * found
                address += len(line) * found
                found = self._next_line_start(address)
            if found == "end":
                break
        self.segments.append(Segment(start, bytes(data), start_tok.line))

    def _words(self, address: int) -> tuple[bytes, int | None]:
        """Read the hex words after the offset at ``self.i``. Returns the bytes and, when the
        line holds fewer bytes than it should, the index of the token that stopped it."""
        self.i += 1
        room = self.cols - (address - self.phase) % self.cols
        out = bytearray()
        while room > 0 and self.i < len(self.t):
            tok = self.t[self.i]
            w = tok.text
            if tok.bol or not (_HEX.match(w) and len(w) % 2 == 0 and len(w) // 2 <= room):
                return bytes(out), self.i
            out += bytes.fromhex(w)
            room -= len(w) // 2
            self.i += 1
        return bytes(out), (None if room == 0 else self.i)

    def _next_line_start(self, expected: int) -> int | str | None:
        """Skip a character column up to the line whose offset is ``expected``.

        Returns None (positioned on that line), an int N for "N identical line(s)
        suppressed" (consumed), or "end" when the dump ends (end of text, or offsets
        restart: another dump). An offset beyond ``expected`` means lines are missing.
        """
        restart = gap = None
        while self.i < len(self.t):
            if n := self._suppressed(self.i):
                self.i += 4
                return n
            tok = self.t[self.i]
            if self._is_line_start(self.i):
                value = int(tok.text, 16)
                if value == expected:
                    return None
                if tok.bol:
                    if value < expected:
                        return "end"
                    raise self._gap(self.i, expected)
                if value < expected and restart is None:
                    restart = self.i
                elif value > expected and gap is None and restart is None:
                    gap = self.i
            self.i += 1
        if gap is not None:
            raise self._gap(gap, expected)
        if restart is not None:
            self.i = restart
        return "end"

    def _check_last(self, line_addr: int, line: bytes, short_at: int, address: int) -> None:
        """A short line ends the dump, unless the next line of the same dump follows (its
        offset is where the short line stopped, or the next line boundary): then a line is
        damaged, and the error points at the bad word."""
        next_line = line_addr - (line_addr - self.phase) % self.cols + self.cols
        for i in range(self.i, len(self.t)):
            tok = self.t[i]
            if not (tok.bol or self._is_line_start(i) or self._suppressed(i)):
                continue
            if self._suppressed(i):
                bad = self.t[short_at] if short_at < len(self.t) else tok
                break
            if not _OFFSET.match(tok.text) or int(tok.text, 16) not in (address, next_line):
                if tok.bol:
                    return  # another dump, or prose: this one ended with its short line
                continue
            if self._is_line_start(i):  # the next line is fine: the short one lost words
                bad = self.t[short_at] if short_at < len(self.t) else tok
                break
            nxt = self.t[i + 1] if i + 1 < len(self.t) else tok
            raise UndumpError(nxt.line, nxt.col, f"{nxt.text!r} is not a hex word")
        else:
            return
        room = self.cols - (line_addr - self.phase) % self.cols
        raise UndumpError(bad.line, bad.col, f"{bad.text!r} is not a hex word (the line at "
                                             f"X'{line_addr:X}' holds {len(line)} of {room} bytes)")

    def _gap(self, i: int, expected: int) -> UndumpError:
        tok = self.t[i]
        return UndumpError(tok.line, tok.col, f"offset X'{int(tok.text, 16):X}' where "
                           f"X'{expected:X}' was expected: lines are missing")


# --------------------------------------------------------------------------- documents, streamed


class NotPlainError(MqtoolError):
    """The document-style text needs the full reader (its lines are not one plain dump)."""

    status = ExitStatus.DECODE


_MAX_COLS = 256  # mqtool dump -c
_DOC_REST = 2 * _MAX_COLS + 4  # the longest character column(s): --dual
_RUN_ON = re.compile(r"[0-9A-Fa-f]{4,16} +[0-9A-Fa-f]{2}")  # an offset and a word


def iter_document(lines: Iterable[str]) -> Iterator[Any]:
    """A document-style dump read a line at a time, when it is one well-formed dump (what
    ``mqtool dump`` prints, IPCS storage lines): offset, 4-byte words, a ``*...*`` column,
    ``N identical line(s) suppressed``. Anything else raises ``NotPlainError`` (read the whole
    text with ``undump`` then); what was yielded before is the same as ``undump`` gives.
    Suppressed lines come as a ``Hole`` repeating the line before."""
    expected: int | None = None
    cols = 0
    prev = b""
    short = False  # a line shorter than the width: must be the last
    pending: list[bytes] = []  # held until the width is known (first two lines)
    for ln, line in enumerate(lines, 1):
        if not line.strip():
            continue
        m = _SUPPRESSED.match(line.strip())
        if m:
            if not cols and len(pending) == 1 and prev:
                # the line before the first note is whole: a partial first line (a
                # storage dump starting mid-line) is never identical to a whole one
                cols = len(prev)
                yield pending.pop()
            if not cols or len(prev) != cols or short:
                raise NotPlainError("a suppressed-lines note before the width is known")
            fill = Hole(len(prev) * int(m.group(1)), ln, prev)
            expected = (expected or 0) + fill.size
            yield fill
            continue
        if short:
            raise NotPlainError("a short line that is not the last")
        off, data = _plain_line(line)
        if expected is not None and off != expected:
            raise NotPlainError("offsets do not follow each other")
        if expected is None:
            pending.append(data)
        elif not cols:
            # the second line fixes the width: the first may start mid-line (storage)
            cols = len(data)  # or the first line's, when the second is short (the last)
            if len(data) < len(prev):
                cols, short = len(prev), True
            if not 0 < cols <= _MAX_COLS:
                raise NotPlainError("no line width")
            pending.append(data)
            yield b"".join(pending)
            pending = []
        else:
            if len(data) > cols:
                raise NotPlainError("a line longer than the others")
            short = len(data) < cols
            yield data
        expected = off + len(data)
        prev = data
    if pending:
        yield b"".join(pending)


def _plain_line(line: str) -> tuple[int, bytes]:
    """The offset and bytes of one plain document-style line; ``NotPlainError`` otherwise."""
    left, star, rest = line.partition(" *")
    if star and (len(rest) > _DOC_REST or not rest.rstrip().endswith("*")
                 or _RUN_ON.search(rest)):
        raise NotPlainError("a character column that may hold another dump line")
    words = left.split()
    if len(words) < 2 or not _OFFSET.match(words[0]):
        raise NotPlainError("not a plain dump line")
    for w in words[1:-1]:
        if len(w) != 8 or not _HEX.match(w):
            raise NotPlainError("a word that is not 8 hex digits")
    last = words[-1]
    if not (_HEX.match(last) and len(last) % 2 == 0 and len(last) <= 8):
        raise NotPlainError("a last word that is not hex")
    return int(words[0], 16), bytes.fromhex("".join(words[1:]))


# --------------------------------------------------------------------------- hex words


def _hex_tokens(area: str, ln: int, area_start: int) -> bytes:
    """Hex tokens of a line's hex area; ``area_start`` is its 0-based column in the line."""
    out = bytearray()
    for m in re.finditer(r"\S+", area):
        tok = m.group()
        if not _HEX.match(tok):
            raise UndumpError(ln, area_start + m.start() + 1, f"{tok!r} is not hex")
        if len(tok) % 2:
            raise UndumpError(ln, area_start + m.start() + 1, f"{tok!r} has an odd number of "
                              "hex digits")
        out += bytes.fromhex(tok)
    return bytes(out)


# --------------------------------------------------------------------------- dump -r, streamed


def read_back(raw: IO[bytes], name: str, reopen: Callable[[], IO[bytes]] | None = None
              ) -> Iterator[bytes | Hole]:
    """The bytes of the dump text in ``raw`` (a file or stdin), streamed with bounded
    memory whatever the text's shape: line styles a line at a time (plain hex a piece at a
    time, so one long line is no problem), a document-style dump a line at a time while it
    is one plain dump. Document text that is not (its lines run together, it holds several
    dumps) is read whole, up to ``DOCUMENT_LIMIT`` characters: from ``reopen()`` when given
    (a file), else from a copy kept while streaming. Holes and repeats come as ``Hole``.
    Empty text is ``EmptyInputError``."""
    text = io.TextIOWrapper(io.BufferedReader(_Borrowed(raw)), encoding="utf-8", errors="replace",
                            newline=None)
    pieces = _pieces(text)
    head: list[tuple[str, int, int, bool]] = []
    chars = 0
    for piece in pieces:
        head.append(piece)
        chars += len(piece[0])
        if len(head) >= SCAN or chars >= LINE_MAX:
            break
    if not any(p[0].strip() for p in head):
        from mqtool.errors import EmptyInputError

        raise EmptyInputError("dump", name)
    kind = detect_lines(_head_lines(head))
    if kind == "hexdump":
        raise _hexdump_refused()
    stream = _chain(head, pieces)
    if kind in ("plain", "literal"):
        yield from _plain_pieces(stream, kind)
    elif kind == "document":
        yield from _document_back(stream, reopen)
    else:
        ended = [True]

        def lines() -> Iterator[str]:
            for piece, ln, col, whole in stream:
                if col > 1 or (not whole and len(piece) >= LINE_MAX):
                    raise UndumpError(ln, LINE_MAX, f"a line longer than {LINE_MAX:,} "
                                      f"characters is not a {kind} dump line")
                ended[0] = piece.endswith("\n")
                yield piece.rstrip("\n")

        yield from iter_undump(lines(), kind, cut=lambda: not ended[0], holes=True)


class _Borrowed(io.RawIOBase):
    """A binary stream a text wrapper reads without closing it (stdin stays open)."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw = raw

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.raw.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)


def _pieces(text: IO[str]) -> Iterator[tuple[str, int, int, bool]]:
    """The text as (piece, line number, column of its first character, the line ends in
    it): whole lines, and lines longer than ``PIECE`` in pieces."""
    ln, col = 1, 1
    while True:
        piece = text.readline(PIECE)
        if not piece:
            return
        whole = piece.endswith("\n")
        yield piece, ln, col, whole or len(piece) < PIECE
        if whole:
            ln, col = ln + 1, 1
        else:
            col += len(piece)


def _head_lines(head: list[tuple[str, int, int, bool]]) -> list[str]:
    """The first lines, for ``detect_lines``: a long line's first piece without its last
    (perhaps cut) word."""
    out: list[str] = []
    for piece, _ln, col, whole in head:
        if col > 1:
            continue
        line = piece.rstrip("\n")
        if not whole:
            line = line[:max(line.rfind(" "), line.rfind("\t"), 0)] or line
        out.append(line)
    return out


_LIT_TOKEN = re.compile(r"X'|'|[^\s']+", re.IGNORECASE)


def _plain_pieces(pieces: Iterable[tuple[str, int, int, bool]], kind: str) -> Iterator[bytes]:
    """Plain hex (``xxd -p``, words of hex, one line of any length) or ``X'...'`` literals,
    a piece at a time: a word cut between two pieces is carried into the next."""
    read = _LiteralPieces() if kind == "literal" else _HexPieces()
    count = 0
    for piece, ln, col, whole in pieces:
        out = read.piece(piece, ln, col, whole)
        if out:
            count += len(out)
            yield out
    out = read.end()
    count += len(out)
    if out:
        yield out
    if not count:
        raise UndumpError(1, 1, f"no {'X.. literal' if kind == 'literal' else 'plain hex'} "
                                "dump line found")


class _HexPieces:
    """Plain hex a piece at a time (``bytes.fromhex`` reads a piece whose words all have
    an even number of digits; the word-by-word reader finds the one that does not)."""

    def __init__(self) -> None:
        self.carry, self.ln, self.col = "", 1, 1

    def piece(self, piece: str, ln: int, col: int, whole: bool) -> bytes:
        text, start = self.carry + piece, (self.col if self.carry else col)
        self.carry = ""
        if not whole and text and not text[-1].isspace():
            cut = max(text.rfind(" "), text.rfind("\t")) + 1
            if cut == 0:  # no blank in the piece: one long word; its odd digit carried
                cut = len(text) - len(text) % 2
            self.carry, self.ln, self.col = text[cut:], ln, start + cut
            text = text[:cut]
        try:
            return bytes.fromhex(text)
        except ValueError:
            return _hex_words(text, ln, start)

    def end(self) -> bytes:
        return _hex_words(self.carry, self.ln, self.col) if self.carry else b""


def _hex_words(text: str, ln: int, start: int) -> bytes:
    out = bytearray()
    for m in re.finditer(r"\S+", text):
        tok = m.group()
        if not _HEX.match(tok):
            raise UndumpError(ln, start + m.start(), f"{tok[:20]!r} is not hex")
        if len(tok) % 2:
            raise UndumpError(ln, start + m.start(), f"{tok[:20]!r} has an odd number of hex "
                              f"digits ({len(tok)})")
        out += bytes.fromhex(tok)
    return bytes(out)


class _LiteralPieces:
    """``X'...'`` literals a piece at a time; a literal ends on its own line."""

    def __init__(self) -> None:
        self.carry, self.ln, self.col = "", 1, 1
        self.inside = False
        self.digits = ""  # of the open literal, not yet an even number
        self.count = 0  # its digits
        self.at = (1, 1)

    def piece(self, piece: str, ln: int, col: int, whole: bool) -> bytes:
        text, start = self.carry + piece, (self.col if self.carry else col)
        self.carry = ""
        if not whole and text and not text[-1].isspace() and text[-1] != "'":
            cut = max(text.rfind(" "), text.rfind("\t"), text.rfind("'")) + 1
            if cut == 0 or (self.inside and cut < len(text) - 1):
                cut = len(text) - 1  # keep only what may start "X'" or a word
            self.carry, self.ln, self.col = text[cut:], ln, start + cut
            text = text[:cut]
        out = bytearray()
        for m in _LIT_TOKEN.finditer(text):
            out += self._token(m.group(), ln, start + m.start())
        if piece.endswith("\n") and self.inside:
            raise UndumpError(*self.at, "an X'...' literal with no closing quote")
        return bytes(out)

    def _token(self, tok: str, ln: int, at: int) -> bytes:
        if not self.inside:
            if tok.upper() != "X'":
                raise UndumpError(ln, at, f"{tok[:20]!r} is not an X'...' literal")
            self.inside, self.at, self.count = True, (ln, at), 0
            return b""
        if tok == "'":
            if self.count % 2:
                raise UndumpError(*self.at, f"an X'...' literal with an odd number of hex "
                                  f"digits ({self.count})")
            self.inside = False
            return b""
        if not _HEX.match(tok):
            raise UndumpError(ln, at, f"{tok[:20]!r} is not hex (in an X'...' literal)")
        self.count += len(tok)
        self.digits += tok
        even = len(self.digits) - len(self.digits) % 2
        out, self.digits = bytes.fromhex(self.digits[:even]), self.digits[even:]
        return out

    def end(self) -> bytes:
        out = b""
        if self.carry:
            out = self.piece("", self.ln, self.col, True)
        if self.inside:
            raise UndumpError(*self.at, "an X'...' literal with no closing quote")
        return out


def _document_back(pieces: Iterator[tuple[str, int, int, bool]],
                   reopen: Callable[[], IO[bytes]] | None) -> Iterator[bytes | Hole]:
    """A document-style dump streamed while it is one plain dump; otherwise the whole text
    (``reopen()``, or the copy kept meanwhile) read by the token reader, and what was not
    yet written written."""
    import hashlib
    import tempfile

    copy = None if reopen is not None else tempfile.TemporaryFile()  # noqa: SIM115 - closed below
    done = hashlib.sha256()
    n = 0

    def lines() -> Iterator[str]:
        for piece, _ln, col, whole in pieces:
            if col > 1 or (not whole and len(piece) >= PIECE):
                raise NotPlainError("a line too long to be a dump line")
            if copy is not None:
                copy.write(piece.encode("utf-8"))
            yield piece.rstrip("\n")

    try:
        try:
            for out in iter_document(lines()):
                if isinstance(out, Hole):
                    for part in out.pieces():
                        done.update(part)
                else:
                    done.update(out)
                n += out.size if isinstance(out, Hole) else len(out)
                yield out
        except NotPlainError:
            full = _document_whole(copy, pieces, reopen)
            if hashlib.sha256(full[:n]).digest() != done.digest():
                raise UndumpError(1, 1, "the text reads differently as a whole than line by "
                                        "line; nothing after the first bytes written is "
                                        "certain") from None
            yield full[n:]
    finally:
        if copy is not None:
            copy.close()


def _document_whole(copy: IO[bytes] | None, rest: Iterator[tuple[str, int, int, bool]],
                    reopen: Callable[[], IO[bytes]] | None) -> bytes:
    """The bytes of a whole document-style text (not more than ``DOCUMENT_LIMIT``)."""
    def limited(f: IO[bytes]) -> bytes:
        data = f.read(DOCUMENT_LIMIT + 1)
        if len(data) > DOCUMENT_LIMIT:
            raise UndumpError(1, 1, f"document-style text that is not one plain dump (its "
                              f"lines run together, or it holds several dumps) is read whole, "
                              f"and this is more than {DOCUMENT_LIMIT >> 20} MiB: split it")
        return data

    if reopen is not None:
        with reopen() as f:
            return undump(text_of(limited(f)))
    assert copy is not None
    for piece, *_ in rest:
        copy.write(piece.encode("utf-8"))
        if copy.tell() > DOCUMENT_LIMIT:
            break
    copy.seek(0)
    return undump(text_of(limited(copy)))
