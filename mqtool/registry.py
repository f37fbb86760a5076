"""Format name -> codec module, and the detectors ``decode auto`` / ``identify`` use.

Every format package has a ``codec`` module (``mqtool/formats/<name>/codec.py``) with the same small protocol:

    FORMAT: str                                       # "urb"
    def decode(data: bytes, **options) -> Iterator[Decoded]   # units, offsets into data
    def detect(data: bytes) -> Detection | None        # is this blob mine? how sure? why?

Codecs register by being listed in ``CODECS`` (one table, no if-chain); ``detectors()``
asks each one. Modules not present yet are skipped. ``identify()`` adds the text kinds no
codec owns: queue dumps (``io.queue_dump.sniff``, when that module exists) and hex dump
text, whose bytes are identified in turn.
"""

from __future__ import annotations

import importlib
import importlib.util
import itertools
from collections.abc import Callable, Iterable, Iterator
from types import ModuleType
from typing import Any

from mqtool.errors import InputError, MqtoolError
from mqtool.model import Decoded, Detection, Problem

CODECS: dict[str, str] = {
    "urb": "mqtool.formats.urb.codec",
    "sas-attachment": "mqtool.formats.sas.codec",
    "csq1logp": "mqtool.formats.csq1logp.codec",
    "redolog": "mqtool.formats.osb.codec",
    "matqmsg": "mqtool.formats.matqmsg.codec",
    "mq": "mqtool.formats.mq.codec",
}
MQ = "mq"  # the MQ header chain: its payload is identified / decoded in turn

# what io.queue_dump.sniff() may answer, in words
QUEUE_DUMPS = {
    "dmpmqmsg": "IBM MQ dmpmqmsg queue dump",
    "amqsbcg": "IBM MQ amqsbcg browse listing",
    "mqmd-binary": "MQMD-prefixed binary messages",
    "mqtool-dir": "mqtool queue-dump directory index",
}
DUMP_TEXT = "dump"  # the format name of hex dump text whose bytes no codec recognises
TEXT_LIMIT = 64 << 20  # larger inputs are not read as dump text


def available() -> list[str]:
    return [name for name, mod in CODECS.items() if importlib.util.find_spec(mod) is not None]


def codec(name: str) -> ModuleType:
    """The codec module of a format name; a clear error for unknown names."""
    module = CODECS.get(name)
    if module is None or importlib.util.find_spec(module) is None:
        raise InputError(f"unknown format {name!r}; known: {', '.join(available())}")
    return importlib.import_module(module)


def detectors() -> Iterator[tuple[str, Callable[[bytes], Detection | None]]]:
    for name in available():
        mod = importlib.import_module(CODECS[name])
        detect = getattr(mod, "detect", None)
        if detect is not None:
            yield name, detect


def identify(data: bytes, *, text_kinds: bool = True) -> list[Detection]:
    """Every opinion about ``data``, best first: each codec's detector, then (``text_kinds``)
    queue dumps and hex dump text. A detector that fails is listed with confidence 0 and
    its error, so one codec's bug cannot hide the others' answers."""
    found: list[Detection] = []
    for name, detect in detectors():
        try:
            d = detect(data)
        except Exception as e:  # noqa: BLE001 - reported as a candidate, see docstring
            d = Detection(name, 0.0, f"detector failed: {type(e).__name__}: {e}")
        if d is not None:
            found.append(d)
    found = [_with_payload(d, data) if d.format == MQ and d.confidence > 0 else d
             for d in found]
    if text_kinds:
        found += text_detections(data)
    return sorted(found, key=lambda d: -d.confidence)


def _with_payload(d: Detection, data: bytes) -> Detection:
    """An MQ header chain detection that also names what its payload is."""
    from mqtool.formats.mq.chain import walk

    chain = walk(data)
    if chain.errors or not chain.payload_length:
        return d
    inner = best_codec(identify(data[chain.payload_offset:], text_kinds=False))
    if inner is None:
        return d
    return Detection(d.format, d.confidence,
                     f"{d.reason}; payload: {inner.format} ({inner.confidence:.2f}) {inner.reason}",
                     {**d.options, "payload": inner.format})


def best_codec(found: list[Detection]) -> Detection | None:
    """The most confident detection a registered codec can decode."""
    names = set(available())
    return next((d for d in found if d.format in names and d.confidence > 0), None)


def _queue_dump_sniff() -> Callable[[bytes], str | None] | None:
    try:
        from mqtool.formats.mq.dumps import read as queue_dump  # type: ignore[attr-defined]
    except ImportError:
        return None
    return getattr(queue_dump, "sniff", None)


def as_text(data: bytes) -> str | None:
    """``data`` as text when it is text (UTF-8, no control characters but tab and newlines)."""
    if not data or len(data) > TEXT_LIMIT:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if any(ord(c) < 0x20 and c not in "\t\r\n" for c in text[:4096]):
        return None
    return text


