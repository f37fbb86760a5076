"""Any URB message from its description: status replies, data messages (URBT, URBR, URBD,
URBE), continuations (URBC), URBU, URBF with its URBGs — what ``decode urb --json`` prints.

The message is built by the one builder of ``mqtool.compose.build`` from the composition
declared in ``layout.py``: which layout an element type is (by its length where there are
generations), its length field, the trailing data and its two fields, the URBGs of a URBF
(its counted repeat), the counts a URBT and a URBR keep. Every one of those fields
(``COMPUTED``) is computed unless given; a given value that contradicts the message is
refused with the field's path, and every refusal of a message is reported at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mqtool.codepages import is_ebcdic
from mqtool.compose import Repeat, contents, counted, layouts_of
from mqtool.compose import build as composer
from mqtool.formats.urb.layout import (
    COUNTS,
    DEFAULT_ASCII,
    DEFAULT_EBCDIC,
    ELEMENTS,
    FORMAT,
    MESSAGE,
    Urb,
    VariantChoice,
    layouts,
)

ALIGN = 4  # URBDs built from options end on a fullword


def _derived() -> dict[str, str]:
    """Element types decode shows that a parent's data holds (the ISN list, a URBSU and its
    detail): built from the parent's data, not from their fields."""
    lay = layouts()
    out = {}
    for rec in ELEMENTS.values():
        content = rec.trailing.content if rec.trailing else None
        gathered = [c.gather for c in contents(content) if isinstance(c, Repeat) and c.gather]
        nested = [lay.layout(n).name for n in layouts_of(content) if counted(rec) is None]
        out.update(dict.fromkeys([*gathered, *nested], rec.type))
    return out


ITEMS = {rep.item: t for t, r in ELEMENTS.items()  # URBG: URBF (a URB item is one record type)
         if (rep := counted(r)) is not None and isinstance(rep.item, str)}
DERIVED = {k: v for k, v in _derived().items() if k not in ITEMS}  # ISNLIST: URBI, URBSU: URBS ...


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


class Refusals(composer.Refusals):
    """Every reason a URB message cannot be built, collected and raised together."""

    def __init__(self, where: str = "") -> None:
        super().__init__(FORMAT, where)


def _hex(value: Any) -> bytes:
    text = "".join(str(value).split()).removeprefix("X'").removeprefix("x'").rstrip("'")
    return bytes.fromhex(text)


def _described(el: Any, where: str, bad: Refusals) -> tuple[str, dict[str, Any], bytes | None] | None:
    """(type, fields, data) of one element description; None, refused, when it is not one."""
    if not isinstance(el, Mapping) or not isinstance(el.get("fields", {}), Mapping):
        bad.add(where, "an element is a mapping with type and fields")
        return None
    kind = el.get("type")
    if not isinstance(kind, str):
        bad.add(f"{where}.type", f"{kind!r} is not an element type")
        return None
    data = None
    if el.get("data") is not None:
        try:
            data = _hex(el["data"])
        except (ValueError, TypeError):
            bad.add(f"{where}.data", f"{el['data']!r} is not hex")
    return kind, dict(el.get("fields") or {}), data


def _children(part: Part, children: Any, where: str, bad: Refusals) -> None:
    """The elements nested under a described element: a URBF's URBGs are its items; what
    decode made of a parent's data (the ISN list, a URBSU) is rebuilt from that data."""
    if children is None:
        return
    if not isinstance(children, list):
        bad.add(f"{where}.children", "must be a list of elements")
        return
    rep = counted(ELEMENTS[part.type])
    for j, child in enumerate(children):
        got = _described(child, f"{where}.children[{j}]", bad)
        if got is None:
            continue
        kind, fields, data = got
        if ITEMS.get(kind) == part.type and rep is not None:
            part.items.append(Part(kind, fields, data, f"{part.path}.{rep.name}[{len(part.items)}]"))
        elif DERIVED.get(kind) != part.type:
            bad.add(f"{where}.children[{j}]", f"a {kind} is not part of a {part.type}")


def _flat(msg: Message, kind: str, fields: dict[str, Any], data: bytes | None, where: str,
          bad: Refusals) -> None:
    """An element decode used to list after its parent rather than under it."""
    parent = ITEMS.get(kind) or DERIVED[kind]
    if not msg.elements or msg.elements[-1].type != parent:
        bad.add(where, f"a {kind} follows its {parent}")
        return
    if kind in ITEMS:
        last = msg.elements[-1]
        rep = counted(ELEMENTS[parent])
        last.items.append(Part(kind, fields, data, f"{last.path}.{rep.name if rep else kind.lower()}"
                                                   f"[{len(last.items)}]"))


def from_decoded(obj: Mapping[str, Any], where: str = "") -> Message:
    """A message from one line of ``decode urb --json`` (or a description of that shape;
    nested elements under ``children``, or after their parent as older output had them)."""
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
        return msg
    counts: dict[str, int] = {}
    for i, el in enumerate(elements):
        got = _described(el, f"elements[{i}]", bad)
        if got is None:
            continue
        kind, fields, data = got
        if kind == MESSAGE.header:
            msg.header = fields
        elif kind in ITEMS or kind in DERIVED:
            _flat(msg, kind, fields, data, f"elements[{i}]", bad)
        elif kind not in ELEMENTS:
            bad.add(f"elements[{i}]", f"{kind!r} is not an element mqtool builds "
                                      f"({', '.join([MESSAGE.header, *ELEMENTS, *ITEMS])})")
        else:
            k = counts.get(kind, 0)
            counts[kind] = k + 1
            msg.elements.append(Part(kind, fields, data, f"{kind.lower()}[{k}]"))
            _children(msg.elements[-1], el.get("children"), f"elements[{i}]", bad)
    if not any(isinstance(e, Mapping) and e.get("type") == MESSAGE.header for e in elements):
        bad.add("elements", "the message has no URBH")
    bad.raise_any()
    return msg


# --------------------------------------------------------------------------- building


def _element(lay: Urb, part: Part, bad: Refusals) -> bytes | None:
    """The bytes of one element, its computed fields filled in or checked."""
    rec = ELEMENTS[part.type]
    values = dict(part.fields)
    data = part.data or b""
    rep = counted(rec)
    if part.items and rep is not None and isinstance(rep.item, str):
        items = [composer.Item(i.fields, i.data or b"", i.path) for i in part.items]
        built = composer.build_items(rep, lay.layout(rep.item), items, values, part.type, part.path, bad)
        if built is None:
            return None
        data = built
    return composer.build_element(composer.Element(rec, values, data, part.path), lay.layout, bad)


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
    composer.fill_counts(COUNTS, [(p.type, p.fields, p.path) for p in msg.elements], bad)
    body = [_element(lay, p, bad) for p in msg.elements]
    hsize = lay.URBH.size or 0
    total = None if None in body else hsize + sum(len(b) for b in body if b is not None)
    values = composer.header(MESSAGE, msg.header, hsize, total, "urbh", bad, unit="message")
    head = composer.fixed_part(lay.URBH, values, "urbh", bad)
    bad.raise_any()
    return (head or b"") + b"".join(b for b in body if b is not None)


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
            size = layouts().URBD.fixed_size + len(image)
            parts.append(Part("URBD", {"urbddsnr": j + 1, "urbdtyp": kind,
                                       "urbdlen": size + (-size) % ALIGN}, image, f"urbd[{d}]"))
            d += 1
    parts.append(Part("URBE", {"urbesnam": transaction.get("urbtsnam"),
                               "urbetsnr": transaction.get("urbttsnr")}, None, "urbe[0]"))
    return Message(header=dict(header), elements=parts)
