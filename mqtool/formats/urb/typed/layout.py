"""The layout of a record image: which Adabas field values it holds, in which order, in
which length and format — the one description the three sources (the stream's global
format field table, a user's format buffer, an FDT) are turned into, and the decoder reads.

A record image (URBD data) is the record buffer of the subscription's global format buffer
(Software AG, Adabas Command Reference, *Format Buffers* and *Record Buffers*: the values
come in the order the format buffer names them, each in its standard or overridden length
and format). Items:

* ``Value``: one value of a field (``AA,8,A``); length 0 is a variable-length value
  preceded by a one-byte binary length that counts itself.
* ``Count``: the number of occurrences of a multiple-value field or periodic group present
  in the record (``AAC``; a GFFT counter element); a following ``Repeat`` of the same name
  with no fixed count reads that many occurrences (``AA1-N``, the GFFT "optimized" form).
* ``Repeat``: occurrences of a multiple-value (MU) field or periodic group (PE), in
  occurrence order (``GA1-3``: AA1, AB1, AA2, AB2, ...) or in range order (``AA1-3,AB1-3``;
  URBG flag X'02'); items may nest (an MU field inside a PE group).
* ``Skip``: bytes that carry no field (``nX``, or a ``'literal'`` of the format buffer).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

import pyarrow as pa

from mqtool.errors import ExitStatus, MqtoolError

# Adabas field formats (Adabas Command Reference, *Record Buffers*: A alphanumeric, B binary,
# F fixed point, G floating point, P packed decimal, U unpacked decimal, W wide character)
FORMATS = ("A", "B", "F", "G", "P", "U", "W")
# date/time interpretations of a numeric value: Adabas date-time edit masks, and the GFFT's
# date/time formats (digits of U fields; Natural date/time as packed days / tenths of seconds)
MASKS = ("DATE", "TIME", "DATETIME", "TIMESTAMP", "NATDATE", "NATTIME", "UNIXTIME", "XTIMESTAMP")
SHORT_NAME = 2  # characters of an Adabas field name
MAX_OCCURRENCES = 65534  # Adabas: MU values and PE occurrences of a record (mainframe limit)
MAX_DIGITS = 38  # decimal128


class LayoutError(MqtoolError):
    """A layout that cannot be used (a malformed format buffer, FDT or global format field
    table): names its source and where in it; bad input, exit status 2."""

    status = ExitStatus.DECODE

    def __init__(self, source: str, reason: str) -> None:
        self.source, self.reason = source, reason
        super().__init__(f"urb: {source}: {reason}")


@dataclass(frozen=True)
class Value:
    """One value of a field in the image."""

    name: str  # Adabas short name (AA)
    column: str  # the column: the long name, the short name where none is known
    fmt: str  # one of FORMATS
    length: int  # bytes; 0 = variable, preceded by a one-byte length that counts itself
    scale: int = 0  # decimal places of a P or U value
    signed: bool = False  # B: two's complement (GFFT X'82'); F is always signed
    raw: bool = False  # B of any length kept as bytes (GFFT binary string X'42')
    mask: str | None = None  # one of MASKS: the value is a date or a time

    def arrow_type(self) -> pa.DataType:
        """The Arrow type of the column this value fills."""
        return value_type(self)


@dataclass(frozen=True)
class Count:
    """The number of occurrences present of ``name`` (an MU field or a PE group)."""

    name: str
    length: int = 1
    fmt: str = "B"


@dataclass(frozen=True)
class Skip:
    """``length`` bytes that hold no field (``nX``, a literal)."""

    length: int
    why: str = "X"


@dataclass(frozen=True)
class Repeat:
    """Occurrences of an MU field (one item) or a PE group (its members)."""

    name: str  # short name of the MU field / PE group
    column: str
    kind: str  # MU / PE
    items: tuple[Item, ...]
    first: int = 1  # first occurrence number
    count: int | None = None  # fixed number of occurrences; None: the preceding Count's value
    range_order: bool = False  # PE members one after the other (AA1-N, AB1-N), not by occurrence

    def arrow_type(self) -> pa.DataType:
        return repeat_type(self)


Item = Union[Value, Count, Skip, Repeat]  # noqa: UP007  (a runtime alias: dataclass fields name it)


@dataclass(frozen=True)
class RecordLayout:
    """The layout of the images of one file, and where it came from."""

    items: tuple[Item, ...]
    source: str  # "GFFT EMPLTEL (file x, offset n)", "format buffer 10006:9", "FDT file.json"
    dbid: int | None = None
    fnr: int | None = None
    gfid: str | None = None
    notes: tuple[str, ...] = field(default=(), compare=False)

    def struct_type(self) -> pa.StructType:
        """The struct of one decoded image: one field per column."""
        return pa.struct(_fields(self.items))

    def columns(self) -> list[str]:
        return [f.name for f in _fields(self.items)]

    def fixed_size(self) -> int | None:
        """Bytes of every image of this layout, None when counts or length prefixes vary it."""
        return items_size(self.items)

    def signature(self) -> tuple[tuple[str, str, int, int], ...]:
        """What two layouts must share to decode images alike (names, formats, lengths)."""
        return tuple(_signature(self.items))


def _fields(items: tuple[Item, ...]) -> list[pa.Field]:
    out: list[pa.Field] = []
    seen: set[str] = set()
    for it in items:
        if isinstance(it, Value | Repeat):
            name = it.column
            k = 2
            while name in seen:  # the same field twice (AA,AA,2): AA, AA_2
                name = f"{it.column}_{k}"
                k += 1
            seen.add(name)
            out.append(pa.field(name, it.arrow_type()))
    return out


def _signature(items: tuple[Item, ...]) -> list[tuple[str, str, int, int]]:
    out = []
    for it in items:
        if isinstance(it, Value):
            out.append((it.name, it.fmt, it.length, it.scale))
        elif isinstance(it, Count):
            out.append((it.name + "C", it.fmt, it.length, 0))
        elif isinstance(it, Skip):
            out.append(("X", "X", it.length, 0))
        else:
            out.append((it.name, it.kind, it.count or 0, it.first))
            out.extend(_signature(it.items))
    return out


def items_size(items: tuple[Item, ...]) -> int | None:
    """Bytes of ``items`` when they are the same for every image, else None."""
    total = 0
    for it in items:
        if isinstance(it, Value):
            if it.length == 0:
                return None
            total += it.length
        elif isinstance(it, Count | Skip):
            total += it.length
        else:
            inner = items_size(it.items)
            if inner is None or it.count is None:
                return None
            total += inner * it.count
    return total


def decimal_digits(v: Value) -> int:
    """Digits of a P (2 per byte, less the sign nibble) or U (one per byte) value."""
    return 2 * v.length - 1 if v.fmt == "P" else v.length


def value_type(v: Value) -> pa.DataType:
    """The Arrow type of a value: text, integers, decimal, float, date, time or bytes."""
    if v.mask is not None:
        return MASK_TYPES[v.mask]
    if v.fmt in ("A", "W"):
        return pa.string()
    if v.fmt == "F" or (v.fmt == "B" and not v.raw and v.length in INT_SIZES):
        signed = v.fmt == "F" or v.signed
        return INT_TYPES[(v.length, signed)]
    if v.fmt == "B":
        return pa.binary()
    if v.fmt == "G":
        return pa.float64()
    digits = decimal_digits(v) if v.length else MAX_DIGITS
    return pa.decimal128(max(digits, v.scale, 1), v.scale)


def repeat_type(r: Repeat) -> pa.DataType:
    """A list of values (MU) or of structs (PE group)."""
    if r.kind == "MU" and len(r.items) == 1 and isinstance(r.items[0], Value | Repeat):
        return pa.list_(r.items[0].arrow_type())
    return pa.list_(pa.struct(_fields(r.items)))


INT_SIZES = (1, 2, 4, 8)
INT_TYPES = {(1, False): pa.uint8(), (2, False): pa.uint16(), (4, False): pa.uint32(),
             (8, False): pa.uint64(), (1, True): pa.int8(), (2, True): pa.int16(),
             (4, True): pa.int32(), (8, True): pa.int64()}
MASK_TYPES = {"DATE": pa.date32(), "NATDATE": pa.date32(), "TIME": pa.time64("us"),
              "DATETIME": pa.timestamp("us"), "TIMESTAMP": pa.timestamp("us"),
              "NATTIME": pa.timestamp("us"), "UNIXTIME": pa.timestamp("us"),
              "XTIMESTAMP": pa.timestamp("us")}


def check(layout: RecordLayout) -> RecordLayout:
    """Refuse what no image can be decoded with (one line naming the source and field)."""
    _check_items(layout.items, layout.source, set())
    return layout


def _check_items(items: tuple[Item, ...], source: str, counted: set[str]) -> None:
    for it in items:
        if isinstance(it, Count):
            if it.length not in INT_SIZES or it.fmt not in ("B", "F"):
                raise LayoutError(source, f"{it.name}C: a count is 1, 2, 4 or 8 bytes of B or F")
            counted.add(it.name)
        elif isinstance(it, Skip):
            if it.length < 0:
                raise LayoutError(source, f"skip of {it.length} bytes")
        elif isinstance(it, Repeat):
            if it.count is None and it.name not in counted:
                raise LayoutError(source, f"{it.name}: occurrences up to N need the count "
                                          f"{it.name}C before them")
            if it.count is not None and not 0 <= it.count <= MAX_OCCURRENCES:
                raise LayoutError(source, f"{it.name}: {it.count} occurrences (0..{MAX_OCCURRENCES})")
            if not it.items:
                raise LayoutError(source, f"{it.name}: a group with no fields")
            _check_items(it.items, source, set(counted))
        else:
            _check_value(it, source)


def _check_value(v: Value, source: str) -> None:
    name = v.name
    if v.fmt not in FORMATS:
        raise LayoutError(source, f"{name}: format {v.fmt!r} (one of {', '.join(FORMATS)})")
    if not 0 <= v.length <= 253 and not (v.fmt in ("A", "B", "W") and v.length <= 32767):
        raise LayoutError(source, f"{name}: length {v.length}")
    if v.fmt == "F" and v.length not in INT_SIZES:
        raise LayoutError(source, f"{name}: an F value is 1, 2, 4 or 8 bytes, not {v.length}")
    if v.fmt == "G" and v.length not in (4, 8):
        raise LayoutError(source, f"{name}: a G value is 4 or 8 bytes, not {v.length}")
    if v.fmt in ("P", "U") and v.length and decimal_digits(v) > MAX_DIGITS:
        raise LayoutError(source, f"{name}: {decimal_digits(v)} digits (at most {MAX_DIGITS})")
    if v.fmt in ("P", "U") and v.length and not 0 <= v.scale <= decimal_digits(v):
        raise LayoutError(source, f"{name}: {v.scale} decimal places in {decimal_digits(v)} digits")
    if v.fmt == "W" and v.length % 2 and v.length:
        pass  # UTF-8 W values may have any length
    if v.mask is not None and v.mask not in MASKS:
        raise LayoutError(source, f"{name}: edit mask {v.mask!r} (one of {', '.join(MASKS)})")
    if v.mask is not None and v.fmt not in ("P", "U", "B", "F"):
        raise LayoutError(source, f"{name}: a date/time mask needs a P, U, B or F value, not {v.fmt}")
