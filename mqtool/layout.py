"""Reusable field types and the DSECT machinery every codec declares its layouts with.

A layout is declared once, with construct, in the document's field order and names::

    v = Variant(big=True, codepage="cp037")
    URBH = dsect("URBH",
        "urbheye" / v.eye("URBH"),
        "urbhlen" / v.S4,
        "urbhtime" / v.stck(),
        "urbhname" / v.text(8),
        "reserved" / Reserved(24),
    )

From that one declaration come: the construct ``Struct`` (builder, interpreted parser),
static field offsets, a ``struct`` fast path for fixed-size layouts, spans for listings and
annotation, and the ``FieldInfo`` table bulk paths derive their own vectorised readers from.
Byte order and code page are parameters (``Variant``), never copies.
"""

from __future__ import annotations

import io
import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from construct import (
    Adapter,
    Bytes,
    Construct,
    ConstructError,
    Container,
    FormatField,
    Renamed,
    StreamError,
    Struct,
)

from mqtool.codepages import blank, codec_name, latin1_table
from mqtool.errors import BuildError, DecodeError
from mqtool.model import EYE, HEX, HEXINT, INT, RESERVED, STCK, TEXT, Element, Span
from mqtool.tod import Tod

Meaning = Mapping[Any, str] | Callable[[Any, Mapping[str, Any]], str]


# --------------------------------------------------------------------------- field types


class Text(Adapter):
    """Character field in a named code page; decoded and right-trimmed of the page's blank
    only (X'40' / X'20'; NUL and every other byte kept). Builds blank-padded."""

    kind = TEXT

    def __init__(self, length: int | Callable[..., int], codepage: str = "cp037") -> None:
        super().__init__(Bytes(length))
        self.length = length
        self.codec = codec_name(codepage)
        self.pad = blank(self.codec)

    def _decode(self, obj: bytes, context: Any, path: Any) -> str:
        return obj.decode(self.codec).rstrip(" ")

    def _encode(self, obj: Any, context: Any, path: Any) -> bytes:
        text = "" if obj is None else str(obj)
        try:
            data = text.encode(self.codec)
        except UnicodeEncodeError as e:
            raise ValueError(f"{text!r} has characters code page {self.codec} lacks") from e
        n = self.length if isinstance(self.length, int) else len(data)
        if len(data) > n:
            raise ValueError(f"{text!r} is {len(data)} characters, the field holds {n}")
        return data + self.pad * (n - len(data))


class Eye(Text):
    """Eyecatcher: a constant text. Decoding returns what is there (the layout checks it);
    building always writes the constant."""

    kind = EYE

    def __init__(self, expected: str, codepage: str = "cp037") -> None:
        self.expected = expected
        super().__init__(len(expected.encode(codec_name(codepage))), codepage)

    def _decode(self, obj: bytes, context: Any, path: Any) -> str:
        return obj.decode(self.codec)

    def _encode(self, obj: Any, context: Any, path: Any) -> bytes:
        if obj not in (None, "", self.expected):
            raise ValueError(f"eyecatcher must be {self.expected!r}, not {obj!r}")
        return self.expected.encode(self.codec)


class Stck(Adapter):
    """8-byte TOD clock value in the given byte order; the value is a ``Tod``."""

    kind = STCK

    def __init__(self, endian: str = ">") -> None:
        super().__init__(FormatField(endian, "Q"))

    def _decode(self, obj: int, context: Any, path: Any) -> Tod:
        return Tod(obj)

    def _encode(self, obj: Any, context: Any, path: Any) -> int:
        return Tod.coerce(obj).raw


class HexInt(Adapter):
    """A binary integer shown in hex (``X'09'``): flag bytes, architecture keys."""

    kind = HEXINT

    def __init__(self, subcon: Construct) -> None:
        super().__init__(subcon)

    def _decode(self, obj: int, context: Any, path: Any) -> int:
        return obj

    def _encode(self, obj: Any, context: Any, path: Any) -> int:
        if isinstance(obj, str):
            return int(obj.removeprefix("X'").removeprefix("x'").rstrip("'"), 16)
        return 0 if obj is None else int(obj)


