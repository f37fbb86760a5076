"""Event Replicator input requests: URBH + URBIs, from options or a description (spec §6).

A request is described by a mapping (a JSON/YAML request file, or one line of
``mqtool decode urb --json``), validated before anything is built (request-type rules §6.2,
message rules §6.3, ISN-list rules §6.5, field sizes), then built with the same ``dsect``
declarations the decoder reads (``layout.py``): character fields blank-padded in the
message's code page, unused binary fields zero, URBHLENT/URBILEN/URBILEND computed.

Request description (every key optional; per-URBI keys at the top level apply to every URBI)::

    type: inst                  # open | close | inst | tran | stat (or OPND, CLSD, ...)
    encoding: ascii             # ebcdic (default) | ascii
    codepage: "500"             # EBCDIC code page (default 037); ASCII is latin-1
    byte_order: little          # big (default) | little
    align: 4                    # filler after selection data: multiple of N bytes
    sender: Admin               # urbhname;  msnr: urbhmsnr;  stck: urbhtime
    urbis:                      # one mapping per URBI
      - {inam: IEMPLAA, dbid: 10006, fnr: 9, rnam: OUT2, token: EMPLTOKN,
         selection: "2001100020011100", acode: 819, wcode: 4091, arc: 9}

Keys may also be the DSECT names (``urbidnam``, ``urbhname``...). ``isns`` is a list of
ISNs and ``[from, to]`` ranges (or ``"from-to"`` strings).
"""

from __future__ import annotations

import bisect
import itertools
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any, cast

from mqtool.codepages import is_ebcdic
from mqtool.compose import build as composer
from mqtool.errors import BuildError
from mqtool.formats.urb.compose import ALIGN, Message, Refusals, build_message
from mqtool.formats.urb.compose import from_decoded as compose_from_decoded
from mqtool.formats.urb.decode import read_data
from mqtool.formats.urb.layout import (
    DEFAULT_ASCII,
    ELEMENTS,
    FORMAT,
    ISN_LIST,
    ISN_RANGE,
    MESSAGE,
    VariantChoice,
    codepage_of,
    layouts,
)
from mqtool.formats.urb.meanings import ECS, ecs_codec
from mqtool.tod import Tod

REQUEST_TYPES = {"open": "OPND", "close": "CLSD", "inst": "INST", "tran": "TRAN", "stat": "STAT"}
MAX_ISN = 0xFFFFFFFE  # X'FFFFFFFF' is the range indicator

# per-URBI keys: option name -> DSECT field
URBI_FIELDS = {
    "token": "urbirtok", "rnam": "urbirnam", "type": "urbirt", "dbid": "urbidbid", "fnr": "urbifnr",
    "inam": "urbiinam", "snam": "urbisnam", "dnam": "urbidnam", "acode": "urbiacod",
    "wcode": "urbiwcod", "arc": "urbiarc", "tsnr": "urbitsnr",
}
OPTION_OF = {f: f"--{o}" for o, f in URBI_FIELDS.items()}
URBI_DATA_KEYS = ("isns", "selection", "selection_hex")
HEADER_FIELDS = {"sender": "urbhname", "msnr": "urbhmsnr", "stck": "urbhtime", "rpid": "urbhrpid",
                 "rpni": "urbhrpni"}
OPTION_OF.update({f: f"--{o}" for o, f in HEADER_FIELDS.items()})
MESSAGE_KEYS = ("encoding", "codepage", "byte_order", "align")
REQUEST_ELEMENTS = {"URBH", "URBI", "ISNLIST"}  # decode --json of these is a request
# fields decode --json carries that the builder computes
COMPUTED = {"urbheye", "urbhlen", "urbhvers", "urbhbord", "urbhlent", "urbieye", "urbilenh",
            "urbilend"}

TEXT_FIELDS = {"urbirtok": 8, "urbirnam": 8, "urbirt": 4, "urbiinam": 8, "urbisnam": 8,
               "urbidnam": 8, "urbhname": 8}
INT_FIELDS = {"urbidbid": 0xFFFF, "urbifnr": 0xFFFF, "urbiacod": 0xFFFFFFFF,
              "urbiwcod": 0xFFFFFFFF, "urbiarc": 0xFF, "urbitsnr": 0xFFFFFFFF,
              "urbhmsnr": 0xFFFFFFFF, "urbhrpid": 0xFFFF, "urbhrpni": 0xFFFF}

