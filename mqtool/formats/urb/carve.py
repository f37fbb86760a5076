"""Finding URB messages inside arbitrary bytes (Software AG, Event Replicator client
requests and replies, URBH): the URBH bytes every regular header starts with
(``layout.HEADER_PREFIXES``: eyecatcher, URBHLEN, URBHVERS, URBHBORD in each code page and
byte order), URBHLENT for the message's length, then the decoder for the proof."""

from __future__ import annotations

from mqtool.formats.urb.decode import decode
from mqtool.formats.urb.layout import (
    CODEPAGES,
    FORMAT,
    HEADER_PEEK,
    HEADER_PREFIXES,
    URBHLENT_AT,
    WORD,
    layouts,
)
from mqtool.io.carving import LONGEST, Found, Work
from mqtool.model import Decoded

SIGNATURES: tuple[bytes, ...] = tuple(HEADER_PREFIXES)
PATTERNS: tuple[bytes, ...] = ()
BEFORE = 0
_PREFIX_LEN = len(SIGNATURES[0])
SHOWN = 6  # element types named in a summary


def message_length(view: bytes, at: int) -> tuple[int, int, bool] | None:
    """``(urbhlent, charset index, big)`` of a regular URBH at ``at``, None when there is
    none (prefix, room for URBHLENT, URBHLENT at least a URBH)."""
    variant = HEADER_PREFIXES.get(bytes(view[at:at + _PREFIX_LEN]))
    if variant is None or len(view) < at + HEADER_PEEK:
        return None
    cs, big = variant
    lent = int.from_bytes(view[at + URBHLENT_AT:at + URBHLENT_AT + WORD], "big" if big else "little")
    if lent < (layouts().URBH.size or 0):
        return None
    return lent, cs, big


def confirm(view: bytes, at: int, final: bool, work: Work) -> Found | None:
    """A URB message at ``at``, decoded; a message cut by the end of the input is kept with
    the decoder's error."""
    got = message_length(view, at)
    if got is None:
        return None
    lent, cs, big = got
    avail = len(view) - at
    if lent > LONGEST or (lent > avail and not final):
        return None  # absurd, or longer than the scanner's window: not believed
    data = work.take(view, at, at + min(lent, avail))
    options = {"codepage": CODEPAGES[cs], "byte_order": "big" if big else "little"}
    unit = next(iter(decode(data, codepage=options["codepage"], byte_order=options["byte_order"])))
    return Found(at, len(data), FORMAT, "URB message", _confidence(unit), summary(unit, lent),
                 (FORMAT,), options, tuple(p.describe() for p in unit.errors), "urb")


def _confidence(unit: Decoded) -> float:
    if unit.errors:
        return 0.5
    return 0.8 if unit.problems else 0.95


def summary(unit: Decoded, lent: int) -> str:
    types = [el.type for el in unit.elements]
    shown = " ".join(types[:SHOWN]) + (f" +{len(types) - SHOWN}" if len(types) > SHOWN else "")
    cp, order = unit.attrs.get("codepage"), unit.attrs.get("byte_order")
    state = "" if unit.ok else f"; {unit.errors[0].reason}"
    return f"URB message, {cp}, {order}-endian, urbhlent {lent}: {shown}{state}"
