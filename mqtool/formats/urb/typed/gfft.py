"""The layout of the images that follow a global format field table (URBF + URBGs).

Software AG, Event Replicator for Adabas, DSECTs URBF (global format field table, GFFT)
and URBG (one GFFT element): "a GFFT describes a schema of files"; each URBG names a field
of the subscription's global format buffer (short name URBGFID, long name URBGFNAM of
URBGFNML characters), its format (URBGFFMT), type bits (URBGTYPE: PE, MU, counter,
S-format element), length (URBGFLEN), decimal places (URBGFPRC), flags (URBGFLAG: not put
into the output, range order, optimized), the occurrences of its first level (URBGFRNO
count from URBGFRFM) and, for an MU field in a PE group, its second level (URBGFONO from
URBGFOFM), and the PE group it belongs to (URBGFGRP). A table with URBFFLAG X'10'
("optimized") sends occurrences 1-N preceded by a count field.

How the facts combine into a layout follows Software AG's adapya-era ``readris`` (GFFT to
datamap): a PE group element has format X'00' and type PE, its members follow it and name it
in URBGFGRP, the group's number of occurrences is the first member's URBGFRNO; an MU field
in a PE group takes its occurrences from the second level. The order of the URBGs is the
order of the values in the image.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mqtool.formats.urb.meanings import FIELD_FLAG_BITS, FIELD_TYPE_BITS, GFFT_FLAGS, GFFT_FORMATS
from mqtool.formats.urb.typed.layout import (
    Count,
    Item,
    LayoutError,
    RecordLayout,
    Repeat,
    Skip,
    Value,
    check,
)
from mqtool.model import Decoded


def _bit(table: tuple[tuple[int, str], ...], name: str) -> int:
    return next(bit for bit, text in table if text == name)


PE, MU, COUNTER, S_ELEMENT = (_bit(FIELD_TYPE_BITS, n) for n in ("PE", "MU", "MU/PE counter",
                                                                 "S-format element"))
NOT_OUTPUT, RANGE_ORDER, OPTIMIZED_FIELD = (_bit(FIELD_FLAG_BITS, n) for n in (
    "not in the output", "repeating MU/PE element", "optimized"))
OPTIMIZED = _bit(GFFT_FLAGS, "optimized")

# GFFT format meanings -> (Adabas format, signed, raw bytes, date/time mask); the codes
# themselves are declared once, with their meanings, in the URB meaning tables
_BY_MEANING: dict[str, tuple[str, bool, bool, str | None]] = {
    "A": ("A", False, False, None), "W": ("W", False, False, None),
    "B": ("B", False, False, None), "signed binary": ("B", True, False, None),
    "binary string": ("B", False, True, None), "P": ("P", False, False, None),
    "U": ("U", False, False, None), "short float": ("G", False, False, None),
    "long float": ("G", False, False, None), "packed date": ("P", False, False, "NATDATE"),
    "packed time": ("P", False, False, "NATTIME"), "date": ("U", False, False, "DATE"),
    "time": ("U", False, False, "TIME"),
}
FORMAT_CODES = {code: _BY_MEANING[text] for code, text in GFFT_FORMATS.items() if text in _BY_MEANING}
GROUP = next(code for code, text in GFFT_FORMATS.items() if text.startswith("none"))
DIGIT_MASKS = {8: "DATE", 6: "TIME", 14: "DATETIME", 20: "TIMESTAMP"}


@dataclass(frozen=True)
class Gfft:
    """One global format field table seen in the stream, and the layout it gives."""

    file: str
    offset: int  # of the URBF in the input
    dbid: int
    fnr: int
    gfid: str
    name: str  # file / user view name (URBFFNAM)
    layout: RecordLayout


def _text(value: Any, length: Any = None) -> str:
    s = str(value or "").rstrip(" \x00")
    if isinstance(length, int) and 0 < length < len(s):
        s = s[:length]
    return s


def layout_of(urbf: Mapping[str, Any], urbgs: Sequence[Mapping[str, Any]], where: str) -> RecordLayout:
    """The image layout a URBF and its URBGs (their field values by DSECT name) give."""
    gfid = _text(urbf.get("urbfgfid"))
    source = f"GFFT {gfid or '(no id)'} of file {urbf.get('urbffnr')} ({where})"
    optimized = bool(int(urbf.get("urbfflag") or 0) & OPTIMIZED)
    items: list[Item] = []
    group: _Group | None = None
    notes: list[str] = []
    for k, g in enumerate(urbgs):
        at = f"URBG {k + 1}"
        fid = _text(g.get("urbgfid"))
        if not fid:
            raise LayoutError(source, f"{at}: no field name (URBGFID)")
        fmt, typ, flag = (int(g.get(n) or 0) for n in ("urbgffmt", "urbgtype", "urbgflag"))
        if flag & NOT_OUTPUT:
            continue
        member = group is not None and _text(g.get("urbgfgrp")) == group.fid and fmt != GROUP
        if group is not None and not member:
            items += group.close(source)
            group = None
        if fmt == GROUP:
            if typ & PE:
                group = _Group(fid, _text(g.get("urbgfnam"), g.get("urbgfnml")) or fid,
                               int(g.get("urbgfrno") or 0), int(g.get("urbgfrfm") or 0),
                               optimized or bool(flag & OPTIMIZED_FIELD), bool(flag & RANGE_ORDER), [])
            continue  # a plain group: structure only, no bytes
        item = _element(g, fid, fmt, typ, flag, optimized, at, source, notes, group)
        if group is not None:
            group.add(item, g)
        else:
            items.append(item)
    if group is not None:
        items += group.close(source)
    return check(RecordLayout(tuple(items), source, _int(urbf.get("urbfdbid")), _int(urbf.get("urbffnr")),
                              gfid, tuple(notes)))


def _int(v: Any) -> int | None:
    return int(v) if isinstance(v, int) else None


def _element(g: Mapping[str, Any], fid: str, fmt: int, typ: int, flag: int, optimized: bool, at: str,
             source: str, notes: list[str], group: _Group | None) -> Item:
    length = int(g.get("urbgflen") or 0)
    if typ & COUNTER:
        return Count(group.fid if group is not None else fid, length or 1, "B")
    if typ & S_ELEMENT:
        return Skip(length, "S-format element")
    column = _text(g.get("urbgfnam"), g.get("urbgfnml")) or fid
    known = FORMAT_CODES.get(fmt)
    if known is None:
        notes.append(f"{at} ({fid}): format X'{fmt:02X}' is kept as bytes")
        value = Value(fid, column, "B", length, raw=True)
    else:
        letter, signed, raw, mask = known
        if mask in ("DATE", "TIME"):
            mask = DIGIT_MASKS.get(length)
            if mask is None:
                raise LayoutError(source, f"{at} ({fid}): a date/time of {length} digits "
                                          f"(8, 6, 14 or 20)")
        value = Value(fid, column, letter, length, int(g.get("urbgfprc") or 0), signed, raw, mask)
    if not typ & MU:
        return value
    in_pe = bool(typ & PE) and group is not None
    count = int(g.get("urbgfono" if in_pe else "urbgfrno") or 0)
    first = int(g.get("urbgfofm" if in_pe else "urbgfrfm") or 0) or 1
    opt = optimized or bool(flag & OPTIMIZED_FIELD)
    return Repeat(fid, column, "MU", (value,), first, None if opt else count)


@dataclass
class _Group:
    fid: str
    column: str
    count: int
    first: int
    optimized: bool
    range_order: bool
    members: list[Item]
    counter: Count | None = None

    def add(self, item: Item, g: Mapping[str, Any]) -> None:
        if isinstance(item, Count):  # the group's count: read before its occurrences
            self.counter = item
            return
        if not self.count:
            self.count = int(g.get("urbgfrno") or 0)
            self.first = self.first or int(g.get("urbgfrfm") or 0)
        if int(g.get("urbgflag") or 0) & RANGE_ORDER:
            self.range_order = True
        self.members.append(item)

    def close(self, source: str) -> list[Item]:
        if not self.members:
            raise LayoutError(source, f"PE group {self.fid}: no member fields follow it")
        counted = self.optimized or self.counter is not None
        group = Repeat(self.fid, self.column, "PE", tuple(self.members), self.first or 1,
                       None if counted else self.count, self.range_order)
        return [self.counter, group] if self.counter is not None else [group]


def _fields(el: Any) -> dict[str, Any]:
    return {s.name: s.value for s in el.spans}


def tables(units: Iterable[Decoded], file: str = "", base: int = 0) -> Iterator[Gfft | LayoutError]:
    """Every URBF of decoded units with the layout it gives, or why it gives none."""
    for unit in units:
        for el in unit.elements:
            if el.type != "URBF":
                continue
            urbf = _fields(el)
            urbgs = [_fields(g) for g in el.children if g.type == "URBG"]  # nested under it
            where = f"{file + ', ' if file else ''}offset {base + el.offset}"
            declared = urbf.get("urbfcntg")
            try:
                if isinstance(declared, int) and declared != len(urbgs):
                    raise LayoutError(f"GFFT {_text(urbf.get('urbfgfid'))} ({where})",
                                      f"URBFCNTG says {declared} URBGs, {len(urbgs)} decoded")
                layout = layout_of(urbf, urbgs, where)
            except LayoutError as e:
                yield e
                continue
            yield Gfft(file, base + el.offset, int(urbf.get("urbfdbid") or 0), int(urbf.get("urbffnr") or 0),
                       _text(urbf.get("urbfgfid")), _text(urbf.get("urbffnam"), urbf.get("urbffnml")), layout)


def scan(data: bytes, file: str = "", base: int = 0) -> Iterator[tuple[int, Gfft | LayoutError]]:
    """Every global format field table of a stream of URB messages, with its offset (plus
    ``base``: where ``data`` starts in the input): only the messages that hold a URBF
    eyecatcher are decoded (``urb.decode``)."""
    from mqtool.formats.urb.decode import decode

    for h, message in holding(data):
        units = list(decode(message))[:1]
        for g in tables(units, file, base + h):
            yield (g.offset if isinstance(g, Gfft) else base + h + _first_eye(message)), g


def holding(data: bytes) -> Iterator[tuple[int, bytes]]:
    """The messages of ``data`` that hold a URBF eyecatcher, with their offsets: what
    ``scan`` decodes (a Spark task hands them to the driver, which scans them in input
    order)."""
    from mqtool.formats.urb.layout import EYE_LEN, HEADER_PREFIXES, URBHLENT_AT, WORD

    heads = {prefix[:EYE_LEN] for prefix in HEADER_PREFIXES}
    hits = sorted(p for eye in _eyes() for p in _find_all(data, eye))
    done: set[int] = set()
    for p in hits:
        h = max(data.rfind(head, 0, p) for head in heads)
        if h < 0 or h in done:
            continue
        prefix = next((v for k, v in HEADER_PREFIXES.items() if data.startswith(k, h)), None)
        if prefix is None:
            continue
        word = data[h + URBHLENT_AT:h + URBHLENT_AT + WORD]
        length = int.from_bytes(word, "big" if prefix[1] else "little")
        if h + length <= p:
            continue
        done.add(h)
        yield h, data[h:h + length]


def _eyes() -> list[bytes]:
    from mqtool.formats.urb.layout import CODEPAGES

    return sorted({"URBF".encode(cp) for cp in CODEPAGES})


def _first_eye(message: bytes) -> int:
    return min(at for at in (message.find(eye) for eye in _eyes()) if at >= 0)


def _find_all(data: bytes, needle: bytes) -> Iterator[int]:
    at = data.find(needle)
    while at >= 0:
        yield at
        at = data.find(needle, at + 1)
