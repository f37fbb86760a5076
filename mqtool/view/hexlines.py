"""The annotated hex of one unit, a line at a time (the hex pane draws only what it shows).

The same dump lines and colours as ``--annotate`` (``render.annotate``'s palette, the
documents' geometry, the character column in the unit's code page); on top of them the
selected byte range and the cursor byte.
"""

from __future__ import annotations

from array import array

from rich.text import Text

from mqtool.codepages import column_text
from mqtool.model import RESERVED, Span
from mqtool.render.annotate import PALETTE
from mqtool.render.hexdump import DumpOptions, Geometry, geometry

SELECTED = "on grey30"
CURSOR = "reverse bold"


class HexModel:
    """Lines of ``data`` (starting at absolute offset ``origin``), each byte's field known."""

    def __init__(self, data: bytes, origin: int, spans: list[Span], codepage: str = "cp037",
                 cols: int = 16) -> None:
        self.data, self.origin, self.spans, self.cols = data, origin, spans, cols
        self.codepage = codepage
        try:
            column_text(b"A", codepage)
        except LookupError:
            self.codepage = "cp037"
        width = max(4, len(f"{origin + len(data):X}"))
        self.geo: Geometry = geometry(DumpOptions(style="document", cols=cols, codepage=self.codepage),
                                      width)
        self.owner = array("i", [-1]) * len(data)
        self.starting: dict[int, list[int]] = {}
        for k, s in enumerate(spans):
            lo, hi = max(s.start - origin, 0), min(s.end - origin, len(data))
            if lo < hi:
                self.owner[lo:hi] = array("i", [k]) * (hi - lo)
            if s.kind != RESERVED and 0 <= s.start - origin < len(data):
                self.starting.setdefault((s.start - origin) // cols, []).append(k)

    @property
    def lines(self) -> int:
        return max(1, -(-len(self.data) // self.cols))

    @property
    def width(self) -> int:
        """Cells of a line without the field names."""
        return len(self.geo.template) - 1

    def row_of(self, offset: int) -> int:
        return (offset - self.origin) // self.cols

    def line(self, row: int, selected: tuple[int, int] | None = None,
             cursor: int | None = None) -> Text:
        """Dump line ``row`` with field colours, the selection and the cursor."""
        geo, cols = self.geo, self.cols
        lo = row * cols
        chunk = self.data[lo:lo + cols]
        buf = bytearray(geo.template[:-1])
        addr = f"{self.origin + lo:0{geo.off_width}X}".encode()
        buf[geo.off_pos:geo.off_pos + geo.off_width] = addr[-geo.off_width:]
        chars = column_text(chunk, self.codepage).encode("latin-1")
        for j, b in enumerate(chunk):
            p = geo.hex_pos[j]
            buf[p:p + 2] = f"{b:02X}".encode()
            buf[geo.chr_pos[0][j]] = chars[j]
        if len(chunk) < cols and geo.chr_close[0] >= 0:  # a short last line closes after its bytes
            end = geo.chr_pos[0][len(chunk)]
            buf[end] = buf[geo.chr_close[0]]
            buf[geo.chr_close[0]] = 0x20
            buf = buf[:end + 1]
        text = Text(buf.decode("latin-1"))
        text.stylize("bold", geo.off_pos, geo.off_pos + geo.off_width)
        for j in range(len(chunk)):
            k = self.owner[lo + j]
            style = ""
            if k >= 0:
                style = "dim" if self.spans[k].kind == RESERVED else PALETTE[k % len(PALETTE)]
            at = self.origin + lo + j
            if selected is not None and selected[0] <= at < selected[1]:
                style = f"{style} {SELECTED}".strip()
            if cursor == at:
                style = f"{style} {CURSOR}".strip()
            if style:
                p, c = geo.hex_pos[j], geo.chr_pos[0][j]
                text.stylize(style, p, p + 2)
                text.stylize(style, c, c + 1)
        for k in self.starting.get(row, ()):
            text.append(" ")
            text.append(self.spans[k].name, style=PALETTE[k % len(PALETTE)])
        return text

    def offset_at(self, row: int, x: int) -> int | None:
        """The byte under column ``x`` of line ``row`` (hex digits or character), or None."""
        geo = self.geo
        for j in range(self.cols):
            if geo.hex_pos[j] <= x < geo.hex_pos[j] + 2 or x == geo.chr_pos[0][j]:
                at = row * self.cols + j
                return self.origin + at if at < len(self.data) else None
        return None
