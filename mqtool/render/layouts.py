"""Layout documentation from the declarations: the manuals' field table (terminal and
Markdown), JSON, and Kaitai Struct specs (``.ksy``).

The model here (``FormatDoc`` > ``RecordDoc``, plus element chains and repeats) holds
``Layout`` objects, never copies of them: offsets, sizes, types and meaning tables are read
from each declaration's ``FieldInfo`` table, and a format's composition (its
``mqtool.compose.Envelope``: element chain, trailing data, repeats, what selects what) from
the declaration itself (``composed``). ``mqtool.catalog`` fills the model for every format;
this module knows no format.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypedDict

import yaml
from construct import Adapter, Bytes, Construct, FormatField, Renamed

from mqtool.compose import At, Chain, Envelope, Nest, Previous, Record, counted, key_text
from mqtool.compose import describe as content_text
from mqtool.layout import INT_CODES, Annotated, Eye, FieldInfo, Hex, HexInt, Layout, Reserved, Stck, Text
from mqtool.model import EYE, HEX, HEXINT, RESERVED, STCK, TEXT

# --------------------------------------------------------------------------- the model


@dataclass(frozen=True)
class Member:
    """A record that follows another's fields: ``repeat`` is ``eos`` (to the end of the
    unit), a field holding the number of repetitions, or empty (once); ``when`` a Kaitai
    condition for an optional member."""

    name: str
    record: str
    repeat: str = ""
    when: str = ""
    doc: str = ""
    size: str = ""  # a field holding each repetition's size


@dataclass(frozen=True)
class Frame:
    """Records framed by a length descriptor: ``head`` (RDW) whose ``length`` field counts
    itself and the ``body`` record after it."""

    head: str
    length: str
    body: str
    doc: str = ""


@dataclass(frozen=True)
class RecordDoc:
    """One declared record: its layout, a title, what follows its fixed fields."""

    name: str
    layout: Layout
    title: str
    sizes: Mapping[str, str] = field(default_factory=dict)  # field -> size set by a parameter
    data: str = ""  # name of the bytes after the fields, to the end of the unit
    members: tuple[Member, ...] = ()
    descriptions: Mapping[str, str] = field(default_factory=dict)  # field -> what it holds
    data_size: str = ""  # the field holding the data's length (else: to the end)
    data_doc: str = ""  # what the data holds


@dataclass(frozen=True)
class Elements:
    """An element chain: each element starts with ``head`` (eyecatcher, length); the
    eyecatcher picks the record, the length field says where the next element starts."""

    head: str
    cases: Mapping[str, str]  # eyecatcher text -> record name
    doc: str = ""


@dataclass(frozen=True)
class Part:
    """One member of a format's top-level unit (Kaitai's top ``seq``).

    ``record`` is a record name, or ``elements`` for the element chain; ``size`` and
    ``repeat`` are Kaitai expressions over field names (``urbh.urbhlent - urbh.urbhlen``),
    ``repeat`` ``eos`` or a count expression."""

    id: str
    record: str
    size: str = ""
    repeat: str = ""
    doc: str = ""


@dataclass(frozen=True)
class FormatDoc:
    """Everything documented about one format, default variant first."""

    name: str
    title: str
    big: bool  # the default variant's byte order
    encoding: str
    variants: tuple[str, ...]
    records: tuple[RecordDoc, ...]
    notes: tuple[str, ...] = ()
    elements: Elements | None = None
    frame: Frame | None = None
    top: tuple[Part, ...] = ()
    params: Mapping[str, str] = field(default_factory=dict)  # Kaitai params: name -> doc
    both_orders: bool = False  # big- and little-endian variants (Kaitai: the is_le param)
    commands: tuple[str, ...] = ()
    composition: Envelope | Chain | None = None  # how records compose; ``composed`` reads it
    resolve: Callable[[str], Layout] | None = None  # the composition's layout names

    def record(self, name: str) -> RecordDoc:
        for r in self.records:
            if r.name.lower() == name.lower():
                return r
        raise KeyError(name)


class _Filled(TypedDict, total=False):
    """What a composition fills in of a ``RecordDoc``."""

    members: tuple[Member, ...]
    data: str
    data_size: str
    data_doc: str


def composed(fmt: FormatDoc) -> FormatDoc:
    """``fmt`` with what its composition declares filled in: each record's trailing data
    (name, the field holding its length, what it holds) or counted members, the element
    chain's cases (key -> record). Formats without a ``composition`` come back unchanged.
    A chain keyed by ``Previous`` (the MQ headers: the Format of one names the next) has no
    head layout: its cases go into a note, and trailing data placed by no fields of its own
    runs to the record's length field."""
    comp, resolve = fmt.composition, fmt.resolve
    if comp is None or resolve is None:
        return fmt
    chain = comp.chain if isinstance(comp, Envelope) else comp
    names = {r.name for r in fmt.records}
    said: dict[str, _Filled] = {}
    for rec in chain.records.values():
        if rec.trailing is not None:
            target = rec.layouts[0] if rec.layouts[0] in names else rec.type
            said[target] = _trailing_doc(rec, resolve)
    records = tuple(replace(r, **said.get(r.name, {})) for r in fmt.records)
    cases = {str(key_text(rec, resolve)): rec.type if isinstance(chain.key, Previous)
             else rec.layouts[0] for rec in chain.records.values()}
    if isinstance(chain.key, Previous):
        follows = ", ".join(f"`{rec.key}` {rec.type}" for rec in chain.records.values()
                            if rec.key is not None and rec.type in names)
        note = (f"Chain: the {chain.key.field} field of each structure names the next one: "
                f"{follows}; any other value: the application data.")
        return replace(fmt, records=records, notes=(*fmt.notes, note))
    doc = fmt.elements.doc if fmt.elements else ""
    if not isinstance(chain.key, At):
        raise TypeError(f"{fmt.name}: elements keyed by {type(chain.key).__name__}, not by a "
                        "field read where each starts, have no head layout to document")
    return replace(fmt, records=records, elements=Elements(chain.key.layout, cases, doc))


