"""Adabas format buffers (the record format part) to image layouts.

Software AG, Adabas Command Reference, *Format Buffers*, "Record Format Specifications":
entries separated by commas, the buffer ends with a period. An entry is

* a field, optionally with a length and a format override: ``AA``, ``AA,8``, ``AA,8,A``
  (formats A, B, F, G, P, U, W; length 0: a variable-length value preceded by its length);
  mqtool also reads ``AB,4.2,P`` (length 4, 2 decimal places), and a date-time edit mask as
  a fourth part (``AH,8,U,DATE``);
* occurrences of a multiple-value field or periodic group: ``AA1-5`` (values 1 to 5),
  ``AA3`` (value 3), ``GB1-2`` (a PE group's first two occurrences), ``AA1-N`` (all the
  values present, given by a preceding count), ``BB1(1-3)`` (values 1-3 of the MU field BB
  in occurrence 1 of its PE group);
* a count: ``AAC`` (the number of values of MU field AA; ``GBC`` of PE group GB), one byte of
  B unless a length is given;
* ``nX``: n bytes that hold no field; ``'text'``: a literal, its bytes likewise skipped.

A field's standard length and format, its long name, and which fields a PE group holds come
from an FDT (``mqtool.formats.urb.fdt``) when one is given.

Given on the command line as ``DBID:FNR='AA,8,A,AB,2,P.'`` or in a file of such lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from lark import Lark, Token, Transformer, UnexpectedInput

from mqtool.formats.urb.fdt import Fdt
from mqtool.formats.urb.typed.layout import (
    MASKS,
    Count,
    Item,
    LayoutError,
    RecordLayout,
    Repeat,
    Skip,
    Value,
    check,
)

GRAMMAR = r"""
start: entry ("," entry)* PERIOD?
?entry: field | skip | literal
field: FIELDREF ("," LENGTH ("," FORMAT ("," MASK)?)?)?
skip: SKIP
literal: LITERAL
FIELDREF.2: /[A-Z][A-Z0-9]/ OCC? MUOCC? SUFFIX?
OCC: /[0-9]+(-([0-9]+|N))?/
MUOCC: /\(([0-9]+(-([0-9]+|N))?)\)/
SUFFIX: /[CLS]/
LENGTH: /[0-9]+(\.[0-9]+)?/
FORMAT.1: /[ABFGPUW]/
MASK.3: /(DATETIME|DATE|TIMESTAMP|TIME|NATDATE|NATTIME|UNIXTIME|XTIMESTAMP)/
SKIP.3: /[0-9]+X/
LITERAL: /'[^']*'/
PERIOD: "."
%ignore " "
"""

FB_PARTS = 3  # length, format, edit mask after a field name
NEAR = 12  # characters of the input quoted where it cannot be read
QUOTED = 40  # characters of a bad option quoted
_REF = re.compile(r"^([A-Z][A-Z0-9])([0-9]+(?:-(?:[0-9]+|N))?)?(?:\(([^)]*)\))?([CLS])?$")
_OPTION = re.compile(r"^\s*([0-9]+)\s*:\s*([0-9]+)\s*=\s*(.*?)\s*$", re.S)


@lru_cache(maxsize=1)
def _parser() -> Lark:
    return Lark(GRAMMAR, parser="earley", lexer="dynamic")


@dataclass(frozen=True)
class _Ref:
    name: str
    occ: tuple[int, int | None] | None  # (first, last) ; last None: N
    mu: tuple[int, int | None] | None
    suffix: str | None
    at: int  # column of the entry (1-based)


def _occ(text: str | None) -> tuple[int, int | None] | None:
    if not text:
        return None
    first, _, last = text.partition("-")
    return int(first), (None if last == "N" else int(last) if last else int(first))


class _Entries(Transformer):  # type: ignore[type-arg]
    """Parse tree -> (kind, payload, column) tuples."""

    def start(self, items: list[object]) -> list[object]:
        return [i for i in items if not isinstance(i, Token)]

    def field(self, items: list[Token]) -> tuple[str, object, int]:
        ref = items[0]
        m = _REF.match(str(ref))
        assert m is not None  # the grammar's FIELDREF
        parts = [str(t) for t in items[1:]]
        return ("field", (_Ref(m.group(1), _occ(m.group(2)), _occ(m.group(3)), m.group(4),
                               ref.column or 0), parts), ref.column or 0)

    def skip(self, items: list[Token]) -> tuple[str, object, int]:
        return ("skip", int(str(items[0])[:-1]), items[0].column or 0)

    def literal(self, items: list[Token]) -> tuple[str, object, int]:
        return ("literal", str(items[0])[1:-1], items[0].column or 0)


def parse(text: str, source: str = "format buffer", fdt: Fdt | None = None,
          dbid: int | None = None, fnr: int | None = None) -> RecordLayout:
    """The layout a format buffer gives (``fdt``: standard lengths, formats, long names)."""
    body = text.strip()
    if not body:
        raise LayoutError(source, "empty format buffer")
    if body.startswith("("):
        raise LayoutError(source, "column 1: field selection criteria (multiple record formats) "
                                  "are not supported")
    upper = _upper_outside_literals(body)
    try:
        tree = _parser().parse(upper)
    except UnexpectedInput as e:
        col = getattr(e, "column", "?")
        near = upper[max(0, e.pos_in_stream or 0):][:NEAR] if e.pos_in_stream is not None else ""
        raise LayoutError(source, f"column {col}: cannot read {near!r} (entries are AA, AA,8,A, "
                                  f"AA1-5, AAC, nX, 'text'; a period ends the buffer)") from None
    entries = _Entries().transform(tree)
    items: list[Item] = []
    for kind, payload, col in entries:
        where = f"column {col}"
        if kind == "skip":
            items.append(Skip(payload, "X"))
        elif kind == "literal":
            items.append(Skip(len(str(payload).encode("utf-8")), "literal"))
        else:
            ref, parts = payload
            items += _field_items(ref, parts, fdt, source, where)
    return check(RecordLayout(tuple(items), source, dbid, fnr))


def _upper_outside_literals(text: str) -> str:
    return "'".join(p if k % 2 else p.upper() for k, p in enumerate(text.split("'")))


def _length(parts: list[str], source: str, where: str, name: str) -> tuple[int | None, int | None]:
    if not parts:
        return None, None
    length, _, decimals = parts[0].partition(".")
    return int(length), (int(decimals) if decimals else None)


def _field_items(ref: _Ref, parts: list[str], fdt: Fdt | None, source: str, where: str) -> list[Item]:
    length, scale = _length(parts, source, where, ref.name)
    _, fmt, mask = (*parts, None, None, None)[:FB_PARTS]
    known = fdt.get(ref.name) if fdt is not None else None
    if ref.suffix == "C":
        return [Count(ref.name, length or 1, fmt or "B")]
    if ref.suffix in ("L", "S"):
        raise LayoutError(source, f"{where}: {ref.name}{ref.suffix}: length indicators and S elements "
                                  f"are not supported")
    if known is not None and known.is_group and "PE" in known.options:
        return [_pe_group(ref, fdt, source, where)]  # type: ignore[arg-type]
    if known is None and (length is None or fmt is None) and fdt is not None:
        raise LayoutError(source, f"{where}: {ref.name} is not in the {fdt.source}")
    value = _value(ref, length, fmt, scale, mask, fdt, source, where)
    if ref.mu is not None:  # BB1(1-3): an MU field within occurrence 1 of its PE group
        first, last = ref.mu
        column = f"{value.column}_{ref.occ[0]}" if ref.occ else value.column
        return [Repeat(ref.name, column, "MU", (value,), first, None if last is None else last - first + 1)]
    if ref.occ is None:
        return [value]
    first, last = ref.occ
    if last is not None and last < first:
        raise LayoutError(source, f"{where}: {ref.name}{first}-{last}: the range runs backwards")
    if last == first and last is not None:
        return [Value(value.name, f"{value.column}_{first}", value.fmt, value.length, value.scale,
                      value.signed, value.raw, value.mask)]
    return [Repeat(ref.name, value.column, "MU", (value,), first, None if last is None else last - first + 1)]


def _value(ref: _Ref, length: int | None, fmt: str | None, scale: int | None, mask: str | None,
           fdt: Fdt | None, source: str, where: str) -> Value:
    known = fdt.get(ref.name) if fdt is not None else None
    if known is not None:
        if known.is_group:
            raise LayoutError(source, f"{where}: {ref.name} is a group: name its fields")
        v = fdt.value(known, length, fmt, scale)  # type: ignore[union-attr]
    elif length is None or fmt is None:
        raise LayoutError(source, f"{where}: {ref.name} has no length and format "
                                  f"(give {ref.name},8,A or an FDT)")
    else:
        v = Value(ref.name, ref.name, fmt, length, scale or 0)
    if mask is not None:
        assert mask in MASKS
        v = Value(v.name, v.column, v.fmt, v.length, v.scale, v.signed, v.raw, mask)
    return v


def _pe_group(ref: _Ref, fdt: Fdt, source: str, where: str) -> Repeat:
    group = fdt.get(ref.name)
    assert group is not None
    if ref.occ is None:
        raise LayoutError(source, f"{where}: {ref.name} is a PE group: give its occurrences ({ref.name}1-2)")
    members = fdt.members(ref.name)
    if any("MU" in m.options for m in members):
        raise LayoutError(source, f"{where}: PE group {ref.name} holds MU fields: name its fields "
                                  f"and their values")
    first, last = ref.occ
    count = None if last is None else last - first + 1
    return Repeat(ref.name, group.column, "PE", tuple(fdt.value(m) for m in members), first, count)


# --------------------------------------------------------------------------- options and files


@dataclass(frozen=True)
class Given:
    """A format buffer given for a file (``DBID:FNR=...``)."""

    dbid: int
    fnr: int
    text: str
    source: str


def parse_option(option: str, source: str = "--format-buffer") -> Given:
    """``DBID:FNR=FORMAT-BUFFER`` (quotes around the buffer optional)."""
    m = _OPTION.match(option)
    if m is None:
        raise LayoutError(source, f"{option[:QUOTED]!r}: give DBID:FNR='AA,8,A,...'")
    dbid, fnr, text = int(m.group(1)), int(m.group(2)), m.group(3)
    if not 0 < dbid < 65536 or not 0 < fnr < 65536:
        raise LayoutError(source, f"database {dbid}, file {fnr}: numbers 1..65535")
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'" and text.count(text[0]) == 2:
        text = text[1:-1]
    return Given(dbid, fnr, text, f"{source} {dbid}:{fnr}")


def load_option_file(path: str) -> list[Given]:
    """A file of ``DBID:FNR=...`` lines (``#`` comments, blank lines ignored)."""
    name = Path(path).name
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise LayoutError(f"format buffers {name}", f"cannot read: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise LayoutError(f"format buffers {name}", f"not UTF-8 text (byte {e.start})") from None
    out = []
    for k, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        out.append(parse_option(line, f"format buffers {name}, line {k}"))
    return out


def layout_for(given: Given, fdt: Fdt | None = None) -> RecordLayout:
    return parse(given.text, given.source, fdt, given.dbid, given.fnr)
