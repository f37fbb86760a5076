"""The one builder of a composition: records with their computed fields filled in.

What ``mqtool.compose`` declares a walker reads, this writes: an element's length field
(``Record.length``), its trailing data's offset and length (``Trailing``), the count and
item size of a counted ``Repeat``, the counts one element keeps of those after it
(``Count``, kept by the walker's own ``Tally``), and the envelope's header size, unit length
and constants. A computed field that is given is checked, and refused by its path when it
contradicts what is built; every refusal of a unit is collected (``Refusals``) and reported
at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mqtool.compose import Count, Envelope, Record, Repeat
from mqtool.compose.walk import Open, Tally
from mqtool.errors import BuildError
from mqtool.layout import Layout
from mqtool.model import STCK
from mqtool.tod import Tod

MAX_FILLER = 4096  # alignment filler a given length may add after the data


class Refusals:
    """Every reason a unit cannot be built, collected and raised together."""

    def __init__(self, fmt: str, where: str = "") -> None:
        self.fmt, self.where = fmt, where
        self.items: list[tuple[str, str]] = []

    def add(self, path: str, reason: str) -> None:
        self.items.append((path, reason))

    def raise_any(self) -> None:
        if not self.items:
            return
        where = f"{self.where}: " if self.where else ""
        if len(self.items) == 1:
            path, reason = self.items[0]
            raise BuildError(self.fmt, f"{where}{path}", reason)
        lines = "\n".join(f"  {p}: {r}" for p, r in self.items)
        raise BuildError(self.fmt, "", f"{where}{len(self.items)} refusals:\n{lines}")


def given_int(fields: Mapping[str, Any], name: str, path: str, bad: Refusals) -> tuple[bool, int | None]:
    """A computed field's given value: (True, None) when not given, (False, None) (refused)
    when it is not a number."""
    v = fields.get(name)
    if v is None:
        return True, None
    if isinstance(v, bool) or not isinstance(v, int):
        bad.add(f"{path}.{name}", f"{v!r} is not a number")
        return False, None
    return True, v


def times(layout: Layout, values: dict[str, Any], path: str, bad: Refusals) -> bool:
    """STCK fields as ``Tod`` values (ISO text, raw hex, ``<name>_hex`` companions): False
    and a refusal for what is none of them."""
    ok = True
    for f in layout.fields:
        if f.kind != STCK:
            continue
        try:
            values[f.name] = Tod.coerce(values.get(f.name), values.get(f"{f.name}_hex"))
        except (ValueError, TypeError, AttributeError, OverflowError):
            bad.add(f"{path}.{f.name}", f"{values.get(f.name)!r} is not a time (ISO-8601, 16 hex "
                                        "digits of a TOD clock value, or 'now')")
            ok = False
        values.pop(f"{f.name}_hex", None)
    return ok


def fixed_part(layout: Layout, values: dict[str, Any], path: str, bad: Refusals) -> bytes | None:
    """The layout's bytes from ``values`` (times coerced); None and refusals when they do not fit."""
    if not times(layout, values, path, bad):
        return None
    try:
        return layout.build(values, fmt=bad.fmt)
    except BuildError as e:
        bad.add(f"{path}.{e.path}", e.reason)
        return None


@dataclass
class Item:
    """One item of a counted repeat: its field values and the bytes after its fixed part."""

    fields: Mapping[str, Any]
    data: bytes = b""
    path: str = ""


def build_items(rep: Repeat, layout: Layout, items: list[Item], values: dict[str, Any], owner: str,
                path: str, bad: Refusals) -> bytes | None:
    """The items of a counted repeat, one size for all; sets ``rep.count`` and ``rep.size``
    in ``values`` (a given one that disagrees is refused)."""
    built = []
    for item in items:
        fixed = fixed_part(layout, dict(item.fields), item.path, bad)
        if fixed is not None:
            built.append(fixed + item.data)
    if len(built) != len(items):
        return None
    sizes = {len(b) for b in built}
    if len(sizes) > 1:
        bad.add(f"{path}.{rep.size}",
                f"the {layout.name}s differ in size ({', '.join(map(str, sorted(sizes)))})")
        return None
    size = sizes.pop() if sizes else (layout.size or 0)
    for name, want in ((rep.count, len(built)), (rep.size, size)):
        if name is None:
            continue
        got = values.get(name)
        if got is not None and got != want:
            held = f"{len(built)} {layout.name}{'s' if len(built) != 1 else ''}"
            bad.add(f"{path}.{name}", f"{got}, but the {owner} holds {held}"
                    + ("" if name == rep.count else f" of {size} bytes"))
        values[name] = want
    return b"".join(built)


@dataclass
class Element:
    """One element to build: its record, field values, the data after its fixed part."""

    record: Record
    fields: dict[str, Any]
    data: bytes = b""
    path: str = ""
    align: int | None = None  # data padded to a multiple of this when the length is computed
    hint: bool = False  # a given length is kept when it fits, else computed (not refused)
    extra: dict[str, Any] = field(default_factory=dict)