# §6.2: fields each request type allows (besides token and response destination) and needs
ALLOWED = {
    "OPND": {"urbidnam"},
    "CLSD": {"urbidnam"},
    "INST": {"urbidbid", "urbifnr", "urbiinam", "urbiacod", "urbiwcod", "urbiarc"},
    "TRAN": {"urbisnam", "urbidnam", "urbitsnr"},
    "STAT": {"urbisnam", "urbidnam"},
}
ALWAYS = {"urbirt", "urbirtok", "urbirnam"}
REQUIRED = {
    "OPND": ("urbidnam",),
    "CLSD": ("urbidnam",),
    "INST": ("urbiinam", "urbidbid", "urbifnr", "urbirnam"),
    "TRAN": ("urbisnam",),
    "STAT": (),
}
# response-131 subcodes the server answers a field with that its request type does not allow
SUBCODE_IF_SET = {"urbisnam": 99, "urbitsnr": 100}
TRAN_SUBCODE_IF_SET = {"urbidbid": 40, "urbifnr": 40, "urbiinam": 41, "urbiacod": 42, "urbiwcod": 42,
                       "urbiarc": 42}


# --------------------------------------------------------------------------- the model


@dataclass
class Urbi:
    """One URBI to build: DSECT field values, and the data that follows it."""

    values: dict[str, Any] = field(default_factory=dict)
    isns: list[int | tuple[int, int]] | None = None
    selection: str | None = None
    raw: bytes | None = None  # selection data as bytes, or an ISN list as decoded (--json)
    raw_is_isn_list: bool = False
    urbilen: int | None = None  # from decode --json: keeps its alignment filler


@dataclass
class Request(VariantChoice):
    """One message to build."""

    encoding: str | None = None
    codepage: str | None = None
    byte_order: str = "big"
    align: int | None = None
    header: dict[str, Any] = field(default_factory=dict)
    urbis: list[Urbi] = field(default_factory=list)
    where: str = ""  # "line 2" of a --from file, for messages
    warnings: list[str] = field(default_factory=list)


def _fail(req: Request | None, path: str, reason: str) -> BuildError:
    where = f"{req.where}: " if req is not None and req.where else ""
    return BuildError(FORMAT, f"{where}{path}" if path else where.rstrip(": "), reason)


# --------------------------------------------------------------------------- values


_INT = re.compile(r"^(?:X'([0-9A-Fa-f]+)'|0[xX]([0-9A-Fa-f]+)|(-?\d+))$")