def _trailing_doc(rec: Record, resolve: Callable[[str], Layout]) -> _Filled:
    """What a record's ``Trailing`` says for its documentation."""
    t = rec.trailing
    assert t is not None
    rep = counted(rec)
    if rep is not None and isinstance(rep.item, str):
        doc = f"each {rep.size} bytes long, from {t.start}" if rep.size else f"from {t.start}"
        return {"members": (Member(rep.name, rep.item, repeat=rep.count or "",
                                   size=rep.size or "", doc=doc),)}
    size = t.length
    fixed = resolve(rec.layouts[0]).size or 0
    if isinstance(t.content, Nest) and not t.length:  # a record nested after the fixed part
        size = str(resolve(t.content.record).size or 0)
    elif t.length == rec.length and not t.start:  # from the fixed part to the record's end
        size = f"{rec.length} - {fixed}"
    return {"data": t.name, "data_size": size, "data_doc": content_text(t.content)}


def unit_types(fmt: FormatDoc) -> dict[str, Any]:
    """The Kaitai type of one unit of an ``Envelope``: its header, then the element chain up
    to the header's total length."""
    env = fmt.composition
    if not isinstance(env, Envelope):
        return {}
    head = ksy_id(env.header)
    return {"message": {
        "doc": f"one {env.unit}: {env.header}, then elements up to {env.total} bytes from its start",
        "seq": [{"id": head, "type": head},
                {"id": "elements", "type": "elements",
                 "size": f"{head}.{ksy_id(env.total)} - {head}.{ksy_id(env.size)}"}],
    }}


# --------------------------------------------------------------------------- one field




@dataclass(frozen=True)
class FieldDoc:
    """What the table, JSON and ``.ksy`` say about one field."""

    name: str
    offset: int | None
    size: int | None
    length: str  # "8", or the expression / parameter that sets it
    type: str  # "S4", "char", "STCK", "bytes", ...
    kind: str
    note: str
    description: str
    meanings: tuple[tuple[Any, str], ...]
    info: FieldInfo


def _adapters(con: Construct) -> list[Construct]:
    chain, c = [], con
    while True:
        chain.append(c)
        if isinstance(c, Adapter | Renamed):
            c = c.subcon
        else:
            return chain


def _main(con: Construct) -> Construct:
    """The construct that says what the field is (markers skipped)."""
    for c in _adapters(con):
        if not isinstance(c, Annotated | Renamed):
            return c
    return con


