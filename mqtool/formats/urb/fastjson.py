"""``decode urb --json`` without spans: per-layout JSON builders generated from the
declarations, filled by the one element walk (``decode.walker``) through a fast sink.

A builder is one straight-line function per layout and variant: ``struct`` unpack, the
fields' conversions inlined (text by a translate table, STCK to ISO text and hex, bytes to
hex), meaning tables looked up — the dict ``decode --json`` prints, field for field, with
no ``Span`` made. The walk is the span decoder's; its sink gives up on a message with
anything the span decoder would report, or with nested elements (ISN lists, URBGs,
URBSUs), which the span decoder then decodes. Both give the same JSON (tested).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator, Mapping
from functools import lru_cache
from typing import Any

from mqtool.compose.walk import Decline, FlatSink
from mqtool.formats.urb.decode import _message, walker
from mqtool.formats.urb.layout import (
    CODEPAGES,
    FORMAT,
    HEADER_PEEK,
    HEADER_PREFIXES,
    URBHLENT_AT,
    Urb,
    layouts,
)
from mqtool.layout import Layout
from mqtool.model import EYE, HEX, RESERVED, STCK, TEXT, Decoded
from mqtool.tod import Tod, tod_to_unix_micros

PREFIXES = HEADER_PREFIXES
HSIZE = layouts().URBH.size or 0


_SECONDS: dict[int, str] = {}  # whole Unix seconds -> ISO text (times cluster)


def iso(raw: int) -> str | None:
    """``Tod(raw).iso()``: ISO-8601 UTC with microseconds and Z, None when zero."""
    if not raw:
        return None
    sec, micro = divmod(tod_to_unix_micros(raw), 1_000_000)
    text = _SECONDS.get(sec)
    if text is None:
        if len(_SECONDS) > 65536:
            _SECONDS.clear()
        text = _SECONDS[sec] = f"{Tod(raw).datetime():%Y-%m-%dT%H:%M:%S}"
    return f"{text}.{micro:06d}Z"


def _table(codec: str) -> bytes | None:
    try:
        return bytes(range(256)).decode(codec).encode("latin-1")
    except (UnicodeDecodeError, UnicodeEncodeError):
        return None


def compile_json(layout: Layout) -> Callable[[bytes, int], tuple[dict[str, Any], dict[str, str]]]:
    """Generate ``build(buf, off) -> (fields, meanings)`` for a fixed layout: what
    ``model.element_json`` makes of its spans (fillers left out, STCK with ``_hex``)."""
    env: dict[str, Any] = {"S": struct.Struct(layout.format).unpack_from, "iso": iso}
    lines = ["def build(buf, off):", "    r = S(buf, off)"]
    fields, meanings = [], []
    for i, f in enumerate(layout.fields):
        if f.kind == STCK:
            lines.append(f"    v{i} = r[{i}]")
        elif f.kind in (TEXT, EYE):
            codec = _codec_of(f.con)
            table = _table(codec)
            strip = ".rstrip(' ')" if f.kind == TEXT else ""
            if table is None:
                lines.append(f"    v{i} = r[{i}].decode({codec!r}){strip}")
            else:
                env[f"T{i}"] = table
                lines.append(f"    v{i} = r[{i}].translate(T{i}).decode('latin-1'){strip}")
        else:
            lines.append(f"    v{i} = r[{i}]")
        if f.kind == RESERVED:
            continue
        if f.kind == STCK:
            fields += [f"{f.name!r}: iso(v{i})", f"{f.name + '_hex'!r}: '%016X' % v{i}"]
        elif f.kind == HEX:
            fields.append(f"{f.name!r}: v{i}.hex().upper()")
        else:
            fields.append(f"{f.name!r}: v{i}")
        if f.meaning is not None:
            env[f"M{i}"] = f.meaning
            meanings.append((f.name, i, callable(f.meaning)))
    if any(c for _n, _i, c in meanings):
        env["Tod"] = Tod
        values = ", ".join(f"{f.name!r}: " + (f"Tod(v{i})" if f.kind == STCK else f"v{i}")
                           for i, f in enumerate(layout.fields))
        lines.append(f"    fd = {{{values}}}")
    lines.append("    m = {}")
    for name, i, is_callable in meanings:
        call = f"(M{i}(v{i}, fd) or '')" if is_callable else f"M{i}.get(v{i}, '')"
        lines.append(f"    t = {call}")
        lines.append(f"    if t: m[{name!r}] = t")
    lines.append("    return {" + ", ".join(fields) + "}, m")
    exec(compile("\n".join(lines) + "\n", f"<json {layout.name}>", "exec"), env)  # generated here
    return env["build"]  # type: ignore[no-any-return]


def _codec_of(con: Any) -> str:
    c = con
    while not hasattr(c, "codec"):
        c = c.subcon
    return c.codec  # type: ignore[no-any-return]


class Builders(dict[Layout, Callable[..., Any]]):
    """The generated builders of one variant, by layout, compiled on first use."""

    def __init__(self, big: bool, cs: int, compiler: Callable[[Layout], Any] | None = None) -> None:
        super().__init__()
        self.compiler = compiler or compile_json
        self.lay: Urb = layouts(big, CODEPAGES[cs])
        self.cp = CODEPAGES[cs]

    def __missing__(self, layout: Layout) -> Callable[..., Any]:
        self[layout] = built = self.compiler(layout)
        return built


@lru_cache(maxsize=16)
def builders(big: bool, cs: int) -> Builders:
    """The JSON builders of one variant (byte order x character set)."""
    return Builders(big, cs)


class JsonSink(FlatSink):
    """The walk's fast sink for ``--json``: per element (type, offset, length, (fields,
    meanings), data place, data code page), made by the generated builders. One per
    variant, walking message after message (``walk``)."""

    def __init__(self, b: Builders) -> None:  # the sink keeps no state of the base class
        self.out: list[list[Any]] = []
        self.buf, self.b = b"", b
        self.walker = walker(b"", b.lay, self, 0)

    def built(self, layout: Layout, pos: int) -> tuple[Any, Mapping[str, Any]]:
        built = self.b[layout](self.buf, pos)
        return built, built[0]

    def record(self, parent: Any, etype: str, layout: Layout, pos: int, length: int, path: str,
               title: str = "") -> tuple[Any, Mapping[str, Any]]:
        if parent is not None:
            raise Decline  # nested elements: the tree sink
        built = self.b[layout](self.buf, pos)
        self.out.append([etype, pos, length, built, None, None])
        return len(self.out) - 1, built[0]

    def walk(self, data: bytes, off: int, end: int) -> list[list[Any]] | None:
        """The elements of one regular message, or None when the span decoder must judge it."""
        self.buf, self.out = data, []
        self.record(None, "URBH", self.b.lay.URBH, off, HSIZE, "urbh")
        try:
            self.walker.again(data, off).run(off + HSIZE, end, end)
        except Decline:
            return None
        return self.out


@lru_cache(maxsize=16)
def json_sink(big: bool, cs: int) -> JsonSink:
    return JsonSink(builders(big, cs))


def _elements_json(data: bytes, elements: list[list[Any]]) -> list[dict[str, Any]]:
    """What ``model.element_json`` makes of each element (one loop: the hot path)."""
    out = []
    for t, pos, length, (fields, meanings), where, _cp in elements:
        d: dict[str, Any] = {"type": t, "offset": pos, "length": length, "fields": fields}
        if meanings:
            d["meanings"] = meanings
        if where is not None:
            d["data"] = data[where[0]:where[1]].hex().upper()
        out.append(d)
    return out


def large_data(elements: list[list[Any]]) -> bool:
    """Has a data field longer than a listing shows (``model.LISTED``)? The
    span decoder then takes the message (``decode.LargeUrb``: its data written in pieces)."""
    from mqtool.model import LISTED

    return any(where is not None and where[1] - where[0] > LISTED for *_e, where, _cp in elements)


def _fast(data: bytes, off: int, end: int, big: bool, cs: int) -> dict[str, Any] | None:
    """The JSON of one regular message, or None when the span decoder must judge it."""
    elements = json_sink(big, cs).walk(data, off, end)
    if elements is None or large_data(elements):
        return None
    return {"format": FORMAT, "offset": off, "length": end - off, "codepage": CODEPAGES[cs],
            "byte_order": "big" if big else "little",
            "elements": _elements_json(data, elements), "errors": [], "problems": []}


class FastUnit(Decoded):
    """A decoded message known only by its JSON (no spans): what ``--json`` prints."""

    __slots__ = ("json",)
    json: dict[str, object]

    def to_json(self, raw: bool = False) -> dict[str, object]:
        return self.json


def fast_units(data: bytes, fast: Callable[[int, int, bool, int], Decoded | None]
               ) -> Iterator[Decoded]:
    """Every message of ``data`` as ``decode`` gives it: a regular message (a known URBH
    prefix, a URBHLENT that fits) as ``fast(start, length, big, charset)`` makes it, any
    other -- or one ``fast`` declines (None) -- by the span decoder."""
    n = len(data)
    off = 0
    while off < n:
        h = bytes(data[off:off + HEADER_PEEK])
        variant = PREFIXES.get(h[:URBHLENT_AT])
        if variant is not None:
            cs, big = variant
            lent = int.from_bytes(h[URBHLENT_AT:], "big" if big else "little")
            if lent >= HSIZE and off + lent <= n:
                unit = fast(off, lent, big, cs)
                if unit is not None:
                    yield unit
                    off += lent
                    continue
        unit, nxt = _message(data, off, None, None, "auto")
        yield unit
        if nxt is None or nxt <= off:
            return
        off = nxt


def units(data: bytes) -> Iterator[Decoded]:
    """Every message of ``data`` as ``decode`` gives it, regular ones as ``FastUnit``s whose
    JSON is made by the generated builders."""
    def fast(off: int, lent: int, big: bool, cs: int) -> Decoded | None:
        js = _fast(data, off, off + lent, big, cs)
        if js is None:
            return None
        unit = FastUnit(FORMAT, off, lent, attrs={"codepage": CODEPAGES[cs],
                                                  "byte_order": js["byte_order"]})
        unit.json = js
        return unit

    return fast_units(data, fast)