def parse_int(value: Any) -> int:
    """Decimal, 0x.. or X'..' (text), or an int; ValueError otherwise."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a number")
    if isinstance(value, int):
        return value
    m = _INT.match(str(value).strip().replace("_", ""))
    if not m:
        raise ValueError(f"{value!r} is not a number (decimal, 0x.. or X'..')")
    h1, h2, dec = m.groups()
    return int(h1 or h2, 16) if (h1 or h2) else int(dec)


def parse_isn(item: Any) -> int | tuple[int, int]:
    """``602``, ``"602"``, ``"700-710"``, ``[700, 710]`` or ``{"from": 700, "to": 710}``."""
    if isinstance(item, Mapping):
        return (parse_int(item.get("from")), parse_int(item.get("to")))
    if isinstance(item, Sequence) and not isinstance(item, str | bytes):
        if len(item) != 2:
            raise ValueError(f"a range is [from, to], not {list(item)!r}")
        return (parse_int(item[0]), parse_int(item[1]))
    text = str(item).strip()
    if m := re.match(r"^(\w+)\s*-\s*(\w+)$", text):
        return (parse_int(m.group(1)), parse_int(m.group(2)))
    return parse_int(text)


def _is_set(value: Any) -> bool:
    """Unset = None, 0, blank text or all-NUL text (spec §1: X'00' means not set)."""
    if value is None:
        return False
    if isinstance(value, str):
        return bool(value.strip(" \x00"))
    return bool(value)


def request_type(value: str) -> str:
    """``inst`` / ``INST`` -> ``INST``; other text is kept (validation refuses it)."""
    text = str(value).strip()
    if text.lower() in REQUEST_TYPES:
        return REQUEST_TYPES[text.lower()]
    return text.upper() if text.upper() in REQUEST_TYPES.values() else text


# --------------------------------------------------------------------------- descriptions


def load_requests(text: str) -> list[Request | Message]:
    """Messages described in ``text``: one JSON document, JSON lines (``decode --json``
    output: one message per line), or YAML (one message per document, or a list)."""
    docs: list[tuple[str, Any]] = []
    stripped = text.strip()
    if not stripped:
        raise BuildError(FORMAT, "", "the request file is empty")
    try:
        docs = [("", json.loads(stripped))]
    except json.JSONDecodeError:
        lines = [(n, ln) for n, ln in enumerate(text.splitlines(), 1) if ln.strip()]
        try:
            docs = [(f"line {n}", json.loads(ln)) for n, ln in lines]
        except json.JSONDecodeError:
            import yaml

            try:
                docs = [(f"document {k}" if k > 1 else "", d)
                        for k, d in enumerate(yaml.safe_load_all(text), 1) if d is not None]
            except yaml.YAMLError as e:
                raise BuildError(FORMAT, "", f"the request file is neither JSON nor YAML: "
                                             f"{str(e).splitlines()[0]}") from None
    out: list[Request | Message] = []
    for where, doc in docs:
        items = doc if isinstance(doc, list) else [doc]
        for k, item in enumerate(items):
            w = where if len(items) == 1 else f"{where + ' ' if where else ''}item {k}"
            out.append(from_mapping(item, w))
    if not out:
        raise BuildError(FORMAT, "", "the request file describes no message")
    return out


def from_mapping(obj: Any, where: str = "") -> Request | Message:
    """A request description, or one decoded message (``decode urb --json``)."""
    if not isinstance(obj, Mapping):
        raise _fail(Request(where=where), "", f"a message is described by a mapping, not "
                                              f"{type(obj).__name__}")
    if "elements" in obj:
        return _from_decoded(obj, where)
    return _from_description(obj, where)


def _norm_key(key: Any) -> str:
    return str(key).strip().lower().replace("-", "_")


def _from_description(obj: Mapping[str, Any], where: str) -> Request:
    req = Request(where=where)
    defaults = Urbi()
    urbis_spec = None
    for key, value in obj.items():
        k = _norm_key(key)
        if k in ("urbis", "requests"):
            if not isinstance(value, list):
                raise _fail(req, k, "must be a list of URBI mappings")
            urbis_spec = value
        elif k in MESSAGE_KEYS:
            _set_message(req, k, value)
        elif k in HEADER_FIELDS or k in HEADER_FIELDS.values() or k == "urbhtime_hex":
            req.header[HEADER_FIELDS.get(k, k)] = value
        elif not _set_urbi(req, defaults, k, value):
            raise _fail(req, str(key), _unknown_key())
    if urbis_spec is None:
        req.urbis = [defaults]
        return req
    for i, spec in enumerate(urbis_spec):
        if not isinstance(spec, Mapping):
            raise _fail(req, f"urbi[{i}]", "must be a mapping of URBI fields")
        u = Urbi(dict(defaults.values), defaults.isns, defaults.selection, defaults.raw)
        for key, value in spec.items():
            if not _set_urbi(req, u, _norm_key(key), value):
                raise _fail(req, f"urbi[{i}].{key}", _unknown_key())
        req.urbis.append(u)
    return req


def _unknown_key() -> str:
    keys = sorted({*URBI_FIELDS, *URBI_DATA_KEYS, *HEADER_FIELDS, *MESSAGE_KEYS, "urbis"})
    return f"unknown key; known: {', '.join(keys)} (or the DSECT names)"


def _set_message(req: Request, key: str, value: Any) -> None:
    if key == "align":
        try:
            req.align = parse_int(value)
        except ValueError as e:
            raise _fail(req, "align", str(e)) from None
    elif key == "byte_order":
        req.byte_order = str(value).lower()
    elif key == "encoding":
        req.encoding = str(value).lower()
    else:
        req.codepage = str(value)


def _set_urbi(req: Request, u: Urbi, key: str, value: Any) -> bool:
    """Set one per-URBI key; False when the key is not one."""
    name = URBI_FIELDS.get(key, key)
    if name in OPTION_OF and name.startswith("urbi"):
        u.values[name] = value
    elif key in ("isns", "isn", "urbiisns"):
        items = value if isinstance(value, list) else [value]
        try:
            u.isns = [parse_isn(x) for x in items]
        except ValueError as e:
            raise _fail(req, key, str(e)) from None
    elif key == "selection":
        u.selection = None if value is None else str(value)
    elif key in ("selection_hex", "data", "urbidata"):
        try:
            u.raw = _hex(value)
        except ValueError as e:
            raise _fail(req, key, str(e)) from None
    else:
        return False
    return True


def _hex(value: Any) -> bytes:
    text = re.sub(r"\s+", "", str(value)).removeprefix("X'").removeprefix("x'").rstrip("'")
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise ValueError(f"{value!r} is not hex (pairs of 0-9 A-F)") from None


def _from_decoded(obj: Mapping[str, Any], where: str) -> Request | Message:
    """A decoded request (URBH, URBIs) as a ``Request`` (validated as one); any other
    message as a ``compose.Message``."""
    req = Request(where=where)
    if obj.get("format") not in (None, FORMAT):
        raise _fail(req, "format", f"this is {obj.get('format')!r} output, not a URB message")
    _check_decoded_types(req, obj)
    if not isinstance(obj.get("elements"), list):
        raise _fail(req, "elements", "must be a list of elements")
    errors = obj.get("errors") or []
    if not isinstance(errors, list):
        raise _fail(req, "errors", "must be a list")
    kinds = {el.get("type") if isinstance(el, Mapping) and isinstance(el.get("type"), str) else None
             for el in obj["elements"]}
    if not errors and not kinds <= REQUEST_ELEMENTS:
        return compose_from_decoded(obj, where)
    if errors:
        first = errors[0]
        raise _fail(req, "", "the decoded message has errors (first: "
                             f"{first.get('reason') if isinstance(first, Mapping) else first}); "
                             "only a cleanly decoded request can be rebuilt")
    _decoded_codepage(req, obj.get("codepage"))
    req.byte_order = str(obj.get("byte_order", "big"))
    seen_header = False
    for i, el in enumerate(obj["elements"]):
        kind = el.get("type") if isinstance(el, Mapping) else None
        fields = el.get("fields", {}) if isinstance(el, Mapping) else {}
        if not isinstance(fields, Mapping):
            raise _fail(req, f"elements[{i}].fields", f"must be a mapping of field names, not "
                                                      f"{type(fields).__name__}")
        if kind == "URBH":
            seen_header = True
            _decoded_header(req, fields)
        elif kind == "URBI":
            req.urbis.append(_decoded_urbi(req, el, fields, i))
        elif kind == "ISNLIST" and req.urbis:
            req.urbis[-1].raw_is_isn_list = True
        else:
            raise _fail(req, f"elements[{i}]", f"a {kind} element: build-request urb builds input "
                                               "requests (URBH and URBI elements) only")
    if not seen_header:
        raise _fail(req, "elements", "the decoded message has no URBH")
    return req


def _decoded_codepage(req: Request, cp: Any) -> None:
    """A decoded request's code page, and the encoding it implies, set on ``req``."""
    if cp is not None and not isinstance(cp, str):
        raise _fail(req, "codepage", f"{cp!r} is not a code page name")
    if cp:
        try:
            req.encoding = "ebcdic" if is_ebcdic(codepage_of(cp)) else "ascii"
        except LookupError as e:
            raise _fail(req, "codepage", str(e).strip("'\"")) from None
        req.codepage = cp