def _int_code(con: Construct) -> str | None:
    inner = _adapters(con)[-1]
    return inner.fmtstr[1:] if isinstance(inner, FormatField) else None


def expression(length: Any) -> str:
    """A construct length (int, or ``this.x`` expression) as Kaitai / table text."""
    if isinstance(length, int):
        return str(length)
    text = str(length)
    text = re.sub(r"this\['(\w+)'\]", r"\1", text)
    return text.strip("()") if text.count("(") == 1 else text


def _length_of(con: Construct) -> Any:
    for c in _adapters(con):
        length = getattr(c, "length", None)
        if length is not None:
            return length
        if isinstance(c, Bytes):
            return c.length
    return None


def type_name(f: FieldInfo) -> str:
    """The table's Type column."""
    main = _main(f.con)
    code = _int_code(f.con)
    if isinstance(main, Stck):
        return "STCK"
    if f.kind == STCK:  # another clock with the STCK shape (MI time-of-day)
        return "time"
    if isinstance(main, HexInt) or f.kind == HEXINT:
        return f"X {INT_CODES[code].doc if code in INT_CODES else 'U1'}"
    if isinstance(main, Eye) or f.kind == EYE:
        return "char"
    if isinstance(main, Text) or f.kind == TEXT:
        return "char"
    if isinstance(main, Reserved) or f.kind == RESERVED:
        return "reserved"
    if isinstance(main, Hex) or f.kind == HEX:
        return "bytes"
    if code in INT_CODES:
        return INT_CODES[code].doc
    return type(main).__name__.lower()


def _constant_text(fn: Callable[..., Any]) -> str:
    """The text a one-line meaning returns whatever the value (``lambda x, f: "key name"``);
    named functions are not probed (their tables may not contain the probes)."""
    if getattr(fn, "__name__", "") != "<lambda>":
        return ""
    seen = set()
    for probe in (0, 1, 0x80, 0x8000, 0x80000000):
        try:
            seen.add(fn(probe, {}))
        except Exception:  # noqa: BLE001 - a probe, not a decode: any failure means "not constant"
            return ""
    return seen.pop() if len(seen) == 1 and isinstance(next(iter(seen)), str) else ""


def _bits_table(fn: Callable[..., Any]) -> tuple[tuple[Any, str], ...]:
    """The ``(bit, name)`` table a flag-byte meaning function closes over, if any."""
    for cell in getattr(fn, "__closure__", None) or ():
        v = cell.cell_contents
        if (isinstance(v, tuple) and v and all(isinstance(t, tuple) and len(t) == 2
                                              and isinstance(t[0], int) and isinstance(t[1], str)
                                              for t in v)):
            return tuple(v)
    return ()


def describe(f: FieldInfo, sizes: Mapping[str, str] | None = None, text: str = "") -> FieldDoc:
    """The documentation of one declared field (``text``: what the document says it holds)."""
    main = _main(f.con)
    length = (sizes or {}).get(f.name) or (str(f.size) if f.size is not None
                                            else expression(_length_of(f.con)))
    if length == "None":
        length = "1-2" if type(main).__name__ == "VarLen" else "var"
    words: list[str] = [text] if text else []
    meanings: tuple[tuple[Any, str], ...] = ()
    if isinstance(main, Eye):
        words.append(f"eyecatcher '{main.expected}'")
    if isinstance(main, Reserved):
        words.append("reserved, binary zero")
    if type(main).__name__ == "VarLen":
        words.append("length in 1 byte, or 2 when the high-order bit is on")
    m = f.meaning
    if isinstance(m, Mapping):
        meanings = tuple(m.items())
    elif callable(m):
        bits = _bits_table(m)
        doc = (m.__doc__ or "").strip().splitlines()
        constant = _constant_text(m)
        if bits:
            meanings = tuple((f"X'{b:02X}'", t) for b, t in bits)
            words.append("flag bits")
        elif doc:
            words.append(doc[0].rstrip("."))
        elif constant and not text:
            words.append(constant)
    said = "; ".join(w for w in words if w)
    if f.note:
        said = f"{said} ({f.note})" if said else f"({f.note})"
    return FieldDoc(f.name, f.start, f.size, length, type_name(f), f.kind, f.note, said, meanings, f)


def shown(length: str) -> str:
    """A length as the table shows it: parameters without Kaitai's ``_root.``."""
    if length == "_io.size - _io.pos":
        return "rest"
    return length.replace("_root.", "")


