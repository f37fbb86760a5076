"""``--offset`` / ``--length``: a window of an input, as xxd's ``-s`` and ``-l`` mean them
(xxd(1): "-s [+][-]seek: start at seek bytes abs. infile offset", "-l len: stop after len
octets"): decimal, ``0x`` hex or the documents' ``X'..'``, a negative offset counting from
the end. Units decoded from the window keep absolute offsets (``model.shift_unit``)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import IO, NamedTuple

from mqtool.errors import InputError

_NUMBER = re.compile(r"^([+-]?)(?:0[xX]([0-9A-Fa-f]+)|[xX]'([0-9A-Fa-f]+)'|([0-9]+))$")


def parse_number(text: str | int, what: str = "--offset") -> int:
    """``1024``, ``0x400``, ``X'400'``, ``-0x10`` -> int; anything else one clear error."""
    if isinstance(text, int):
        return text
    m = _NUMBER.match(text.strip().replace("_", ""))
    if m is None:
        raise InputError(f"{what} {text!r}: not a number (decimal, 0x.. or X'..', "
                         "optionally negative)")
    sign, hex1, hex2, dec = m.groups()
    value = int(hex1 or hex2, 16) if (hex1 or hex2) else int(dec)
    return -value if sign == "-" else value


class Window(NamedTuple):
    """Bytes ``start`` .. ``start + length`` of an input of ``size`` bytes."""

    start: int
    length: int

    @property
    def end(self) -> int:
        return self.start + self.length


def resolve(size: int | None, offset: str | int | None = None,
            length: str | int | None = None, *, past_end: bool = False) -> Window:
    """The window ``offset``/``length`` select in an input of ``size`` bytes (None: not
    known, stdin: a negative offset is refused). An offset past the end is an error (with
    ``past_end``, as ``xxd -s`` takes it: an empty window at the end); a length running
    past the end is cut, as xxd does."""
    start = parse_number(offset, "--offset") if offset is not None else 0
    n = parse_number(length, "--length") if length is not None else None
    if n is not None and n < 0:
        raise InputError(f"--length {length!r}: must not be negative")
    if start < 0:
        if size is None:
            raise InputError(f"--offset {offset!r}: a negative offset needs a file, not stdin")
        if -start > size:
            raise InputError(f"--offset {offset!r}: the input has only {size} bytes")
        start += size
    if size is not None and start > size and past_end:
        start = size
    if size is not None and start > size:
        raise InputError(f"--offset {offset!r}: past the end of the input ({size} bytes)")
    avail = None if size is None else size - start
    if n is None:
        n = avail if avail is not None else -1
    elif avail is not None:
        n = min(n, avail)
    return Window(start, n)


def cut(data: bytes, offset: str | int | None = None, length: str | int | None = None
        ) -> tuple[bytes, int]:
    """``data``'s window and where it starts (what decoders are given, and the ``delta``
    for ``model.shift_unit``)."""
    w = resolve(len(data), offset, length)
    return data[w.start:w.end], w.start


@dataclass
class WindowRequest:
    """``--offset`` / ``--length`` as given, and the window they select once the input's
    size is known (``resolve``): ``start`` is what the units decoded from the window are
    shifted by, so their offsets stay absolute in the input."""

    offset: str | None = None
    length: str | None = None
    window: Window | None = None

    def __bool__(self) -> bool:
        return self.offset is not None or self.length is not None

    @property
    def start(self) -> int:
        return self.window.start if self.window is not None else 0

    def check(self) -> WindowRequest:
        """Refuse bad numbers at once, before any input is read."""
        if self.offset is not None:
            parse_number(self.offset, "--offset")
        if self.length is not None and parse_number(self.length, "--length") < 0:
            raise InputError(f"--length {self.length!r}: must not be negative")
        return self

    def resolve(self, size: int | None, *, past_end: bool = False) -> Window:
        self.window = resolve(size, self.offset, self.length, past_end=past_end)
        return self.window

    def cut(self, data: bytes) -> bytes:
        """The window of bytes already read (``data`` is the whole input)."""
        w = self.resolve(len(data))
        return data[w.start:w.end]


def read(path: str, request: WindowRequest, limit: int | None = None) -> tuple[bytes, int]:
    """The bytes of ``request``'s window of a file (only those are read) or of stdin (read
    up to the window's end; a negative offset needs a file), at most ``limit`` of them;
    and the window's length (-1: stdin without ``--length``, not known)."""
    from mqtool.io.inputs import STDIN, open_regular, stdin

    if path == STDIN:
        w = request.resolve(None)
        f = stdin()
        _skip(f, w.start)
        want = w.length if w.length >= 0 else -1
        if limit is not None:
            want = limit if want < 0 else min(want, limit)
        data = f.read(want) if want >= 0 else f.read()
        return data, w.length
    with open_regular(path) as f:
        w = request.resolve(os.fstat(f.fileno()).st_size)
        f.seek(w.start)
        return f.read(w.length if limit is None else min(w.length, limit)), w.length


def _skip(f: IO[bytes], n: int, chunk: int = 1 << 20) -> None:
    while n > 0:
        got = f.read(min(n, chunk))
        if not got:
            return
        n -= len(got)
