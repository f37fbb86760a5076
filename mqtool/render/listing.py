"""The interpretation listing, as the documents print it::

    URBS element at offset X'0040'
      urbseye  = "URBS"
      urbsst   = "CLOS"  Destination closed

One ``name = value  meaning`` line per field; strings quoted and right-trimmed, binary as
numbers, flag bytes and opaque bytes as ``X'..'``, STCK as timestamps in ``tz``; inferred and
unknown fields say so; trailing data as an indented document-style sub-dump; elements nested
in an element (``Element.children``) after it, indented one step deeper.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import tzinfo

from mqtool.model import EYE, HEX, HEXINT, RESERVED, STCK, TEXT, Decoded, Element, Span
from mqtool.render.terminal import escape
from mqtool.tod import Tod


def quote(text: str) -> str:
    """Double-quoted: ``"`` and ``\\`` escaped with a backslash, then every character that
    is not printable shown by ``render.terminal.escape`` (``\\x00``, ``\\u202e``)."""
    return '"' + escape(text.replace("\\", "\\\\").replace('"', '\\"')) + '"'


def render_value(span: Span, tz: tzinfo | None = None) -> str:
    """A field's value as the listing shows it."""
    v = span.value
    if v is None:  # no value (JSON null): not Python's "None"
        return "-"
    if span.kind in (TEXT, EYE):
        if span.raw and not any(span.raw):
            return "X'" + span.raw.hex().upper() + "'"  # all X'00': not set
        return quote(str(v))
    if span.kind == STCK:
        return v.render(tz) if isinstance(v, Tod) else str(v)
    if span.kind == HEXINT:
        return f"X'{int(v):0{max(2, 2 * span.length)}X}'"  # type: ignore[call-overload]
    if span.kind in (HEX, RESERVED):
        raw = v if isinstance(v, bytes | bytearray | memoryview) else span.raw
        return "X'" + bytes(raw).hex().upper() + "'"
    return str(v)


def field_lines(spans: list[Span], tz: tzinfo | None = None, indent: str = "  ") -> list[str]:
    shown = [s for s in spans if s.kind != RESERVED or any(s.raw)]
    width = max((len(s.name) for s in shown), default=0)
    lines = []
    for s in shown:
        text = f"{indent}{s.name:<{width}} = {render_value(s, tz)}"
        tail = [t for t in (s.meaning, f"({s.note})" if s.note else "",
                            "(not zero)" if s.kind == RESERVED else "") if t]
        if s.kind in (TEXT, EYE) and s.raw and not any(s.raw) and not s.meaning:
            tail.append("(not set)")
        if tail:
            text += "  " + " ".join(tail)
        lines.append(text.rstrip())
    return lines


def element_lines(el: Element, tz: tzinfo | None = None, codepage: str = "cp037",
                  depth: int = 0) -> list[str]:
    """An element's heading, its fields, its data (unless nested elements show it), then
    each nested element, indented one step deeper."""
    pad = "  " * depth
    lines = [pad + el.heading()]
    lines += field_lines(el.spans, tz, indent=pad + "  ")
    if el.shows_data and el.data:
        from mqtool.render.hexdump import dump_bytes

        lines.append(f"{pad}  {el.data_name} ({len(el.data)} bytes):")
        lines += [f"{pad}    " + ln for ln in
                  dump_bytes(el.data, codepage=el.data_codepage or codepage).splitlines()]
    for child in el.children:
        lines += element_lines(child, tz, codepage, depth + 1)
    return lines


def unit_text(unit: Decoded, tz: tzinfo | None = None, *, errors: bool = True) -> str:
    """The listing of one unit as printed: its lines (the unit's own ``lines`` when a fast
    path made them), each escaped (``render.terminal``) and ended; ``errors`` as in
    ``unit_lines``."""
    lines = getattr(unit, "lines", None) or unit_lines(unit, tz, errors=errors)
    return "".join(escape(line) + "\n" for line in lines)


def unit_lines(unit: Decoded, tz: tzinfo | None = None, *, errors: bool = True) -> Iterator[str]:
    """The whole listing of one unit, problems last, then (``errors``) its errors (the
    commands say errors on stderr instead, once)."""
    codepage = str(unit.attrs.get("codepage", "cp037"))
    if unit.title:
        yield unit.title
    for el in unit.elements:
        yield from element_lines(el, tz, codepage)
    for p in unit.problems:
        yield f"problem: {p.describe()}"
    for p in unit.errors if errors else ():
        yield f"error: {p.describe()}"
