"""The formats mqtool knows, and what follows from the list: names, detectors, queue dumps.

``CODECS`` is the one list of formats: one ``codec.Codec`` per format package, each
declared in ``mqtool/formats/<name>/codec.py``. Everything that names formats derives from
it: ``codec(name)`` (names and aliases), ``identify`` (every codec's detector, then the text
kinds no codec owns: queue dumps, by the producers a codec declares, and hex dump text,
whose bytes are identified in turn), the codec a queue-dump message's MsgType names, the
commands ``decode NAME`` and ``build-request NAME``, ``mqtool layouts``' format names.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, cast

from mqtool.codec import Codec, MessageDecoder
from mqtool.errors import InputError, MqtoolError
from mqtool.formats.csq1logp.codec import CODEC as CSQ1LOGP
from mqtool.formats.matqmsg.codec import CODEC as MATQMSG
from mqtool.formats.mq.codec import CODEC as MQ
from mqtool.formats.osb.codec import CODEC as REDOLOG
from mqtool.formats.sas.codec import CODEC as SAS_ATTACHMENT
from mqtool.formats.urb.codec import CODEC as URB
from mqtool.io.inputs import QueueDumps, as_bytes, as_text
from mqtool.model import Decoded, Detection, Problem

if TYPE_CHECKING:
    from mqtool.formats.mq.chain import Chain
    from mqtool.formats.mq.dumps.message import Message

CODECS: tuple[Codec, ...] = (URB, CSQ1LOGP, SAS_ATTACHMENT, REDOLOG, MATQMSG, MQ)

DUMP_TEXT = "dump"  # the format name of hex dump text whose bytes no codec recognises
QUEUE_DUMP = "queue-dump"  # the format name of a failing queue-dump sniffer's answer


def names() -> list[str]:
    """Every format's name, in the order of ``CODECS``."""
    return [c.name for c in CODECS]


def codec(name: str) -> Codec:
    """The codec of a format name or alias; a clear error for unknown names."""
    found = next((c for c in CODECS if name.lower() in c.names), None)
    if found is None:
        import difflib

        every = {n: c.name for c in CODECS for n in c.names}
        close = dict.fromkeys(every[n] for n in difflib.get_close_matches(name.lower(), every))
        hint = f"did you mean {' or '.join(map(repr, close))}? " if close else ""
        raise InputError(f"unknown format {name!r}; {hint}known: {', '.join(names())}")
    return found


def queue_dumps() -> dict[str, str]:
    """The queue-dump producers mqtool reads (name -> what it is), as their codec declares them."""
    return {kind: words for c in CODECS for kind, words in c.dump_kinds.items()}


def sniff_dump(head: bytes) -> str | None:
    """Which queue-dump producer wrote a file starting with ``head``, or None."""
    for c in CODECS:
        if c.sniff_dump is not None:
            kind = c.sniff_dump(head)
            if kind:
                return kind
    return None


def queue_dump_reader(say: Callable[[str], None]) -> QueueDumps:
    """The reader of the queue dumps the codecs declare (for ``io.inputs.sources``);
    unreadable files or messages of a dump are said with ``say``."""
    reader = next((c.dump_reader for c in CODECS if c.dump_reader is not None), None)
    if reader is None:
        raise InputError("no codec reads queue dumps")
    return reader(say)


def msgtype_codec(msgtype: int | None) -> Codec | None:
    """The codec whose bodies a queue-dump message of this MQMD MsgType carries."""
    return next((c for c in CODECS if msgtype in c.msgtypes), None)


# --------------------------------------------------------------------------- identify


