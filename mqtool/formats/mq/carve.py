"""Finding IBM MQ structures inside arbitrary bytes: MQMDs (StrucId ``MD  ``), the header
chain (MQDLH, MQRFH2, MQXQH, ... by StrucId, ASCII or EBCDIC, with a plausible Version) and
PCF messages (an MQCFH's StrucLength and Version). Each is confirmed by walking it with the
chain walker and the PCF decoder; the hit spans the MQMD, every header and a payload whose
length the bytes say (PCF parameters; character data up to its first control character); any other
payload's offset is handed back for the scanner to identify (``Found.payload_at``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mqtool.formats.mq import layout as lay
from mqtool.formats.mq import pcf_detect
from mqtool.formats.mq.chain import Chain, sniff, walk
from mqtool.formats.mq.meanings import reason_name
from mqtool.formats.mq.mqmd import EYE_ASCII, EYE_EBCDIC, MSGTYPES, byte_order_of, mqmd_layout, sniff_mqmd
from mqtool.io.carving import Found, Work
from mqtool.model import TEXT, Element

FORMAT = lay.FORMAT
_EYES = {s.encode(cp) for s in lay.STRUC_IDS for cp in ("latin-1", "cp037")}
SIGNATURES: tuple[bytes, ...] = (*sorted(_EYES), EYE_ASCII, EYE_EBCDIC, *pcf_detect.signatures())
PATTERNS: tuple[bytes, ...] = ()
BEFORE = pcf_detect.STRUCLENGTH_AT  # an MQCFH starts before its StrucLength
TEXT_LIMIT = 1 << 16  # character payloads are carved up to their first NUL, at most this
MAX_HEADERS = 1 << 20  # bytes the header walk is given at a time
_MQMD_TEXT = ("format", "replytoq", "replytoqmgr", "useridentifier", "putapplname", "putdate",
              "puttime")


def _printable(text: object) -> bool:
    return isinstance(text, str) and text.rstrip("\x00 ").isprintable()


def _texts_printable(el: Element) -> bool:
    return all(_printable(s.value) for s in el.spans if s.kind == TEXT)


def _text_length(data: bytes, codec: str) -> int:
    """How many leading bytes of ``data`` are text in ``codec``: up to the first control
    character other than tab and line ends (a single-byte page: one character a byte)."""
    try:
        text = data.decode(codec, errors="replace")
    except LookupError:
        text = data.decode("latin-1")
    if len(text) != len(data):
        text = data.decode("latin-1")
    for i, ch in enumerate(text):
        if not (ch.isprintable() or ch in "\t\r\n") or ch == "\ufffd":
            return i
    return len(text)


def confirm(view: bytes, at: int, final: bool, work: Work) -> Found | None:
    """The MQMD, header chain or PCF message whose signature is at ``at``."""
    head = bytes(view[at:at + lay.STRUC_ID_SIZE])
    if head in (EYE_ASCII, EYE_EBCDIC):
        return _mqmd(view, at, work)
    if head in _EYES:
        return _headers(view, at, work)
    return _pcf(view, at - pcf_detect.STRUCLENGTH_AT, work)


def confirm_start(view: bytes, at: int, final: bool, work: Work) -> Found | None:
    """A header chain or PCF message starting exactly at ``at`` (a payload)."""
    if bytes(view[at:at + lay.STRUC_ID_SIZE]) in _EYES:
        return _headers(view, at, work)
    return _pcf(view, at, work)


def _pcf(view: bytes, at: int, work: Work) -> Found | None:
    if at < 0:
        return None
    found = pcf_detect.find_pcf(view[:at + min(len(view) - at, MAX_HEADERS)], at)
    if found is None:
        return None
    work.count(found.length)
    return Found(at, found.length, FORMAT, "PCF message", 0.85, found.describe(), ("PCF",),
                 {"mqmd": found.mqmd()}, (), "pcf")


def _headers(view: bytes, at: int, work: Work) -> Found | None:
    found = sniff(view, at)
    if found is None:
        return None
    body = view[at:at + min(len(view) - at, MAX_HEADERS)]
    chain = walk(body)
    if not chain.elements or not _texts_printable(chain.elements[0]):
        return None
    return _chain_hit(view, at, body, chain, work, {}, ())


def _mqmd(view: bytes, at: int, work: Work) -> Found | None:
    variant = sniff_mqmd(view, at)
    if variant is None:
        return None
    big, ebcdic, version = variant
    layout = mqmd_layout(big, ebcdic, version)
    values = layout.values(view, at)
    if not all(_printable(values[n]) for n in _MQMD_TEXT) or byte_order_of(values["encoding"]) is None:
        return None
    size = layout.size or 0
    body = view[at + size:at + size + min(len(view) - at - size, MAX_HEADERS)]
    mqmd = {k: v for k, v in values.items() if k != "strucid"}
    chain = walk(body, mqmd)
    work.count(size)
    ctx = {"variant": f"MQMD version {version}, {'EBCDIC' if ebcdic else 'ASCII'}, "
                      f"{'big' if big else 'little'}-endian",
           "msgtype": values["msgtype"]}
    return _chain_hit(view, at, body, chain, work, ctx, ("MQMD",), size)


def _chain_hit(view: bytes, at: int, body: bytes, chain: Chain, work: Work,
               ctx: Mapping[str, Any], outer: tuple[str, ...], lead: int = 0) -> Found:
    """The hit of a walked chain: headers, then a payload whose length is known here."""
    work.count(chain.payload_offset)
    types = (*outer, *chain.types)
    end = chain.payload_offset
    payload_at = -1
    tail: tuple[str, ...] = ()
    what = ""
    if chain.pcf is not None and chain.pcf.elements and not chain.pcf.errors:
        end = max(el.offset + el.length for el in chain.pcf.elements)
        work.count(end - chain.payload_offset)
        tail, what = ("PCF",), "; PCF message"
    elif chain.payload_format in lay.TEXT_FORMATS and not chain.errors:
        end += _text_length(bytes(body[end:end + TEXT_LIMIT]), chain.payload_codec() or "latin-1")
        tail, what = (chain.payload_format,), f"; {chain.payload_format} text"
    elif not chain.errors and chain.payload_offset < len(body):
        payload_at = at + lead + chain.payload_offset
    errors = tuple(p.describe() for p in chain.errors)
    kind = outer[0] if outer else (types[0] if types else "MQ header")
    reason = chain.dead_letter_reason
    dl = f", dead-letter reason {reason[0]} {reason_name(reason[0])}" if reason else ""
    fmt = chain.payload_format or "(no Format)"
    variant = f"{ctx['variant']}, " if ctx.get("variant") else ""
    msgtype = ctx.get("msgtype")
    mt = f"MsgType {msgtype} {MSGTYPES.get(msgtype, '')}".rstrip() + ", " if msgtype else ""
    summary = (f"{variant}{mt}{' -> '.join(types) or 'no headers'}{dl}; payload {fmt}"
               f"{what}")
    confidence = 0.5 if errors else (0.7 if chain.problems else 0.9)
    carved_as = "mqmd-binary" if outer else FORMAT
    return Found(at, lead + end, carved_as, kind, confidence, summary, (*types, *tail), {},
                 errors, "mqmd" if outer else "mq", payload_at)
