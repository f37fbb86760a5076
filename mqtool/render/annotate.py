"""Annotated hex: a unit's bytes in document style, each field's bytes coloured, and the
names of the fields that start on a line printed after it. Spans come from the decoder,
so the annotation cannot disagree with the listing."""

from __future__ import annotations

from rich.text import Text

from mqtool.model import RESERVED, Decoded, Span
from mqtool.render.hexdump import DumpOptions, format_line, geometry
from mqtool.render.terminal import escape

PALETTE = ("cyan", "green", "yellow", "magenta", "blue", "red", "bright_cyan",
           "bright_green", "bright_yellow", "bright_magenta")


def annotate(data: bytes, spans: list[Span], *, origin: int = 0, codepage: str = "cp037",
             cols: int = 16) -> list[Text]:
    """One rich Text per dump line. ``data`` starts at absolute offset ``origin``."""
    opts = DumpOptions(style="document", cols=cols, codepage=codepage)
    width = max(4, len(f"{origin + len(data):X}"))
    geo = geometry(opts, width)
    owner = [-1] * len(data)
    starting: dict[int, list[int]] = {}  # dump line -> spans starting on it (one pass: linear)
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
        for k in starting.get(lo // cols, ()):
            text.append(" ")
            text.append(escape(spans[k].name), style=PALETTE[k % len(PALETTE)])
        lines.append(text)
    return lines


def annotate_unit(unit: Decoded, data: bytes) -> list[Text]:
    """Annotated lines of one decoded unit; ``data`` is the unit's own bytes."""
    return annotate(data, list(unit.spans()), origin=unit.offset,
                    codepage=str(unit.attrs.get("codepage", "cp037")))