def fields(record: RecordDoc) -> list[FieldDoc]:
    """The record's fields; offsets after a field sized by a parameter are variable."""
    out, variable = [], False
    for f in record.layout.fields:
        fd = describe(f, record.sizes, record.descriptions.get(f.name, ""))
        if variable:
            fd = replace(fd, offset=None)
        variable = variable or f.name in record.sizes
        out.append(fd)
    return out


def _size_text(record: RecordDoc) -> str:
    size = record.layout.size
    if size is not None and not record.sizes:
        return f"{size} bytes"
    return "variable length"


def _meaning_text(key: Any, text: str) -> str:
    if isinstance(key, int) and not isinstance(key, bool):
        return f"X'{key:02X}' ({key}): {text}" if key > 9 else f"{key}: {text}"
    if isinstance(key, str) and (key == "" or not key.isprintable() or key.strip() != key):
        return f"{key!r}: {text}"
    return f"{key}: {text}"


# --------------------------------------------------------------------------- terminal table


def _offsets(fd: FieldDoc) -> tuple[str, str]:
    if fd.offset is None:
        return "var", "var"
    return str(fd.offset), f"{fd.offset:04X}"


def table(fmt: FormatDoc, record: RecordDoc) -> str:
    """The manuals' table for one record: Dec, Hex, Type, Len, Name, Description."""
    rows = [("Dec", "Hex", "Type", "Len", "Name", "Description")]
    extra: list[tuple[int, str]] = []
    for fd in fields(record):
        dec, hx = _offsets(fd)
        rows.append((dec, hx, fd.type, shown(fd.length), fd.name, fd.description))
        for key, text in fd.meanings:
            extra.append((len(rows) - 1, _meaning_text(key, text)))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    out = [f"{fmt.name}.{record.name}: {record.title}; {_size_text(record)}"]
    after: dict[int, list[str]] = {}
    for i, text in extra:
        after.setdefault(i, []).append(text)
    indent = sum(widths) + 2 * 5
    for i, r in enumerate(rows):
        line = "  ".join([r[0].rjust(widths[0]), r[1].rjust(widths[1]), r[2].ljust(widths[2]),
                          r[3].rjust(widths[3]), r[4].ljust(widths[4]), r[5]])
        out.append(line.rstrip())
        out += [" " * indent + t for t in after.get(i, [])]
    out += _composition_lines(fmt, record)
    return "\n".join(out) + "\n"


def _member_text(m: Member) -> str:
    if m.repeat == "eos":
        how = f"{m.record} repeated to the end"
    elif m.repeat:
        how = f"{m.record} repeated {m.repeat} times"
    else:
        how = m.record
    when = f", when {m.when}" if m.when and not m.doc else ""
    doc = f", {m.doc}" if m.doc else ""
    return f"then {m.name}: {how}{when}{doc}"


def _composition_lines(fmt: FormatDoc, record: RecordDoc) -> list[str]:
    lines = [_member_text(m) for m in record.members]
    if record.data:
        size = f"{record.data_size} bytes" if record.data_size else "the rest of the unit"
        holds = f": {record.data_doc}" if record.data_doc else ""
        lines.append(f"then {record.data}: {size}{holds}")
    return lines


def listing(fmt: FormatDoc) -> str:
    """Every record of a format, one table each."""
    head = [f"{fmt.name}: {fmt.title}", *(f"  {v}" for v in fmt.variants), ""]
    return "\n".join(head) + "\n".join(table(fmt, r) for r in fmt.records)


def summary(formats: Iterable[FormatDoc]) -> str:
    """One line per format and its records (``mqtool layouts`` without arguments)."""
    out = []
    for fmt in formats:
        out.append(f"{fmt.name:<15} {fmt.title}")
        out.append(" " * 16 + " ".join(r.name for r in fmt.records))
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- Markdown


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_record(fmt: FormatDoc, record: RecordDoc, level: str = "##") -> str:
    out = [f"{level} {record.name}", "", f"{record.title[0].upper()}{record.title[1:]}; "
           f"{_size_text(record)}.", "",
           "| Dec | Hex | Type | Len | Name | Description |",
           "|---:|---:|---|---:|---|---|"]
    for fd in fields(record):
        dec, hx = _offsets(fd)
        desc = [fd.description] if fd.description else []
        desc += [_meaning_text(k, t) for k, t in fd.meanings]
        cell = "<br>".join(_md_cell(d) for d in desc)
        out.append(f"| {dec} | {hx} | {fd.type} | {shown(fd.length)} | `{fd.name}` | {cell} |")
    comp = _composition_lines(fmt, record)
    if comp:
        out += ["", *(f"- {c[0].upper()}{c[1:]}." for c in comp)]
    return "\n".join(out) + "\n"


