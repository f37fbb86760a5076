"""An Adabas field definition table (FDT) given as JSON: field names, long names, standard
lengths and formats, groups, MU and PE fields — what a format buffer leaves out
(``AA`` alone means the field in its standard length and format) and what names the columns.

Software AG, Adabas Utilities, *ADACMP field definitions* / *FDT record structure*: a field
has a level (1..7; higher levels belong to the group above), a two-character name, a
standard length and format, and options (MU multiple-value field, PE periodic group, NU,
FI, DE, UQ, ...); a group has no length and format; a PE group is a level-1 group.

The JSON (``--fdt FILE``)::

    {"dbid": 10006, "fnr": 9, "name": "EMPLOYEES",
     "fields": [
       {"level": 1, "name": "AA", "long_name": "PERSONNEL-ID", "length": 8, "format": "A"},
       {"level": 1, "name": "AQ", "long_name": "INCOME", "options": ["PE"], "occurrences": 2},
       {"level": 2, "name": "AR", "long_name": "CURR-CODE", "length": 3, "format": "A"},
       {"level": 2, "name": "AS", "long_name": "SALARY", "length": 5, "format": "P",
        "decimals": 2}]}

``dbid``/``fnr`` may be left out (the FDT then serves every file). A list of such objects
describes several files. ``occurrences`` (MU field, PE group) makes the FDT a layout of its
own: every field in FDT order in its standard length and format, MU values and PE groups
that many times (``"count": true`` instead: preceded by a one-byte count, occurrences 1-N).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mqtool.formats.urb.typed.layout import (
    FORMATS,
    Count,
    Item,
    LayoutError,
    RecordLayout,
    Repeat,
    Value,
    check,
)

MAX_LEVEL = 7


@dataclass(frozen=True)
class FdtField:
    name: str
    long_name: str
    level: int
    length: int | None  # None: a group
    fmt: str | None
    options: frozenset[str]
    decimals: int = 0
    occurrences: int | None = None
    counted: bool = False
    group: str | None = None  # the PE group it belongs to

    @property
    def is_group(self) -> bool:
        return self.fmt is None

    @property
    def column(self) -> str:
        return self.long_name or self.name


@dataclass(frozen=True)
class Fdt:
    """The fields of one file by short name, in FDT order."""

    source: str
    fields: tuple[FdtField, ...]
    dbid: int | None = None
    fnr: int | None = None
    name: str = ""
    by_name: dict[str, FdtField] = field(default_factory=dict, compare=False)

    def get(self, name: str) -> FdtField | None:
        return self.by_name.get(name)

    def members(self, group: str) -> list[FdtField]:
        return [f for f in self.fields if f.group == group and not f.is_group]

    def layout(self) -> RecordLayout:
        """Every field in FDT order at its standard length and format (MU fields and PE
        groups need ``occurrences`` or ``count``)."""
        items: list[Item] = []
        done: set[str] = set()
        for f in self.fields:
            if f.name in done or (f.is_group and "PE" not in f.options):
                continue
            if f.group is not None and f.group != f.name:
                continue  # a PE member: its group takes it
            if "PE" in f.options:
                members = self.members(f.name)
                done.update(m.name for m in members)
                items += self._repeat(f, tuple(self._value_or_mu(m, in_pe=True) for m in members))
            elif "MU" in f.options:
                items += self._repeat(f, (self.value(f),))
            else:
                items.append(self.value(f))
        return check(RecordLayout(tuple(items), self.source, self.dbid, self.fnr))

    def _repeat(self, f: FdtField, inner: tuple[Item, ...]) -> list[Item]:
        kind = "PE" if "PE" in f.options else "MU"
        if f.occurrences is None and not f.counted:
            raise LayoutError(self.source, f"{f.name}: a{'n' if kind == 'MU' else ''} {kind} field "
                                           f"needs \"occurrences\" or \"count\" to be laid out")
        rep = Repeat(f.name, f.column, kind, inner, 1, None if f.counted else f.occurrences)
        return [Count(f.name), rep] if f.counted else [rep]

    def _value_or_mu(self, f: FdtField, in_pe: bool) -> Item:
        if "MU" in f.options:
            if f.occurrences is None:
                raise LayoutError(self.source, f"{f.name}: an MU field in a PE group needs \"occurrences\"")
            return Repeat(f.name, f.column, "MU", (self.value(f),), 1, f.occurrences)
        return self.value(f)

    def value(self, f: FdtField, length: int | None = None, fmt: str | None = None,
              scale: int | None = None) -> Value:
        """One value of field ``f`` (length, format, decimals overridden where given)."""
        if f.is_group:
            raise LayoutError(self.source, f"{f.name} is a group, not a field with a value")
        return Value(f.name, f.column, fmt or f.fmt or "A", (f.length or 0) if length is None else length,
                     f.decimals if scale is None else scale, signed=False)


def _field(obj: Any, k: int, source: str) -> FdtField:
    where = f"fields[{k}]"
    if not isinstance(obj, dict):
        raise LayoutError(source, f"{where}: a field is an object with name, length, format")
    name = obj.get("name")
    if not isinstance(name, str) or len(name) != 2 or not name[0].isalpha() or not name.isalnum() \
            or not name.isascii():
        raise LayoutError(source, f"{where}: name {name!r} is not a two-character Adabas field name")
    where = f"{where} ({name})"
    level, options = obj.get("level", 1), obj.get("options", [])
    if not isinstance(level, int) or not 1 <= level <= MAX_LEVEL:
        raise LayoutError(source, f"{where}: level {level!r} (1..{MAX_LEVEL})")
    if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
        raise LayoutError(source, f"{where}: options must be a list of words (MU, PE, NU...)")
    length, fmt = _shape(obj, where, source)
    occurrences, decimals = obj.get("occurrences"), obj.get("decimals", 0)
    if occurrences is not None and (not isinstance(occurrences, int) or not 0 <= occurrences <= 65534):
        raise LayoutError(source, f"{where}: occurrences {occurrences!r} (0..65534)")
    if not isinstance(decimals, int) or decimals < 0:
        raise LayoutError(source, f"{where}: decimals {decimals!r}")
    long_name = obj.get("long_name") or ""
    if not isinstance(long_name, str) or not long_name.isprintable():
        raise LayoutError(source, f"{where}: long_name must be printable text")
    return FdtField(name.upper(), long_name, level, length, fmt, frozenset(o.upper() for o in options),
                    decimals, occurrences, obj.get("count") is True)


def _shape(obj: dict[str, Any], where: str, source: str) -> tuple[int | None, str | None]:
    """A field's standard length and format (a group has neither)."""
    length, fmt = obj.get("length"), obj.get("format")
    if fmt is not None and (not isinstance(fmt, str) or fmt.upper() not in FORMATS):
        raise LayoutError(source, f"{where}: format {fmt!r} (one of {', '.join(FORMATS)})")
    if (fmt is None) != (length is None) or (length is not None and
                                             (not isinstance(length, int) or not 0 <= length <= 32767)):
        raise LayoutError(source, f"{where}: a field has a length (0..32767) and a format, a group neither")
    return length, fmt.upper() if fmt else None