def _layout(el: Element, resolve: Callable[[str], Layout], bad: Refusals) -> Layout | None:
    """The layout: by the given length where there are generations (the newest otherwise)."""
    rec = el.record
    ok, given = given_int(el.fields, rec.length, el.path, bad)
    if not ok:
        return None
    sizes = rec.sizes(resolve)
    if not (rec.fixed and len(sizes) > 1):
        return rec.layout(resolve)
    if given is None:
        return rec.layout(resolve, sizes[-1])
    base = given - len(el.data)
    if base not in sizes:
        bad.add(f"{el.path}.{rec.length}", f"{given} is neither {' nor '.join(map(str, sizes))}"
                + (f" plus {len(el.data)} bytes of extra data" if el.data else ""))
        return None
    return rec.layout(resolve, base)


def _place(el: Element, values: dict[str, Any], size: int, bad: Refusals) -> bool:
    """Trailing data's offset and length fields: filled, given ones checked."""
    t = el.record.trailing
    if t is None:
        return True
    ok1, lenh = given_int(values, t.start, el.path, bad)
    ok2, lend = given_int(values, t.length, el.path, bad)
    if not (ok1 and ok2):
        return False
    if lenh is not None and not t.tolerates(lenh, size):
        bad.add(f"{el.path}.{t.start}", f"{lenh}: the {t.name} starts after the {size}-byte "
                f"{el.record.type}" + (f" ({' or '.join(map(str, t.tolerated))} is also taken)"
                                       if t.tolerated else ""))
    if lend is not None and lend != len(el.data):
        bad.add(f"{el.path}.{t.length}", f"{lend}, but the {t.name} is {len(el.data)} bytes")
    values[t.start] = size if lenh is None else lenh
    values[t.length] = len(el.data)
    return True


def _length(el: Element, size: int, given: int | None, bad: Refusals) -> int:
    """The element's length: computed (the fixed part, the data, its alignment), or the
    given one when it only adds filler after the data (refused otherwise; with ``hint``
    computed instead)."""
    rec, data = el.record, el.data
    need = size + len(data)
    computed = need + ((-len(data)) % el.align if el.align else 0)
    if given is None:
        return computed
    if need <= given <= need + MAX_FILLER and not (rec.fixed and given != need):
        return given
    if not el.hint:
        what = (f"the {size}-byte {rec.type} and {len(data)} bytes of data take" if data
                else f"the {size}-byte {rec.type} takes")
        bad.add(f"{el.path}.{rec.length}", f"{given}, but {what} {need}")
        return need  # refused; built on so that the unit's length can still be checked
    return computed


def build_element(el: Element, resolve: Callable[[str], Layout], bad: Refusals) -> bytes | None:
    """The bytes of one element, its computed fields filled in or checked."""
    layout = _layout(el, resolve, bad)
    if layout is None:
        return None
    size = layout.size or 0
    values = dict(el.fields)
    ok, given = given_int(values, el.record.length, el.path, bad)
    if not ok or not _place(el, values, size, bad):
        return None
    length = _length(el, size, given, bad)
    values[el.record.length] = length
    fixed = fixed_part(layout, values, el.path, bad)
    if fixed is None:
        return None
    return fixed + el.data + bytes(length - size - len(el.data))


def fill_counts(counts: tuple[Count, ...], elements: Iterable[tuple[str, dict[str, Any], str]],
                bad: Refusals) -> None:
    """The counts elements keep of those after them (``Count``): computed when not given,
    refused when given and wrong (a continued transaction's counts run on into the next
    unit and are not checked; a continuation makes them uncheckable)."""
    tally = Tally(counts)
    continued = False

    def judge(c: Count, state: Open, n: int, ended: bool) -> None:
        want = state.values.get(c.field)
        if n < 0:
            return
        if want is None:
            state.values[c.field] = n  # type: ignore[index]
        elif want != n and not (continued and not ended):
            bad.add(f"{state.path}.{c.field}", f"{want}, but {n} {c.child}{'s' if n != 1 else ''} follow")

    for etype, fields, path in elements:
        for c, state, n, ended in tally.see(etype, Open(None, fields, path, 0, None)):
            judge(c, state, n, ended)
        for c in counts:
            if etype == c.parent and c.continued:
                continued = fields.get(c.continued) == "Y"
    for c, state, n, ended in tally.end():
        judge(c, state, n, ended)


def header(env: Envelope, values: Mapping[str, Any], size: int, total: int | None, path: str,
           bad: Refusals, strict: bool = True, unit: str = "unit") -> dict[str, Any]:
    """The envelope header's fields: its size, the constants and the unit length (None: not
    known, an element could not be built) set; given ones that disagree refused (``strict``)
    or overridden."""
    out = dict(values)
    wanted: list[tuple[str, Any]] = [(env.size, size), *env.constants.items()]
    if total is not None:
        wanted.append((env.total, total))
    for name, want in wanted:
        got = out.get(name)
        if strict and got not in (None, want):
            bad.add(f"{path}.{name}", f"{got!r}, but the {unit} needs {want!r}")
        out[name] = want
    return out