def text_detections(data: bytes) -> list[Detection]:
    """Queue dumps (by ``io.queue_dump.sniff``) and hex dump text (its bytes identified)."""
    found: list[Detection] = []
    sniff = _queue_dump_sniff()
    if sniff is not None:
        try:
            kind = sniff(data)
        except Exception as e:  # noqa: BLE001 - reported like a failing detector
            kind = None
            found.append(Detection("queue-dump", 0.0, f"queue dump sniffer failed: "
                                                      f"{type(e).__name__}: {e}"))
        if kind:
            return [Detection(kind, 0.9, QUEUE_DUMPS.get(kind, f"{kind} queue dump"),
                              {"queue_dump": kind})]
    text = as_text(data)
    if text is None:
        return found
    from mqtool.io.undump import detect as dump_style
    from mqtool.io.undump import looks_like_dump, undump

    if not looks_like_dump(text):
        return found
    try:
        raw = undump(text)
    except MqtoolError:
        return found
    where = f"hex dump text ({dump_style(text)} style, {len(raw)} bytes)"
    inner = identify(raw, text_kinds=False) if raw else []
    if not inner:
        return [*found, Detection(DUMP_TEXT, 0.5, f"{where}; no codec recognises the bytes",
                                  {"hex": True})]
    return found + [Detection(d.format, d.confidence, f"{where}: {d.reason}",
                              {**d.options, "hex": True}) for d in inner]


def decode_blob(fmt: str, data: bytes, **options: Any) -> Iterator[tuple[Decoded, bytes]]:
    """Every unit of ``data`` decoded as ``fmt`` (streamed; ``mq`` units decoded now), each with
    its own bytes; for ``mq`` the header chain first, then its payload with the codec that
    recognises it (offsets in the payload's units count from the payload's start, which
    their title gives)."""
    options.pop("payload", None)
    if fmt != MQ:  # streamed: a large input is never held as a list of units
        return ((u, data[u.offset:u.offset + u.length]) for u in codec(fmt).decode(data, **options))
    units = list(codec(fmt).decode(data, **options))
    own = ((u, data[u.offset:u.offset + u.length]) for u in units)
    if not units:
        return own
    return itertools.chain(own, _payload_units(units[0], data))


def _payload_units(unit: Decoded, data: bytes) -> Iterator[tuple[Decoded, bytes]]:
    chain = getattr(unit, "chain", None)
    if chain is None or chain.errors or not chain.payload_length:
        return
    at = chain.payload_offset
    payload = data[at:]
    choice = best_codec([d for d in identify(payload, text_kinds=False) if d.format != MQ])
    if choice is None:
        return
    for unit in codec(choice.format).decode(payload, **choice.options):
        unit.title = (f"payload at offset X'{at:04X}' of the message, decoded as "
                      f"{choice.format} ({choice.confidence:.2f}); offsets below count from "
                      f"the payload" + (f": {unit.title}" if unit.title else ""))
        unit.attrs = {"payload_offset": at, **unit.attrs}
        yield unit, payload[unit.offset:unit.offset + unit.length]


# --------------------------------------------------------------------------- queue dumps

# MQMD MsgType values that name a codec: the protocol says what the body is
MSGTYPE_FORMATS = {100000: "sas-attachment", 100001: "sas-attachment"}


def decode_messages(messages: Iterable[Any]) -> Iterator[tuple[Decoded, bytes]]:
    """Each message of a queue dump (``io.queue_dump.Message``): its MQ header chain first
    (MQDLH, MQRFH2, ... as MQMD.Format names them), then its payload (the body when there
    are no headers) decoded with the codec its MsgType names (a codec's optional
    ``MessageDecoder`` keeps state across messages), or else the codec that recognises it
    best; each unit says which message it came from. A character payload no codec
    recognises is shown as text in its CCSID by the header unit."""
    from dataclasses import replace

    from mqtool.formats.mq.chain import payload_message
    from mqtool.formats.mq.dumps.read import label_unit

    stateful: dict[str, Any] = {}
    for msg in messages:
        headers = _header_chain(msg)
        if headers is not None:
            chain, unit = headers
            yield label_unit(unit, msg), msg.body
            if chain.errors or not chain.payload_length:
                continue
            msg = payload_message(replace(msg, problems=[]), chain)
        body, fmt = msg.body, MSGTYPE_FORMATS.get(msg.msgtype)
        if fmt in available():
            if fmt not in stateful:
                stateful[fmt] = codec(fmt).MessageDecoder()
            yield stateful[fmt].decode(msg)
            continue
        choice = best_codec([d for d in identify(body, text_kinds=False) if d.format != MQ])
        if choice is None:
            if headers is not None:
                continue  # the header unit shows the payload
            unit = Decoded("unknown", 0, len(body))
            unit.problems.append(Problem("", 0, f"no codec recognises this {len(body)}-byte body"))
            yield label_unit(unit, msg, "not decoded"), body
            continue
        for unit in codec(choice.format).decode(body, **choice.options):
            yield (label_unit(unit, msg, f"{choice.format} ({choice.confidence:.2f})"),
                   body[unit.offset:unit.offset + unit.length])


def _header_chain(msg: Any) -> tuple[Any, Decoded] | None:
    """``(chain, unit)`` when the message's body wears MQ headers or is a PCF message
    (``formats.mq.chain.announces_headers``)."""
    from mqtool.formats.mq.chain import announces_headers, walk
    from mqtool.formats.mq.codec import unit_of

    if not announces_headers(msg.mqmd, msg.body):
        return None
    chain = walk(msg.body, msg.mqmd)
    return chain, unit_of(msg.body, msg.mqmd, chain)
