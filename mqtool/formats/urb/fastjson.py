"""``decode urb --json`` without spans: per-layout JSON builders generated from the
declarations, and a walk of the regular messages (those the columnar walker would take).

A builder is one straight-line function per layout and variant: ``struct`` unpack, the
fields' conversions inlined (text by a translate table, STCK to ISO text and hex, bytes to
hex), meaning tables looked up — the dict ``decode --json`` prints, field for field, with
no ``Span`` made. A message with anything the span decoder would report, and requests
(URBI data needs its judgement), is decoded by the span decoder instead; both give the
same JSON (tested).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from mqtool.formats.urb.decode import _message
from mqtool.formats.urb.layout import (
    CODEPAGES,
    COUNTS,
    ELEMENT_HEAD,
    ELEMENT_LEN_AT,
    ELEMENTS,
    EYE_LEN,
    FORMAT,
    HEADER_PEEK,
    HEADER_PREFIXES,
    URBHLENT_AT,
    WORD,
    layouts,
)
from mqtool.layout import Layout
from mqtool.model import EYE, HEX, RESERVED, STCK, TEXT, Decoded

EPOCH = datetime(1900, 1, 1)
# element types the fast walk takes: no URBI (its data needs judgement), no repeats, no URBC
FAST = {t: r for t, r in ELEMENTS.items() if r.repeat is None and t != "URBC"}
PREFIXES = HEADER_PREFIXES
HSIZE = layouts().URBH.size or 0
_COUNT = {c.field: c for c in COUNTS}


_SECONDS: dict[int, str] = {}  # whole seconds since 1900 -> ISO text (times cluster)


def iso(raw: int) -> str | None:
    """``Tod(raw).iso()``: ISO-8601 UTC with microseconds and Z, None when zero."""
    if not raw:
        return None
    sec, micro = divmod(raw >> 12, 1_000_000)
    text = _SECONDS.get(sec)
    if text is None:
        if len(_SECONDS) > 65536:
            _SECONDS.clear()
        text = _SECONDS[sec] = (EPOCH + timedelta(seconds=sec)).isoformat(timespec="seconds")
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
        from mqtool.tod import Tod

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
    return env["build"]


def _codec_of(con: Any) -> str:
    c = con
    while not hasattr(c, "codec"):
        c = c.subcon
    return c.codec


class _Builders(dict):  # type: ignore[type-arg]
    """Per variant: (eyecatcher, length) -> (type, layout, builder), compiled on first use;
    eyecatcher -> (type, its first layout, None); ``URBH`` -> (layout, builder)."""

    def __init__(self, big: bool, cs: int, compiler: Callable[[Layout], Any] | None = None) -> None:
        super().__init__()
        self.compiler = compiler or compile_json
        self.lay = layouts(big, CODEPAGES[cs])
        self.cp = CODEPAGES[cs]
        self["URBH"] = (self.lay.URBH, self.compiler(self.lay.URBH))
        self.sizes: dict[tuple[bytes, int], tuple[str, str]] = {}
        for t, rule in FAST.items():
            eye = t.encode(self.cp)
            self[eye] = (t, rule.layout(self.lay), None)
            for name in rule.layouts:
                self.sizes[(eye, getattr(self.lay, name).size)] = (t, name)

    def __missing__(self, key: Any) -> Any:
        if key not in self.sizes:
            raise KeyError(key)
        t, name = self.sizes[key]
        layout = getattr(self.lay, name)
        self[key] = entry = (t, layout, self.compiler(layout))
        return entry

    def get(self, key: Any, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default


@lru_cache(maxsize=16)
def builders(big: bool, cs: int) -> _Builders:
    """The JSON builders of one variant (byte order x character set)."""
    return _Builders(big, cs)


def _element_json(t: str, pos: int, length: int, built: tuple[dict, dict],
                  data: bytes | None) -> dict[str, Any]:
    fields, meanings = built
    d: dict[str, Any] = {"type": t, "offset": pos, "length": length, "fields": fields}
    if meanings:
        d["meanings"] = meanings
    if data is not None:
        d["data"] = data.hex().upper()
    return d


def walk(data: bytes, off: int, end: int, b: _Builders) -> list[tuple] | None:
    """The elements of one regular message as (type, offset, length, built, data), each
    ``built`` by the variant's builder (its first item the field values by name), or None
    when the span decoder must judge the message."""
    order = "big" if b.lay.variant.big else "little"
    _layout, head = b["URBH"]
    out = [("URBH", off, HSIZE, head(data, off), None)]
    pos = off + HSIZE
    counts: dict[str, list] = {}
    while pos < end:
        if end - pos < ELEMENT_HEAD:
            return None
        eye = data[pos:pos + EYE_LEN]
        length = int.from_bytes(data[pos + ELEMENT_LEN_AT:pos + ELEMENT_LEN_AT + WORD], order, signed=True)
        entry = b.get(eye)
        if entry is None or length < ELEMENT_HEAD or pos + length > end:
            return None
        t, layout, _ = entry
        rule = FAST[t]
        payload = None
        if rule.fixed:
            got = b.get((eye, length))
            if got is None:
                return None
            _t, layout, build = got
            built = build(data, pos)
        else:
            size = layout.size
            if length < size:
                return None
            _t, layout, build = b[(eye, size)]
            built = build(data, pos)
            tr = rule.trailing
            fields = built[0]
            lenh, lend = fields[tr.start], fields[tr.length]  # type: ignore[union-attr]
            if tr.tolerated:  # type: ignore[union-attr]
                if lend != 0 or lenh not in (size, *tr.tolerated):  # type: ignore[union-attr]
                    return None  # urbsdata (and its URBSU) or a problem: the span decoder
            else:
                if lenh < size or lenh > length or lend < 0 or lenh + lend > length:
                    return None
                payload = data[pos + lenh:pos + lenh + lend]
                if any(data[pos + lenh + lend:pos + length]):
                    return None
        if not _count(t, built[0], counts):
            return None
        out.append((t, pos, length, built, payload))
        pos += length
    for c in COUNTS:
        if not _close(c, counts):
            return None
    return out


def _fast(data: bytes, off: int, end: int, big: bool, cs: int) -> dict[str, Any] | None:
    """The JSON of one regular message, or None when the span decoder must judge it."""
    elements = walk(data, off, end, builders(big, cs))
    if elements is None:
        return None
    return {"format": FORMAT, "offset": off, "length": end - off, "codepage": CODEPAGES[cs],
            "byte_order": "big" if big else "little",
            "elements": [_element_json(*e) for e in elements], "errors": [], "problems": []}


def _count(t: str, fields: dict[str, Any], counts: dict[str, list]) -> bool:
    """Keep the counts of ``COUNTS`` as the span decoder does; False where it would report."""
    for c in COUNTS:
        if t == c.parent or t in c.closers:
            if not _close(c, counts):
                return False
        elif t == c.child and c.field in counts:
            counts[c.field][1] += 1
        if t == c.parent:
            if c.continued and fields.get(c.continued) == "Y":
                return False  # continued: the span decoder's rules for partial counts
            counts[c.field] = [fields.get(c.field), 0]
    return True


def _close(c: Any, counts: dict[str, list]) -> bool:
    state = counts.pop(c.field, None)
    return state is None or state[0] == state[1]


class FastUnit(Decoded):
    """A decoded message known only by its JSON (no spans): what ``--json`` prints."""

    __slots__ = ("json",)

    def to_json(self, raw: bool = False) -> dict[str, object]:
        return self.json  # type: ignore[no-any-return]


def fast_units(data: bytes, fast: Callable[[int, int, bool, int], Decoded | None]
               ) -> Iterator[Decoded]:
    """Every message of ``data`` as ``decode`` gives it: a regular message (a known URBH
    prefix, a URBHLENT that fits) as ``fast(start, length, big, charset)`` makes it, any
    other -- or one ``fast`` declines (None) -- by the span decoder."""
    n = len(data)
    off = 0
    while off < n:
        h = data[off:off + HEADER_PEEK]
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
