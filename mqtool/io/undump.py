"""Hex dump text -> bytes: the documents' dumps exactly as printed, xxd, ``hexdump -C``,
plain hex (``xxd -p``), and mqtool's own output.

Only offsets and hex words are trusted: character columns are typeset, often garbled,
may hold blanks, may be missing, and the documents sometimes run several dump lines into
one text line. A document-style line is "offset, hex words"; its character column is
skipped by looking for the offset the next line must have. ``N identical line(s)
suppressed`` and ``*`` repeat the line before. A dump whose offsets restart (several
dumps in one text) becomes several segments.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from itertools import pairwise

from mqtool.errors import UndumpError

_HEX = re.compile(r"^[0-9A-Fa-f]+$")
_OFFSET = re.compile(r"^[0-9A-Fa-f]{4,16}$")
_XXD_LINE = re.compile(r"^\s*([0-9A-Fa-f]+):\s?(.*)$")
_CANON_LINE = re.compile(r"^([0-9A-Fa-f]{6,16})(?:\s{2}(.*?))?\s*(\|.*)?$")
_SUPPRESSED = re.compile(r"^(\d+) identical line\(s\) suppressed$", re.IGNORECASE)


@dataclass(frozen=True)
class Segment:
    """One dump read back: the address printed for its first byte, its bytes, where it began."""

    address: int
    data: bytes
    line: int


@dataclass(frozen=True)
class _Tok:
    text: str
    line: int  # 1-based
    col: int  # 1-based
    bol: bool  # first token of its text line


def undump(text: str, cols: int | None = None) -> bytes:
    """All bytes of all dumps in ``text``, concatenated (what ``dump -r`` writes)."""
    return b"".join(s.data for s in undump_segments(text, cols))


def undump_segments(text: str, cols: int | None = None) -> list[Segment]:
    """The dumps in ``text``; raises ``UndumpError`` naming line and column on bad text."""
    kind = detect(text)
    if kind == "xxd":
        return _lines_format(text, _xxd_line)
    if kind == "canonical":
        return _lines_format(text, _canonical_line)
    if kind == "plain":
        return [Segment(0, bytes.fromhex("".join(text.split())), 1)]
    return _Document(_tokens(text), cols or _infer_cols(text)).read()


def detect(text: str) -> str:
    """``document``, ``xxd``, ``canonical`` or ``plain`` (``xxd -p``), from the first lines."""
    lines = [ln for ln in text.splitlines() if ln.strip()][:8]
    if not lines:
        return "document"
    if all(_XXD_LINE.match(ln) or ln.strip() == "*" for ln in lines):
        return "xxd"
    if all(re.match(r"^[0-9A-Fa-f]{6,16}(\s{2}[0-9A-Fa-f]{2}\s|\s*$)", ln) or ln.strip() == "*"
           for ln in lines) and any("|" in ln for ln in lines):
        return "canonical"
    if all(_HEX.match(ln.strip()) and len(ln.strip()) >= 16 for ln in lines):
        return "plain"
    return "document"


def looks_like_dump(text: str) -> bool:
    """True when ``text`` reads back as at least one dump line (for ``identify``)."""
    try:
        return bool(undump_segments(text))
    except UndumpError:
        return False


# --------------------------------------------------------------------------- document style


def _tokens(text: str) -> list[_Tok]:
    toks: list[_Tok] = []
    for ln, line in enumerate(text.splitlines(), 1):
        first = True
        for m in re.finditer(r"\S+", line):
            toks.append(_Tok(m.group(), ln, m.start() + 1, first))
            first = False
    return toks


def _infer_cols(text: str) -> int:
    """Bytes per line from the offsets that start consecutive text lines (default 16)."""
    starts = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2 and _OFFSET.match(parts[0]) and _HEX.match(parts[1]):
            starts.append(int(parts[0], 16))
    diffs = [b - a for a, b in pairwise(starts) if b > a]
    common = Counter(diffs[1:]).most_common(1)  # the first line may be partial
    if common and common[0][0] in (4, 8, 16, 24, 32, 48, 64):
        return common[0][0]
    return 16


class _Document:
    def __init__(self, toks: list[_Tok], cols: int) -> None:
        self.t, self.cols = toks, cols
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
        room = self.cols - address % self.cols
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
        next_line = line_addr - line_addr % self.cols + self.cols
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
        room = self.cols - line_addr % self.cols
        raise UndumpError(bad.line, bad.col, f"{bad.text!r} is not a hex word (the line at "
                                             f"X'{line_addr:X}' holds {len(line)} of {room} bytes)")

    def _gap(self, i: int, expected: int) -> UndumpError:
        tok = self.t[i]
        return UndumpError(tok.line, tok.col, f"offset X'{int(tok.text, 16):X}' where "
                           f"X'{expected:X}' was expected: lines are missing")


# --------------------------------------------------------------------------- xxd / hexdump -C


def _lines_format(text: str, parse_line) -> list[Segment]:  # type: ignore[no-untyped-def]
    """Line-oriented dumps with absolute offsets and ``*`` for repeated lines."""
    data = bytearray()
    base: int | None = None
    prev = b""
    repeat = False
    first_line = 1
    for ln, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if line.strip() == "*":
            repeat = True
            continue
        off, chunk = parse_line(line, ln)
        if base is None:
            base, first_line = off, ln
        pos = base + len(data)
        if off > pos:
            if not repeat or not prev:
                raise UndumpError(ln, 1, f"offset {off:#x} where {pos:#x} was expected: "
                                  "lines are missing")
            gap = off - pos
            reps, rest = divmod(gap, len(prev))
            data += prev * reps + prev[:rest]
        elif off < pos:
            raise UndumpError(ln, 1, f"offset {off:#x} goes back (expected {pos:#x})")
        repeat = False
        if chunk is None:  # hexdump -C's closing offset line
            break
        data += chunk
        prev = chunk
    if base is None:
        raise UndumpError(1, 1, "no dump line found")
    if repeat:
        raise UndumpError(ln, 1, "'*' ends the dump: how many lines it repeats is unknown")
    return [Segment(base, bytes(data), first_line)]


def _xxd_line(line: str, ln: int) -> tuple[int, bytes]:
    m = _XXD_LINE.match(line)
    if not m:
        raise UndumpError(ln, 1, "not an xxd line (offset: hex...)")
    area_start = m.start(2)
    area = m.group(2).split("  ", 1)[0]
    return int(m.group(1), 16), _hex_tokens(area, ln, area_start)


def _canonical_line(line: str, ln: int) -> tuple[int, bytes | None]:
    m = _CANON_LINE.match(line.rstrip("\n"))
    if not m:
        raise UndumpError(ln, 1, "not a hexdump -C line (offset, bytes, |chars|)")
    if m.group(2) is None and m.group(3) is None:
        return int(m.group(1), 16), None
    return int(m.group(1), 16), _hex_tokens(m.group(2) or "", ln, m.start(2))


def _hex_tokens(area: str, ln: int, area_start: int) -> bytes:
    """Hex tokens of a line's hex area; ``area_start`` is its 0-based column in the line."""
    out = bytearray()
    for m in re.finditer(r"\S+", area):
        tok = m.group()
        if not (_HEX.match(tok) and len(tok) % 2 == 0):
            raise UndumpError(ln, area_start + m.start() + 1, f"{tok!r} is not hex")
        out += bytes.fromhex(tok)
    return bytes(out)
