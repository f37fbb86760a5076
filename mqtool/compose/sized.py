"""Repeats of records that say their own size, walked and built from their ``Repeat``.

``mqtool.compose.walk`` reads a counted ``Repeat`` whose items all have one size (a field
of the owner, or the item layout's). Some formats repeat records whose size each record
says itself: a length-prefixed string inside it (the entries of a SAS attachment header,
the variable definitions of a data set), or a fixed layout the unit's parameters size (a
MATQMSG receiver's message entries, 16 + K + T bytes). Both are a ``Repeat`` with ``count``
(a field of the owner) or without it (to the end of the data); this module is the one walk
and the one build of such a repeat, so a format declares the repeat and never loops itself.

* ``items``: each item parsed where the one before ended, as a child element named by the
  repeat (``<name>[<index>]``, ``title`` with ``{index}`` and ``{offset}``); it stops after
  ``count`` items or at ``stop``; an item that does not parse raises ``DecodeError`` with
  the item so far (``partial``), after the items before it were given.
* ``build``: the items' bytes back to back, the owner's count field set to how many there
  are (a given count that disagrees is refused).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from mqtool.compose import Repeat
from mqtool.errors import BuildError
from mqtool.layout import Layout
from mqtool.model import Element


def count_of(rep: Repeat, owner: Mapping[str, Any]) -> int | None:
    """How many items ``rep`` holds by its owner's values: None when it runs to the end,
    -1 when the count field is absent or no number."""
    if rep.count is None:
        return None
    n = owner.get(rep.count)
    return n if isinstance(n, int) and not isinstance(n, bool) else -1


def items(rep: Repeat, layout: Layout, data: bytes, start: int, stop: int, *,
          count: int | None = None, fmt: str = "", parent: str = "", first: int = 0
          ) -> Iterator[Element]:
    """The items of ``rep`` in ``data[start:stop]``, each ``layout`` (its own size); ``count``
    of them, or (None) until ``stop``. Paths are ``<parent>.<rep.name>[<index>]`` numbered
    from ``first``; an item cut by ``stop`` or not parsing raises ``DecodeError``."""
    pos, j = start, 0
    while (j < count) if count is not None else (pos < stop):
        index = first + j
        path = f"{parent}.{rep.name}[{index}]" if parent else f"{rep.name}[{index}]"
        el = layout.parse(data, pos, prefix=path, fmt=fmt, limit=stop)
        el.title = rep.title.format(index=index, offset=pos, length=el.length)
        yield el
        pos += el.length
        j += 1


def end_of(elements: Iterable[Element], start: int) -> int:
    """Where the last of ``elements`` ends (``start`` when there are none)."""
    end = start
    for el in elements:
        end = el.offset + el.length
    return end


def build(rep: Repeat, owner: dict[str, Any], parts: list[Any], one: Callable[[Any], bytes],
          fmt: str, path: str = "") -> bytes:
    """The items' bytes (``one`` builds an item) back to back; ``owner[rep.count]`` set to
    their number (refused with its path when given and different)."""
    if rep.count is not None:
        given = owner.get(rep.count)
        if given is not None and given != len(parts):
            where = f"{path}.{rep.count}" if path else rep.count
            raise BuildError(fmt, where, f"{given}, but {len(parts)} {rep.name} item"
                                         f"{'s' if len(parts) != 1 else ''} follow")
        owner[rep.count] = len(parts)
    return b"".join(one(p) for p in parts)

