"""``--offset`` / ``--length``: a window of an input, as xxd's ``-s`` and ``-l`` mean them
(xxd(1): "-s [+][-]seek: start at seek bytes abs. infile offset", "-l len: stop after len
octets"): decimal, ``0x`` hex or the documents' ``X'..'``, a negative offset counting from
the end. Units decoded from the window keep absolute offsets (``model.shift_unit``)."""

from __future__ import annotations

import re
from typing import NamedTuple

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
            length: str | int | None = None) -> Window:
    """The window ``offset``/``length`` select in an input of ``size`` bytes (None: not
    known, stdin: a negative offset is refused). An offset past the end is an error; a
    length running past the end is cut, as xxd does."""
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