def _one(obj: Any, source: str) -> Fdt:
    if not isinstance(obj, dict) or not isinstance(obj.get("fields"), list):
        raise LayoutError(source, "an FDT is an object with a \"fields\" list")
    for key in ("dbid", "fnr"):
        if obj.get(key) is not None and (not isinstance(obj[key], int) or not 0 < obj[key] < 65536):
            raise LayoutError(source, f"{key} {obj[key]!r} is not a number 1..65535")
    fields: list[FdtField] = []
    stack: list[FdtField] = []  # open groups by level
    for k, raw in enumerate(obj["fields"]):
        f = _field(raw, k, source)
        while stack and stack[-1].level >= f.level:
            stack.pop()
        if f.level > (stack[-1].level if stack else 0) + 1:
            raise LayoutError(source, f"fields[{k}] ({f.name}): level {f.level} skips a level")
        pe = next((g for g in stack if "PE" in g.options), None)
        if pe is not None:
            f = FdtField(f.name, f.long_name, f.level, f.length, f.fmt, f.options, f.decimals,
                         f.occurrences, f.counted, pe.name)
        elif "PE" in f.options:
            f = FdtField(f.name, f.long_name, f.level, f.length, f.fmt, f.options, f.decimals,
                         f.occurrences, f.counted, f.name)
        if any(g.name == f.name for g in fields):
            raise LayoutError(source, f"fields[{k}]: {f.name} is defined twice")
        fields.append(f)
        if f.is_group:
            stack.append(f)
    return Fdt(source, tuple(fields), obj.get("dbid"), obj.get("fnr"), str(obj.get("name") or ""),
               {f.name: f for f in fields})


def load_fdt(path: str) -> list[Fdt]:
    """The FDTs of a JSON file (one object, or a list of them)."""
    source = f"FDT {Path(path).name}"
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise LayoutError(source, f"cannot read: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise LayoutError(source, f"not UTF-8 text (byte {e.start})") from None
    return parse_fdt(text, source)


def parse_fdt(text: str, source: str = "FDT") -> list[Fdt]:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise LayoutError(source, f"not JSON: {e.msg} at line {e.lineno}, column {e.colno}") from None
    objs = obj if isinstance(obj, list) else [obj]
    return [_one(o, source if len(objs) == 1 else f"{source}[{k}]") for k, o in enumerate(objs)]