class Hex(Adapter):
    """Opaque bytes, never translated or swapped; shown and written to JSON as hex."""

    kind = HEX

    def __init__(self, length: int | Callable[..., int]) -> None:
        super().__init__(Bytes(length))
        self.length = length

    def _decode(self, obj: bytes, context: Any, path: Any) -> bytes:
        return bytes(obj)

    def _encode(self, obj: Any, context: Any, path: Any) -> bytes:
        if obj is None:
            if not isinstance(self.length, int):
                return b""
            return bytes(self.length)
        data = bytes.fromhex(obj.removeprefix("X'").rstrip("'")) if isinstance(obj, str) else bytes(obj)
        if isinstance(self.length, int) and len(data) != self.length:
            raise ValueError(f"needs {self.length} bytes, got {len(data)}")
        return data


class Reserved(Hex):
    """Reserved area / filler: binary zero when built, left out of JSON, reported if non-zero
    by codecs that care (requests)."""

    kind = RESERVED


class Annotated(Adapter):
    """Marks a field as inferred / unknown and attaches its meaning table; value unchanged."""

    def __init__(self, subcon: Construct, note: str = "", meaning: Meaning | None = None) -> None:
        super().__init__(subcon)
        self.note, self.meaning = note, meaning

    def _decode(self, obj: Any, context: Any, path: Any) -> Any:
        return obj

    def _encode(self, obj: Any, context: Any, path: Any) -> Any:
        return obj


def Means(subcon: Construct, table: Meaning) -> Annotated:  # noqa: N802 (reads like a type)
    """Attach a meaning table (dict, or ``f(value, fields) -> str``) to a field."""
    return Annotated(subcon, meaning=table)


def Inferred(subcon: Construct, table: Meaning | None = None) -> Annotated:  # noqa: N802
    """A field whose position or meaning is reasoned, not documented."""
    return Annotated(subcon, note="inferred", meaning=table)


def Unknown(subcon: Construct) -> Annotated:  # noqa: N802
    """A word whose meaning is unknown: named by its offset (``unk_0c``), shown as hex."""
    return Annotated(HexInt(subcon) if isinstance(subcon, FormatField) else subcon, note="unknown")


@dataclass(frozen=True)
class Variant:
    """Byte order and code page of one message variant; field factories follow them."""

    big: bool = True
    codepage: str = "cp037"

    @property
    def endian(self) -> str:
        return ">" if self.big else "<"

    @property
    def byte_order(self) -> str:
        return "big" if self.big else "little"

    U1 = property(lambda self: FormatField(self.endian, "B"))
    S2 = property(lambda self: FormatField(self.endian, "h"))
    U2 = property(lambda self: FormatField(self.endian, "H"))
    S4 = property(lambda self: FormatField(self.endian, "l"))
    U4 = property(lambda self: FormatField(self.endian, "L"))
    S8 = property(lambda self: FormatField(self.endian, "q"))
    U8 = property(lambda self: FormatField(self.endian, "Q"))

    def text(self, length: int | Callable[..., int]) -> Text:
        return Text(length, self.codepage)

    def eye(self, expected: str) -> Eye:
        return Eye(expected, self.codepage)

    def stck(self) -> Stck:
        return Stck(self.endian)

    def hexint(self, size: int = 1) -> HexInt:
        return HexInt(FormatField(self.endian, {1: "B", 2: "H", 4: "L"}[size]))


# --------------------------------------------------------------------------- layouts


@dataclass(frozen=True)
class FieldInfo:
    """What bulk paths and renderers need to know about one declared field."""

    name: str
    con: Construct
    kind: str
    note: str
    meaning: Meaning | None
    start: int | None  # static offset in the layout, None once a variable field came before
    size: int | None  # static size, None when variable
    fmt: str | None  # struct code (no byte-order prefix) for the fast path
    endian: str | None  # '>' / '<' of integer fields
    convert: Callable[[Any], Any]  # struct value -> decoded value

    @property
    def static_slice(self) -> slice[int, int, None]:
        """Where the field lies from the layout's start (fields with a static place)."""
        if self.start is None or self.size is None:
            raise TypeError(f"{self.name} has no static place")
        return slice(self.start, self.start + self.size)


def _unwrap(con: Construct) -> tuple[str, str, Meaning | None, Construct]:
    """Kind, note, meaning and innermost construct of a (possibly wrapped) field."""
    kind, note, meaning = "", "", None
    c = con
    while True:
        if isinstance(c, Annotated):
            note = note or c.note
            meaning = meaning or c.meaning
        elif not kind and getattr(c, "kind", None):
            kind = c.kind
        if isinstance(c, Adapter | Renamed):
            c = c.subcon
        else:
            break
    return kind or INT, note, meaning, c


