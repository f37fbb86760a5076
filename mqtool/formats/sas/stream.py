"""One message body of any size, decoded in bounded memory.

A body up to ``WHOLE`` bytes is decoded at once (``decode.decode_part``). A larger one is read
a ``PIECE`` at a time: external-file records and application bytes come out as one unit per
piece (offsets absolute, a record running on into the next piece is no problem); a message
kind that cannot be that large (header, count, file information, data set definitions) is
refused with its first bytes shown. With ``auto`` a large body is taken as records only when
a first pass finds a record stream that ends exactly at the end of the input.
"""

from __future__ import annotations

import io
import os
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import IO

from mqtool.formats.mq.dumps.read import Message
from mqtool.formats.sas.decode import (
    Hints,
    MessageDecoder,
    RecordError,
    RecordStream,
    dataset_type,
    decode_application,
    decode_part,
    decode_records,
    guess_settings,
    unrecognised,
)
from mqtool.formats.sas.layout import DATASET_MESSAGES, OBSERVATIONS, Settings, type_word
from mqtool.model import Decoded, Element, shift_unit

WHOLE = 1 << 20  # bytes decoded at once
PIECE = 256 << 10  # bytes per unit of a larger body


def decode_body(f: IO[bytes], part: str = "auto", hints: Hints | None = None, *,
                text: bool = False, head: bytes = b"") -> Iterator[tuple[Decoded, bytes]]:
    """``(unit, its bytes)`` of the body read from ``f`` (after ``head``, bytes already read
    from it). Memory stays bounded by ``WHOLE`` and ``PIECE`` whatever the input's size."""
    hints = hints or Hints()
    head += f.read(WHOLE + 1 - len(head)) if len(head) <= WHOLE else b""
    if len(head) <= WHOLE:
        yield decode_part(head, part, hints, text=text), head
        return
    src = _seekable(f, head)
    try:
        yield from _large(src, head, part, hints, text)
    finally:
        if src is not f:
            src.close()


def _seekable(f: IO[bytes], head: bytes) -> IO[bytes]:
    """``f`` rewound, or (a pipe) a temporary file holding ``head`` and the rest of it."""
    try:
        if f.seekable():
            f.seek(f.tell() - len(head))
            return f
    except (OSError, ValueError):
        pass
    spool = tempfile.TemporaryFile(prefix="mqtool-body-")  # noqa: SIM115 - closed by caller
    spool.write(head)
    while block := f.read(PIECE):
        spool.write(block)
    spool.seek(0)
    return spool


def _large(src: IO[bytes], head: bytes, part: str, hints: Hints, text: bool
           ) -> Iterator[tuple[Decoded, bytes]]:
    start = src.tell()
    size = src.seek(0, os.SEEK_END) - start
    src.seek(start)
    s = guess_settings(head, hints)
    kind = dataset_type(head, s)
    if part == "application":
        yield from _pieces(src, start, size, "application", lambda data, base, more:
                           _application(data, base, s))
        return
    if part == "records" or (part == "auto" and _records_fit(src, start, size, s)):
        rs = RecordStream(s)
        yield from _pieces(src, start, size, "records", lambda data, base, more:
                           decode_records(data, s, text, rs, base=base, more=more))
        return
    if part in ("auto", "dataset") and kind == OBSERVATIONS:
        tw = type_word(s)
        yield from _pieces(src, start, size, "observations", lambda data, base, more:
                           _observations(data, base, tw, s))
        return
    what = {"auto": "attachment message", "dataset": DATASET_MESSAGES.get(kind or 0, "data set "
                                                                          "message")}.get(part, part)
    reason = (f"a {what} of {size} bytes is not plausible (records and application messages "
              f"of more than {WHOLE} bytes are decoded a piece at a time; --part names the "
              "message kind)")
    if part == "auto":
        reason = ("not an attachment header, and no subordinate message shape fits (records "
                  f"would not end with the message); {size} bytes")
    yield unrecognised(head, reason, size), head[:WHOLE]


def _records_fit(src: IO[bytes], start: int, size: int, s: Settings) -> bool:
    """Does the whole input read as a ``len|record`` stream that ends with it? Stops at
    the first record longer than what is left."""
    rs = RecordStream(s)
    pos = 0
    try:
        src.seek(start)
        while block := src.read(PIECE):
            for kind, _a, b, value in rs.pieces(block):
                if kind == "len" and value > size - (pos + b):
                    return False
            pos += len(block)
    except RecordError:
        return False
    finally:
        src.seek(start)
    return rs.at_boundary and rs.records > 0


def _pieces(src: IO[bytes], start: int, size: int, what: str, decode: object
            ) -> Iterator[tuple[Decoded, bytes]]:
    base = 0
    src.seek(start)
    while base < size:
        data = src.read(min(PIECE, size - base))
        if not data:
            break
        unit = decode(data, base, base + len(data) < size)  # type: ignore[operator]
        unit.title = (f"{what}, bytes X'{base:X}'-X'{base + len(data) - 1:X}' of a "
                      f"{size}-byte message")
        yield unit, data
        base += len(data)


def _application(data: bytes, base: int, s: Settings) -> Decoded:
    unit = shift_unit(decode_application(data, s), base)
    for el in unit.elements:
        el.title = f"APPLICATION message bytes at offset X'{base:04X}'"
    return unit


def _observations(data: bytes, base: int, tw: int, s: Settings) -> Decoded:
    unit = Decoded("sas-attachment", base, len(data), attrs={"part": "dataset", **s.attrs()})
    skip = tw if base == 0 else 0
    unit.elements.append(Element("OBSERVATIONS", base + skip, len(data) - skip,
                                 data=data[skip:], data_offset=base + skip,
                                 title=f"OBSERVATIONS bytes at offset X'{base + skip:04X}' (no "
                                 "variable definitions seen: not decoded)"))
    return unit


def decode_messages(messages: Iterable[Message], hints: Hints | None = None,
                    obs_layout: str = "definition") -> Iterator[tuple[Decoded, bytes]]:
    """``decode.decode_messages`` in bounded memory: a message body larger than ``WHOLE`` is
    decoded on its own, a piece at a time, instead of in the role its header gives it."""
    from mqtool.codepages import ccsid_codec
    from mqtool.formats.mq.dumps.read import label_unit
    from mqtool.formats.mq.mqmd import byte_order_of

    hints = hints or Hints()
    decoder = MessageDecoder(hints, obs_layout)
    for msg in messages:
        if len(msg.body) <= WHOLE:
            yield decoder.decode(msg)
            continue
        h = replace(hints, mqmd_byte_order=byte_order_of(msg.encoding),
                    mqmd_codepage=ccsid_codec(msg.ccsid))
        role = f"{len(msg.body)} bytes, decoded on its own a piece at a time"
        for k, (unit, data) in enumerate(decode_body(io.BytesIO(msg.body), "auto", h)):
            yield label_unit(unit, msg if k == 0 else replace(msg, problems=[]), role), data
