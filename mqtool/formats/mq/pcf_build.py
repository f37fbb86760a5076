"""PCF payloads built from their JSON: the inverse of the ``pcf`` object ``decode mq --json``
writes (IBM MQ, Programmable Command Formats reference, "Structures for commands and
responses": MQCFH, then ParameterCount parameter structures MQCFIN, MQCFST, MQCFIL, MQCFSL,
MQCFBS, MQCFGR with the parameters it groups after it, the filters MQCFIF, MQCFSF, MQCFBF,
and MQCFIN64, MQCFIL64).

Lengths and counts are computed: the MQCFH StrucLength and ParameterCount, each
structure's StrucLength (a multiple of four, IBM MQ, "MQCFST - PCF string parameter":
StrucLength), StringLength / FilterValueLength, Count, and an MQCFGR's ParameterCount. A
value given for one of them must be the one computed -- a StringLength may be larger: the
string is then padded with blanks to it, as a queue manager pads an object name -- else
the build is refused, naming the value by its path (``pcf.parameters[3].stringlength``).
Strings are padded to StrucLength with blanks, byte strings with nulls (the bytes "are not
significant", IBM MQ, MQCFST StrucLength). The names put beside values (``name``,
``meaning``, ``meanings``, ``operator_meaning``, the header's ``meanings``) and the values
themselves must read back as given: a string with trailing blanks (padding to a reader) or
a name that is not the value's is refused, never silently rewritten; so is every key the
builder does not know.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mqtool.codepages import ccsid_codec
from mqtool.errors import BuildError
from mqtool.formats.mq import layout as lay
from mqtool.formats.mq.pcf import MAX_DEPTH, decode_pcf

__all__ = ["build_pcf", "check_pcf", "pcf_payload"]

FORMAT = lay.FORMAT
TOP_KEYS = ("header", "meanings", "parameters")
COMPUTED = ("struclength", "parametercount", "count", "stringlength", "filtervaluelength")
VALUES = ("type", "value", "filtervalue")  # a structure's value is "value" in the JSON
GIVEN = ("codedcharsetid", "operator", "reserved")  # fields taken as given
READ_BACK = ("name", "value", "operator", "meaning", "meanings", "operator_meaning")
SHOWN = 24  # characters of a bad value quoted in an error


def _fail(path: str, reason: str) -> BuildError:
    return BuildError(FORMAT, path, reason)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= SHOWN else text[:SHOWN] + "..."


@dataclass(frozen=True)
class _Ctx:
    """How the payload is written: byte order, header code page, the message's CCSID."""

    big: bool
    codepage: str
    ccsid: int

    def layout(self, name: str) -> Any:
        return lay.header_layout(name, self.big, self.codepage)

    def packer(self, name: str, field: str) -> struct.Struct:
        """The packing of one declared integer field (an MQLONG, an MQINT64)."""
        info = self.layout(name).field(field)
        return struct.Struct(f"{info.endian}{info.fmt}")

    @property
    def align(self) -> int:
        """StrucLength is a multiple of four bytes: of an MQLONG."""
        return self.packer("MQCFIN", "value").size


def build_pcf(pcf: Any, *, big: bool, codepage: str, ccsid: int, where: str = "pcf") -> bytes:
    """The bytes of a PCF payload described by ``pcf`` (``{"header": {...}, "parameters":
    [...]}``); BuildError naming the path of the first value it cannot build."""
    ctx = _Ctx(big, codepage, ccsid)
    if not isinstance(pcf, Mapping):
        raise _fail(where, "expected an object with \"header\" and \"parameters\"")
    _only(pcf, TOP_KEYS, where)
    for key, kind, name in (("header", Mapping, "an object"), ("meanings", Mapping, "an object"),
                            ("parameters", list, "a list")):
        if key in pcf and not isinstance(pcf[key], kind):
            raise _fail(f"{where}.{key}", f"expected {name}, not {_shown(pcf[key])}")
    params = pcf.get("parameters", [])
    body = b"".join(_param(p, f"{where}.parameters[{k}]", ctx) for k, p in enumerate(params))
    data = _header(pcf.get("header", {}), len(params), f"{where}.header", ctx) + body
    check_pcf(pcf, data, ctx, where)
    return data