def _converter(con: Construct) -> Callable[[Any], Any]:
    """Compose the adapters' ``_decode`` chain so the fast path converts like construct."""
    chain = []
    c = con
    while isinstance(c, Adapter | Renamed):
        if isinstance(c, Adapter) and not isinstance(c, Annotated):
            chain.append(c)
        c = c.subcon
    if not chain:
        return lambda v: v
    if len(chain) == 1:
        a = chain[0]
        return lambda v: a._decode(v, None, None)

    def convert(v: Any) -> Any:
        for a in reversed(chain):
            v = a._decode(v, None, None)
        return v

    return convert


def _static_size(con: Construct) -> int | None:
    try:
        size: int = con.sizeof()
    except ConstructError:
        return None
    return size


@dataclass(frozen=True)
class _FastPath:
    """A fixed layout's compiled fast path: its ``struct``, size and generated functions."""

    struct: struct.Struct
    size: int
    spans: Callable[..., list[Span]]  # (buf, off, dot, base, r) -> every field's Span
    values: Callable[..., dict[str, Any]]  # (r) -> decoded values by name


class Layout:
    """One DSECT / record / template, declared once with construct."""

    def __init__(self, name: str, *fields: Renamed) -> None:
        self.name = name
        self.struct = Struct(*fields)
        infos: list[FieldInfo] = []
        pos: int | None = 0
        for f in fields:
            if not isinstance(f, Renamed) or not f.name:
                raise TypeError(f"{name}: every field needs a name ('name' / subcon)")
            kind, note, meaning, inner = _unwrap(f.subcon)
            size = _static_size(f.subcon)
            fmt = endian = None
            if isinstance(inner, FormatField):
                endian, fmt = inner.fmtstr[0], inner.fmtstr[1:]
            elif size is not None:
                fmt = f"{size}s"
            infos.append(
                FieldInfo(f.name, f.subcon, kind, note, meaning, pos, size, fmt, endian,
                          _converter(f.subcon))
            )
            pos = None if pos is None or size is None else pos + size
        self.fields: tuple[FieldInfo, ...] = tuple(infos)
        self.size: int | None = pos
        self.names = tuple(f.name for f in infos)
        self._meanings = any(f.meaning is not None for f in infos)
        self._eyes = tuple((i, f.con.expected) for i, f in enumerate(infos) if f.kind == EYE)
        self._fast = self._fast_path()

    def _fast_path(self) -> _FastPath | None:
        if self.size is None:
            return None
        endians = {f.endian for f in self.fields if f.endian}
        if len(endians) > 1:
            return None
        order = endians.pop() if endians else ">"
        fmt = struct.Struct(order + "".join(f.fmt or "" for f in self.fields))
        return _FastPath(fmt, self.size, *_compile(self))

    @property
    def format(self) -> str:
        """The ``struct`` format derived from the declaration (fixed layouts): what hot loops
        that cannot afford ``parse`` unpack with, instead of a hand-written copy."""
        if self._fast is None:
            raise TypeError(f"{self.name} is not a fixed-size layout")
        return self._fast.struct.format

    @property
    def fixed_size(self) -> int:
        """The size of a fixed-size layout (``size`` that is never None)."""
        if self.size is None:
            raise TypeError(f"{self.name} is not a fixed-size layout")
        return self.size

    def field(self, name: str) -> FieldInfo:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(f"{self.name} has no field {name!r}")

    def offset_of(self, name: str) -> int:
        start = self.field(name).start
        if start is None:
            raise KeyError(f"{self.name}.{name} has no static offset")
        return start

    # -- decoding -----------------------------------------------------------------------

    def values(self, buf: bytes, offset: int = 0) -> dict[str, Any]:
        """Fast path: decoded values by name, no spans (bulk extraction). Fixed layouts only."""
        if self._fast is None:
            raise TypeError(f"{self.name} is not a fixed-size layout")
        return self._fast.values(self._fast.struct.unpack_from(buf, offset))

    def parse(
        self, buf: bytes, offset: int = 0, *, prefix: str | None = None, fmt: str = "",
        limit: int | None = None,
    ) -> Element:
        """Decode at ``offset`` into an Element whose spans carry absolute offsets.

        ``limit`` is where the enclosing unit ends (default: end of ``buf``). On truncation or
        a bad eyecatcher raises ``DecodeError`` whose ``partial`` is the Element so far.
        """
        prefix = self.name.lower() if prefix is None else prefix
        end = len(buf) if limit is None else min(limit, len(buf))
        fast = self._fast
        if fast is not None and offset + fast.size <= end:
            if type(buf) is not bytes:  # slices must be bytes: take just this element's
                buf, offset, base = bytes(buf[offset:offset + fast.size]), 0, offset
            else:
                base = 0
            spans = fast.spans(buf, offset, f"{prefix}." if prefix else "", base,
                               fast.struct.unpack_from(buf, offset))
            el = Element(self.name, offset + base, fast.size, spans)
            for i, expected in self._eyes:
                if spans[i].value != expected:
                    self._check_eyes(el, fmt)
            return el
        el = Element(self.name, offset, 0)
        self._parse_interpreted(el, buf, offset, end, prefix, fmt)
        el.length = (el.spans[-1].end - offset) if el.spans else 0
        self._check_eyes(el, fmt)
        return el

    def _spans(self, el: Element, buf: bytes, offset: int, prefix: str, values: list[Any],
               starts: list[int], sizes: list[int]) -> None:
        by_name = dict(zip(self.names, values, strict=False)) if self._meanings else {}
        dot = f"{prefix}." if prefix else ""
        append = el.spans.append
        for f, v, s, n in zip(self.fields, values, starts, sizes, strict=False):
            a = offset + s
            m = meaning_of(f.meaning, v, by_name) if f.meaning is not None else ""
            append(Span(dot + f.name, a, a + n, v, m, f.kind, f.note, bytes(buf[a:a + n])))

    def _parse_interpreted(self, el: Element, buf: bytes, offset: int, end: int, prefix: str,
                           fmt: str) -> None:
        stream = io.BytesIO(memoryview(buf)[:end])
        stream.seek(offset)
        ctx = Container(_parsing=True, _building=False, _sizing=False, _io=stream, _index=None)
        ctx._params = ctx
        ctx._root = ctx
        values: list[Any] = []
        starts: list[int] = []
        sizes: list[int] = []
        for f in self.fields:
            start = stream.tell()
            path = f"{prefix}.{f.name}" if prefix else f.name
            try:
                v = f.con._parsereport(stream, ctx, path)
            except StreamError:
                self._spans(el, buf, 0, prefix, values, starts, sizes)
                need = f" ({f.size} bytes)" if f.size else ""
                raise DecodeError(fmt or self.name.lower(), path, start,
                                  f"{self.name} truncated: {end - start} bytes left for {f.name}{need}",
                                  partial=el) from None
            except (ConstructError, ValueError, UnicodeDecodeError) as e:
                self._spans(el, buf, 0, prefix, values, starts, sizes)
                raise DecodeError(fmt or self.name.lower(), path, start, _reason(e),
                                  partial=el) from None
            ctx[f.name] = v
            values.append(v)
            starts.append(start)
            sizes.append(stream.tell() - start)
        self._spans(el, buf, 0, prefix, values, starts, sizes)

    def _check_eyes(self, el: Element, fmt: str) -> None:
        for f, s in zip(self.fields, el.spans, strict=False):
            if f.kind == EYE and s.value != f.con.expected:
                raise DecodeError(fmt or self.name.lower(), s.path, s.start,
                                  f"eyecatcher {s.value!r} (X'{s.raw.hex().upper()}') "
                                  f"is not {f.con.expected!r}", partial=el)

    # -- building -----------------------------------------------------------------------

    def build(self, values: Mapping[str, Any] | None = None, *, fmt: str = "") -> bytes:
        """Bytes of the layout from field values; unset fields blank / zero / the eyecatcher.

        ``<name>_hex`` companions (from ``--json``) restore STCK sub-microsecond bits.
        """
        values = dict(values or {})
        full: dict[str, Any] = {}
        for f in self.fields:
            v = values.get(f.name)
            if f.kind == STCK:
                try:
                    v = Tod.coerce(v, values.get(f"{f.name}_hex"))
                except ValueError as e:
                    raise BuildError(fmt or self.name.lower(), f.name, str(e)) from None
            elif (v is None and f.kind == INT) or (v is None and f.kind == HEXINT):
                v = 0
            elif v is None and f.kind in (HEX, RESERVED) and f.size is None:
                v = b""
            full[f.name] = v
        try:
            data: bytes = self.struct.build(full)
        except _BUILD_ERRORS as e:
            name, reason = self._failing_field(full, e)
            raise BuildError(fmt or self.name.lower(), name,
                             f"value {full.get(name)!r} does not fit: {reason}") from None
        return data

    def _failing_field(self, full: dict[str, Any], err: Exception) -> tuple[str, str]:
        """Which field made the build fail (construct's path, else the first field that does
        not build on its own) and why, in words."""
        name, reason = _field_from_path(getattr(err, "path", "") or "", self.names), _reason(err)
        if not name:
            for f in self.fields:
                try:
                    f.con.build(full[f.name])
                except _BUILD_ERRORS as e:
                    name, reason = f.name, _reason(e)
                    break
                except Exception:  # noqa: BLE001 - needs context from other fields; skip
                    continue
        info = self.field(name) if name in self.names else None
        if info and info.fmt in INT_CODES and isinstance(full.get(name), int):
            lo, hi = INT_CODES[info.fmt].range
            reason = f"a {info.size}-byte {'signed' if lo else 'unsigned'} field takes {lo}..{hi}"
        return name or self.name, reason


