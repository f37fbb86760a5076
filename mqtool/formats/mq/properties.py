"""An MQ header chain from what a user writes: each header's fields as ``name=value,...``,
MQRFH2 properties as ``folder.name[:dt]=value`` (IBM MQ, MQRFH2 NameValueData: a folder
per NameValueString, each property an element with its ``dt`` data type), on top of a
``decode mq --json`` document, with the payload as text or bytes; every refusal at once.

The headers are chained in the order ``CHAIN_ORDER``: each announces the next (Format,
Encoding, CodedCharSetId); the MQMD values (``encoding``, ``ccsid``) say how the first is
written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from mqtool.codepages import ccsid_codec
from mqtool.errors import BuildError, InputError
from mqtool.formats.mq.build import SHOWN, build_chain
from mqtool.formats.mq.chain import CCSID_ASCII, ENC_BIG, header_codepage
from mqtool.formats.mq.compose import BY_TYPE, format_of
from mqtool.formats.mq.dumps.message import Message
from mqtool.formats.mq.layout import FORMAT, header_layout
from mqtool.formats.mq.pcf_build import pcf_payload
from mqtool.formats.mq.rfh2 import DT_TYPES, INT_TYPES, typed

CHAIN_ORDER = ("MQXQH", "MQDLH", "MQMDE", "MQCIH", "MQIIH", "MQWIH", "MQRFH2", "MQTM")
RFH2 = "MQRFH2"
_INT = re.compile(r"^[+-]?(?:\d+|0[xX][0-9a-fA-F]+)$")
# the keys of a 'decode mq' / 'decode auto' / 'messages' --json object: rebuilt from
# (elements or headers, context or mqmd, payload, pcf) or shown beside what is (the rest)
DOCUMENT_KEYS = ("format", "offset", "length", "context", "codepage", "elements", "errors",
                 "problems", "properties", "payload", "pcf", "event", "dead_letter_reason",
                 "message", "source", "msgtype", "correlid", "role", "payload_offset", "mqmd",
                 "put_time", "headers", "body_length", "body_sha256", "truncated", "capture",
                 "dead_letter")
PAYLOAD_KEYS = ("format", "offset", "length", "encoding", "ccsid", "text", "hex")
# an XML element name without a namespace prefix: a folder, or one level of a property name
_XML_NAME = re.compile(r"[^\W\d][\w-]*")
# the signed integer types of MQRFH2 (IBM MQ, "MQRFH2 - NameValueData": i1 .. i8; int: i8)
INT_BITS = {"i1": 8, "i2": 16, "i4": 32, "i8": 64, "int": 64}


class ChainRefusedError(BuildError):
    """Everything wrong with a chain request: ``refusals`` are ``(where, reason)`` pairs,
    ``where`` a header type (``MQDLH``), ``MQRFH2`` for a property, or ``payload``."""

    def __init__(self, refusals: list[tuple[str, str]]) -> None:
        self.refusals = refusals
        where, reason = refusals[0]
        super().__init__(FORMAT, where, reason)

    def __str__(self) -> str:
        return "\n".join(f"{where}: {reason}" for where, reason in self.refusals)


def parse_fields(text: str) -> dict[str, Any]:
    """``reason=2051,destqname=Q1`` -> ``{"reason": 2051, "destqname": "Q1"}`` (integers
    in decimal or 0x hex); ``ValueError`` for a part that is no ``name=value``."""
    out: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, eq, value = part.partition("=")
        if not eq or not name.strip():
            raise ValueError(f"{part!r} is not name=value")
        out[name.strip().lower()] = int(value, 0) if _INT.match(value) else value
    return out


def parse_property(text: str) -> tuple[str, str, Any, str | None]:
    """``usr.Count:i4=5`` -> ``("usr", "Count", 5, "i4")``; no ``:dt``: a string.
    ``ValueError`` says what is wrong."""
    name, eq, value = text.partition("=")
    name, _, dt = name.partition(":")
    folder, dot, prop = name.strip().partition(".")
    if not eq or not dot or not folder or not prop:
        raise ValueError(f"{text!r} is not folder.name=value (or folder.name:dt=value)")
    folder, prop = folder.strip(), prop.strip()
    bad = [n for n in (folder, *prop.split(".")) if not _XML_NAME.fullmatch(n)]
    if bad:
        raise ValueError(f"{bad[0]!r} is not an XML element name (a letter or _, then letters, "
                         "digits, _ or -): folders and properties are elements of the folder")
    if dt and dt not in DT_TYPES:
        raise ValueError(f"dt {dt!r} is not one of {', '.join(sorted(DT_TYPES))}")
    v = typed(value, dt or None)
    _check_value(value, v, dt)
    return folder, prop, v, dt or None


def _check_value(text: str, v: Any, dt: str) -> None:
    """A value its ``dt`` can hold: integers in range, hex for ``bin.hex``, a boolean, a
    number for ``r4``/``r8`` (``ValueError`` otherwise)."""
    if dt in INT_TYPES:
        bits = INT_BITS[dt]
        if not isinstance(v, int) or not -(1 << (bits - 1)) <= v < 1 << (bits - 1):
            raise ValueError(f"{text!r} is not an integer of {bits} bits for dt {dt}")
    elif dt == "bin.hex":
        try:
            bytes.fromhex(text.strip())
        except ValueError:
            raise ValueError(f"{text!r} is not hex digits in pairs for dt bin.hex") from None
    elif dt == "boolean" and not isinstance(v, bool):
        raise ValueError(f"{text!r} is not a boolean (0, 1, true, false)")
    elif dt in ("r4", "r8") and not isinstance(v, float):
        raise ValueError(f"{text!r} is not a number for dt {dt}")


@dataclass
class ChainRequest:
    """What a user asks for; None: the document's value, else the default."""

    fields: Mapping[str, str] = field(default_factory=dict)  # header type -> "name=value,..."
    properties: tuple[str, ...] = ()  # "folder.name[:dt]=value"
    document: Mapping[str, Any] | None = None  # one line of ``decode mq --json``
    payload: bytes | None = None
    payload_text: str | None = None  # encoded in the payload's CCSID, Format MQSTR
    payload_format: str | None = None
    encoding: int | None = None  # the MQMD's: the first header's byte order
    ccsid: int | None = None  # the MQMD's: the first header's characters
    payload_ccsid: int | None = None