def markdown(fmt: FormatDoc) -> str:
    """``docs/formats/<format>.md``: generated, kept current by a test."""
    out = [f"# {fmt.name}: {fmt.title}", "",
           "<!-- generated by `mqtool layouts " + fmt.name + " --markdown`; do not edit -->", ""]
    if fmt.commands:
        out += ["Commands: " + ", ".join(f"`mqtool {c}`" for c in fmt.commands) + ".", ""]
    out += ["Variants:", "", *(f"- {v}" for v in fmt.variants), ""]
    for note in fmt.notes:
        out += [note, ""]
    if fmt.frame:
        fr = fmt.frame
        out += [f"Framing: each {fr.body} follows its {fr.head}, whose `{fr.length}` counts "
                f"both. {fr.doc}".rstrip(), ""]
    if fmt.elements:
        el = fmt.elements
        out += [f"Elements: each starts with the {el.head} fields; the eyecatcher selects the "
                "record: " + ", ".join(f"`{e}` {r}" for e, r in el.cases.items()) + ".", ""]
        if el.doc:
            out += [el.doc[0].upper() + el.doc[1:] + ".", ""]
    out += ["Offsets are from the start of each record; `var` follows a field of variable "
            "length. Type: `S`/`U` signed/unsigned binary integer of 1, 2, 4 or 8 bytes; `X` the "
            "same shown in hex; `char` characters in the message's code page; `STCK` an 8-byte "
            "z/Architecture TOD clock value (UTC); `bytes` shown in hex.", ""]
    out += [markdown_record(fmt, r) for r in fmt.records]
    return "\n".join(out).rstrip("\n") + "\n"


# --------------------------------------------------------------------------- JSON


def _json_value(v: Any) -> Any:
    return v if isinstance(v, int | str | float | bool) or v is None else str(v)


def record_json(record: RecordDoc) -> dict[str, Any]:
    out = []
    for fd in fields(record):
        sized = fd.name in record.sizes
        item: dict[str, Any] = {"name": fd.name, "offset": fd.offset,
                                "size": None if sized else fd.size, "length": shown(fd.length),
                                "type": fd.type, "kind": fd.kind}
        if fd.note:
            item["note"] = fd.note
        if fd.description:
            item["description"] = fd.description
        if fd.meanings:
            item["meanings"] = [{"value": _json_value(k), "meaning": t} for k, t in fd.meanings]
        out.append(item)
    rec: dict[str, Any] = {"name": record.name, "title": record.title,
                           "size": None if record.sizes else record.layout.size,
                           "fields": out}
    if record.data:
        rec["data"] = record.data
        if record.data_size:
            rec["data_size"] = record.data_size
    if record.members:
        rec["members"] = [{"name": m.name, "record": m.record, "repeat": m.repeat or None,
                           "when": m.when or None, **({"size": m.size} if m.size else {})}
                          for m in record.members]
    return rec


def to_json(fmt: FormatDoc, record: RecordDoc | None = None) -> str:
    """One JSON line: the format (or one record) with every field's name, offset, size,
    type and meanings, and the element table and repeats."""
    if record is not None:
        return json.dumps({"format": fmt.name, **record_json(record)}, ensure_ascii=False)
    obj: dict[str, Any] = {
        "format": fmt.name, "title": fmt.title,
        "byte_order": "big" if fmt.big else "little", "encoding": fmt.encoding,
        "variants": list(fmt.variants),
        "records": [record_json(r) for r in fmt.records],
    }
    if fmt.elements:
        obj["elements"] = {"head": fmt.elements.head, "cases": dict(fmt.elements.cases)}
    if fmt.frame:
        obj["frame"] = {"head": fmt.frame.head, "length": fmt.frame.length, "body": fmt.frame.body}
    return json.dumps(obj, ensure_ascii=False)