_BUILD_ERRORS = (ConstructError, ValueError, struct.error, OverflowError, TypeError)


def _chain(con: Construct) -> list[Adapter]:
    """The value-changing adapters of a field, outermost first (markers skipped)."""
    chain, c = [], con
    while isinstance(c, Adapter | Renamed):
        if isinstance(c, Adapter) and not isinstance(c, Annotated):
            chain.append(c)
        c = c.subcon
    return chain


def _inline(f: FieldInfo, i: int, env: dict[str, Any]) -> str:
    """Python expression converting struct value ``r[i]`` like the field's adapters do."""
    chain = _chain(f.con)
    if not chain or (len(chain) == 1 and type(chain[0]) in (HexInt, Hex, Reserved)):
        return f"r[{i}]"
    if len(chain) == 1 and type(chain[0]) in (Text, Eye):
        codec = chain[0].codec
        strip = ".rstrip(' ')" if type(chain[0]) is Text else ""
        table = latin1_table(codec)
        if table is None:
            return f"r[{i}].decode({codec!r}){strip}"
        env[f"T{i}"] = table  # translate + latin-1 decode: all C, no codec wrapper call
        return f"r[{i}].translate(T{i}).decode('latin-1'){strip}"
    if len(chain) == 1 and type(chain[0]) is Stck:
        return f"Tod(r[{i}])"
    env[f"C{i}"] = f.convert  # a codec's own adapter: call its decode chain
    return f"C{i}(r[{i}])"