@dataclass
class Chain:
    """A request resolved: the header descriptions ``build_chain`` takes and its options."""

    headers: list[dict[str, Any]]
    options: dict[str, Any]
    payload: bytes = b""

    def build(self, payload: bytes | None = None, **options: Any) -> bytes:
        o = {**self.options, **options}
        return build_chain(self.headers, self.payload if payload is None else payload,
                           encoding=o.get("encoding", ENC_BIG), ccsid=o.get("ccsid", CCSID_ASCII),
                           payload_format=o.get("payload_format", ""),
                           payload_encoding=o.get("payload_encoding"),
                           payload_ccsid=o.get("payload_ccsid"))

    @property
    def first_format(self) -> str:
        """The MQMD Format naming the first header."""
        if not self.headers:  # the payload alone
            return str(self.options.get("payload_format") or "")
        info = BY_TYPE.get(str(self.headers[0].get("type")))
        return format_of(info) if info else ""

    @property
    def codepage(self) -> str:
        """The code page the first header's characters are written in."""
        return header_codepage(int(self.options.get("ccsid") or CCSID_ASCII))


def resolve(r: ChainRequest, payload_needed: bool = True) -> Chain:
    """The chain ``r`` describes: the document's headers, then those of ``fields`` and
    ``properties`` in ``CHAIN_ORDER``. Every unusable value is refused at once
    (``ChainRefusedError``), then what building each header alone refuses."""
    headers, options, payload = _from_document(r.document)
    refused: list[tuple[str, str]] = []
    headers += _headers(r, refused)
    if refused:
        raise ChainRefusedError(refused)
    if not headers and r.document is None:
        raise InputError("give at least one header (--dlh, --rfh2, --xqh, ...) or --from")
    given = {"encoding": r.encoding, "ccsid": r.ccsid, "payload_ccsid": r.payload_ccsid,
             "payload_format": r.payload_format}
    options.update({k: v for k, v in given.items() if v is not None})
    if payload_needed:
        payload = _payload(r, options, payload)
    chain = Chain(headers, options, payload or b"")
    if r.document is None:
        refused = _build_refusals(chain)
        if len(refused) > 1:
            raise ChainRefusedError(refused)
    return chain


def _from_document(doc: Mapping[str, Any] | None) -> tuple[list[dict[str, Any]], dict[str, Any],
                                                           bytes | None]:
    """Headers, options and payload of a ``decode mq --json`` line (with ``--raw`` its
    payload bytes, else its text in its CCSID)."""
    if doc is None:
        return [], {}, None
    if isinstance(doc, Mapping) and doc.get("format", FORMAT) != FORMAT:
        raise InputError(f"format: {str(doc['format'])[:SHOWN]!r} is not an MQ message: rebuild it "
                         "with build-request of its own format")
    if isinstance(doc, Mapping) and "elements" not in doc and "headers" in doc:
        doc = {**doc, "elements": doc["headers"], "context": doc.get("mqmd")}  # messages --json
    if not isinstance(doc, Mapping) or not isinstance(doc.get("elements"), list):
        raise InputError("expected a 'decode mq --json' or 'messages --json' object with "
                         "\"elements\" or \"headers\"")
    ctx = doc.get("context") or {}
    pay = doc.get("payload") or {}
    for key, value in (("context", ctx), ("payload", pay)):
        if not isinstance(value, Mapping):
            raise InputError(f"\"{key}\" must be an object, as 'decode mq --json' writes it "
                             f"(got {type(value).__name__})")
    for where, obj, known in (("", doc, DOCUMENT_KEYS), ("payload.", pay, PAYLOAD_KEYS)):
        for key in obj:
            if key not in known:
                raise BuildError(FORMAT, f"{where}{key}", "is not something build-request mq "
                                                          "rebuilds or shows beside it")
    options = {"encoding": ctx.get("encoding", ENC_BIG), "ccsid": ctx.get("codedcharsetid", 819),
               "payload_format": pay.get("format", ""), "payload_encoding": pay.get("encoding"),
               "payload_ccsid": pay.get("ccsid")}
    payload = None
    if isinstance(pay.get("hex"), str):
        try:
            payload = bytes.fromhex(pay["hex"])
        except ValueError:
            raise InputError("payload.hex is not hex") from None
    elif "text" in pay:
        payload = str(pay["text"]).encode(ccsid_codec(pay.get("ccsid")) or "latin-1",
                                          errors="replace")
    if doc.get("pcf") is not None:  # a PCF payload: built from it, or checked against it
        payload = pcf_payload(doc["pcf"], payload, encoding=_int_or(options["payload_encoding"],
                                                                    options["encoding"]),
                              ccsid=_int_or(options["payload_ccsid"], options["ccsid"]))
    return [e for e in doc["elements"] if isinstance(e, dict)], options, payload