# --------------------------------------------------------------------------- Kaitai Struct


def ksy_id(name: str) -> str:
    """A Kaitai identifier (lower case, ``[a-z][a-z0-9_]*``) for a field or record name."""
    text = name.lower().replace("@", "_ptr").replace("-", "_")
    text = re.sub(r"[^a-z0-9_]", "_", text)
    text = re.sub(r"_+", "_", text).strip("_")
    if not text or not text[0].isalpha():
        text = "f_" + text
    return text


def _enum_id(text: str, taken: set[str]) -> str:
    base = ksy_id(re.sub(r"\(.*?\)", "", text))[:40].strip("_") or "value"
    cand, n = base, 2
    while cand in taken:
        cand, n = f"{base}_{n}", n + 1
    taken.add(cand)
    return cand


def _ksy_field(fmt: FormatDoc, record: RecordDoc, fd: FieldDoc, enums: dict[str, Any]
               ) -> dict[str, Any]:
    main = _main(fd.info.con)
    code = _int_code(fd.info.con)
    item: dict[str, Any] = {"id": ksy_id(fd.name)}
    doc = [fd.description] if fd.description else []
    if type(main).__name__ == "VarLen":
        item["type"] = "varlen"
    elif code in INT_CODES and fd.type not in ("char", "bytes", "reserved"):
        item["type"] = INT_CODES[code].ksy
        if fd.kind == STCK:
            doc.append("8-byte TOD clock value" if isinstance(main, Stck) else "8-byte time value")
        ints = [(k, t) for k, t in fd.meanings if isinstance(k, int) and not isinstance(k, bool)]
        if ints and len(ints) == len(fd.meanings):
            name = f"{ksy_id(record.name)}_{ksy_id(fd.name)}"
            taken: set[str] = set()
            enums[name] = {k: {"id": _enum_id(t, taken), "doc": t} for k, t in ints}
            item["enum"] = name
    else:
        size = fd.length if fd.size is None or fd.name in record.sizes else fd.size
        item["size"] = int(size) if isinstance(size, str) and size.isdigit() else size
        if isinstance(main, Text) or (fd.kind in (TEXT, EYE) and getattr(main, "codec", None)):
            item["type"] = "str"
            item["encoding"] = fmt.encoding
            if isinstance(main, Eye):
                item["valid"] = json.dumps(main.expected)
            else:  # right-trimmed of the code page's blank, as mqtool shows it
                item["pad-right"] = " ".encode(fmt.encoding)[0]
    texts = [f"{k}: {t}" for k, t in fd.meanings if "enum" not in item]
    doc += texts
    if doc:
        item["doc"] = "\n".join(doc)
    return item


def _ksy_size(size: str) -> str | int:
    """A data size for Kaitai: a number, a field, or an expression over fields."""
    if size.isdigit():
        return int(size)
    return re.sub(r"[A-Za-z_@][\w@-]*", lambda m: ksy_id(m.group(0)), size)


def _ksy_seq(fmt: FormatDoc, record: RecordDoc, enums: dict[str, Any], skip: int = 0
             ) -> list[dict[str, Any]]:
    seq = [_ksy_field(fmt, record, fd, enums) for fd in fields(record)[skip:]]
    varlens = [ksy_id(f.name) for f in record.layout.fields if type(_main(f.con)).__name__ == "VarLen"]
    for item in seq:
        if isinstance(item.get("size"), str):
            for v in varlens:  # a length read by the varlen type is its .value
                item["size"] = re.sub(rf"\b{v}\b", f"{v}.value", item["size"])
    for m in record.members:
        item = {"id": ksy_id(m.name), "type": ksy_id(m.record)}
        if m.size:
            item["size"] = ksy_id(m.size)
        if m.repeat == "eos":
            item["repeat"] = "eos"
        elif m.repeat:
            item.update({"repeat": "expr", "repeat-expr": m.repeat})
        if m.when:
            item["if"] = m.when
        if m.doc:
            item["doc"] = m.doc
        seq.append(item)
    if record.data:
        data: dict[str, Any] = {"id": ksy_id(record.data)}
        data.update({"size": _ksy_size(record.data_size)} if record.data_size
                    else {"size-eos": True})
        if record.data_doc:
            data["doc"] = record.data_doc
        seq.append(data)
    return seq