def identify(data: bytes, *, text_kinds: bool = True) -> list[Detection]:
    """Every opinion about ``data``, best first: each codec's detector, then (``text_kinds``)
    queue dumps and hex dump text. A detector that fails is listed with confidence 0 and
    its error, so one codec's bug cannot hide the others' answers."""
    found: list[Detection] = []
    for c in CODECS:
        try:
            d = c.detect(data)
        except Exception as e:  # noqa: BLE001 - reported as a candidate, see docstring
            d = Detection(c.name, 0.0, f"detector failed: {type(e).__name__}: {e}")
        if d is not None:
            found.append(d)
    found = [_with_payload(d, data) if d.format == MQ.name and d.confidence > 0 and
             "mqmd" not in d.options else d for d in found]  # a PCF body is its own payload
    if text_kinds:
        found += text_detections(data)
    return sorted(found, key=lambda d: -d.confidence)


def _with_payload(d: Detection, data: bytes) -> Detection:
    """An MQ header chain detection that also names what its payload is."""
    from mqtool.formats.mq.chain import walk

    chain = walk(data)
    if chain.errors or not chain.payload_length:
        return d
    inner = best_codec(identify(_tail(data, chain.payload_offset), text_kinds=False))
    if inner is None:
        return d
    return Detection(d.format, d.confidence,
                     f"{d.reason}; payload: {inner.format} ({inner.confidence:.2f}) {inner.reason}",
                     {**d.options, "payload": inner.format})


def _tail(data: bytes, at: int) -> bytes:
    """``data[at:]`` without copying it (a message's payload can be hundreds of MiB): a
    memoryview, which the detectors read as they read bytes (slices, comparisons,
    ``int.from_bytes``: the same detections over every file of the test data)."""
    return cast(bytes, memoryview(data)[at:])


def best_codec(found: list[Detection]) -> Detection | None:
    """The most confident detection a registered codec can decode."""
    known = names()
    return next((d for d in found if d.format in known and d.confidence > 0), None)


def text_detections(data: bytes) -> list[Detection]:
    """Queue dumps (by the producers the codecs declare) and hex dump text (its bytes
    identified in turn)."""
    found: list[Detection] = []
    try:
        kind = sniff_dump(data)
    except Exception as e:  # noqa: BLE001 - reported like a failing detector
        kind = None
        found.append(Detection(QUEUE_DUMP, 0.0, f"queue dump sniffer failed: "
                                                f"{type(e).__name__}: {e}"))
    if kind:
        return [Detection(kind, 0.9, queue_dumps()[kind], {"queue_dump": kind})]
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


# --------------------------------------------------------------------------- decoding


def decode_blob(fmt: str, data: bytes | memoryview,
                **options: object) -> Iterator[tuple[Decoded, bytes]]:
    """Every unit of ``data`` decoded as ``fmt`` (streamed; ``mq`` units decoded now), each with
    its own bytes; for ``mq`` the header chain first, then its payload with the codec that
    recognises it (offsets in the payload's units count from the payload's start, which
    their title gives). ``data`` may be a mapped input (``io.inputs.Input.view``): the MQ
    decoder reads it as bytes without copying it (only the headers' pages and the part of
    the payload it shows are read); other codecs are given its bytes."""
    options.pop("payload", None)
    c = codec(fmt)
    data = given(c, data)
    if c is not MQ:  # streamed: a large input is never held as a list of units
        return ((u, data[u.offset:u.offset + u.length]) for u in c.decode(data, **options))
    units = list(c.decode(data, **options))
    own = ((u, data[u.offset:u.offset + u.length]) for u in units)
    if not units:
        return own
    return itertools.chain(own, _payload_units(units[0], data))


def given(c: Codec, data: bytes | memoryview) -> bytes:
    """What codec ``c`` is given of an input: the MQ and URB decoders read a mapped input
    (``io.inputs.Input.view``) in place, as they read bytes (slices, comparisons,
    ``memoryview``: only the headers' pages and the part of a payload or record image
    shown are read); every other codec its bytes (``io.inputs.as_bytes``)."""
    return cast(bytes, data) if c in (MQ, URB) else as_bytes(data)