def _decoded_header(req: Request, fields: Mapping[str, Any]) -> None:
    """A decoded URBH's fields into the request's header, the computed ones and the hex
    forms left out (but URBHTIME's)."""
    for name, value in fields.items():
        if name not in COMPUTED and (name == "urbhtime_hex" or not name.endswith("_hex")):
            req.header[name] = value


def _decoded_urbi(req: Request, el: Mapping[str, Any], fields: Mapping[str, Any], i: int) -> Urbi:
    """A decoded URBI (element ``i``) as an ``Urbi``: its fields but the computed ones and
    the hex forms, URBILEN as given, the data after it as raw bytes."""
    u = Urbi()
    for name, value in fields.items():
        if name == "urbilen":
            u.urbilen = value
        elif name not in COMPUTED and not name.endswith("_hex"):
            u.values[name] = value
    if el.get("data"):
        try:
            u.raw = _hex(el["data"])
        except ValueError as e:
            raise _fail(req, f"elements[{i}].data", str(e)) from None
    return u


def _check_decoded_types(req: Request, obj: Mapping[str, Any]) -> None:
    """``decode urb --json`` output has these shapes; anything else is refused by name."""
    for key in ("elements", "errors"):
        if key in obj and not isinstance(obj[key], list):
            raise _fail(req, key, f"must be a list, not {type(obj[key]).__name__}")
    cp = obj.get("codepage")
    if cp is not None:
        from mqtool.codepages import single_byte_codec

        try:
            single_byte_codec(cp if isinstance(cp, str) else repr(cp))
        except LookupError as e:
            raise _fail(req, "codepage", str(e)) from None
    if not isinstance(obj.get("byte_order", "big"), str):
        raise _fail(req, "byte_order", "must be big or little")


# --------------------------------------------------------------------------- options


def apply_options(req: Request | None, rtype: str | None, per_urbi: Mapping[str, Sequence[Any]],
                  header: Mapping[str, Any], message: Mapping[str, Any],
                  isns: Sequence[str] = ()) -> Request:
    """Command-line options over a request (or a new one when ``req`` is None).

    A per-URBI option given once applies to every URBI; given N times it describes N URBIs
    in order (``--dnam A --dnam B`` closes two destinations). ``--isn`` builds one ISN list
    for every URBI.
    """
    given = {k: list(v) for k, v in per_urbi.items() if v}
    data_options = [o for o, v in (("--isn", isns), ("--selection", given.get("selection")),
                                   ("--selection-hex", given.get("selection_hex"))) if v]
    if len(data_options) > 1:
        raise _fail(req, "urbi", f"give {' or '.join(data_options)}, not both: the data after a "
                                 "URBI is an ISN list or selection data")
    if req is None:
        counts = sorted({len(v) for v in given.values()} - {1})
        if len(counts) > 1:
            raise _fail(None, "", "repeated options disagree on the number of URBIs: "
                                  + ", ".join(f"--{k.replace('_', '-')} x{len(v)}"
                                              for k, v in given.items() if len(v) > 1))
        req = Request(urbis=[Urbi() for _ in range(counts[0] if counts else 1)])
    _per_urbi_options(req, given)
    if isns:
        try:
            items = [parse_isn(x) for x in isns]
        except ValueError as e:
            raise _fail(req, "--isn", str(e)) from None
        for u in req.urbis:
            u.isns, u.raw, u.raw_is_isn_list, u.selection = list(items), None, False, None
    if rtype:
        for u in req.urbis:
            u.values["urbirt"] = rtype
    _header_options(req.header, header)
    if _encoding_overrides(message, req.codepage):
        req.codepage = None  # --encoding overrides the file's code page of the other kind
    for key, value in message.items():
        if value is not None:
            _set_message(req, key, value)
    return req


