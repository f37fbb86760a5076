"""Wrapping a payload in a header chain: the inverse of ``chain.walk``.

A chain is described as a list of headers, each ``{"type": "MQDLH", "fields": {...}}`` (what
``decode mq --json`` prints in ``elements``, or fewer fields). What the chain computes itself
unless given: each header's Format (the next header's, or the payload's), StrucLength, the
Version (highest declared), Encoding and CodedCharSetId (the ones it is written in, or the
payload's for the last header). MQRFH2 folders come from ``folders`` (``{"name": "usr",
"properties": {...}, "dt": {...}}`` or XML text) or the ``namevaluedata[i]`` fields of the
JSON; MQXQH takes its MsgDesc from ``msgdesc`` or the ``MQMD`` element after it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from mqtool.codepages import ccsid_codec
from mqtool.compose import Record
from mqtool.errors import BuildError
from mqtool.formats.mq import compose as mqc
from mqtool.formats.mq import layout as lay
from mqtool.formats.mq import rfh2
from mqtool.formats.mq.chain import ENC_BIG, header_codepage
from mqtool.formats.mq.meanings import MQCCSI_INHERIT
from mqtool.formats.mq.mqmd import byte_order_of

FORMAT = lay.FORMAT
RFH2_DEFAULT_NV_CCSID = 1208
NOT_FIELDS = ("namevaluedata[", "namevaluelength[")
PARTS = ("MQMD", "MQOR", "MQPMR")
# what a header object may hold: read by the builder, or shown beside what it reads (the
# offset, the names of values, an MQRMH's DestName as text beside its data)
ELEMENT_KEYS = ("type", "offset", "length", "fields", "meanings", "notes", "data", "destname",
                "folders", "records", "putmsgrecs", "msgdesc", "namevaluestring",
                "children")
SHOWN = 24  # characters of a bad value quoted in an error  # elements that belong to the header before them


def _fail(path: str, reason: str) -> BuildError:
    return BuildError(FORMAT, path, reason)


def _next_header(headers: Sequence[Mapping[str, Any]], i: int) -> Mapping[str, Any] | None:
    """The header after ``i`` that is not a part of one (None: ``i`` is the last). Read by
    index, not by slicing: a chain of N headers builds in O(N)."""
    for j in range(i + 1, len(headers)):
        if headers[j].get("type") not in PARTS:
            return headers[j]
    return None


def _next_format(headers: Sequence[Mapping[str, Any]], i: int, payload_format: str) -> str:
    h = _next_header(headers, i)
    if h is None:
        return payload_format
    info = mqc.BY_TYPE.get(str(h.get("type")))
    return mqc.format_of(info) if info else ""


def build_chain(headers: Sequence[Mapping[str, Any]], payload: bytes = b"", *,
                encoding: int = ENC_BIG, ccsid: int = 819, payload_format: str = "",
                payload_encoding: int | None = None, payload_ccsid: int | None = None) -> bytes:
    """The bytes of ``headers`` followed by ``payload``. ``encoding`` and ``ccsid`` are what
    the MQMD says (the first header is written in them); the last header announces
    ``payload_format``, ``payload_encoding`` and ``payload_ccsid`` (default: its own)."""
    headers = _normalise(headers)
    for name, value in (("encoding", encoding), ("ccsid", ccsid),
                        ("payload_encoding", payload_encoding), ("payload_ccsid", payload_ccsid)):
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            raise _fail(name, f"{value!r} is not an integer")
    if not isinstance(payload_format, str):
        raise _fail("payload_format", f"{payload_format!r} is not a format name")
    out = bytearray()
    enc, cc = encoding, ccsid
    i = 0
    while i < len(headers):
        try:
            i, enc, cc = _build_one(out, headers, i, enc, cc, payload_format, payload_encoding,
                                    payload_ccsid)
        except (TypeError, ValueError, OverflowError, LookupError) as e:
            raise _fail(f"headers[{i}]", f"cannot be built: {e}") from None
    return bytes(out) + bytes(payload)


def _parts(h: dict[str, Any], where: str) -> list[dict[str, Any]]:
    """The parts nested in a header as ``--json`` shows them (``children``: the MQXQH
    MsgDesc, the MQDH records), each checked, to come after it."""
    children = h.pop("children", None) or []
    if not isinstance(children, list):
        raise _fail(f"{where}.children", "expected a list")
    return [c for c in _normalise(children) if c.get("type") in PARTS]


def _normalise(headers: Any) -> list[dict[str, Any]]:
    """The chain description checked for shape: a list of objects whose parts have the
    types the builder reads (BuildError naming the part otherwise)."""
    if not isinstance(headers, Sequence) or isinstance(headers, str | bytes):
        raise _fail("headers", "expected a list of header objects")
    out = []
    for i, h in enumerate(headers):
        where = f"headers[{i}]"
        if not isinstance(h, Mapping):
            raise _fail(where, f"expected an object with a \"type\", not {h!r}")
        h = dict(h)
        unknown = [k for k in h if k not in ELEMENT_KEYS]
        if unknown:
            raise _fail(f"{where}.{unknown[0]}", "is not something the builder rebuilds "
                                                 f"(it knows {', '.join(ELEMENT_KEYS)})")
        for key in ("fields", "msgdesc", "notes"):
            if h.get(key) is not None and not isinstance(h[key], Mapping):
                raise _fail(f"{where}.{key}", "expected an object")
        for key in ("folders", "records", "putmsgrecs"):
            value = h.get(key)
            if value is None:
                continue
            if not isinstance(value, list):
                raise _fail(f"{where}.{key}", "expected a list")
            for k, item in enumerate(value):
                ok = isinstance(item, Mapping) or (key == "folders" and isinstance(item, str))
                if not ok:
                    raise _fail(f"{where}.{key}[{k}]", f"expected an object, not {item!r}")
                if isinstance(item, Mapping) and key == "folders":
                    for part in ("properties", "dt"):
                        if item.get(part) is not None and not isinstance(item[part], Mapping):
                            raise _fail(f"{where}.{key}[{k}].{part}", "expected an object")
        if h.get("data") is not None and not isinstance(h["data"], str | bytes | bytearray):
            raise _fail(f"{where}.data", "expected hex text")
        out.append(h)
        out += _parts(h, where)
    return out


def _build_one(out: bytearray, headers: list[dict[str, Any]], i: int, enc: int, cc: int,
               payload_format: str, payload_encoding: int | None,
               payload_ccsid: int | None) -> tuple[int, int, int]:
    """Append header ``i`` (and the parts it owns); the next index, Encoding and CCSID."""
    spec = headers[i]
    type_ = str(spec.get("type", ""))
    where = f"headers[{i}]"
    if type_ in PARTS:  # a part whose header built it already
        return i + 1, enc, cc
    info = mqc.BY_TYPE.get(type_)
    if info is None:
        known = ", ".join(mqc.BY_TYPE)
        raise _fail(f"{where}.type", f"{type_!r} is not a header mqtool builds ({known})")
    last = _next_header(headers, i) is None
    big = byte_order_of(enc) != "little"
    codepage = header_codepage(cc)
    fields = {k: v for k, v in dict(spec.get("fields") or {}).items()
              if not k.startswith(NOT_FIELDS)}
    layout = mqc.resolver(big, codepage)(f"{type_}.v{_version_field(fields, info, where)}")
    follows = {  # what the header announces follows it, unless its fields say
        "format": _next_format(headers, i, payload_format),
        "encoding": payload_encoding if last and payload_encoding is not None else enc,
        "codedcharsetid": payload_ccsid if last and payload_ccsid is not None else cc}
    kind = mqc.trailing_kind(info)
    if mqc.chained(info) and kind != "msgdesc":
        for name, value in follows.items():
            fields.setdefault(name, value)
    _known_fields(fields, layout.names, where)
    trailing = _trailing_bytes(headers, i, info, fields, big, codepage, layout.size or 0)
    if info.length:
        fields[info.length] = (layout.size or 0) + len(trailing)
    start = len(out)
    out += layout.build(fields, fmt=FORMAT)
    out += trailing
    if kind == "msgdesc":
        md = _msgdesc(headers, i, follows)
        md_layout = mqc.resolver(big, codepage)(f"MQMD.v{lay.XQH_MSGDESC_VERSION}")
        out += md_layout.build(md, fmt=FORMAT)
        enc, cc = _next(md, enc, cc)
    elif mqc.chained(info):
        enc, cc = _next(fields, enc, cc)
    length = spec.get("length")
    if isinstance(length, int) and length != len(out) - start:
        raise _fail(f"{where}.length", f"the {type_} given is {length} bytes but builds as "
                                       f"{len(out) - start}: a cut header is not rebuilt")
    return i + 1, enc, cc


def _known_fields(fields: Mapping[str, Any], names: Sequence[str], where: str) -> None:
    """Every field given is one the header has (or the raw bytes of one, ``<field>_hex``)."""
    for name in fields:
        if name.removesuffix("_hex") not in (*names, "namevaluestring"):
            raise _fail(f"{where}.fields.{name}", "is not a field of the header "
                                                  f"({', '.join(names)})")


def _version_field(fields: dict[str, Any], info: Record, where: str) -> int:
    """The header's Version: given (an MQTMC2's as its four characters), or the highest
    declared; set in ``fields``. BuildError for one the header does not have."""
    version = fields.get("version")
    if info.type == "MQTMC2":
        v = int(str(version or "2").strip() or 2)
        fields["version"] = f"{v:>4}"
        version = v
    elif version is None:
        version = max(mqc.versions(info))
        fields["version"] = version
    if not isinstance(version, int) or version not in mqc.versions(info):
        raise _fail(f"{where}.version", f"{info.type} version {version!r} is not one of "
                                        f"{', '.join(map(str, mqc.versions(info)))}")
    return version


def _trailing_bytes(headers: list[dict[str, Any]], i: int, info: Record,
                    fields: dict[str, Any], big: bool, codepage: str, fixed: int) -> bytes:
    """What follows header ``i``'s fixed part within its StrucLength: MQRFH2 folders, the
    MQRFH NameValueString, MQRMH strings or MQDH records (setting the fields that
    describe them)."""
    spec = headers[i]
    where = f"headers[{i}]"
    kind = mqc.trailing_kind(info)
    if kind == "folders":
        fields.setdefault("namevalueccsid", RFH2_DEFAULT_NV_CCSID)
        if not isinstance(fields["namevalueccsid"], int):
            raise _fail(f"{where}.namevalueccsid", f"{fields['namevalueccsid']!r} is not "
                                                   "a CCSID")
        return _folders(spec, fields["namevalueccsid"], big, where)
    if kind == "namevaluestring":
        text = str(spec.get("namevaluestring", (spec.get("fields") or {}).get(
            "namevaluestring", "")))
        fields.pop("namevaluestring", None)
        return rfh2.padded(_encode(text, codepage, f"{where}.namevaluestring"),
                           lay.FOLDER_ALIGN, " ".encode(codepage))
    if kind in ("strings", "records"):
        trailing = _hex(spec.get("data"), f"{where}.data")
        if kind == "records" and not trailing:
            trailing = _dh_records(headers, i, fields, big, codepage, fixed)
        return trailing
    return b""


def _msgdesc(headers: list[dict[str, Any]], i: int, follows: Mapping[str, Any]) -> dict[str, Any]:
    """The MsgDesc of the MQXQH ``i``: ``msgdesc``, or the fields of the MQMD element after
    it; what it does not give from ``follows``."""
    md = dict(headers[i].get("msgdesc") or {})
    if not md and i + 1 < len(headers) and headers[i + 1].get("type") == "MQMD":
        md = dict(headers[i + 1].get("fields") or {})
    md.setdefault("strucid", "MD  ")
    md.setdefault("version", lay.XQH_MSGDESC_VERSION)
    for name, value in follows.items():
        md.setdefault(name, value)
    return md


def _next(fields: Mapping[str, Any], enc: int, cc: int) -> tuple[int, int]:
    e = fields.get("encoding")
    c = fields.get("codedcharsetid")
    e = e if isinstance(e, int) and byte_order_of(e) else enc
    c = cc if not isinstance(c, int) or c in (MQCCSI_INHERIT, 0) else c
    return e, c


def _encode(text: str, codec: str, where: str) -> bytes:
    try:
        return text.encode(codec)
    except UnicodeEncodeError as e:
        raise _fail(where, f"has characters code page {codec} lacks: {e.reason}") from None


def _hex(value: Any, where: str) -> bytes:
    if value in (None, ""):
        return b""
    if isinstance(value, bytes | bytearray):
        return bytes(value)
    try:
        return bytes.fromhex(str(value))
    except ValueError:
        shown = str(value)
        raise _fail(where, f"{shown if len(shown) < SHOWN else shown[:SHOWN] + '...'!r} "
                           "is not hex") from None


def _folders(spec: Mapping[str, Any], nv_ccsid: int, big: bool, where: str) -> bytes:
    """NameValueLength + NameValueData of each folder, padded with blanks to 4 bytes."""
    codec = ccsid_codec(nv_ccsid, big)
    if codec is None:
        raise _fail(f"{where}.namevalueccsid", f"CCSID {nv_ccsid} has no codec")
    blank = " ".encode(codec)
    datas: list[bytes] = []
    fields = dict(spec.get("fields") or {})
    notes = dict(spec.get("notes") or {})
    if spec.get("folders") and any(isinstance(f, str) or "properties" in f
                                   for f in spec["folders"]):
        for k, f in enumerate(spec["folders"]):
            text = f if isinstance(f, str) else rfh2.folder_xml(
                str(f.get("name", "usr")), dict(f.get("properties") or {}), f.get("dt"))
            datas.append(rfh2.padded(_encode(text, codec, f"{where}.folders[{k}]"),
                                     lay.FOLDER_ALIGN, blank))
    else:
        k = 0
        while f"namevaluedata[{k}]" in fields:
            name = f"namevaluedata[{k}]"
            value = fields[name]
            if notes.get(name) == "hex":
                datas.append(_hex(value, f"{where}.fields.{name}"))
            else:
                datas.append(_encode(str(value), codec, f"{where}.fields.{name}"))
            k += 1
    order: Literal["big", "little"] = "big" if big else "little"
    return b"".join(len(d).to_bytes(lay.NAME_VALUE_LENGTH_SIZE, order, signed=True) + d
                    for d in datas)


def _dh_records(headers: Sequence[Mapping[str, Any]], i: int, fields: dict[str, Any],
                big: bool, codepage: str, fixed: int) -> bytes:
    """MQOR and MQPMR records of an MQDH described by ``records`` / the elements after it."""
    spec = headers[i]
    ors = [dict(r) for r in spec.get("records") or []]
    pmrs = [dict(r) for r in spec.get("putmsgrecs") or []]
    for j in range(i + 1, len(headers)):  # by index: no copy of the rest of the chain
        h = headers[j]
        if h.get("type") not in PARTS:
            break
        if h.get("type") == "MQOR":
            ors.append(dict(h.get("fields") or {}))
        elif h.get("type") == "MQPMR":
            pmrs.append(dict(h.get("fields") or {}))
    mask = fields.get("putmsgrecfields")
    if mask is None:
        mask = 0
        for flag, name, _size in lay.PMR_FIELDS:
            if any(name in p for p in pmrs):
                mask |= flag
        fields["putmsgrecfields"] = mask
    if pmrs and len(pmrs) != len(ors):
        raise _fail(f"headers[{i}].putmsgrecs", f"{len(pmrs)} put-message records for "
                                                 f"{len(ors)} object records")
    or_layout = lay.header_layout("MQOR", big, codepage)
    pmr_layout = lay.header_layout("MQPMR", big, codepage, int(mask))
    data = b"".join(or_layout.build(r, fmt=FORMAT) for r in ors)
    fields["recspresent"] = len(ors)
    fields["objectrecoffset"] = fixed if ors else 0
    fields["putmsgrecoffset"] = fixed + len(data) if pmrs else 0
    return data + b"".join(pmr_layout.build(p, fmt=FORMAT) for p in pmrs)
