"""Lines of a text dump, read in blocks: LF, CRLF and CR-only line ends, bounded memory.

Each line comes with its number (1-based), the file offset of its first byte and how it
ended: ``EOL`` (a line end), ``EOF`` (the file ends inside it: a cut file) or ``LONG``
(longer than ``MAX_LINE``: the first ``MAX_LINE`` bytes are given, the rest is skipped).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import IO, NamedTuple

BLOCK = 1 << 20
MAX_LINE = 16 << 20
EOL, EOF, LONG = "eol", "eof", "long"


class Line(NamedTuple):
    number: int
    offset: int
    text: bytes  # without its line end
    end: str  # EOL, EOF or LONG


def read_lines(head: bytes, f: IO[bytes] | None, advance: Callable[[int], None] | None = None,
               block: int = BLOCK, max_line: int = MAX_LINE) -> Iterator[Line]:
    """The lines of ``head`` followed by the rest of ``f``."""
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


def _first_eol(buf: bytes) -> int:
    """Index just past the first line end in ``buf``, -1 when there is none."""
    n, r = buf.find(b"\n"), buf.find(b"\r")
    if r >= 0 and (n < 0 or r < n):
        return r + 2 if buf[r + 1:r + 2] == b"\n" else r + 1
    return n + 1 if n >= 0 else -1