def _compile(layout: Layout) -> tuple[Callable[..., list[Span]], Callable[..., dict[str, Any]]]:
    """Generate, from the declaration, the two functions of a fixed layout's fast path:
    ``spans(buf, off, dot, base, r)`` (every field's Span) and ``values(r)`` (a dict).

    This is construct's ``compile()`` idea applied to our spans: one straight-line function
    per layout instead of a loop over fields, adapters and meaning tables.
    """
    env: dict[str, Any] = {"Span": Span, "Tod": Tod, "new": tuple.__new__}
    conv = [_inline(f, i, env) for i, f in enumerate(layout.fields)]
    body = [f"    v{i} = {e}" for i, e in enumerate(conv)]
    if any(callable(f.meaning) for f in layout.fields):
        body.append("    fd = {" + ", ".join(f"{f.name!r}: v{i}" for i, f in enumerate(layout.fields)) + "}")
    items = []
    for i, f in enumerate(layout.fields):
        a, b = f.start, f.start + f.size  # type: ignore[operator]
        if f.meaning is None:
            m = "''"
        elif callable(f.meaning):
            env[f"M{i}"] = f.meaning
            m = f"(M{i}(v{i}, fd) or '')"
        else:
            env[f"M{i}"] = f.meaning
            m = f"M{i}.get(v{i}, '')"
        raw = f"r[{i}]" if (f.fmt or "").endswith("s") else f"buf[off + {a}:off + {b}]"
        items.append(f"new(Span, (dot + {f.name!r}, base + off + {a}, base + off + {b}, v{i}, "
                     f"{m}, {f.kind!r}, {f.note!r}, {raw}))")
    src = ("def spans(buf, off, dot, base, r):\n" + "\n".join(body)
           + "\n    return [" + ",\n        ".join(items) + "]\n\n"
           + "def values(r):\n    return {"
           + ", ".join(f"{f.name!r}: {e}" for f, e in zip(layout.fields, conv, strict=True))
           + "}\n")
    exec(compile(src, f"<layout {layout.name}>", "exec"), env)  # our own generated source
    return env["spans"], env["values"]


