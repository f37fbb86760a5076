"""Annotated hex: a unit's bytes in document style, each field's bytes coloured, and the
names of the fields that start on a line printed after it. Spans come from the decoder,
so the annotation cannot disagree with the listing. Where an element nested in another
starts (a URBG in its URBF, an MQMD in its MQXQH), its type is printed in brackets
(``[URBG]``) before the names of its fields."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from rich.text import Text

from mqtool.model import RESERVED, Decoded, Element, Span
from mqtool.render.hexdump import DumpOptions, format_line, geometry
from mqtool.render.terminal import escape

PALETTE = ("cyan", "green", "yellow", "magenta", "blue", "red", "bright_cyan",
           "bright_green", "bright_yellow", "bright_magenta")


def annotate(data: bytes, spans: list[Span], *, origin: int = 0, codepage: str = "cp037",
             cols: int = 16, marks: Sequence[tuple[int, str]] = ()) -> list[Text]:
    """One rich Text per dump line. ``data`` starts at absolute offset ``origin``; ``marks``
    (offset, label) are printed, bold, among the field names of their line, before the
    names of the fields that start where they do."""
    opts = DumpOptions(style="document", cols=cols, codepage=codepage)
    width = max(4, len(f"{origin + len(data):X}"))
    geo = geometry(opts, width)
    owner = [-1] * len(data)
    starting: dict[int, list[int]] = {}  # dump line -> spans starting on it (one pass: linear)
    marked: dict[int, list[tuple[int, str]]] = {}
    for at, label in marks:
        if origin <= at < origin + len(data):
            marked.setdefault((at - origin) // cols, []).append((at, label))
    end = origin + len(data)
    for k, s in enumerate(spans):
        lo, hi = max(s.start, origin), min(s.end, end)
        if hi > lo:
            owner[lo - origin:hi - origin] = [k] * (hi - lo)
        if origin <= s.start < end and s.kind != RESERVED:
            starting.setdefault((s.start - origin) // cols, []).append(k)
    lines: list[Text] = []
    for lo in range(0, len(data), cols):
        chunk = data[lo:lo + cols]
        plain = format_line(chunk, origin + lo, 0, geo, True).decode("latin-1").rstrip("\n")
        text = Text(plain)
        for j in range(len(chunk)):
            k = owner[lo + j]
            if k < 0:
                continue
            style = "dim" if spans[k].kind == RESERVED else PALETTE[k % len(PALETTE)]
            p = geo.hex_pos[j]
            text.stylize(style, p, p + 2)
            text.stylize(style, geo.chr_pos[0][j], geo.chr_pos[0][j] + 1)
        pending = marked.get(lo // cols, [])
        for k in starting.get(lo // cols, ()):
            while pending and pending[0][0] <= spans[k].start:
                text.append(" ")
                text.append(escape(pending.pop(0)[1]), style="bold")
            text.append(" ")
            text.append(escape(spans[k].name), style=PALETTE[k % len(PALETTE)])
        for _at, label in pending:
            text.append(" ")
            text.append(escape(label), style="bold")
        lines.append(text)
    return lines


def annotate_unit(unit: Decoded, data: bytes) -> list[Text]:
    """Annotated lines of one decoded unit; ``data`` is the unit's own bytes."""
    marks = [(el.offset, f"[{el.type}]") for el in _nested(unit.elements, 0)]
    return annotate(data, list(unit.spans()), origin=unit.offset,
                    codepage=str(unit.attrs.get("codepage", "cp037")), marks=marks)


def _nested(elements: list[Element], depth: int) -> Iterator[Element]:
    """The elements nested in others (not the unit's top level), in document order."""
    for el in elements:
        if depth:
            yield el
        yield from _nested(el.children, depth + 1)
