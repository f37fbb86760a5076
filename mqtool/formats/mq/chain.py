"""Walking the MQ header chain of a message body.

The MQMD's Format names the first header; each header's Format, Encoding and CodedCharSetId
describe what follows it, until a Format that is no header (``MQSTR``, blanks, ``MQADMIN``,
an application's own) says where the application data starts. A header's integers are in
the Encoding, and its characters in the CCSID, of the structure before it. Without an MQMD
the first header is recognised by its StrucId (ASCII or EBCDIC) and its Version's byte order.

Everything comes from the declarations in ``layout``: offsets, sizes, which structure a
Format names, what trails a header's fixed part.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from mqtool.codepages import ccsid_codec, is_ebcdic_ccsid
from mqtool.compose import Hook, Nest, Record
from mqtool.errors import DecodeError
from mqtool.formats.mq import compose as mqc
from mqtool.formats.mq import layout as lay
from mqtool.formats.mq import rfh2
from mqtool.formats.mq.meanings import MQCCSI_INHERIT, reason_name
from mqtool.formats.mq.mqmd import byte_order_of
from mqtool.formats.mq.pcf import Pcf, decode_pcf
from mqtool.layout import Layout
from mqtool.model import HEX, INT, TEXT, Element, Problem, Span, element_json

FORMAT = lay.FORMAT
ENC_BIG, ENC_LITTLE = 0x111, 0x222  # MQENC for "integers normal / reversed" when guessing
CCSID_ASCII, CCSID_EBCDIC = 819, 500  # what a header found by StrucId alone is taken to be
# The most headers one message body is walked through. IBM MQ puts at most one of each
# header it adds in front of a message (MQXQH on a transmission queue, MQDLH on a
# dead-letter queue, MQMDE, MQRFH2, a bridge header MQCIH / MQIIH / MQWIH, MQTM ...: the
# Format names in "IBM MQ, MQMD - Format field"), and applications add a few MQRFH2 or
# MQRFH of their own: a real chain is a handful of headers, and 256 is far past any.
# A longer chain is bad input (a loop of MQMDE / MQHMDE formats, a fuzzer's): walking it
# would cost time and memory in proportion, so the walk stops there with an error naming
# the offset of the first header not read; the headers before it are kept.
MAX_HEADERS = 256
PIECE = 1 << 20  # bytes of a payload decoded (or written in hex) at a time for --json


@dataclass
class Chain:
    """The headers of one message body and where its application data starts.
    ``properties``: the message properties of its MQRFH2 folders and MQRFH strings by
    ``folder.name``; one given twice (in two headers) has the later value, as the header
    nearer the payload is read last (each header's own values stay in its element)."""

    elements: list[Element] = field(default_factory=list)
    properties: dict[str, Any] = field(default_factory=dict)
    payload_offset: int = 0
    payload_format: str = ""
    payload_encoding: int = 0
    payload_ccsid: int = 0
    errors: list[Problem] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    body_length: int = 0
    pcf: Pcf | None = None  # the payload decoded when its Format is MQADMIN / MQEVENT / MQPCF

    def headers_json(self) -> list[dict[str, object]]:
        """One object per header: ``type``, ``offset``, ``length``, ``fields``, ``meanings``."""
        return [element_json(el) for el in self.elements]

    @property
    def types(self) -> list[str]:
        return [el.type for el in self.elements]

    @property
    def dead_letter_reason(self) -> tuple[int, str] | None:
        """``(2051, "MQRC_PUT_INHIBITED")`` from the first MQDLH, None without one."""
        for el in self.elements:
            if el.type == "MQDLH":
                reason = el.value("reason")
                if isinstance(reason, int):
                    return reason, reason_name(reason)
        return None

    @property
    def payload_length(self) -> int:
        return max(0, self.body_length - self.payload_offset)

    def payload_codec(self) -> str | None:
        """The codec of the payload's characters (its CCSID), None when there is none."""
        return ccsid_codec(self.payload_ccsid, byte_order_of(self.payload_encoding) != "little")

    def payload_json(self, body: bytes, hole: str | None = None) -> dict[str, Any]:
        """``format``, ``offset``, ``length``, ``encoding``, ``ccsid``, and ``text`` for a
        character payload (Format ``MQSTR``) in its CCSID (``hole`` instead, when given:
        the text is written apart, piece by piece)."""
        out: dict[str, Any] = {"format": self.payload_format, "offset": self.payload_offset,
                               "length": self.payload_length, "encoding": self.payload_encoding,
                               "ccsid": self.payload_ccsid}
        text = self.payload_text(body, None if hole is None else 0)
        if text is not None:
            out["text"] = text if hole is None else hole
        return out

    def payload_text_pieces(self, body: bytes, size: int = PIECE) -> Iterator[str] | None:
        """``payload_text`` a piece at a time (``size`` bytes each, decoded as one): the
        same text whatever the payload's size, without holding it whole."""
        if self.payload_text(body, 0) is None:
            return None
        decoder = codecs.getincrementaldecoder(self.payload_codec() or "latin-1")(
            errors="replace")
        view = memoryview(body)
        ends = range(self.payload_offset + size, len(body) + size, size)
        return (decoder.decode(view[end - size:min(end, len(body))], final=end >= len(body))
                for end in ends)

    def payload_text(self, body: bytes, limit: int | None = None) -> str | None:
        """A character payload (Format ``MQSTR``) in its CCSID, None for any other; at most
        its first ``limit`` bytes (a character cut there is left out)."""
        if self.payload_format not in lay.TEXT_FORMATS or self.errors:
            return None
        codec = self.payload_codec() or "latin-1"
        end = len(body) if limit is None else min(len(body), self.payload_offset + limit)
        try:
            decoder = codecs.getincrementaldecoder(codec)(errors="replace")
            return decoder.decode(memoryview(body)[self.payload_offset:end], final=limit is None
                                  or end == len(body))
        except LookupError:
            return None


# --------------------------------------------------------------------------- variants


def header_codepage(ccsid: int | None) -> str:
    """The code page a header's character fields are read in: the CCSID's, when it is a
    single-byte page that maps every byte; else cp037 for EBCDIC and latin-1 otherwise."""
    return _header_codepage(ccsid if isinstance(ccsid, int) else None)


@lru_cache(maxsize=64)
def _header_codepage(ccsid: int | None) -> str:
    codec = ccsid_codec(ccsid)
    if codec:
        try:
            if len(bytes(range(256)).decode(codec)) == 256:
                return codec
        except (UnicodeDecodeError, LookupError):
            pass
    return "cp037" if is_ebcdic_ccsid(ccsid) else "latin-1"


def _int(raw: bytes, big: bool) -> int:
    return int.from_bytes(raw, "big" if big else "little", signed=True)


def _version_at(body: bytes, pos: int, big: bool) -> int | None:
    a = pos + lay.VERSION_OFFSET
    raw = bytes(body[a:a + lay.STRUC_ID_SIZE])
    return _int(raw, big) if len(raw) == lay.STRUC_ID_SIZE else None


@lru_cache(maxsize=256)
def _eye_codepage(eye: bytes, struc_id: str, ccsid: int | None) -> tuple[str, bool] | None:
    """``(codepage, as announced)`` in which ``eye`` spells ``struc_id``, None if in none."""
    declared = header_codepage(ccsid)
    other = "latin-1" if declared == "cp037" or is_ebcdic_ccsid(ccsid) else "cp037"
    for cp in (declared, other):
        if eye == struc_id.encode(cp):
            return cp, cp == declared
    return None


# StrucId bytes (ASCII and EBCDIC) -> (StrucId, EBCDIC?)
_EYES = {s.encode(cp): (s, cp == "cp037") for s in lay.STRUC_IDS for cp in ("latin-1", "cp037")}


def sniff(body: bytes, pos: int = 0) -> tuple[Record, bool, bool] | None:
    """``(header, big, ebcdic)`` when a header StrucId with a plausible Version is at ``pos``."""
    found = _EYES.get(bytes(body[pos:pos + lay.STRUC_ID_SIZE]))
    if found is None:
        return None
    struc_id, ebcdic = found
    if struc_id == "TMC ":
        return mqc.BY_TYPE["MQTMC2"], True, ebcdic
    for big in (True, False):
        version = _version_at(body, pos, big)
        if version is not None and version in lay.PLAUSIBLE_VERSIONS:
            h = mqc.header_for(struc_id, version)
            return (h, big, ebcdic) if h else None
    return None


def starts_like_header(body: bytes) -> bool:
    """Is ``body`` (shorter than a StrucId and Version) the start of a header?"""
    head = bytes(body[:lay.STRUC_ID_SIZE])
    return bool(head) and any(s.encode(cp).startswith(head) for s in lay.STRUC_IDS
                              for cp in ("latin-1", "cp037"))


# --------------------------------------------------------------------------- walking


def as_int(value: Any, default: int = 0) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def walk(body: bytes, mqmd: Mapping[str, Any] | None = None) -> Chain:
    """The header chain of ``body``.

    ``mqmd``: lower-case MQMD names (``format``, ``encoding``, ``codedcharsetid`` ...) as the
    queue-dump readers give them (``Message.mqmd``); None, or no ``format`` in it = detect
    the first header by StrucId. Never raises for bad input: what could not be walked is
    in ``errors``, what looks wrong but was walked past is in ``problems``.
    """
    chain = Chain(body_length=len(body))
    header: Record | None
    if mqmd is not None and mqmd.get("format") is None:  # the dump did not say: look
        mqmd = None
    if mqmd is not None:
        fmt = str(mqmd.get("format") or "").strip()
        enc = as_int(mqmd.get("encoding"), ENC_BIG)
        ccsid = as_int(mqmd.get("codedcharsetid"), CCSID_ASCII)
        header = mqc.BY_FORMAT.get(fmt)
    else:
        found = sniff(body)
        if found is None:
            if starts_like_header(body) and len(body) < lay.VERSION_OFFSET + lay.STRUC_ID_SIZE:
                chain.errors.append(Problem("strucid", 0, f"MQ header truncated: {len(body)} "
                                            "bytes, too few for a StrucId and Version"))
            chain.payload_format = ""
            return chain
        header, big, ebcdic = found
        fmt = mqc.format_of(header)
        enc = ENC_BIG if big else ENC_LITTLE
        ccsid = CCSID_EBCDIC if ebcdic else CCSID_ASCII
    pos = 0
    walked = 0
    while header is not None:
        if walked == MAX_HEADERS:
            chain.errors.append(Problem(f"{header.type.lower()}.strucid", pos,
                                        f"MQ header chain longer than {MAX_HEADERS} headers "
                                        f"(mqtool's limit: a real message carries a handful); "
                                        f"{header.type} announced by Format {fmt!r} and what "
                                        "follows not decoded"))
            break
        walked += 1
        step = _walk_one(chain, body, pos, header, fmt, enc, ccsid)
        if step is None:
            break
        pos, fmt, enc, ccsid = step
        header = mqc.BY_FORMAT.get(fmt)
    chain.payload_offset = pos
    chain.payload_format, chain.payload_encoding, chain.payload_ccsid = fmt, enc, ccsid
    if fmt in lay.PCF_FORMATS and not chain.errors and pos < len(body):
        chain.pcf = decode_pcf(body, pos, byte_order_of(enc) != "little", header_codepage(ccsid),
                               ccsid)
        chain.errors += chain.pcf.errors
        chain.problems += chain.pcf.problems
    return chain


def announces_headers(mqmd: Mapping[str, Any] | None, body: bytes = b"") -> bool:
    """Does this MQMD's Format name a header (or a PCF message), or, when the dump gave no
    Format, does ``body`` start with a header's StrucId?"""
    fmt = None if mqmd is None else mqmd.get("format")
    if fmt is None:
        return sniff(body) is not None
    name = str(fmt).strip()
    return name in mqc.BY_FORMAT or name in lay.PCF_FORMATS


def unwrap(msg: Any) -> tuple[Any, Chain | None]:
    """A queue-dump message without its MQ headers: ``(message whose body is the payload and
    whose MQMD format / encoding / codedcharsetid are the payload's, chain)``; the message
    itself and None when it has no headers. A chain with ``errors`` leaves the body as is.
    ``msg`` is a dataclass with ``body`` and ``mqmd`` (``formats.mq.dumps.read.Message``)."""
    if not announces_headers(msg.mqmd, msg.body):
        return msg, None
    chain = walk(msg.body, msg.mqmd)
    return (msg if chain.errors else payload_message(msg, chain)), chain


def payload_message(msg: Any, chain: Chain) -> Any:
    """``msg`` with the payload ``chain`` found as its body and the payload's Format,
    Encoding and CCSID in its MQMD."""
    from dataclasses import replace

    return replace(msg, body=msg.body[chain.payload_offset:],
                   mqmd={**msg.mqmd, "format": chain.payload_format,
                         "encoding": chain.payload_encoding,
                         "codedcharsetid": chain.payload_ccsid})


def _walk_one(chain: Chain, body: bytes, pos: int, header: Record, fmt: str, enc: int,
              ccsid: int) -> tuple[int, str, int, int] | None:
    """Decode the header at ``pos``; the next position and what it says follows, or None
    when the walk stops here (errors / problems recorded)."""
    codepage = _codepage_at(chain, body, pos, header, fmt, ccsid)
    if codepage is None:
        return None
    header, big, version = _version(chain, body, pos, header, enc, codepage)
    layout = mqc.resolver(big, codepage)(f"{header.type}.v{version}")
    try:
        el = layout.parse(body, pos, fmt=FORMAT)
    except DecodeError as e:
        if isinstance(e.partial, Element):
            chain.elements.append(e.partial)
        chain.errors.append(Problem(e.path, e.offset, f"{_what(header.type, fmt)}: {e.reason}"))
        return None
    chain.elements.append(el)
    values = dict(zip(layout.names, [sp.value for sp in el.spans], strict=False))
    length = _struc_length(chain, pos, len(body) - pos, layout, header, values)
    if length is None:
        return None
    el.length = length
    nxt = _trailing(chain, body, pos, layout.size or 0, length, header, el, big, codepage)
    if nxt is None:
        return None
    if nxt:  # the embedded MQMD of an MQXQH says what follows
        length, fmt_n, enc_n, ccsid_n = nxt
        return pos + length, fmt_n, enc_n, ccsid_n
    if not mqc.chained(header):
        return pos + length, "", enc, ccsid
    next_ccsid = as_int(values["codedcharsetid"])
    next_enc = as_int(values["encoding"])
    return (pos + length, str(values["format"] or "").strip(),
            next_enc if byte_order_of(next_enc) else enc,
            ccsid if next_ccsid in (MQCCSI_INHERIT, 0) else next_ccsid)


_HEAD = lay.STRUC_ID_SIZE + lay.STRUC_ID_SIZE  # StrucId and Version: what says what a header is


def _what(name: str, fmt: str) -> str:
    return f"{name} (announced by Format {fmt!r})" if fmt else name


def _codepage_at(chain: Chain, body: bytes, pos: int, header: Record, fmt: str,
                 ccsid: int) -> str | None:
    """The code page the StrucId at ``pos`` is spelt in (a problem when not the CCSID's);
    None when the walk stops: too few bytes left (an error), or not the StrucId ``fmt``
    announced (a problem: the rest is data)."""
    name = header.type
    left = len(body) - pos
    if left < _HEAD:
        chain.errors.append(Problem(f"{name.lower()}.strucid", pos,
                                    f"{_what(name, fmt)} truncated: {left} bytes left, needs "
                                    f"{lay.fixed_size(name)}"))
        return None
    eye = bytes(body[pos:pos + lay.STRUC_ID_SIZE])
    found = _eye_codepage(eye, mqc.struc_id(header), ccsid)
    if found is None:
        chain.problems.append(Problem(
            f"{name.lower()}.strucid", pos,
            f"StrucId {eye.decode('latin-1')!r} (X'{eye.hex().upper()}') is not "
            f"{mqc.struc_id(header)!r}, which Format {fmt!r} announced; the rest is taken as data"))
        return None
    codepage, as_announced = found
    if not as_announced:
        chain.problems.append(Problem(f"{name.lower()}.strucid", pos,
                                      f"{name} is in {codepage}, not in the CCSID {ccsid} "
                                      "the structure before it gives"))
    return codepage


def _version(chain: Chain, body: bytes, pos: int, header: Record, enc: int,
             codepage: str) -> tuple[Record, bool, int]:
    """``(header, big-endian?, Version)`` of the header at ``pos``: its Version read in the
    byte order ``enc`` gives, or in the other with a problem when only that one reads a
    plausible Version; an MQRFH's Version says whether it is an MQRFH2; a Version mqtool
    does not know is read as the highest it knows (a problem)."""
    name = header.type
    big = byte_order_of(enc) != "little"
    version = _version_at(body, pos, big)
    if version not in lay.PLAUSIBLE_VERSIONS and header.type != "MQTMC2":
        other = _version_at(body, pos, not big)
        if other in lay.PLAUSIBLE_VERSIONS:
            chain.problems.append(Problem(
                f"{name.lower()}.version", pos + lay.VERSION_OFFSET,
                f"Encoding {enc} says {'big' if big else 'little'}-endian integers but "
                f"Version reads {version}; read {'little' if big else 'big'}-endian"))
            big, version = not big, other
    if mqc.struc_id(header) == "RFH ":
        header = mqc.header_for("RFH ", version or 0) or header
        name = header.type
    if header.type == "MQTMC2":
        version = 2 if bytes(body[pos + lay.VERSION_OFFSET:pos + _HEAD]) == "   2".encode(
            codepage) else 1
    if version is None or version not in mqc.versions(header):
        chain.problems.append(Problem(f"{name.lower()}.version", pos + lay.VERSION_OFFSET,
                                      f"{name} Version {version} is not one mqtool knows "
                                      f"({', '.join(map(str, mqc.versions(header)))}); read as "
                                      f"version {max(mqc.versions(header))}"))
        return header, big, max(mqc.versions(header))
    return header, big, version


def _struc_length(chain: Chain, pos: int, left: int, layout: Layout, header: Record,
                  values: Mapping[str, Any]) -> int | None:
    """The header's length: its StrucLength when it has one, else its fixed size; None
    (an error) when StrucLength is less than the fixed part or runs past the body."""
    length = layout.size or 0
    if not header.length:
        return length
    name = header.type
    struclength = as_int(values[header.length])
    where = f"{name.lower()}.{header.length}"
    at = pos + layout.offset_of(header.length)
    if struclength < length:
        chain.errors.append(Problem(where, at, f"{name} StrucLength {struclength} is less "
                                               f"than its fixed part ({length} bytes)"))
        return None
    if struclength > left:
        chain.errors.append(Problem(where, at, f"{name} truncated: StrucLength "
                                               f"{struclength}, {left} bytes left"))
        return None
    return struclength


def _trailing(chain: Chain, body: bytes, pos: int, fixed: int, length: int,
              header: Record, el: Element, big: bool,
              codepage: str) -> tuple[int, str, int, int] | tuple[()] | None:
    """What trails the fixed part, as the record declares it; ``()`` when nothing changes
    the walk, a new ``(length, format, encoding, ccsid)`` for a nested MQMD (the MQXQH
    MsgDesc), None when the walk must stop."""
    t = header.trailing
    if t is None:
        return ()
    start, end = pos + fixed, pos + length
    if isinstance(t.content, Nest):
        return _msgdesc(chain, body, start, fixed, t.content, el, big, codepage)
    if isinstance(t.content, Hook):
        TRAILING[t.content.name](chain, body, pos, start, end, el, big, codepage)
    return ()


def _msgdesc(chain: Chain, body: bytes, start: int, fixed: int, nest: Nest, el: Element,
             big: bool, codepage: str) -> tuple[int, str, int, int] | None:
    """The MQMD nested after an MQXQH's fixed part (IBM MQ, "MQXQH - MsgDesc field"): its
    Format, Encoding and CCSID say what follows the MQXQH."""
    md_layout = mqc.resolver(big, codepage)(nest.record)
    title = nest.title.format(offset=start)
    try:
        md = md_layout.parse(body, start, fmt=FORMAT, prefix="mqxqh.msgdesc")
    except DecodeError as e:
        if isinstance(e.partial, Element):
            e.partial.title = title
            el.children.append(e.partial)
            el.length = fixed + e.partial.length
        chain.errors.append(Problem(e.path, e.offset, f"MQXQH MsgDesc: {e.reason}"))
        return None
    md.title = title
    el.children.append(md)  # nested: the MQXQH spans its MsgDesc
    size = fixed + (md_layout.size or 0)
    el.length = size
    next_enc = as_int(md.value("encoding"))
    next_ccsid = as_int(md.value("codedcharsetid"))
    return (size, str(md.value("format") or "").strip(),
            next_enc if byte_order_of(next_enc) else (ENC_BIG if big else ENC_LITTLE),
            next_ccsid if next_ccsid > 0 else (CCSID_EBCDIC if codepage == "cp037"
                                               else CCSID_ASCII))


def _folders(chain: Chain, body: bytes, pos: int, start: int, end: int, el: Element, big: bool,
             codepage: str) -> None:
    """MQRFH2 NameValueLength / NameValueData pairs between the fixed part and StrucLength."""
    nv_ccsid = as_int(el.value("namevalueccsid"))
    codec = ccsid_codec(nv_ccsid, big) or "utf-8"
    prefix = el.type.lower()
    folders: list[dict[str, Any]] = []
    p, i = start, 0
    while p < end:
        size = lay.NAME_VALUE_LENGTH_SIZE
        if end - p < size:
            chain.problems.append(Problem(f"{prefix}.namevaluelength[{i}]", p,
                                          f"{end - p} bytes left in StrucLength, too few for a "
                                          "NameValueLength"))
            break
        raw = bytes(body[p:p + size])
        n = _int(raw, big)
        data_at = p + size
        if n < 0 or data_at + n > end:
            el.spans.append(Span(f"{prefix}.namevaluelength[{i}]", p, data_at, n, "", INT, "", raw))
            chain.problems.append(Problem(f"{prefix}.namevaluelength[{i}]", p,
                                          f"NameValueLength {n} runs past StrucLength "
                                          f"({end - data_at} bytes left)"))
            break
        data = bytes(body[data_at:data_at + n])
        try:
            text = data.decode(codec)
        except (UnicodeDecodeError, LookupError) as e:
            el.spans.append(Span(f"{prefix}.namevaluelength[{i}]", p, data_at, n, "", INT, "",
                                 raw))
            el.spans.append(Span(f"{prefix}.namevaluedata[{i}]", data_at, data_at + n, data,
                                 "", HEX, "hex", data))
            chain.problems.append(Problem(f"{prefix}.namevaluedata[{i}]", data_at,
                                          f"NameValueData is not {codec} "
                                          f"(NameValueCCSID {nv_ccsid}): {e}; kept as hex"))
            folders.append({"name": "", "offset": data_at, "length": n})
            p, i = data_at + n, i + 1
            continue
        try:
            folder, props = rfh2.parse_folder(text)
        except rfh2.FolderError as e:
            folder, props = "", {}
            where = data_at + len(text[:e.where].encode(codec))
            chain.problems.append(Problem(f"{prefix}.namevaluedata[{i}]", where,
                                          f"{e}; folder kept as text"))
        meaning = f"folder <{folder}>" if folder else "folder (not XML)"
        el.spans.append(Span(f"{prefix}.namevaluelength[{i}]", p, data_at, n, meaning, INT, "",
                             raw))
        el.spans.append(Span(f"{prefix}.namevaluedata[{i}]", data_at, data_at + n, text, "",
                             TEXT, "", data))
        if n % lay.FOLDER_ALIGN:
            chain.problems.append(Problem(f"{prefix}.namevaluelength[{i}]", p,
                                          f"NameValueLength {n} is not a multiple of "
                                          f"{lay.FOLDER_ALIGN}"))
        chain.properties.update(props)
        folders.append({"name": folder, "offset": data_at, "length": n})
        p, i = data_at + n, i + 1
    el.extra["folders"] = folders


_NVS_TOKEN = re.compile(r'"((?:[^"]|"")*)"|(\S+)')


def _name_value_string(chain: Chain, body: bytes, pos: int, start: int, end: int, el: Element,
                       big: bool, codepage: str) -> None:
    """MQRFH version 1: a string of name/value pairs, blank separated, values may be quoted."""
    data = bytes(body[start:end])
    text = data.decode(codepage)
    prefix = el.type.lower()
    el.spans.append(Span(f"{prefix}.namevaluestring", start, end, text, "", TEXT, "", data))
    tokens = [m.group(1).replace('""', '"') if m.group(1) is not None else m.group(2)
              for m in _NVS_TOKEN.finditer(text.rstrip(" \x00"))]
    if len(tokens) % 2:
        chain.problems.append(Problem(f"{prefix}.namevaluestring", start,
                                      f"NameValueString has {len(tokens)} tokens, not pairs"))
    for name, value in zip(tokens[::2], tokens[1::2], strict=False):
        chain.properties[f"rfh.{name}"] = value


def _rmh_strings(chain: Chain, body: bytes, pos: int, start: int, end: int, el: Element,
                 big: bool, codepage: str) -> None:
    """MQRMH source/destination environment and name strings (offsets from the MQRMH)."""
    el.data, el.data_offset = bytes(body[start:end]), start
    for part in ("srcenv", "srcname", "destenv", "destname"):
        n = as_int(el.value(f"{part}length"))
        off = as_int(el.value(f"{part}offset"))
        if n <= 0:
            continue
        if off < start - pos or pos + off + n > end:
            chain.problems.append(Problem(f"mqrmh.{part}offset", pos, f"{part} ({n} bytes at "
                                          f"{off}) lies outside the MQRMH"))
            continue
        el.extra[part] = bytes(body[pos + off:pos + off + n]).decode(codepage)


def _dh_records(chain: Chain, body: bytes, pos: int, start: int, end: int, el: Element,
                big: bool, codepage: str) -> None:
    """MQDH object records (MQOR) and put-message records (MQPMR)."""
    el.data, el.data_offset = bytes(body[start:end]), start
    count = as_int(el.value("recspresent"))
    fields = as_int(el.value("putmsgrecfields"))
    for kind, offset_field, layout in (
            ("MQOR", "objectrecoffset", mqc.resolver(big, codepage)("MQOR")),
            ("MQPMR", "putmsgrecoffset", lay.header_layout("MQPMR", big, codepage, fields))):
        off = as_int(el.value(offset_field))
        if off == 0 or not layout.size:
            continue
        for k in range(count):
            at = pos + off + k * layout.size
            if at < start or at + layout.size > end:
                field_at = el.offset + lay.header_layout("MQDH").offset_of(offset_field)
                chain.problems.append(Problem(f"mqdh.{offset_field}", field_at,
                                              f"{kind} {k + 1} of {count} (at {at}) lies "
                                              "outside the MQDH"))
                break
            rec = layout.parse(body, at, fmt=FORMAT, prefix=f"{kind.lower()}[{k}]")
            rec.title = f"{kind} {k + 1} of {count} at offset X'{at:04X}'"
            el.children.append(rec)


# The hooks that read what trails a fixed part (``Hook`` names in ``formats.mq.compose``)
TRAILING: dict[str, Callable[[Chain, bytes, int, int, int, Element, bool, str], None]] = {
    mqc.FOLDERS: _folders, mqc.NAME_VALUE_STRING: _name_value_string,
    mqc.RMH_STRINGS: _rmh_strings, mqc.DH_RECORDS: _dh_records}