def _per_urbi_options(req: Request, given: Mapping[str, list[Any]]) -> None:
    """The per-URBI options over the request's URBIs: a value given once sets every URBI,
    N values set N URBIs in order; new selection data replaces the data there was."""
    n = len(req.urbis)
    for key, values in given.items():
        if len(values) not in (1, n):
            raise _fail(req, "", f"--{key.replace('_', '-')} given {len(values)} times for {n} "
                                 "URBIs: give it once (every URBI) or once per URBI")
        for i, u in enumerate(req.urbis):
            value = values[0] if len(values) == 1 else values[i]
            if key in ("selection", "selection_hex"):
                u.raw, u.isns, u.raw_is_isn_list, u.selection = None, None, False, None
            _set_urbi(req, u, key, value)


def _header_options(fields: dict[str, Any], header: Mapping[str, Any]) -> None:
    """The URBH options given (not None) into ``fields``; ``--stck`` drops the decoded
    URBHTIME hex form."""
    for key, value in header.items():
        if value is not None:
            fields[HEADER_FIELDS.get(key, key)] = value
            if key == "stck":
                fields.pop("urbhtime_hex", None)


def _encoding_overrides(message: Mapping[str, Any], codepage: str | None) -> bool:
    """True when ``--encoding`` (without ``--codepage``) names the other kind (EBCDIC or
    ASCII) than the message's code page, which it then replaces."""
    return bool(message.get("encoding") and not message.get("codepage") and codepage
                and is_ebcdic(codepage_of(codepage)) != (message["encoding"] == "ebcdic"))


def apply_message_options(msg: Message, rtype: str | None, per_urbi: Mapping[str, Sequence[Any]],
                          header: Mapping[str, Any], message: Mapping[str, Any],
                          isns: Sequence[str] = ()) -> Message:
    """Command-line options over a message that is not a request (``--from`` a status or
    data message): the variant and the URBH fields; request options are refused, all at once."""
    bad = Refusals(msg.where)
    kinds = sorted({p.type for p in msg.elements})
    what = f"the message is {', '.join(kinds)}, not a request"
    if rtype:
        bad.add("urbi.urbirt", f"a request type ({rtype}) is given, but {what}")
    for key, values in per_urbi.items():
        if values:
            bad.add(f"--{key.replace('_', '-')}", f"a request option, but {what}")
    if isns:
        bad.add("--isn", f"a request option, but {what}")
    if message.get("align") is not None:
        bad.add("--align", f"pads selection data, but {what}")
    bad.raise_any()
    _header_options(msg.header, header)
    if _encoding_overrides(message, msg.codepage):
        msg.codepage = None
    if message.get("encoding"):
        msg.encoding = message["encoding"]
    if message.get("codepage"):
        msg.codepage = message["codepage"]
    if message.get("byte_order"):
        msg.byte_order = message["byte_order"]
    return msg


# --------------------------------------------------------------------------- validation


def validate(req: Request) -> list[str]:
    """Refuse what the server would refuse (one BuildError listing every refusal of the
    message); return warnings."""
    warnings: list[str] = []
    bad = Refusals(req.where)

    failed = object()

    def attempt(check: Any, *args: Any) -> Any:
        try:
            return check(*args)
        except BuildError as e:
            path = e.path.removeprefix(f"{req.where}: ") if req.where else e.path
            bad.add(path if path != req.where else "", e.reason)
            return failed

    refused: set[str] = set()

    def checked(name: str, value: Any, path: str) -> Any:
        got = attempt(_check_value, req, name, value, path)
        if got is failed:  # kept, so no "needs it" follows, and not refused twice
            refused.add(path)
            return value
        return got

    _check_message_settings(req)
    if not req.urbis:
        raise _fail(req, "", "a request needs at least one URBI")
    for key, value in list(req.header.items()):
        req.header[key] = checked(key, value, f"urbh.{key}")
    types = []
    for i, u in enumerate(req.urbis):
        prefix = f"urbi[{i}]"
        for name, value in list(u.values.items()):
            if name not in OPTION_OF:
                bad.add(f"{prefix}.{name}", "not a URBI field a request sets")
                continue
            u.values[name] = checked(name, value, f"{prefix}.{name}")
        rt = request_type(u.values.get("urbirt") or "")
        if not rt:
            bad.add(f"{prefix}.urbirt", "no request type: give one of open, close, inst, tran, stat")
            continue
        if rt not in ALLOWED:
            bad.add(f"{prefix}.urbirt", f"{rt!r} is not a request type (open, close, inst, tran, "
                                        "stat); give the type on the command line to correct it")
            continue
        u.values["urbirt"] = rt
        types.append(rt)
        more = attempt(_check_type, req, u, rt, prefix, bad, refused)
        warnings += more if isinstance(more, list) else []
        if u.isns is not None:
            attempt(check_isn_list, u.isns, prefix, req)
        elif u.raw is not None and u.raw_is_isn_list:
            items = attempt(_unpack_isns, req, u.raw, prefix)
            if items is not failed:
                attempt(check_isn_list, items, prefix, req)
    if types and not bad.items:
        attempt(_check_message, req, types)
    bad.raise_any()
    req.warnings = warnings
    return warnings