def check_pcf(pcf: Mapping[str, Any], data: bytes, ctx: _Ctx, where: str = "pcf") -> None:
    """``data`` read back says what ``pcf`` says: every value and name given (BuildError
    naming the first that differs)."""
    got = decode_pcf(data, 0, ctx.big, ctx.codepage, ctx.ccsid)
    if got.errors:
        p = got.errors[0]
        raise _fail(where, f"does not read back ({p.path} at offset {p.offset}: {p.reason})")
    back = got.to_json()
    given = pcf.get("meanings")
    if given is not None and dict(given) != back["meanings"]:
        raise _fail(f"{where}.meanings", f"{_shown(dict(given))} are not the names of the "
                                         f"header's values ({_shown(back['meanings'])})")
    _same(pcf.get("parameters") or [], back["parameters"], f"{where}.parameters")


def _same(given: list[Any], back: list[dict[str, Any]], where: str) -> None:
    for k, (g, b) in enumerate(zip(given, back, strict=True)):
        for key in READ_BACK:
            if key in g and _norm(g[key], b) != _norm(b.get(key), b):
                raise _fail(f"{where}[{k}].{key}", f"{_shown(g[key])} reads back as "
                                                   f"{_shown(b.get(key))}")
        if "parameters" in g:
            _same(g["parameters"], b.get("parameters") or [], f"{where}[{k}].parameters")


def _norm(value: Any, item: Mapping[str, Any]) -> Any:
    """Byte strings compare as their hex in capitals."""
    if item.get("type") in ("MQCFBS", "MQCFBF") and isinstance(value, str):
        return value.upper()
    return value


def _only(obj: Mapping[str, Any], known: tuple[str, ...] | frozenset[str], where: str) -> None:
    for key in obj:
        if key not in known:
            raise _fail(f"{where}.{key}", f"is not something the PCF builder rebuilds "
                                          f"(it knows {', '.join(sorted(known))})")


