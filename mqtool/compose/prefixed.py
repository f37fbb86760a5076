"""Items each prefixed by their own length, and data that follows a fixed part with no
field giving its offset: two words beside the composition vocabulary (``mqtool.compose``).

``follows(name, length, content)``
    The bytes right after a record's fixed part, ``length`` (a field of the record) long,
    with no field holding their offset (Kaitai: the next ``seq`` entry, ``size: length``).
    It is a ``Trailing`` whose ``start`` is empty and whose only tolerated offset is 0
    (what an absent field reads as), so the one walker and the one builder of
    ``mqtool.compose`` read and fill it as they do every trailing data.
``Prefixed``
    Items to the end of the data, each a small record holding a length, then that many
    bytes (``adjust`` added when the length counts more than what follows it); Kaitai:
    ``repeat: eos`` of a type ``seq: [len, body (size: len)]``. ``items`` is the one walk
    of it, ``build`` the one builder (the lengths filled from the bodies).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from mqtool.compose import Content, Trailing
from mqtool.layout import Layout


def follows(name: str, length: str, content: Content | None = None) -> Trailing:
    """Data of ``length`` bytes directly after the fixed part (no offset field)."""
    return Trailing(name, "", length, tolerated=(0,), content=content)


@dataclass(frozen=True)
class Prefixed:
    """Items to the end of the data, each ``record`` (holding ``length``) then its body."""

    name: str
    record: str
    length: str
    adjust: int = 0  # what the length counts beyond the body (0: the body only)
    title: str = ""


@dataclass(frozen=True)
class Placed:
    """One item where a walk of a ``Prefixed`` found it: its index (from 0), where its length
    record starts, where its body starts and ends (``stop`` past the data: it runs over)."""

    index: int
    pos: int
    start: int
    stop: int


def items(rep: Prefixed, layout: Layout, data: bytes, start: int, stop: int) -> Iterator[Placed]:
    """The items of ``data[start:stop]``, in order. The last one yielded may run past
    ``stop`` (its ``stop`` says so) or have no whole length record (``start`` past
    ``stop``): the caller reports it and stops."""
    f = layout.field(rep.length)
    at, size = f.start or 0, layout.size or 0
    pos, j = start, 0
    while pos < stop:
        if pos + size > stop:
            yield Placed(j, pos, pos + size, pos + size)
            return
        n = int.from_bytes(data[pos + at:pos + at + (f.size or 0)], "big") - rep.adjust
        body = pos + size
        yield Placed(j, pos, body, body + max(n, 0))
        if body + n > stop or n < 0:
            return
        pos, j = body + n, j + 1


def build(rep: Prefixed, layout: Layout, bodies: Sequence[bytes], fmt: str) -> bytes:
    """The items of ``bodies``, each after its length record (the length filled in)."""
    out = bytearray()
    for body in bodies:
        out += layout.build({rep.length: len(body) + rep.adjust}, fmt=fmt) + body
    return bytes(out)


def describe(rep: Prefixed) -> str:
    """What a ``Prefixed`` says the data holds, in words (for the docs)."""
    more = f" (it counts {rep.adjust} bytes more)" if rep.adjust else ""
    return f"items to the end: a {rep.record}, then {rep.length} bytes{more}"
