"""Annotated hex: a unit's bytes in document style, each field's bytes coloured, and the
names of the fields that start on a line printed after it. Spans come from the decoder,
so the annotation cannot disagree with the listing. Where an element nested in another
starts (a URBG in its URBF, an MQMD in its MQXQH), its type is printed in brackets
(``[URBG]``) before the names of its fields.

The lines are made as they are printed (``annotated``), in memory bounded whatever the
unit's size: a line where something starts is a rich ``Text``; a run of whole lines
inside one field (a payload of many MiB) is a ``Block`` of plain dump lines made by the
vectorised dumper (``render.hexdump``), styled line by line only when colour is on."""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from rich.console import Console
from rich.text import Text

from mqtool.model import RESERVED, Decoded, Element, Span
from mqtool.render.hexdump import DumpOptions, Geometry, dump, format_line, geometry
from mqtool.render.terminal import escape

PALETTE = ("cyan", "green", "yellow", "magenta", "blue", "red", "bright_cyan",
           "bright_green", "bright_yellow", "bright_magenta")
BLOCK = 1 << 20  # bytes of whole lines made into one Block at most


@dataclass(frozen=True)
class Block:
    """Whole dump lines (UTF-8, each ending in a line end) whose bytes all belong to one
    span (``style``; None: to none), with no field starting on them."""

    text: bytes
    style: str | None
    geo: Geometry

    def lines(self) -> Iterator[Text]:
        """The lines as rich Texts, the hex digits and characters of each byte styled."""
        geo = self.geo
        for raw in self.text.decode("utf-8").splitlines():
            text = Text(raw)
            if self.style is not None:
                for p, c in zip(geo.hex_pos, geo.chr_pos[0], strict=True):
                    text.stylize(self.style, p, p + 2)
                    text.stylize(self.style, c, c + 1)
            yield text


    def colored(self, console: Console, rows: int = 4096) -> Iterator[bytes]:
        """The lines as ``console`` prints ``lines()`` (the same bytes), ``rows`` lines at a
        time: rich renders the style once, and since every line has the same layout, the
        escape sequences go around the same columns of each line (numpy)."""
        import numpy as np

        text = self.text.decode("utf-8").encode("latin-1")  # one byte a column
        if self.style is None or console.color_system is None or not text:
            yield self.text
            return
        on, off = console.get_style(self.style).render(
            "\0", color_system=console._color_system).split("\0")
        width = len(self.geo.template)
        cells = sorted([(p, 2) for p in self.geo.hex_pos] + [(c, 1) for c in self.geo.chr_pos[0]])
        take: list[int] = []  # each output byte: the line's column, or -2 / -3 (on / off)
        at = 0
        for pos, n in [*cells, (width, 0)]:
            take += range(at, pos)
            if n:
                take += [-2] * len(on) + list(range(pos, pos + n)) + [-3] * len(off)
            at = pos + n
        source = np.array(take)
        mine = source >= 0
        lines = np.frombuffer(text, np.uint8).reshape(-1, width)
        out = np.empty((min(rows, len(lines)), len(take)), np.uint8)
        for mark, seq in ((-2, on), (-3, off)):
            where = np.flatnonzero(source == mark)
            out[:, where] = np.tile(np.frombuffer(seq.encode(), np.uint8), len(where) // max(len(seq), 1))
        for lo in range(0, len(lines), rows):
            part = lines[lo:lo + rows]
            out[:len(part), mine] = part[:, source[mine]]
            done: bytes = out[:len(part)].tobytes()
            yield done.decode("latin-1").encode("utf-8")


def _style(spans: Sequence[Span], k: int) -> str:
    return "dim" if spans[k].kind == RESERVED else PALETTE[k % len(PALETTE)]


class _Owners:
    """Which span shows each byte (the last in the list of those covering it), line by
    line: spans enter in order of their start and leave at their end."""

    def __init__(self, spans: Sequence[Span], origin: int, end: int) -> None:
        self.spans, self.origin, self.end = spans, origin, end
        self.order = sorted((k for k, s in enumerate(spans) if min(s.end, end) > max(s.start, origin)),
                            key=lambda k: spans[k].start)
        self.starts = [max(spans[k].start, origin) for k in self.order]
        self.next = 0  # the first span of ``order`` not yet entered
        self.active: list[int] = []

    def at(self, lo: int, hi: int) -> list[int]:
        """The spans covering some byte of absolute ``lo`` .. ``hi``."""
        while self.next < len(self.order) and self.starts[self.next] < hi:
            self.active.append(self.order[self.next])
            self.next += 1
        self.active = [k for k in self.active if self.spans[k].end > lo]
        return self.active

    def owner(self, pos: int) -> int:
        best = -1
        for k in self.active:
            s = self.spans[k]
            if s.start <= pos < s.end and k > best:
                best = k
        return best

    def calm_until(self, lo: int) -> int:
        """Where the owner of the bytes from ``lo`` may next change: the next span's start
        or the first end of those covering ``lo`` (``at`` was asked for ``lo``'s line)."""
        nxt = self.starts[self.next] if self.next < len(self.order) else self.end
        ends = [min(self.spans[k].end, self.end) for k in self.active]
        return min([nxt, *ends])


def annotated(data: bytes | memoryview, spans: Sequence[Span], *, origin: int = 0,
              codepage: str = "cp037", cols: int = 16,
              marks: Sequence[tuple[int, str]] = ()) -> Iterator[Text | Block]:
    """The annotated dump of ``data`` (starting at absolute offset ``origin``), made as it
    is read: one rich Text per line where a span or a mark starts, or a span's bytes end
    or begin mid-line; a ``Block`` for a run of whole lines inside one span. ``marks``
    (offset, label) are printed, bold, among the field names of their line, before the
    names of the fields that start where they do."""
    opts = DumpOptions(style="document", cols=cols, codepage=codepage)
    end = origin + len(data)
    width = max(4, len(f"{end:X}"))
    geo = geometry(opts, width)
    block_opts = DumpOptions(style="document", cols=cols, codepage=codepage, squeeze=False,
                             offset_width=width)
    owners = _Owners(spans, origin, end)
    named = sorted((s.start, k) for k, s in enumerate(spans)
                   if origin <= s.start < end and s.kind != RESERVED)
    at_marks = sorted((at, n, label) for n, (at, label) in enumerate(marks) if origin <= at < end)
    events = sorted({at for at, _k in named} | {at for at, _n, _label in at_marks})
    lo = origin
    while lo < end:
        hi = min(lo + cols, end)
        active = owners.at(lo, hi)
        event = _next(events, lo)
        if event >= hi and hi - lo == cols:
            calm = min(owners.calm_until(lo), event)
            whole = (min(calm, end) - lo) // cols * cols
            if whole and all(spans[k].start <= lo for k in active):
                yield from _blocks(data, lo - origin, whole, origin, block_opts, geo,
                                   _style(spans, owners.owner(lo)) if active else None)
                lo += whole
                continue
        yield _line(data, lo, hi, origin, geo, spans, owners, named, at_marks)
        lo = hi


def _next(events: Sequence[int], lo: int) -> int:
    """The first of ``events`` (sorted offsets) at or after ``lo`` (very large: none)."""
    i = bisect.bisect_left(events, lo)
    return events[i] if i < len(events) else 1 << 62


def _blocks(data: bytes | memoryview, rel: int, n: int, origin: int, opts: DumpOptions,
            geo: Geometry, style: str | None) -> Iterator[Block]:
    from mqtool.io.inputs import release

    for at in range(rel, rel + n, BLOCK):
        piece = bytes(data[at:min(at + BLOCK, rel + n)])
        if isinstance(data, memoryview):  # a mapped input: its pages read are given back
            release(data)
        text = b"".join(dump([piece], opts, start=origin + at, total=len(piece)))
        yield Block(text, style, geo)


def _line(data: bytes | memoryview, lo: int, hi: int, origin: int, geo: Geometry,
          spans: Sequence[Span], owners: _Owners, named: list[tuple[int, int]],
          at_marks: list[tuple[int, int, str]]) -> Text:
    chunk = bytes(data[lo - origin:hi - origin])
    text = Text(format_line(chunk, lo, 0, geo, True).decode("latin-1").rstrip("\n"))
    for j in range(len(chunk)):
        k = owners.owner(lo + j)
        if k < 0:
            continue
        style = _style(spans, k)
        p = geo.hex_pos[j]
        text.stylize(style, p, p + 2)
        text.stylize(style, geo.chr_pos[0][j], geo.chr_pos[0][j] + 1)
    here = at_marks[bisect.bisect_left(at_marks, (lo,)):bisect.bisect_left(at_marks, (hi,))]
    pending = [(at, label) for _n, at, label in sorted((n, at, label) for at, n, label in here)]
    starting = sorted((k for at, k in named[bisect.bisect_left(named, (lo,)):
                                            bisect.bisect_left(named, (hi,))]))
    for k in starting:
        while pending and pending[0][0] <= spans[k].start:
            text.append(" ")
            text.append(escape(pending.pop(0)[1]), style="bold")
        text.append(" ")
        text.append(escape(spans[k].name), style=PALETTE[k % len(PALETTE)])
    for _at, label in pending:
        text.append(" ")
        text.append(escape(label), style="bold")
    return text


def annotate(data: bytes | memoryview, spans: list[Span], *, origin: int = 0,
             codepage: str = "cp037", cols: int = 16,
             marks: Sequence[tuple[int, str]] = ()) -> list[Text]:
    """One rich Text per dump line (``annotated``, every line a Text: for small units)."""
    out: list[Text] = []
    for item in annotated(data, spans, origin=origin, codepage=codepage, cols=cols, marks=marks):
        out.extend(item.lines() if isinstance(item, Block) else [item])
    return out


def unit_stream(unit: Decoded, data: bytes | memoryview) -> Iterator[Text | Block]:
    """The annotated dump of one decoded unit as it is made (``annotated``); ``data`` is
    the unit's own bytes."""
    marks = [(el.offset, f"[{el.type}]") for el in _nested(unit.elements, 0)]
    return annotated(data, list(unit.spans()), origin=unit.offset,
                     codepage=str(unit.attrs.get("codepage", "cp037")), marks=marks)


def annotate_unit(unit: Decoded, data: bytes | memoryview) -> list[Text]:
    """Annotated lines of one decoded unit; ``data`` is the unit's own bytes."""
    out: list[Text] = []
    for item in unit_stream(unit, data):
        out.extend(item.lines() if isinstance(item, Block) else [item])
    return out


def _nested(elements: list[Element], depth: int) -> Iterator[Element]:
    """The elements nested in others (not the unit's top level), in document order."""
    for el in elements:
        if depth:
            yield el
        yield from _nested(el.children, depth + 1)
