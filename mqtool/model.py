"""The shared annotation model: every decoded field knows its byte span.

Everything downstream (listing, annotated hex, JSON lines, rows, error messages) reads this
one model. Paths are dotted (``urbr[1].urbrisn``) and are the public key everywhere.

A unit is a tree, as hachoir's field sets and Kaitai Struct's ``_debug`` positions are: a
``Decoded`` holds its top-level ``Element``s, each element its fields (``Span``s) and the
elements nested in it (``children``: the URBGs of a URBF, the MQMD inside an MQXQH), every
offset absolute. Siblings never overlap and a child lies inside its parent
(``tree_faults``); renderers read the nesting, never re-derive it from paths.
"""

from __future__ import annotations

import builtins
import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import NamedTuple, TypeVar

from mqtool.tod import Tod

# Span kinds: how a value is rendered and turned into JSON.
TEXT, EYE, INT, HEXINT, HEX, STCK, RESERVED, DATA = (
    "text", "eye", "int", "hexint", "hex", "stck", "reserved", "data",
)

_T = TypeVar("_T")


class Span(NamedTuple):
    """One decoded field: where it is (absolute, end exclusive), what it holds, what it means.

    A NamedTuple: cheap to create on the forensic path, immutable, unpackable.
    """

    path: str
    start: int
    end: int
    value: object
    meaning: str = ""
    kind: str = INT
    note: str = ""  # "inferred", "unknown", "synthetic", ...
    raw: bytes = b""

    @property
    def name(self) -> str:
        """The last path component (the document's field name)."""
        return self.path.rsplit(".", 1)[-1]

    @property
    def length(self) -> int:
        return self.end - self.start


@dataclass(frozen=True, slots=True)
class Problem:
    """An error (decoding stopped) or a warning (decoding went on), located in the input."""

    path: str
    offset: int
    reason: str

    def to_json(self) -> dict[str, object]:
        return {"path": self.path, "offset": self.offset, "reason": self.reason}

    def describe(self) -> str:
        where = f" at {self.path}" if self.path else ""
        return f"{self.reason}{where}, offset X'{self.offset:04X}' ({self.offset})"


@dataclass(slots=True)
class Element:
    """A decoded structure (a DSECT, a record, a template) inside a unit."""

    type: str
    offset: int
    length: int
    spans: list[Span] = field(default_factory=list)
    data: bytes | None = None  # bytes that follow the fixed part (image, selection data)
    data_offset: int | None = None
    extra: dict[str, object] = field(default_factory=dict)  # codec-specific JSON additions
    title: str = ""  # listing heading; default "<TYPE> element at offset X'nnnn'"
    data_name: str = "data"  # listing label of ``data`` (e.g. ``urbddata``)
    data_codepage: str | None = None  # character column of the data's dump; None: the unit's
    children: list[Element] = field(default_factory=list)  # elements nested in this one
    path: str = ""  # the element's own path (``urbf[0]``); empty: its fields' common prefix

    @property
    def end(self) -> int:
        return self.offset + self.length

    def walk(self) -> Iterator[Element]:
        """This element and every element nested in it, depth first (document order)."""
        yield self
        for c in self.children:
            yield from c.walk()

    def spans_deep(self) -> Iterator[Span]:
        """The fields of this element and of every element nested in it, in document order."""
        for el in self.walk():
            yield from el.spans

    def own_path(self) -> str:
        """The element's path: given by its decoder, else the prefix its fields share."""
        if self.path or not self.spans:
            return self.path
        parts = [s.path.split(".")[:-1] for s in self.spans]
        common = parts[0]
        for p in parts[1:]:
            n = 0
            while n < min(len(common), len(p)) and common[n] == p[n]:
                n += 1
            common = common[:n]
        return ".".join(common)

    @property
    def shows_data(self) -> bool:
        """Whether renderers show ``data`` as bytes: not when child elements interpret it."""
        return self.data is not None and not self.children

    def value(self, name: str, default: object = None) -> object:
        for s in self.spans:
            if s.name == name:
                return s.value
        return default

    def value_as(self, name: str, kind: builtins.type[_T]) -> _T:
        """The value of field ``name``, which its declaration makes a ``kind`` (an ``int`` for
        integer fields, ``bytes`` for hex ones); ``TypeError`` when it is not, or is absent."""
        v = self.value(name)
        if not isinstance(v, kind):
            raise TypeError(f"{self.type}.{name} is {type(v).__name__}, not {kind.__name__}")
        return v

    @property
    def fields(self) -> dict[str, object]:
        """Field values by name, reserved fillers left out (what JSON shows)."""
        return {s.name: s.value for s in self.spans if s.kind != RESERVED}

    @property
    def all_values(self) -> dict[str, object]:
        """Every field's value, fillers included: rebuilds the element byte for byte."""
        return {s.name: s.value for s in self.spans}

    def heading(self) -> str:
        return self.title or f"{self.type} element at offset X'{self.offset:04X}'"


@dataclass(slots=True)
class Decoded:
    """One decoded unit (message, record, template) with what went wrong, if anything."""

    format: str
    offset: int
    length: int
    elements: list[Element] = field(default_factory=list)
    attrs: dict[str, object] = field(default_factory=dict)  # codepage, byte_order, ...
    errors: list[Problem] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    title: str = ""

    @property
    def ok(self) -> bool:
        return not self.errors

    def walk(self) -> Iterator[Element]:
        """Every element of the unit, nested ones included, depth first."""
        for el in self.elements:
            yield from el.walk()

    def spans(self) -> Iterator[Span]:
        """Every field of the unit, nested elements' included, in document order."""
        for el in self.walk():
            yield from el.spans

    def to_json(self, raw: bool = False) -> dict[str, object]:
        return unit_json(self, raw)


