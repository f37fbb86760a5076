"""The ``decode urb`` listing without spans: per-layout listing builders generated from the
declarations (the lines ``render.listing`` prints for the same message), filled by the one
element walk through a fast sink over the regular messages; every other message goes
through the span decoder."""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, tzinfo
from functools import lru_cache
from typing import Any

from mqtool.compose.walk import Decline
from mqtool.formats.urb.fastjson import Builders, JsonSink, _codec_of, _table, fast_units, large_data
from mqtool.formats.urb.layout import CODEPAGES
from mqtool.layout import FieldInfo, Layout
from mqtool.model import EYE, HEX, HEXINT, RESERVED, STCK, TEXT, Decoded
from mqtool.render.listing import quote
from mqtool.tod import Tod, tod_to_unix_micros

_PLAIN = frozenset(chr(c) for c in range(0x20, 0x7F)) - {'"', "\\"}


def text(value: str) -> str:
    """``listing.quote`` for the common case (printable ASCII, no quote or backslash)."""
    if _PLAIN.issuperset(value):
        return f'"{value}"'
    return quote(value)


class TimeText:
    """``Tod.render(tz)`` of raw TOD values, the date and time cached per whole second."""

    def __init__(self, tz: tzinfo | None) -> None:
        self.tz = tz or UTC
        self.seconds: dict[int, str] = {}

    def __call__(self, raw: int) -> str:
        if not raw:
            return ""
        sec, micro = divmod(tod_to_unix_micros(raw), 1_000_000)
        head = self.seconds.get(sec)
        if head is None:
            if len(self.seconds) > 65536:
                self.seconds.clear()
            local = Tod(raw).datetime().astimezone(self.tz)  # type: ignore[union-attr]
            head = self.seconds[sec] = (f"{local:%Y-%m-%d %H:%M:%S}.{{:06d}} "
                                        f"{local.tzname() or local.strftime('%z')}")
        return head.format(micro)


def compile_lines(layout: Layout) -> Callable[..., tuple[dict[str, Any], list[str] | None]]:
    """Generate ``build(buf, off, tt) -> (values, lines)``: the field lines of a fixed layout
    (``tt`` renders times); lines None when a filler is not zero (the span path shows it)."""
    env: dict[str, Any] = {"S": struct.Struct(layout.format).unpack_from, "text": text}
    shown = [f for f in layout.fields if f.kind != RESERVED]
    width = max(len(f.name) for f in shown)
    body = ["def build(buf, off, tt):", "    r = S(buf, off)"]
    body += [_value_code(f, i, env) for i, f in enumerate(layout.fields)]
    values = ", ".join(f"{f.name!r}: v{i}" for i, f in enumerate(layout.fields))
    body.append(f"    fd = {{{values}}}")
    reserved = [i for i, f in enumerate(layout.fields) if f.kind == RESERVED]
    if reserved:
        body.append(f"    if {' or '.join(f'any(r[{i}])' for i in reserved)}: return fd, None")
    if any(callable(f.meaning) for f in layout.fields):
        from mqtool.tod import Tod

        env["Tod"] = Tod
        tods = ", ".join(f"{f.name!r}: Tod(v{i})" for i, f in enumerate(layout.fields) if f.kind == STCK)
        body.append(f"    md = {{**fd, {tods}}}" if tods else "    md = fd")
    body.append("    out = []")
    for i, f in enumerate(layout.fields):
        if f.kind != RESERVED:
            body += _line_code(f, i, f"  {f.name:<{width}} = ", env)
    body.append("    return fd, out")
    exec(compile("\n".join(body) + "\n", f"<lines {layout.name}>", "exec"), env)  # generated here
    build: Callable[..., tuple[dict[str, Any], list[str] | None]] = env["build"]
    return build


def _value_code(f: FieldInfo, i: int, env: dict[str, Any]) -> str:
    """The generated line that sets ``v{i}``, field ``f``'s value (text decoded, by a
    translate table into ``env`` when its code page has one)."""
    if f.kind not in (TEXT, EYE):
        return f"    v{i} = r[{i}]"
    table = _table(_codec_of(f.con))
    strip = ".rstrip(' ')" if f.kind == TEXT else ""
    conv = (f"r[{i}].decode({_codec_of(f.con)!r}){strip}" if table is None
            else f"r[{i}].translate(T{i}).decode('latin-1'){strip}")
    if table is not None:
        env[f"T{i}"] = table
    return f"    v{i} = {conv}"