def ksy(fmt: FormatDoc, extra: Mapping[str, Any] | None = None) -> str:
    """The Kaitai Struct spec of a format (one ``.ksy``), from the same declarations;
    ``extra`` adds types the format's top level needs."""
    enums: dict[str, Any] = {}
    types: dict[str, Any] = {**unit_types(fmt), **(extra or {})}
    for r in fmt.records:
        t: dict[str, Any] = {"doc": f"{r.name}: {r.title}"}
        t["seq"] = _ksy_seq(fmt, r, enums)
        types[ksy_id(r.name)] = t
    if any(type(_main(f.con)).__name__ == "VarLen" for r in fmt.records for f in r.layout.fields):
        types["varlen"] = {
            "doc": "a length in 1 byte, or in 2 when the first byte's high-order bit is on",
            "seq": [{"id": "b0", "type": "u1"},
                    {"id": "b1", "type": "u1", "if": "b0 & 0x80 != 0"}],
            "instances": {"value": {"value": "b0 & 0x80 != 0 ? (b0 & 0x7f) << 8 | b1 : b0"}},
        }
    if fmt.elements:
        el = fmt.elements
        head = fmt.record(el.head)
        nhead = len(head.layout.fields)
        eye, length = (ksy_id(f.name) for f in head.layout.fields[:2])
        cases = {}
        for text, rec in el.cases.items():
            body = fmt.record(rec)
            name = ksy_id(rec) + "_body"
            types[name] = {"doc": f"{rec} after its {nhead} head fields",
                           "seq": _ksy_seq(fmt, body, enums, skip=nhead)}
            cases[json.dumps(text)] = name
        types["element"] = {
            "doc": el.doc or "one element: the head, then the record its eyecatcher names",
            "seq": [{"id": eye, "type": "str", "size": head.layout.fields[0].size,
                     "encoding": fmt.encoding},
                    *_ksy_seq(fmt, head, enums, skip=1)[:nhead - 1],
                    {"id": "body", "size": f"{length} - {head.layout.size}",
                     "type": {"switch-on": eye, "cases": cases}}],
        }
        types["elements"] = {"seq": [{"id": "items", "type": "element", "repeat": "eos"}]}
    if fmt.frame:
        fr = fmt.frame
        head = fmt.record(fr.head)
        types["record"] = {
            "doc": fr.doc or f"{fr.head}, then the {fr.body} its {fr.length} field frames",
            "seq": [{"id": ksy_id(fr.head), "type": ksy_id(fr.head)},
                    {"id": ksy_id(fr.body), "type": ksy_id(fr.body),
                     "size": f"{ksy_id(fr.head)}.{ksy_id(fr.length)} - {head.layout.size}"}],
        }
    endian: Any = "be" if fmt.big else "le"
    params = [{"id": p, "type": "u4", "doc": d} for p, d in fmt.params.items()]
    if fmt.both_orders:  # byte order is a parameter: the caller knows or detects it
        endian = {"switch-on": "_root.is_le", "cases": {"true": "le", "false": "be"}}
        params.append({"id": "is_le", "type": "bool",
                       "doc": "true for the little-endian variant"})
    meta: dict[str, Any] = {"id": ksy_id(fmt.name), "title": fmt.title, "endian": endian,
                            "encoding": fmt.encoding}
    spec: dict[str, Any] = {"meta": meta, "doc": "\n".join([
        f"{fmt.title}. Generated by `mqtool layouts {fmt.name} --ksy` from mqtool's declarations.",
        "Text fields are in the default variant's code page; the variants:", *fmt.variants])}
    if params:
        spec["params"] = params
    spec["seq"] = [_top(p) for p in fmt.top]
    spec["types"] = types
    if enums:
        spec["enums"] = enums
    return yaml.safe_dump(spec, sort_keys=False, allow_unicode=True, width=100)


def _top(p: Part) -> dict[str, Any]:
    item: dict[str, Any] = {"id": p.id, "type": ksy_id(p.record)}
    if p.size:
        item["size"] = p.size
    if p.repeat == "eos":
        item["repeat"] = "eos"
    elif p.repeat:
        item.update({"repeat": "expr", "repeat-expr": p.repeat})
    if p.doc:
        item["doc"] = p.doc
    return item