def article(word: str) -> str:
    """``a`` or ``an`` before a request type (an INST, an OPND, a TRAN, a STAT)."""
    return "an" if word[:1].upper() in "AEIOU" else "a"


def _check_message_settings(req: Request) -> None:
    if req.byte_order not in ("big", "little"):
        raise _fail(req, "byte_order", f"{req.byte_order!r} is neither big nor little")
    if req.encoding not in (None, "ebcdic", "ascii"):
        raise _fail(req, "encoding", f"{req.encoding!r} is neither ebcdic nor ascii")
    if req.codepage:
        try:
            cp = codepage_of(req.codepage)
        except LookupError as e:
            raise _fail(req, "codepage", str(e).strip("'\"")) from None
        kind = "ebcdic" if is_ebcdic(cp) else "ascii"
        if req.encoding and req.encoding != kind:
            raise _fail(req, "codepage", f"{req.codepage} is an {kind.upper()} code page, the "
                                         f"encoding is {req.encoding}")
        if kind == "ascii" and cp != DEFAULT_ASCII:
            raise _fail(req, "codepage", "ASCII messages are ISO 8859-1 (latin-1)")
        req.encoding = kind
    if req.align is not None and not 1 <= req.align <= 4096:
        raise _fail(req, "align", f"{req.align} is not 1..4096")


def _check_value(req: Request, name: str, value: Any, path: str) -> Any:
    opt = OPTION_OF.get(name)
    label = f"{path} ({opt})" if opt else path
    if name in TEXT_FIELDS:
        text = "" if value is None else str(value)
        if name == "urbirt":
            return request_type(text)
        try:
            data = text.encode(req.cp)
        except UnicodeEncodeError:
            raise _fail(req, label, f"{text!r} has characters code page {req.cp} lacks") from None
        if len(data) > TEXT_FIELDS[name]:
            raise _fail(req, label, f"{text!r} is {len(data)} characters, the field holds "
                                    f"{TEXT_FIELDS[name]}")
        return text
    if name in INT_FIELDS:
        try:
            n = 0 if value is None else parse_int(value)
        except ValueError as e:
            raise _fail(req, label, str(e)) from None
        if not 0 <= n <= INT_FIELDS[name]:
            raise _fail(req, label, f"{n} does not fit: the field takes 0..{INT_FIELDS[name]}")
        return n
    if name == "urbhtime":
        try:
            raw_hex = req.header.get("urbhtime_hex")
            return Tod.coerce(value, raw_hex if isinstance(raw_hex, str) else None)
        except (ValueError, TypeError, AttributeError) as e:
            raise _fail(req, label, str(e)) from None
    if name == "urbhtime_hex":
        return value
    raise _fail(req, path, "not a field a request sets")


def _check_type(req: Request, u: Urbi, rt: str, prefix: str, bad: Refusals,
                refused: AbstractSet[str] = frozenset()) -> list[str]:
    """One URBI against its request type ``rt``: fields it does not allow or needs (into
    ``bad``), then its data (BuildError); returns the warnings."""
    before = len(bad.items)
    _refuse_fields(u, rt, prefix, bad, refused)
    if len(bad.items) > before:
        return []  # the checks below are about data of fields already refused
    _check_data(req, u, rt, prefix)
    warnings = _type_warnings(u, rt, prefix)
    if u.selection is not None:
        _selection_codec(req, u, prefix)  # refuses an ECS code page without a codec
    return warnings


def _refuse_fields(u: Urbi, rt: str, prefix: str, bad: Refusals, refused: AbstractSet[str]) -> None:
    """The fields set that a request of type ``rt`` does not allow (with the subcode the
    server answers), and the ones it needs that are not set."""
    allowed = ALLOWED[rt] | ALWAYS
    a = article(rt)
    for name, value in u.values.items():
        if _is_set(value) and name not in allowed and f"{prefix}.{name}" not in refused:
            sub = (TRAN_SUBCODE_IF_SET if rt == "TRAN" else SUBCODE_IF_SET).get(name)
            tail = f" (the server answers response 131 subcode {sub})" if sub else ""
            bad.add(f"{prefix}.{name} ({OPTION_OF[name]})", f"{a} {rt} request does not allow it{tail}")
    for name in REQUIRED[rt]:
        if not _is_set(u.values.get(name)):
            bad.add(f"{prefix}.{name} ({OPTION_OF[name]})", f"{a} {rt} request needs it")


