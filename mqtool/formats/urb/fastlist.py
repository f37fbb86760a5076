"""The ``decode urb`` listing without spans: per-layout listing builders generated from the
declarations (the lines ``render.listing`` prints for the same message), over the regular
messages ``fastjson.walk`` takes; every other message goes through the span decoder."""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta, tzinfo
from functools import lru_cache
from typing import Any

from mqtool.formats.urb.fastjson import _Builders, _codec_of, fast_units, walk
from mqtool.formats.urb.layout import CODEPAGES
from mqtool.formats.urb.meanings import SINGLE_BYTE, ecs_codec
from mqtool.layout import Layout
from mqtool.model import EYE, HEX, HEXINT, RESERVED, STCK, TEXT, Decoded
from mqtool.render.listing import quote

EPOCH = datetime(1900, 1, 1, tzinfo=UTC)
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
        sec, micro = divmod(raw >> 12, 1_000_000)
        head = self.seconds.get(sec)
        if head is None:
            if len(self.seconds) > 65536:
                self.seconds.clear()
            local = (EPOCH + timedelta(seconds=sec)).astimezone(self.tz)
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
    for i, f in enumerate(layout.fields):
        if f.kind in (TEXT, EYE):
            table = _table(_codec_of(f.con))
            strip = ".rstrip(' ')" if f.kind == TEXT else ""
            conv = (f"r[{i}].decode({_codec_of(f.con)!r}){strip}" if table is None
                    else f"r[{i}].translate(T{i}).decode('latin-1'){strip}")
            if table is not None:
                env[f"T{i}"] = table
            body.append(f"    v{i} = {conv}")
        else:
            body.append(f"    v{i} = r[{i}]")
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
        if f.kind == RESERVED:
            continue
        pad = f"  {f.name:<{width}} = "
        if f.kind == STCK:
            value = f"tt(v{i})"
        elif f.kind == HEXINT:
            value = f"\"X'%0{max(2, 2 * (f.size or 1))}X'\" % v{i}"
        elif f.kind == HEX:
            value = f"\"X'\" + v{i}.hex().upper() + \"'\""
        elif f.kind in (TEXT, EYE):
            value = f"text(v{i})"
        else:
            value = f"str(v{i})"
        meaning = None
        if f.meaning is not None:
            env[f"M{i}"] = f.meaning
            meaning = f"(M{i}(v{i}, md) or '')" if callable(f.meaning) else f"M{i}.get(v{i}, '')"
        if f.kind in (TEXT, EYE):
            unset = f"\"X'\" + r[{i}].hex().upper() + \"'\""
            tail = "'  ' + m if m else '  (not set)'" if meaning else "'  (not set)'"
            body.append(f"    m = {meaning}" if meaning else "    m = ''")
            body.append(f"    if not any(r[{i}]): out.append({pad!r} + {unset} + ({tail}))")
            body.append(f"    else: out.append(({pad!r} + {value} + ('  ' + m if m else '')).rstrip())")
        elif meaning:
            body.append(f"    m = {meaning}")
            body.append(f"    out.append(({pad!r} + {value} + ('  ' + m if m else '')).rstrip())")
        else:
            body.append(f"    out.append(({pad!r} + {value}).rstrip())")
    body.append("    return fd, out")
    exec(compile("\n".join(body) + "\n", f"<lines {layout.name}>", "exec"), env)  # generated here
    return env["build"]


def _table(codec: str) -> bytes | None:
    try:
        return bytes(range(256)).decode(codec).encode("latin-1")
    except (UnicodeDecodeError, UnicodeEncodeError):
        return None


@lru_cache(maxsize=16)
def line_builders(big: bool, cs: int) -> _Builders:
    return _Builders(big, cs, compile_lines)


class _Bound:
    """A variant's listing builders with the time renderer bound (``walk`` calls build(buf, off))."""

    def __init__(self, b: _Builders, tt: TimeText) -> None:
        self.b, self.tt = b, tt
        self.lay = b.lay

    def _bind(self, entry: Any) -> Any:
        if entry is None:
            return None
        *head, build = entry
        if build is None:
            return entry
        tt = self.tt
        return (*head, lambda buf, off: build(buf, off, tt))

    def __getitem__(self, key: Any) -> Any:
        return self._bind(self.b[key])

    def get(self, key: Any, default: Any = None) -> Any:
        return self._bind(self.b.get(key, default))


class Listed(Decoded):
    """A decoded message known by its listing lines (no spans)."""

    __slots__ = ("lines",)


def _lines(elements: list[tuple], cp: str) -> list[str] | None:
    from mqtool.render.hexdump import dump_bytes

    out: list[str] = []
    acod = 0
    for t, pos, _length, (values, lines), payload in elements:
        if lines is None:
            return None
        out.append(f"{t} element at offset X'{pos:04X}'")
        out += lines
        if t == "URBT":
            acod = values.get("urbtacod") or 0
        if payload:
            codec = ecs_codec(acod)
            dcp = codec if codec in SINGLE_BYTE and codec != cp else cp
            out.append(f"  urbddata ({len(payload)} bytes):")
            out += ["    " + ln for ln in dump_bytes(payload, codepage=dcp).splitlines()]
    return out


def units(data: bytes, tz: tzinfo | None = None) -> Iterator[Decoded]:
    """Every message of ``data`` as ``decode`` gives it, regular ones as ``Listed`` units
    whose lines the generated builders made."""
    tt = TimeText(tz)
    bound: dict[tuple[bool, int], _Bound] = {}

    def fast(off: int, lent: int, big: bool, cs: int) -> Decoded | None:
        b = bound.get((big, cs))
        if b is None:
            b = bound[(big, cs)] = _Bound(line_builders(big, cs), tt)
        elements = walk(data, off, off + lent, b)  # type: ignore[arg-type]
        lines = _lines(elements, CODEPAGES[cs]) if elements is not None else None
        if lines is None:
            return None
        unit = Listed("urb", off, lent, attrs={"codepage": CODEPAGES[cs],
                                               "byte_order": "big" if big else "little"})
        unit.lines = lines
        return unit

    return fast_units(data, fast)