def _shown_code(f: FieldInfo, i: int) -> str:
    """The generated expression of field ``f``'s shown value (``v{i}`` as the listing shows it)."""
    if f.kind == STCK:
        return f"tt(v{i})"
    if f.kind == HEXINT:
        return f"\"X'%0{max(2, 2 * (f.size or 1))}X'\" % v{i}"
    if f.kind == HEX:
        return f"\"X'\" + v{i}.hex().upper() + \"'\""
    if f.kind in (TEXT, EYE):
        return f"text(v{i})"
    return f"str(v{i})"


def _line_code(f: FieldInfo, i: int, pad: str, env: dict[str, Any]) -> list[str]:
    """The generated lines that append field ``f``'s listing line (``pad``, its value, its
    meaning, with the table or function of the meaning into ``env``); text not set is shown
    in hex."""
    value = _shown_code(f, i)
    meaning = None
    if f.meaning is not None:
        env[f"M{i}"] = f.meaning
        meaning = f"(M{i}(v{i}, md) or '')" if callable(f.meaning) else f"M{i}.get(v{i}, '')"
    if f.kind in (TEXT, EYE):
        unset = f"\"X'\" + r[{i}].hex().upper() + \"'\""
        tail = "'  ' + m if m else '  (not set)'" if meaning else "'  (not set)'"
        return [f"    m = {meaning}" if meaning else "    m = ''",
                f"    if not any(r[{i}]): out.append({pad!r} + {unset} + ({tail}))",
                f"    else: out.append(({pad!r} + {value} + ('  ' + m if m else '')).rstrip())"]
    if meaning:
        return [f"    m = {meaning}",
                f"    out.append(({pad!r} + {value} + ('  ' + m if m else '')).rstrip())"]
    return [f"    out.append(({pad!r} + {value}).rstrip())"]


@lru_cache(maxsize=16)
def line_builders(big: bool, cs: int) -> Builders:
    return Builders(big, cs, compile_lines)


class LineSink(JsonSink):
    """The walk's fast sink for the listing: per element its field lines (``tt`` renders
    times); declines an element whose filler is not zero (the span listing shows it)."""

    codepages = True  # the data's dump shows its characters

    def __init__(self, b: Builders, tt: TimeText) -> None:
        self.tt = tt
        super().__init__(b)

    def built(self, layout: Layout, pos: int) -> tuple[Any, Mapping[str, Any]]:
        values, lines = built = self.b[layout](self.buf, pos, self.tt)
        if lines is None:
            raise Decline
        return built, values

    def record(self, parent: Any, etype: str, layout: Layout, pos: int, length: int, path: str,
               title: str = "") -> tuple[Any, Mapping[str, Any]]:
        if parent is not None:
            raise Decline  # nested elements: the tree sink
        built, values = self.built(layout, pos)
        self.out.append([etype, pos, length, built, None, None])
        return len(self.out) - 1, values


class Listed(Decoded):
    """A decoded message known by its listing lines (no spans)."""

    __slots__ = ("lines",)
    lines: list[str]


def _lines(data: bytes, elements: list[list[Any]], cp: str) -> list[str]:
    from mqtool.render.hexdump import dump_bytes

    out: list[str] = []
    for t, pos, _length, (_values, lines), where, dcp in elements:
        out.append(f"{t} element at offset X'{pos:04X}'")
        out += lines
        if where is not None and where[1] > where[0]:
            start, stop, name = where
            out.append(f"  {name} ({stop - start} bytes):")
            out += ["    " + ln for ln in dump_bytes(data[start:stop], codepage=dcp or cp).splitlines()]
    return out


def units(data: bytes, tz: tzinfo | None = None) -> Iterator[Decoded]:
    """Every message of ``data`` as ``decode`` gives it, regular ones as ``Listed`` units
    whose lines the generated builders made."""
    tt = TimeText(tz)
    sinks: dict[tuple[bool, int], LineSink] = {}

    def fast(off: int, lent: int, big: bool, cs: int) -> Decoded | None:
        sink = sinks.get((big, cs)) or sinks.setdefault((big, cs), LineSink(line_builders(big, cs), tt))
        try:
            elements = sink.walk(data, off, off + lent)
        except Decline:  # the URBH's filler
            return None
        if elements is None or large_data(elements):
            return None
        unit = Listed("urb", off, lent, attrs={"codepage": CODEPAGES[cs],
                                               "byte_order": "big" if big else "little"})
        unit.lines = _lines(data, elements, CODEPAGES[cs])
        return unit

    return fast_units(data, fast)
