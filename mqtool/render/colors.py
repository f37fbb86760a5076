"""Colour for plain dumps by byte class: NUL, printable, blank, other (terminal only)."""

from __future__ import annotations

from rich.text import Text

from mqtool.codepages import blank, char_table
from mqtool.render.hexdump import Geometry

CLASS_STYLE = {"nul": "dim", "printable": "green", "blank": "cyan", "other": "yellow"}


def byte_class(b: int, table: bytes, blank_byte: int) -> str:
    if b == 0:
        return "nul"
    if b == blank_byte:
        return "blank"
    return "printable" if table[b] != 0x2E or b == table.index(0x2E) else "other"


def colorize_dump_line(line: str, geo: Geometry | None, codepage: str) -> Text:
    """Style one line of plain dump output; lines that are not dump lines pass unchanged.

    The byte value is read back from the hex digits, so colour needs nothing but the text.
    """
    text = Text(line)
    if geo is None or "identical line(s)" in line or line.strip() in ("*", ""):
        return text
    table, blank_byte = char_table(codepage), blank(codepage)[0]
    text.stylize("bold", geo.off_pos, geo.off_pos + geo.off_width)
    for j, p in enumerate(geo.hex_pos):
        pair = line[p:p + 2]
        if len(pair) < 2 or not pair.strip():
            continue
        try:
            b = int(pair, 16)
        except ValueError:
            return text
        style = CLASS_STYLE[byte_class(b, table, blank_byte)]
        text.stylize(style, p, p + 2)
        c = geo.chr_pos[0][j]
        if c < len(line):
            text.stylize(style, c, c + 1)
    return text