def _payload_units(unit: Decoded, data: bytes) -> Iterator[tuple[Decoded, bytes]]:
    chain: Chain | None = getattr(unit, "chain", None)
    if chain is None or chain.errors or not chain.payload_length:
        return
    at = chain.payload_offset
    view = _tail(data, at)  # judged without a copy: most payloads are no codec's
    choice = best_codec([d for d in identify(view, text_kinds=False) if d.format != MQ.name])
    if choice is None:
        return
    payload = bytes(view)
    for unit in codec(choice.format).decode(payload, **choice.options):
        unit.title = (f"payload at offset X'{at:04X}' of the message, decoded as "
                      f"{choice.format} ({choice.confidence:.2f}); offsets below count from "
                      f"the payload" + (f": {unit.title}" if unit.title else ""))
        unit.attrs = {"payload_offset": at, **unit.attrs}
        yield unit, payload[unit.offset:unit.offset + unit.length]


def decode_messages(messages: Iterable[Message]) -> Iterator[tuple[Decoded, bytes]]:
    """Each message of a queue dump: its MQ header chain first (MQDLH, MQRFH2, ... as
    MQMD.Format names them), then its payload (the body when there are no headers) decoded
    with the codec its MsgType names (its ``message_decoder`` keeps state across messages),
    or else the codec that recognises it best; each unit says which message it came from.
    A character payload no codec recognises is shown as text in its CCSID by the header
    unit."""
    from mqtool.formats.mq.dumps.message import label_unit

    stateful: dict[str, MessageDecoder] = {}
    for msg in messages:
        headers = _header_chain(msg)
        if headers is not None:
            from mqtool.formats.mq.chain import payload_message

            chain, unit = headers
            yield label_unit(unit, msg), msg.body
            if chain.errors or not chain.payload_length or chain.pcf is not None:
                continue  # a PCF payload: decoded with the headers
            msg = payload_message(replace(msg, problems=[]), chain)
        owner = msgtype_codec(msg.msgtype)
        if owner is not None and owner.message_decoder is not None:
            if owner.name not in stateful:
                stateful[owner.name] = owner.message_decoder()
            yield stateful[owner.name].decode(msg)
            continue
        yield from _recognised(msg, said=headers is not None)


def _recognised(msg: Message, said: bool) -> Iterator[tuple[Decoded, bytes]]:
    """A message body decoded with the codec that recognises it best (nothing when none
    does and ``said``: its header unit shows the payload)."""
    from mqtool.formats.mq.dumps.message import label_unit

    body = msg.body
    choice = best_codec([d for d in identify(body, text_kinds=False)
                         if d.format != MQ.name or "mqmd" in d.options])  # a PCF body
    if choice is None:
        if said:
            return
        text = _text_unit(msg)
        if text is not None:  # Format MQSTR: its text, in its CCSID
            yield label_unit(text, msg, "text"), body
            return
        unit = Decoded("unknown", 0, len(body))
        unit.problems.append(Problem("", 0, f"no codec recognises this {len(body)}-byte body"))
        yield label_unit(unit, msg, "not decoded"), body
        return
    for unit in codec(choice.format).decode(body, **choice.options):
        yield (label_unit(unit, msg, f"{choice.format} ({choice.confidence:.2f})"),
               body[unit.offset:unit.offset + unit.length])


def _text_unit(msg: Message) -> Decoded | None:
    """The MQ unit of a character message (MQMD Format ``MQSTR``): its payload as text."""
    from mqtool.formats.mq.chain import walk
    from mqtool.formats.mq.decode import unit_of

    chain = walk(msg.body, msg.mqmd)
    if chain.elements or chain.errors or chain.payload_text(msg.body) is None:
        return None
    return unit_of(msg.body, msg.mqmd, chain)


def _header_chain(msg: Message) -> tuple[Chain, Decoded] | None:
    """``(chain, unit)`` when the message's body wears MQ headers or is a PCF message
    (``formats.mq.chain.announces_headers``)."""
    from mqtool.formats.mq.chain import announces_headers, walk
    from mqtool.formats.mq.decode import unit_of

    if not announces_headers(msg.mqmd, msg.body):
        return None
    chain = walk(msg.body, msg.mqmd)
    return chain, unit_of(msg.body, msg.mqmd, chain)