def _check_data(req: Request, u: Urbi, rt: str, prefix: str) -> None:
    """The data after a URBI (ISN list or selection data) and the fields describing it,
    for a request of type ``rt``: a BuildError for the first conflict."""
    has_data = u.isns is not None or u.selection is not None or u.raw is not None
    if has_data and rt != "INST":
        raise _fail(req, prefix, f"{article(rt)} {rt} request carries no selection data or ISN list"
                                 + (" (subcode 39)" if rt == "TRAN" else ""))
    if u.isns is not None and (u.selection is not None or u.raw is not None):
        raise _fail(req, prefix, "give an ISN list or selection data, not both")
    if u.selection is not None and u.raw is not None:
        raise _fail(req, prefix, "give --selection or --selection-hex, not both")
    ues = [n for n in ("urbiacod", "urbiwcod", "urbiarc") if _is_set(u.values.get(n))]
    if ues and not (u.selection is not None or (u.raw is not None and not u.raw_is_isn_list)):
        raise _fail(req, f"{prefix}.{ues[0]} ({OPTION_OF[ues[0]]})",
                    "describes selection data: give --selection or --selection-hex")
    if rt == "STAT" and not (_is_set(u.values.get("urbisnam")) or _is_set(u.values.get("urbidnam"))):
        raise _fail(req, prefix, "a status request needs a subscription (--snam), a destination "
                                 "(--dnam) or both (subcode 7)")


def _type_warnings(u: Urbi, rt: str, prefix: str) -> list[str]:
    """What a request of type ``rt`` may send but is likely a mistake."""
    warnings: list[str] = []
    if rt == "TRAN":
        if not _is_set(u.values.get("urbidnam")):
            warnings.append(f"{prefix}.urbidnam: no destination (--dnam) for the resent transaction; "
                            "the manual says it is required, its example leaves it blank")
        if not _is_set(u.values.get("urbitsnr")):
            warnings.append(f"{prefix}.urbitsnr: transaction number 0 (--tsnr): no transaction "
                            "normally has this number")
    arc = u.values.get("urbiarc") or 0
    if isinstance(arc, int) and arc > 15:
        warnings.append(f"{prefix}.urbiarc: X'{arc:02X}' sets undefined architecture bits")
    return warnings


def _check_message(req: Request, types: list[str]) -> None:
    if len(set(types)) > 1:
        raise _fail(req, "urbi", f"all URBIs of a message have one request type, not "
                                 f"{', '.join(types)} (subcode 57)")
    rt = types[0]
    if rt == "TRAN" and len(types) > 1:
        raise _fail(req, "urbi", f"a prior-transaction request is exactly one URBI, not {len(types)}")
    if rt == "STAT" and len(types) > 1:
        raise _fail(req, "urbi", f"a message holds at most one status request, not {len(types)} "
                                 "(subcode 55)")
    if rt == "INST":
        for name, sub in (("urbiinam", 11), ("urbirtok", 18), ("urbirnam", 10)):
            values = {(u.values.get(name) or "").rstrip(" ") for u in req.urbis}
            if len(values) > 1:
                raise _fail(req, f"urbi.{name} ({OPTION_OF[name]})",
                            f"all URBIs of an initial-state request need the same value, not "
                            f"{', '.join(sorted(map(repr, values)))} (subcode {sub})")


def check_isn_list(items: Sequence[int | tuple[int, int]], prefix: str = "urbi[0]",
                   req: Request | None = None) -> None:
    """The ISN-list rules (§6.5); BuildError naming the item index and the rule."""
    singles: dict[int, int] = {}
    ranges: list[tuple[int, int, int]] = []
    tail = "; the server would answer response 131 subcode 16"
    for j, item in enumerate(items):
        path = f"{prefix}.isn[{j}]"
        values = item if isinstance(item, tuple) else (item,)
        for n in values:
            if not 0 <= n <= 0xFFFFFFFF:
                raise _fail(req, path, f"ISN {n} does not fit a fullword")
            if n == ISN_RANGE:
                raise _fail(req, path, "4294967295 (X'FFFFFFFF') is the range indicator, not an ISN")
        if isinstance(item, tuple):
            lo, hi = item
            if lo > hi:
                raise _fail(req, path, f"range {lo}-{hi} starts after its end "
                                       f"(rule 4: starting ISN <= ending ISN){tail}")
            ranges.append((lo, hi, j))
        else:
            if item in singles:
                raise _fail(req, path, f"ISN {item} is also item {singles[item]} "
                                       f"(rule 1: no ISN more than once){tail}")
            singles[item] = j
    ranges.sort()
    for (lo1, hi1, j1), (lo2, hi2, j2) in itertools.pairwise(ranges):
        if lo2 <= hi1:
            first, second = sorted((j1, j2))
            a, b = ((lo1, hi1), (lo2, hi2)) if j1 == first else ((lo2, hi2), (lo1, hi1))
            raise _fail(req, f"{prefix}.isn[{second}]",
                        f"range {b[0]}-{b[1]} overlaps range {a[0]}-{a[1]} of item {first} "
                        f"(rule 3: ranges must not overlap){tail}")
    starts = [r[0] for r in ranges]
    for n, j in sorted(singles.items(), key=lambda kv: kv[1]):
        k = bisect.bisect_right(starts, n) - 1
        if k >= 0 and ranges[k][0] <= n <= ranges[k][1]:
            lo, hi, jr = ranges[k]
            raise _fail(req, f"{prefix}.isn[{j}]",
                        f"ISN {n} lies inside the range {lo}-{hi} of item {jr} "
                        f"(rule 2: no single ISN inside a range){tail}")