def _int(value: Any, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise _fail(where, f"{_shown(value)} is not an integer")
    return value


def _computed(given: Mapping[str, Any], name: str, value: int, where: str) -> None:
    """A length or count given must be the one computed."""
    if name in given and _int(given[name], f"{where}.{name}") != value:
        raise _fail(f"{where}.{name}", f"is {given[name]} but the structure needs {value}")


def _fixed(name: str, fields: dict[str, Any], where: str, ctx: _Ctx) -> bytes:
    try:
        return bytes(ctx.layout(name).build(fields, fmt=FORMAT))
    except BuildError as e:
        raise _fail(f"{where}.{e.path}", e.reason) from None


def _header(head: Any, count: int, where: str, ctx: _Ctx) -> bytes:
    """The MQCFH: fields as given (not given: zero), StrucLength and ParameterCount
    computed."""
    if not isinstance(head, Mapping):
        raise _fail(where, "expected an object")
    layout = ctx.layout("MQCFH")
    _only(head, frozenset(layout.names), where)
    for key, value in head.items():
        _int(value, f"{where}.{key}")
    _computed(head, "struclength", layout.fixed_size, where)
    _computed(head, "parametercount", count, where)
    return _fixed("MQCFH", {**head, "struclength": layout.fixed_size,
                            "parametercount": count}, where, ctx)


def _kind(item: Mapping[str, Any], where: str) -> tuple[str, str]:
    """The structure's name and what follows its fixed part."""
    name = item.get("type")
    if not isinstance(name, str) or name not in lay.PCF_BY_NAME:
        raise _fail(f"{where}.type", f"{_shown(name)} is not a PCF structure "
                                     f"({', '.join(lay.PCF_BY_NAME)})")
    return name, lay.PCF_BY_NAME[name][2]


def _param(item: Any, where: str, ctx: _Ctx, depth: int = 0) -> bytes:
    """One parameter structure (an MQCFGR with its members after it)."""
    if not isinstance(item, Mapping):
        raise _fail(where, f"expected a parameter object, not {_shown(item)}")
    if depth > MAX_DEPTH:
        raise _fail(where, f"PCF groups nested deeper than {MAX_DEPTH}")
    name, rest = _kind(item, where)
    layout = ctx.layout(name)
    _only(item, frozenset(("type", "parameter", *READ_BACK, *(("parameters",) if rest == "group"
                                                                else ()),
                           *(n for n in layout.names if n not in VALUES))), where)
    fields: dict[str, Any] = {"type": lay.PCF_BY_NAME[name][0]}
    for key in GIVEN:
        if key in item and key in layout.names:
            fields[key] = _int(item[key], f"{where}.{key}")
    fields["parameter"] = _int(item.get("parameter"), f"{where}.parameter")
    tail = _tail(item, name, rest, fields, where, ctx)
    if rest == "group":
        return _group(item, layout, fields, where, ctx, depth)
    size = layout.fixed_size + len(tail)
    _computed(item, "struclength", size, where)
    fields["struclength"] = size
    return _fixed(name, fields, where, ctx) + tail


def _group(item: Mapping[str, Any], layout: Any, fields: dict[str, Any], where: str, ctx: _Ctx,
           depth: int) -> bytes:
    """An MQCFGR: ParameterCount counts the parameters that follow it."""
    members = item.get("parameters", [])
    if not isinstance(members, list):
        raise _fail(f"{where}.parameters", "expected a list")
    _computed(item, "parametercount", len(members), where)
    _computed(item, "struclength", layout.fixed_size, where)
    fields.update(parametercount=len(members), struclength=layout.fixed_size)
    inner = b"".join(_param(m, f"{where}.parameters[{k}]", ctx, depth + 1)
                     for k, m in enumerate(members))
    return _fixed(str(item["type"]), fields, where, ctx) + inner


def _tail(item: Mapping[str, Any], name: str, rest: str, fields: dict[str, Any], where: str,
          ctx: _Ctx) -> bytes:
    """What follows the fixed part (its lengths and counts set in ``fields``), padded to
    a multiple of four; an integer value put in ``fields``."""
    value = item.get("value")
    if rest == "":
        key = "filtervalue" if "filtervalue" in ctx.layout(name).names else "value"
        fields[key] = _int(value, f"{where}.value")
        return b""
    if rest == "group":
        return b""
    if rest in ("string", "bytes"):
        raw = _string(value, rest, item, where, ctx)
        length = "stringlength" if "stringlength" in ctx.layout(name).names else \
            "filtervaluelength"
        n = _length(item, length, len(raw), where)
        fields[length] = n
        raw += _pad(rest, item, ctx, n - len(raw))
        return raw + _pad(rest, item, ctx, -len(raw) % ctx.align)
    if rest in ("ints", "int64s"):
        return _ints(value, name, rest, fields, item, where, ctx)
    return _strings(value, fields, item, where, ctx)


def _ints(value: Any, name: str, rest: str, fields: dict[str, Any], item: Mapping[str, Any],
          where: str, ctx: _Ctx) -> bytes:
    if not isinstance(value, list):
        raise _fail(f"{where}.value", "expected a list of integers")
    packer = ctx.packer("MQCFIN" if rest == "ints" else "MQCFIN64", "value")
    _computed(item, "count", len(value), where)
    fields["count"] = len(value)
    out = bytearray()
    for j, v in enumerate(value):
        try:
            out += packer.pack(_int(v, f"{where}.value[{j}]"))
        except struct.error:
            raise _fail(f"{where}.value[{j}]", f"{v} does not fit {packer.size} bytes of "
                                               f"{name}") from None
    return bytes(out)


def _strings(value: Any, fields: dict[str, Any], item: Mapping[str, Any], where: str,
             ctx: _Ctx) -> bytes:
    """MQCFSL: Count strings, each StringLength bytes (the longest, unless given)."""
    if not isinstance(value, list):
        raise _fail(f"{where}.value", "expected a list of strings")
    raws = [_string(v, "string", item, f"{where}.value[{j}]", ctx, whole=False)
            for j, v in enumerate(value)]
    n = _length(item, "stringlength", max(map(len, raws), default=0), where)
    _computed(item, "count", len(raws), where)
    fields.update(count=len(raws), stringlength=n)
    data = b"".join(r + _pad("string", item, ctx, n - len(r)) for r in raws)
    return data + _pad("string", item, ctx, -len(data) % ctx.align)


def _length(item: Mapping[str, Any], name: str, need: int, where: str) -> int:
    """StringLength: given (at least the string's) or the string's."""
    if name not in item:
        return need
    n = _int(item[name], f"{where}.{name}")
    if n < need:
        raise _fail(f"{where}.{name}", f"is {n} but the string takes {need} bytes")
    return n


def _codec(item: Mapping[str, Any], where: str, ctx: _Ctx) -> str:
    cc = _int(item.get("codedcharsetid", 0), f"{where}.codedcharsetid") or ctx.ccsid
    return ccsid_codec(cc, ctx.big) or ctx.codepage


def _string(value: Any, rest: str, item: Mapping[str, Any], where: str, ctx: _Ctx, *,
            whole: bool = True) -> bytes:
    """A string in its CodedCharSetId (0: the message's), or a byte string from hex."""
    path = f"{where}.value" if whole else where
    if not isinstance(value, str):
        raise _fail(path, f"{_shown(value)} is not {'hex' if rest == 'bytes' else 'text'}")
    if rest == "bytes":
        try:
            return bytes.fromhex(value)
        except ValueError:
            raise _fail(path, f"{_shown(value)} is not hex") from None
    codec = _codec(item, where if whole else where.rpartition(".")[0], ctx)
    try:
        return value.encode(codec)
    except UnicodeEncodeError as e:
        raise _fail(path, f"has characters code page {codec} lacks: {e.reason}") from None


def _pad(rest: str, item: Mapping[str, Any], ctx: _Ctx, n: int) -> bytes:
    """``n`` bytes that are not significant: blanks after a string, nulls after bytes."""
    if n <= 0:
        return b""
    if rest == "bytes":
        return bytes(n)
    blank = " ".encode(_codec(item, "", ctx))
    return (blank * n)[:n] if len(blank) and n % len(blank) == 0 else bytes(n)


def pcf_payload(pcf: Any, given: bytes | None, *, encoding: int, ccsid: int) -> bytes:
    """The payload of a message whose JSON holds ``pcf``: built from it, or -- when the JSON
    also holds the payload's bytes (``payload.hex``) -- those bytes, if ``pcf`` is what they
    read as (they also keep what the JSON does not show: string lengths beyond the text,
    padding). A ``pcf`` that says otherwise is refused at its first difference: the builder
    never silently drops an edit."""
    from mqtool.formats.mq.chain import header_codepage
    from mqtool.formats.mq.mqmd import byte_order_of

    big = byte_order_of(encoding) != "little"
    codepage = header_codepage(ccsid)
    if given is None:
        return build_pcf(pcf, big=big, codepage=codepage, ccsid=ccsid)
    back = json.loads(json.dumps(decode_pcf(given, 0, big, codepage, ccsid).to_json()))
    where = _difference(pcf, back, "pcf")
    if where is not None:
        raise _fail(where, "is not what payload.hex holds: edit one of them, or leave out "
                           "payload.hex to build the payload from pcf")
    return given


def _difference(given: Any, back: Any, where: str) -> str | None:
    """The path of the first value of ``given`` that ``back`` does not hold alike."""
    if isinstance(given, Mapping) and isinstance(back, Mapping):
        for key in (*given, *(k for k in back if k not in given)):
            if key not in given or key not in back:
                return f"{where}.{key}"
            found = _difference(given[key], back[key], f"{where}.{key}")
            if found is not None:
                return found
        return None
    if isinstance(given, list) and isinstance(back, list):
        for k, (g, b) in enumerate(zip(given, back, strict=False)):
            found = _difference(g, b, f"{where}[{k}]")
            if found is not None:
                return found
        return None if len(given) == len(back) else f"{where}[{min(len(given), len(back))}]"
    return None if given == back and type(given) is type(back) else where