def dsect(name: str, *fields: Renamed) -> Layout:
    """Declare a layout; see the module docstring."""
    return Layout(name, *fields)


def meaning_of(table: Meaning | None, value: Any, fields: Mapping[str, Any]) -> str:
    """The meaning ``table`` (dict, or ``f(value, fields)``) gives ``value``; "" for none."""
    if table is None:
        return ""
    if callable(table):
        return table(value, fields) or ""
    try:
        return table.get(value, "")
    except TypeError:  # unhashable value
        return ""


def _reason(e: Exception) -> str:
    text = str(e).strip()
    if not text:
        return type(e).__name__
    text = text.splitlines()[-1]
    return text.split(" error during building, ")[-1].split("error while parsing")[-1].strip()


def _field_from_path(path: str, names: tuple[str, ...]) -> str:
    for part in reversed(path.replace("(building)", "").split("->")):
        part = part.strip()
        if part in names:
            return part
    return ""


# ====================================================================== struct codes
# The one table of the integer struct codes a declaration compiles to (Python ``struct``,
# "Format Characters", standard sizes): size and signedness. Every other type system's
# name for such a field -- numpy dtypes, Arrow types, the manual's ``S4``/``U2``, Kaitai's
# ``s4``/``u2``, the builder's value range -- is derived here, never tabled again.


@dataclass(frozen=True)
class IntCode:
    """One integer struct code (``b B h H l L q Q``) and its names elsewhere."""

    code: str
    size: int
    signed: bool

    @property
    def numpy(self) -> str:
        """numpy dtype code without byte order: ``i4``, ``u2``."""
        return f"{'i' if self.signed else 'u'}{self.size}"

    @property
    def arrow(self) -> str:
        """Arrow type alias (``pyarrow.type_for_alias``): ``int32``, ``uint16``."""
        return f"{'' if self.signed else 'u'}int{8 * self.size}"

    @property
    def ksy(self) -> str:
        """Kaitai Struct type: ``s4``, ``u2``."""
        return f"{'s' if self.signed else 'u'}{self.size}"

    @property
    def doc(self) -> str:
        """The manual's type column: ``S4``, ``U2`` (signed / unsigned binary, bytes)."""
        return self.ksy.upper()

    @property
    def range(self) -> tuple[int, int]:
        """The values a field of this code holds."""
        bits = 8 * self.size
        return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if self.signed else (0, (1 << bits) - 1)


INT_CODES: dict[str, IntCode] = {
    c: IntCode(c, struct.calcsize("<" + c), c.islower()) for c in "bBhHlLqQ"
}


def numpy_dtype(f: FieldInfo) -> Any:
    """The numpy dtype of one fixed field: an integer in its byte order, or ``(u1, size)``
    for bytes (text, hex, reserved)."""
    import numpy as np

    if f.fmt in INT_CODES:
        return np.dtype((f.endian or ">") + INT_CODES[f.fmt].numpy)
    if f.size is None:
        raise TypeError(f"{f.name} has no static size")
    return np.dtype((np.uint8, (f.size,)))


def fixed_dtype(layout: Layout) -> Any:
    """The numpy structured dtype of a fixed layout (offsets, sizes, byte orders), from its
    ``FieldInfo`` table: one view of N records at once."""
    import numpy as np

    for f in layout.fields:
        if f.start is None or f.size is None or f.fmt is None:
            raise TypeError(f"{layout.name}.{f.name} has no static place")
    spec: Any = {"names": [f.name for f in layout.fields],
                 "formats": [numpy_dtype(f) for f in layout.fields],
                 "offsets": [f.start for f in layout.fields], "itemsize": layout.size}
    return np.dtype(spec)


def arrow_type(f: FieldInfo) -> Any:
    """The Arrow type of an integer field's value (``pyarrow.int32()`` for ``l``)."""
    import pyarrow as pa

    if f.fmt not in INT_CODES:
        raise TypeError(f"{f.name} is no integer field")
    return pa.type_for_alias(INT_CODES[f.fmt].arrow)