LISTED = 64 << 10  # bytes of one data field a listing shows (--json keeps every byte)


def listed_note(n: int) -> str:
    """What a listing says of a data field of ``n`` bytes, of which it shows the first
    ``LISTED`` ('' when it shows it whole)."""
    return f"the first {LISTED:,} bytes shown, {n:,} bytes in all" if n > LISTED else ""


def json_value(span: Span) -> object:
    """The JSON form of one span's value: bytes as upper-case hex, STCK as ISO-8601 UTC."""
    v = span.value
    if span.kind == STCK:
        return v.iso() if isinstance(v, Tod) else v
    if isinstance(v, bytes | bytearray):
        return v.hex().upper()
    return v


def fields_json(spans: list[Span], raw: bool = False) -> dict[str, object]:
    """Field name -> JSON value; reserved fillers left out; STCK keeps ``<name>_hex``.

    ``<name>_hex`` of a STCK field carries the 12 sub-microsecond bits the ISO text cannot,
    so ``--json`` output rebuilds byte-exact. ``raw`` adds ``<name>_hex`` for text fields too.
    """
    out: dict[str, object] = {}
    for s in spans:
        if s.kind == RESERVED:
            continue
        out[s.name] = json_value(s)
        if s.kind == STCK and isinstance(s.value, Tod):
            out[f"{s.name}_hex"] = s.value.hex()
        elif raw and s.kind in (TEXT, EYE):
            out[f"{s.name}_hex"] = s.raw.hex().upper()
    return out


def element_json(el: Element, raw: bool = False) -> dict[str, object]:
    """One element as ``--json`` shows it; nested elements under ``children``."""
    d: dict[str, object] = {
        "type": el.type,
        "offset": el.offset,
        "length": el.length,
        "fields": fields_json(el.spans, raw),
    }
    meanings = {s.name: s.meaning for s in el.spans if s.meaning}
    if meanings:
        d["meanings"] = meanings
    notes = {s.name: s.note for s in el.spans if s.note}
    if notes:
        d["notes"] = notes
    if el.data is not None:
        d["data"] = el.data.hex().upper()
    d.update(el.extra)
    if el.children:
        d["children"] = [element_json(c, raw) for c in el.children]
    return d


def tree_faults(elements: list[Element], within: tuple[int, int] | None = None) -> list[str]:
    """What breaks the tree's rule, in words: two siblings that overlap, a child outside its
    parent. Empty for a well-formed tree (the tests run it over every decoded unit)."""
    faults: list[str] = []
    ordered = sorted(elements, key=lambda e: (e.offset, e.end))
    for a, b in itertools.pairwise(ordered):
        if b.offset < a.end and a.length and b.length:
            faults.append(f"{a.type} {a.offset}..{a.end} overlaps its sibling "
                          f"{b.type} {b.offset}..{b.end}")
    for el in elements:
        if within is not None and (el.offset < within[0] or el.end > within[1]):
            faults.append(f"{el.type} {el.offset}..{el.end} lies outside its parent "
                          f"{within[0]}..{within[1]}")
        faults += tree_faults(el.children, (el.offset, el.end))
    return faults


def unit_json(unit: Decoded, raw: bool = False) -> dict[str, object]:
    d: dict[str, object] = {"format": unit.format, "offset": unit.offset, "length": unit.length}
    d.update(unit.attrs)
    d["elements"] = [element_json(el, raw) for el in unit.elements]
    d["errors"] = [p.to_json() for p in unit.errors]
    d["problems"] = [p.to_json() for p in unit.problems]
    return d


@dataclass(frozen=True)
class Detection:
    """A codec's opinion of a blob: format, confidence 0..1, and the evidence in words."""

    format: str
    confidence: float
    reason: str
    options: dict[str, object] = field(default_factory=dict)  # e.g. {"part": "header"}

    def to_json(self) -> dict[str, object]:
        return {"format": self.format, "confidence": self.confidence, "reason": self.reason,
                "options": dict(self.options)}


# ---------------------------------------------------------------- moving decoded offsets
# One place that moves what was decoded from a buffer starting ``delta`` bytes into the
# input: the element's offset, its spans, its data offset (and, once elements nest, its
# children), the unit's offset and its problems.


def shift_element(el: Element, delta: int) -> Element:
    """Move ``el`` (decoded at buffer offsets) ``delta`` bytes, and the elements nested in
    it: input offsets."""
    if delta:
        el.offset += delta
        el.spans[:] = [sp._replace(start=sp.start + delta, end=sp.end + delta) for sp in el.spans]
        if el.data_offset is not None:
            el.data_offset += delta
        for child in el.children:
            shift_element(child, delta)
    return el


def shift_unit(unit: Decoded, delta: int) -> Decoded:
    """Move a whole unit ``delta`` bytes: its offset, every element, every error and problem."""
    if delta:
        unit.offset += delta
        for el in unit.elements:
            shift_element(el, delta)
        unit.errors = [Problem(p.path, p.offset + delta, p.reason) for p in unit.errors]
        unit.problems = [Problem(p.path, p.offset + delta, p.reason) for p in unit.problems]
    return unit