def _int_or(value: Any, default: Any) -> int:
    return value if isinstance(value, int) else default if isinstance(default, int) else 0


def _headers(r: ChainRequest, refused: list[tuple[str, str]]) -> list[dict[str, Any]]:
    headers: list[dict[str, Any]] = []
    for type_ in CHAIN_ORDER:
        if type_ == RFH2:
            folders = _folders(r.properties, refused)
            if folders:
                headers.append({"type": RFH2, "folders": folders})
            continue
        text = r.fields.get(type_)
        if text is None:
            continue
        try:
            fields = parse_fields(text)
        except ValueError as e:
            refused.append((type_, str(e)))
            continue
        names = header_layout(type_).names
        known = ", ".join(n for n in names if n != "strucid")
        bad = [(type_, f"{type_} has no field {name!r}; fields: {known}")
               for name in fields if name not in names]
        refused += bad
        if not bad:
            headers.append({"type": type_, "fields": dict(fields)})
    return headers


def _folders(properties: Iterable[str], refused: list[tuple[str, str]]) -> list[dict[str, Any]]:
    props: dict[str, dict[str, Any]] = {}
    dts: dict[str, dict[str, str]] = {}
    for text in properties:
        try:
            folder, prop, value, dt = parse_property(text)
        except ValueError as e:
            refused.append((RFH2, str(e)))
            continue
        props.setdefault(folder, {})[prop] = value
        if dt:
            dts.setdefault(folder, {})[prop] = dt
    return [{"name": f, "properties": p, "dt": dts.get(f, {})} for f, p in props.items()]


def _payload(r: ChainRequest, options: dict[str, Any], payload: bytes | None) -> bytes | None:
    if r.payload_text is not None and r.payload is not None:
        raise InputError("give the payload as text or as bytes, not both")
    if r.payload is not None:
        return r.payload
    if r.payload_text is None:
        return payload
    options.setdefault("payload_format", "MQSTR")
    cc = options.get("payload_ccsid") or options.get("ccsid", CCSID_ASCII)
    try:
        return r.payload_text.encode(ccsid_codec(cc) or "latin-1")
    except UnicodeEncodeError as e:
        raise ChainRefusedError([("payload", f"has characters CCSID {cc} lacks: {e.reason}")]
                                ) from None


def _build_refusals(chain: Chain) -> list[tuple[str, str]]:
    """What building each header of the chain alone — each of its fields alone — refuses."""
    out = []
    for h in chain.headers:
        fields = h.get("fields") or {}
        for one in ([{**h, "fields": {k: v}} for k, v in fields.items()] if fields else [h]):
            try:
                Chain([one], chain.options).build(b"")
            except BuildError as e:
                out.append((str(h.get("type", "header")), str(e)))
    return out


def with_mqmd(chain: Chain, data: bytes) -> bytes:
    """``data`` behind an MQMD version 2 whose Format, Encoding and CCSID announce the
    chain (what MQMD-prefixed binary dumps hold)."""
    from mqtool.formats.mq.mqmd import build_mqmd

    enc = int(chain.options.get("encoding", ENC_BIG))
    return build_mqmd({"format": chain.first_format, "encoding": enc,
                       "codedcharsetid": int(chain.options.get("ccsid", CCSID_ASCII)),
                       "msgtype": 8}, big=(enc & 0xF) != 2) + data


def wrapped(messages: Iterable[Message], chain: Chain) -> Iterator[Message]:
    """Every message with its body wrapped in the chain: the headers take over each
    message's Format, Encoding and CCSID (a dead-letter queue from an MQDLH)."""
    for msg in messages:
        md = msg.mqmd
        enc = md.get("encoding") if isinstance(md.get("encoding"), int) else 546
        cc = md.get("codedcharsetid") if isinstance(md.get("codedcharsetid"), int) else 819
        encoding, ccsid = chain.options.get("encoding", enc), chain.options.get("ccsid", cc)
        body = chain.build(msg.body, encoding=encoding, ccsid=ccsid,
                           payload_format=str(md.get("format") or ""), payload_encoding=enc,
                           payload_ccsid=cc)
        yield replace(msg, body=body, mqmd={**md, "format": chain.first_format,
                                            "encoding": encoding, "codedcharsetid": ccsid})
