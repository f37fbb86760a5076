"""Any URB message from its description: status replies, data messages (URBT, URBR, URBD,
URBE), continuations (URBC), URBU, URBF with its URBGs — what ``decode urb --json`` prints.

The builder reads the composition tables of ``layout.py``: which layout an element type is
(by its length where there are generations), its length field, the trailing data and its
two fields, the URBGs of a URBF, the counts a URBT and a URBR keep. Every one of those
fields (``COMPUTED``) is computed unless given; a given value that contradicts the message
is refused with the field's path, and every refusal of a message is reported at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mqtool.codepages import is_ebcdic
from mqtool.errors import BuildError
from mqtool.formats.urb.layout import (
    COUNTS,
    DEFAULT_ASCII,
    DEFAULT_EBCDIC,
    ELEMENTS,
    FORMAT,
    HEADER_CONSTANTS,
    HEADER_LENGTH,
    MESSAGE_LENGTH,
    URBG_TABLE,
    Urb,
    VariantChoice,
    layouts,
)
from mqtool.layout import Layout
from mqtool.model import STCK
from mqtool.tod import Tod

MAX_FILLER = 4096  # alignment filler a given length may add after the data
ALIGN = 4  # URBDs built from options end on a fullword
# elements decode --json shows that belong to their parent's data (built from it)
PART_OF_PARENT = {"ISNLIST": "URBI", "URBSU": "URBS", "URBSUD": "URBS"}


@dataclass
class Part:
    """One element to build: its field values, the data after its fixed part, its items."""

    type: str
    fields: dict[str, Any]
    data: bytes | None = None
    path: str = ""
    items: list[Part] = field(default_factory=list)  # URBGs of a URBF


@dataclass
class Message(VariantChoice):
    """A URB message to build from element descriptions."""

    header: dict[str, Any] = field(default_factory=dict)
    elements: list[Part] = field(default_factory=list)
    encoding: str | None = None
    codepage: str | None = None
    byte_order: str = "big"
    where: str = ""


class Refusals:
    """Every reason a message cannot be built, collected and raised together."""

    def __init__(self, where: str = "") -> None:
        self.where = where
        self.items: list[tuple[str, str]] = []

    def add(self, path: str, reason: str) -> None:
        self.items.append((path, reason))

    def raise_any(self) -> None:
        if not self.items:
            return
        where = f"{self.where}: " if self.where else ""
        if len(self.items) == 1:
            path, reason = self.items[0]
            raise BuildError(FORMAT, f"{where}{path}", reason)
        lines = "\n".join(f"  {p}: {r}" for p, r in self.items)
        raise BuildError(FORMAT, "", f"{where}{len(self.items)} refusals:\n{lines}")


def _hex(value: Any) -> bytes:
    text = "".join(str(value).split()).removeprefix("X'").removeprefix("x'").rstrip("'")
    return bytes.fromhex(text)


def from_decoded(obj: Mapping[str, Any], where: str = "") -> Message:
    """A message from one line of ``decode urb --json`` (or a description of that shape)."""
    msg = Message(where=where)
    bad = Refusals(where)
    cp = obj.get("codepage")
    if cp is not None:
        if not isinstance(cp, str):
            bad.add("codepage", f"{cp!r} is not a code page name")
        else:
            msg.codepage = cp
    order = obj.get("byte_order", "big")
    if order not in ("big", "little"):
        bad.add("byte_order", f"{order!r} is neither big nor little")
    else:
        msg.byte_order = order
    elements = obj.get("elements")
    if not isinstance(elements, list):
        bad.add("elements", "must be a list of elements")
        bad.raise_any()
    counts: dict[str, int] = {}
    for i, el in enumerate(elements):  # type: ignore[union-attr]
        if not isinstance(el, Mapping) or not isinstance(el.get("fields", {}), Mapping):
            bad.add(f"elements[{i}]", "an element is a mapping with type and fields")
            continue
        kind = el.get("type")
        if not isinstance(kind, str):
            bad.add(f"elements[{i}].type", f"{kind!r} is not an element type")
            continue
        fields = dict(el.get("fields") or {})
        data = None
        if el.get("data") is not None:
            try:
                data = _hex(el["data"])
            except (ValueError, TypeError):
                bad.add(f"elements[{i}].data", f"{el['data']!r} is not hex")
        if kind == "URBH":
            msg.header = fields
            continue
        if kind in PART_OF_PARENT:
            if not msg.elements or msg.elements[-1].type != PART_OF_PARENT[kind]:  # URBS, then URBSU
                bad.add(f"elements[{i}]", f"a {kind} follows its {PART_OF_PARENT[kind]}")
            continue
        if kind == URBG_TABLE.layouts[0]:
            if not msg.elements or msg.elements[-1].type != "URBF":
                bad.add(f"elements[{i}]", "a URBG follows its URBF")
                continue
            parent = msg.elements[-1]
            parent.items.append(Part(kind, fields, data, f"{parent.path}.urbg[{len(parent.items)}]"))
            continue
        if kind not in ELEMENTS:
            bad.add(f"elements[{i}]", f"{kind!r} is not an element mqtool builds "
                                      f"({', '.join(['URBH', *ELEMENTS, 'URBG'])})")
            continue
        k = counts.get(kind, 0)
        counts[kind] = k + 1
        msg.elements.append(Part(kind, fields, data, f"{kind.lower()}[{k}]"))
    if not any(isinstance(e, Mapping) and e.get("type") == "URBH" for e in elements):  # type: ignore[union-attr]
        bad.add("elements", "the message has no URBH")
    bad.raise_any()
    return msg


# --------------------------------------------------------------------------- building


def _given(fields: Mapping[str, Any], name: str) -> int | None:
    v = fields.get(name)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(name)
    return v


def _layout_of(lay: Urb, part: Part, bad: Refusals) -> Layout | None:
    rule = ELEMENTS[part.type]
    sizes = rule.sizes(lay)
    try:
        given = _given(part.fields, rule.length)
    except TypeError:
        bad.add(f"{part.path}.{rule.length}", f"{part.fields[rule.length]!r} is not a number")
        return None
    if rule.fixed and len(sizes) > 1:
        if given is None:
            return rule.layout(lay, sizes[-1])
        base = given - len(part.data or b"")
        if base not in sizes:
            bad.add(f"{part.path}.{rule.length}",
                    f"{given} is neither {' nor '.join(map(str, sizes))}"
                    + (f" plus {len(part.data or b'')} bytes of extra data" if part.data else ""))
            return None
        return rule.layout(lay, base)
    return rule.layout(lay)


def _element(lay: Urb, part: Part, bad: Refusals) -> bytes | None:
    """The bytes of one element, its computed fields filled in or checked."""
    rule = ELEMENTS[part.type]
    layout = _layout_of(lay, part, bad)
    if layout is None:
        return None
    size = layout.size or 0
    values = dict(part.fields)
    data = part.data or b""
    if part.items:
        items = _items(lay, part, values, bad)
        if items is None:
            return None
        data = items
    try:
        given_len = _given(values, rule.length)
    except TypeError:
        bad.add(f"{part.path}.{rule.length}", f"{values[rule.length]!r} is not a number")
        return None
    t = rule.trailing
    start = size
    if t is not None:
        try:
            lenh, lend = _given(values, t.start), _given(values, t.length)
        except TypeError as e:
            bad.add(f"{part.path}.{e}", f"{values[str(e)]!r} is not a number")
            return None
        if lenh is not None and lenh != size and lenh not in t.tolerated:
            bad.add(f"{part.path}.{t.start}",
                    f"{lenh}: the {t.name} starts after the {size}-byte {part.type}"
                    + (f" ({' or '.join(map(str, t.tolerated))} is also taken)" if t.tolerated else ""))
        if lend is not None and lend != len(data):
            bad.add(f"{part.path}.{t.length}", f"{lend}, but the {t.name} is {len(data)} bytes")
        values[t.start] = size if lenh is None else lenh
        values[t.length] = len(data)
    elif data:
        pass  # extra bytes after a fixed element (decode reports them): kept
    need = start + len(data)
    if given_len is None:
        length = need
    elif given_len < need or given_len > need + MAX_FILLER or (rule.fixed and given_len != need):
        what = (f"the {size}-byte {part.type} and {len(data)} bytes of data take" if data
                else f"the {size}-byte {part.type} takes")
        bad.add(f"{part.path}.{rule.length}", f"{given_len}, but {what} {need}")
        length = need  # refused; built on so that the message length can still be checked
    else:
        length = given_len
    values[rule.length] = length
    if not _times(layout, values, part.path, bad):
        return None
    try:
        fixed = layout.build(values, fmt=FORMAT)
    except BuildError as e:
        bad.add(f"{part.path}.{e.path}", e.reason)
        return None
    return fixed + data + bytes(length - need)


def _times(layout: Layout, values: dict[str, Any], path: str, bad: Refusals) -> bool:
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


def _items(lay: Urb, part: Part, values: dict[str, Any], bad: Refusals) -> bytes | None:
    """The URBGs of a URBF, and its count and item-size fields."""
    rep = URBG_TABLE
    layout = getattr(lay, rep.layouts[0])
    built = []
    for item in part.items:
        try:
            built.append(layout.build(item.fields, fmt=FORMAT) + (item.data or b""))
        except BuildError as e:
            bad.add(f"{item.path}.{e.path}", e.reason)
    if len(built) != len(part.items):
        return None
    sizes = {len(b) for b in built}
    if len(sizes) > 1:
        bad.add(f"{part.path}.{rep.size}", f"the URBGs differ in size ({', '.join(map(str, sorted(sizes)))})")
        return None
    size = sizes.pop() if sizes else layout.size
    for name, want in ((rep.count, len(built)), (rep.size, size)):
        got = values.get(name)
        if got is not None and got != want:
            held = f"{len(built)} URBG{'s' if len(built) != 1 else ''}"
            bad.add(f"{part.path}.{name}", f"{got}, but the URBF holds {held}"
                    + ("" if name == rep.count else f" of {size} bytes"))
        values[name] = want
    return b"".join(built)


def _check_counts(msg: Message, bad: Refusals) -> None:
    """URBTRCNT and URBRDCNT: computed when not given, refused when given and wrong (a
    continued transaction's counts run on into the next message: not checked)."""
    open_: dict[str, list] = {}
    continued = False

    def close(c: Any, ended: bool) -> None:
        state = open_.pop(c.field, None)
        if state is None:
            return
        part, n = state
        want = part.fields.get(c.field)
        if want is None:
            part.fields[c.field] = n
        elif want != n and not (continued and not ended):
            bad.add(f"{part.path}.{c.field}", f"{want}, but {n} {c.child}{'s' if n != 1 else ''} follow")

    for part in msg.elements:
        for c in COUNTS:
            if part.type in c.breaks and c.field in open_:
                open_[c.field][1] = -10**9  # uncheckable
            if part.type == c.parent or part.type in c.closers:
                close(c, ended=part.type in c.closers)
            elif part.type == c.child and c.field in open_:
                open_[c.field][1] += 1
            if part.type == c.parent:
                open_[c.field] = [part, 0]
                if c.continued:
                    continued = part.fields.get(c.continued) == "Y"
    for c in COUNTS:
        close(c, ended=False)


def build_message(msg: Message) -> bytes:
    """Validate and build one message; BuildError lists every refusal."""
    bad = Refusals(msg.where)
    try:
        cp = msg.cp
    except LookupError as e:
        bad.add("codepage", str(e).strip("'\""))
        bad.raise_any()
    if msg.encoding is not None and is_ebcdic(cp) != (msg.encoding == "ebcdic"):
        cp = DEFAULT_EBCDIC if msg.encoding == "ebcdic" else DEFAULT_ASCII
    lay = layouts(msg.big, cp)
    _check_counts(msg, bad)
    body = [_element(lay, p, bad) for p in msg.elements]
    hsize = lay.URBH.size
    header = dict(msg.header)
    total = hsize + sum(len(b) for b in body if b is not None)
    for name, want in ((HEADER_LENGTH, hsize), *HEADER_CONSTANTS.items(), (MESSAGE_LENGTH, total)):
        got = header.get(name)
        if name == MESSAGE_LENGTH and None in body:
            continue  # an element could not be built: the total is unknown
        if got not in (None, want):
            bad.add(f"urbh.{name}", f"{got!r}, but the message needs {want!r}")
        header[name] = want
    _times(lay.URBH, header, "urbh", bad)
    bad.raise_any()
    try:
        head = lay.URBH.build(header, fmt=FORMAT)
    except BuildError as e:
        bad.add(f"urbh.{e.path}", e.reason)
        bad.raise_any()
    return head + b"".join(b for b in body if b is not None)


# --------------------------------------------------------------------------- from options


def status_reply(status: str, fields: dict[str, Any], header: dict[str, Any]) -> Message:
    """A URBH + URBS status message (``build-request urb reply``): ``status`` is URBSST
    (INIT, CMPL, ERRO, CLOS, SUBS, ...), ``fields`` the URBS fields by DSECT name."""
    from mqtool.formats.urb.meanings import STATUS

    bad = Refusals()
    code = str(status).strip().upper()
    if code not in STATUS:
        bad.add("urbs.urbsst (--status)", f"{status!r} is not a status code "
                                          f"({', '.join(sorted(STATUS))})")
    bad.raise_any()
    return Message(header=dict(header), elements=[Part("URBS", {"urbsst": code, **fields}, None, "urbs[0]")])


def data_message(transaction: dict[str, Any], records: list[tuple[dict[str, Any], list[tuple[str, bytes]]]],
                 header: dict[str, Any]) -> Message:
    """A data message (``build-request urb data``): a URBT with ``transaction``'s fields,
    each record (URBR fields, then its images as (URBDTYP, bytes), each URBD padded to a
    fullword), and the URBE."""
    parts = [Part("URBT", dict(transaction), None, "urbt[0]")]
    d = 0
    for k, (rec, images) in enumerate(records):
        parts.append(Part("URBR", {"urbrrsnr": k + 1, **rec}, None, f"urbr[{k}]"))
        for j, (kind, image) in enumerate(images):
            size = layouts().URBD.size + len(image)
            parts.append(Part("URBD", {"urbddsnr": j + 1, "urbdtyp": kind,
                                       "urbdlen": size + (-size) % ALIGN}, image, f"urbd[{d}]"))
            d += 1
    parts.append(Part("URBE", {"urbesnam": transaction.get("urbtsnam"),
                               "urbetsnr": transaction.get("urbttsnr")}, None, "urbe[0]"))
    return Message(header=dict(header), elements=parts)
