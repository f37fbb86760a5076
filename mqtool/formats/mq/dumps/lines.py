"""Lines of a text dump, read in blocks: LF, CRLF and CR-only line ends, bounded memory.

Each line comes with its number (1-based), the file offset of its first byte and how it
ended: ``EOL`` (a line end), ``EOF`` (the file ends inside it: a cut file) or ``LONG``
(longer than ``MAX_LINE``: the first ``MAX_LINE`` bytes are given, the rest is skipped).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import IO, NamedTuple, overload

BLOCK = 1 << 20
MAX_LINE = 16 << 20
EOL, EOF, LONG = "eol", "eof", "long"


class Line(NamedTuple):
    number: int
    offset: int
    text: bytes  # without its line end
    end: str  # EOL, EOF or LONG


class Run(NamedTuple):
    """Consecutive whole lines that start with the same prefix, in one piece (their line
    ends included): readers decode such runs with one C call instead of a line at a time."""

    number: int  # of the first line
    offset: int
    text: bytes
    lines: int  # how many


@overload
def read_lines(head: bytes, f: IO[bytes] | None, advance: Callable[[int], None] | None = None,
               block: int = BLOCK, max_line: int = MAX_LINE,
               run_prefix: None = None) -> Iterator[Line]: ...


@overload
def read_lines(head: bytes, f: IO[bytes] | None, advance: Callable[[int], None] | None = None,
               block: int = BLOCK, max_line: int = MAX_LINE, *,
               run_prefix: bytes) -> Iterator[Line | Run]: ...


def read_lines(head: bytes, f: IO[bytes] | None, advance: Callable[[int], None] | None = None,
               block: int = BLOCK, max_line: int = MAX_LINE,
               run_prefix: bytes | None = None) -> Iterator[Line | Run]:
    """The lines of ``head`` followed by the rest of ``f``; with ``run_prefix``, runs of
    LF-terminated lines starting with it come as ``Run``s."""
    carry = b""
    number = 0
    offset = 0
    skipping = False  # inside an over-long line: drop bytes up to its line end
    after_cr = False  # an over-long line ended with CR at a block end: drop a LF that follows
    data = head
    while True:
        at_end = not data
        if data and advance is not None:
            advance(len(data))
        buf = carry + data if carry else data
        carry = b""
        if after_cr and buf[:1] == b"\n":
            buf = buf[1:]
            offset += 1
        after_cr = False
        if skipping:
            cut = _first_eol(buf)
            if cut < 0:
                offset += len(buf)
                buf = b""
            else:
                offset += cut
                after_cr = cut == len(buf) and buf.endswith(b"\r")
                buf = buf[cut:]
                skipping = False
        if run_prefix is not None and b"\n" in buf:
            cut = len(buf) if at_end else buf.rfind(b"\n") + 1
            complete, rest = buf[:cut], buf[cut:]
            items, number, offset = _runs(complete, run_prefix, number, offset)
            yield from items
            buf = rest
            if not buf:
                pieces: list[bytes] = []
            else:
                pieces = buf.splitlines(keepends=True)
        else:
            pieces = buf.splitlines(keepends=True)
        if pieces and not at_end and not pieces[-1].endswith(b"\n"):
            carry = pieces.pop()  # an unfinished line (or a CR that a LF may follow)
        for piece in pieces:
            text = piece.rstrip(b"\r\n")
            number += 1
            yield Line(number, offset, text, EOL if len(text) != len(piece) else EOF)
            offset += len(piece)
        if len(carry) > max_line:
            number += 1
            yield Line(number, offset, carry[:max_line], LONG)
            offset += len(carry)
            carry = b""
            skipping = True
        if at_end:
            break
        data = f.read(block) if f is not None else b""


@lru_cache(maxsize=4)
def _run_end(prefix: bytes) -> re.Pattern[bytes]:
    return re.compile(b"\n(?!" + re.escape(prefix) + b")")


def _runs(text: bytes, prefix: bytes, number: int, offset: int
          ) -> tuple[list[Line | Run], int, int]:
    """``text`` (whole lines, the last possibly without its end) as runs and lines; the
    number of its last line and the offset after it."""
    out: list[Line | Run] = []
    nl_prefix = b"\n" + prefix
    run_end = _run_end(prefix)
    pos, size = 0, len(text)
    while pos < size:
        if text.startswith(prefix, pos):
            m = run_end.search(text, pos)  # the first line end not followed by the prefix
            end = m.end() if m is not None else text.rfind(b"\n", pos) + 1
            if end > pos and (text.count(b"\r", pos, end) == text.count(b"\r\n", pos, end)):
                chunk = text[pos:end]
                n = chunk.count(b"\n")
                out.append(Run(number + 1, offset, chunk, n))
                number += n
                offset += len(chunk)
                pos = end
                continue
        nxt = text.find(nl_prefix, pos)
        seg_end = nxt + 1 if nxt >= 0 else size
        for piece in text[pos:seg_end].splitlines(keepends=True):
            line = piece.rstrip(b"\r\n")
            number += 1
            out.append(Line(number, offset, line, EOL if len(line) != len(piece) else EOF))
            offset += len(piece)
        pos = seg_end
    return out, number, offset


def _first_eol(buf: bytes) -> int:
    """Index just past the first line end in ``buf``, -1 when there is none."""
    n, r = buf.find(b"\n"), buf.find(b"\r")
    if r >= 0 and (n < 0 or r < n):
        return r + 2 if buf[r + 1:r + 2] == b"\n" else r + 1
    return n + 1 if n >= 0 else -1
