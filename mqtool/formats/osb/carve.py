"""Finding TIBCO Object Service Broker redolog entries inside arbitrary bytes (OSB user
exits, redolog header): the ``REDODATA`` eyecatcher at its declared place in the header,
RL_LEN covering the header and its intent list, the exit's parameter list in front when it
is there, and the OSB decoder for the proof."""

from __future__ import annotations

from mqtool.formats.osb.decode import decode
from mqtool.formats.osb.detect import HEADER, PARMLIST, eyecatcher_at, parmlist_like
from mqtool.formats.osb.layout import EYECATCHER, FORMAT, PARMLIST_LEN, RLHDR_LEN, field_int
from mqtool.io.carving import Found, Work

CODEPAGE = "cp037"
SIGNATURES: tuple[bytes, ...] = (EYECATCHER.encode(CODEPAGE),)
PATTERNS: tuple[bytes, ...] = ()
EYE_AT = HEADER.offset_of("rl_eye")
BEFORE = EYE_AT + PARMLIST_LEN


def confirm(view: bytes, at: int, final: bool, work: Work) -> Found | None:
    """The redolog entry whose eyecatcher is at ``at`` (with its parameter list before)."""
    start = at - EYE_AT
    if start < 0 or len(view) < start + RLHDR_LEN or not eyecatcher_at(view, start, CODEPAGE):
        return None
    rl_len = field_int(view, HEADER, "rl_len", start)
    intent = field_int(view, HEADER, "rl_intent_len", start)
    if rl_len != RLHDR_LEN + intent or start + rl_len > len(view):
        return None
    part, first = "header", start
    lead = start - PARMLIST_LEN
    if lead >= 0 and parmlist_like(view, lead, CODEPAGE) and \
            field_int(view, PARMLIST, "intent_len", lead) == intent:
        part, first = "auto", lead
    data = work.take(view, first, start + rl_len)
    units = list(decode(data, part=part, codepage=CODEPAGE))
    errors = tuple(p.describe() for u in units for p in u.errors)
    if errors:  # the intent list does not read: the header alone, if it does
        alone = list(decode(work.take(view, start, start + RLHDR_LEN), part="header",
                            codepage=CODEPAGE))
        if not any(u.errors for u in alone):
            return Found(start, RLHDR_LEN, FORMAT, "OSB redolog header", 0.6,
                         f"OSB redolog header; rl_len {rl_len}, but its {intent}-byte intent "
                         f"list does not read ({errors[0]})", (FORMAT,), {"part": "header"},
                         (), "redolog")
    kinds = " + ".join(u.title.split(" at offset")[0] for u in units if u.title) or "redolog entry"
    confidence = 0.5 if errors else (0.95 if part == "auto" else 0.9)
    return Found(first, len(data), FORMAT, "OSB redolog entry", confidence,
                 f"OSB {kinds}; rl_len {rl_len}, intent list {intent} bytes", (FORMAT,),
                 {"part": part}, errors, "redolog")