def _unpack_isns(req: Request, raw: bytes, prefix: str) -> list[int | tuple[int, int]]:
    """An ISN list as decoded (``decode --json`` data), read by the walker (``ISN_LIST``)."""
    unit = read_data(raw, layouts(req.big, req.cp), ISN_LIST, prefix)
    if unit.errors:
        raise _fail(req, unit.errors[0].path, unit.errors[0].reason)
    if not unit.elements:
        return []
    fields = cast(Mapping[str, list[Any]], unit.elements[0].extra["fields"])  # the list's JSON
    return [tuple(x) if isinstance(x, list) else x for x in fields["isns"]]


def _selection_codec(req: Request, u: Urbi, prefix: str) -> str:
    acod = u.values.get("urbiacod") or 0
    if not acod:
        return req.cp
    codec = ecs_codec(acod)
    if codec is None:
        raise _fail(req, f"{prefix}.urbiacod (--acode)",
                    f"ECS code page {acod} is not one mqtool knows ({', '.join(map(str, ECS))}); "
                    "give the selection bytes with --selection-hex")
    return codec


# --------------------------------------------------------------------------- building


def payload(req: Request, u: Urbi, prefix: str = "urbi[0]") -> bytes:
    """The bytes after one URBI: selection data or ISN list (unpadded)."""
    lay = layouts(req.big, req.cp)
    if u.isns is not None:
        parts = []
        for item in u.isns:
            if isinstance(item, tuple):
                parts.append(lay.ISNRANGE.build({"urbiirange": ISN_RANGE, "urbiisn1": item[0],
                                               "urbiisn2": item[1]}, fmt=FORMAT))
            else:
                parts.append(lay.ISN.build({"urbiisn": item}, fmt=FORMAT))
        return b"".join(parts)
    if u.selection is not None:
        codec = _selection_codec(req, u, prefix)
        try:
            return u.selection.encode(codec)
        except UnicodeEncodeError:
            raise _fail(req, f"{prefix} (--selection)",
                        f"{u.selection!r} has characters {codec} lacks") from None
    return u.raw or b""


def build_request(req: Request) -> bytes:
    """Bytes of one validated request: the URBIs and the URBH by the one builder
    (``mqtool.compose.build``): URBILEN, URBILENH, URBILEND and URBHLENT computed; a
    decoded URBILEN is kept when it only adds filler (and no ``align`` is given)."""
    lay = layouts(req.big, req.cp)
    bad = Refusals(req.where)
    body = []
    for i, u in enumerate(req.urbis):
        prefix = f"urbi[{i}]"
        data = payload(req, u, prefix)
        given = u.urbilen if req.align is None and isinstance(u.urbilen, int) else None
        el = composer.Element(ELEMENTS["URBI"], {**u.values, "urbilen": given}, data, prefix,
                              align=req.align or ALIGN, hint=True)
        body.append(composer.build_element(el, lay.layout, bad))
        bad.raise_any()
    size = lay.URBH.size or 0
    header = {k: v for k, v in req.header.items() if k != "urbhtime_hex"}
    values = composer.header(MESSAGE, header, size, size + sum(len(b or b"") for b in body), "urbh",
                             bad, strict=False)
    head = composer.fixed_part(lay.URBH, values, "urbh", bad)
    bad.raise_any()
    return (head or b"") + b"".join(b or b"" for b in body)


def build(request: Request | Message | Mapping[str, Any] | Iterable[Any]) -> bytes:
    """Validate and build one request (a ``Request``, a description or a decoded message);
    several (a list) are built back to back."""
    if isinstance(request, Request | Message):
        reqs = [request]
    elif isinstance(request, Mapping):
        reqs = [from_mapping(request)]
    elif not isinstance(request, list | tuple):
        raise _fail(None, "", f"a request is a mapping or a list of them, not {type(request).__name__}")
    else:
        reqs = [r if isinstance(r, Request | Message) else from_mapping(r, f"item {k}")
                for k, r in enumerate(request)]
    out = []
    for r in reqs:
        if isinstance(r, Message):
            out.append(build_message(r))
            continue
        validate(r)
        out.append(build_request(r))
    return b"".join(out)
