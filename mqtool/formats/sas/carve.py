"""Finding SAS attachment headers inside arbitrary bytes (SAS Application Messaging,
attachment layout for WebSphere MQ: the header message, type 100000): qualifier 1 of an
external file's entry (``FILENAME`` / ``FILEREF``, ASCII or EBCDIC, ``layout.FILE_SPECS``)
with its length before it; the header is where the first entry's fixed offset puts it in
some sender variant, parsed to its last entry and decoded with the header decoder. A
header whose first attachment is a data set carries no such string: behind an MQMD
(MsgType 100000) the scanner asks ``confirm_start``."""

from __future__ import annotations

from mqtool.errors import DecodeError
from mqtool.formats.sas.decode import decode_part, header_tree
from mqtool.formats.sas.layout import (
    FILE_SPECS,
    FORMAT,
    MAX_ATTACHMENTS,
    MAX_HEADER,
    Settings,
    layouts_for,
)
from mqtool.io.carving import Found, Work

SIGNATURES: tuple[bytes, ...] = tuple(sorted({s.encode(cp) for s in FILE_SPECS
                                              for cp in ("latin-1", "cp037")}))
PATTERNS: tuple[bytes, ...] = ()
_VARIANTS = tuple(Settings(big, long, "latin-1", nul) for big in (True, False)
                  for long in (4, 8) for nul in (True, False))
_Q1_AT = layouts_for(_VARIANTS[0]).entry.offset_of("qualifier1")
_Q1_LEN_AT = layouts_for(_VARIANTS[0]).entry.offset_of("qualifier1_len")
_COUNT_AT = {s.long: layouts_for(s).header.offset_of("num_attachments") for s in _VARIANTS}
BEFORE = max(layouts_for(s).header.size or 0 for s in _VARIANTS) + _Q1_AT
FIRST_TRY = 4096  # bytes a header is first parsed from; more only when it needs them


_INT = layouts_for(_VARIANTS[0]).count.field("count").size or 0  # a C int


def _int(view: bytes, at: int, big: bool) -> int:
    return int.from_bytes(view[at:at + _INT], "big" if big else "little", signed=True)


def confirm(view: bytes, at: int, final: bool, work: Work) -> Found | None:
    """The header whose first entry's qualifier 1 is at ``at``."""
    qlen = next((len(sig) for sig in SIGNATURES if view[at:at + len(sig)] == sig), 0)
    entry = at - _Q1_AT
    for s in _VARIANTS:
        start = entry - (layouts_for(s).header.size or 0)
        if start < 0 or _int(view, entry + _Q1_LEN_AT, s.big) != qlen:
            continue
        found = _header_at(view, start, s, work)
        if found is not None:
            return found
    return None


def confirm_start(view: bytes, at: int, final: bool, work: Work) -> Found | None:
    """A header starting exactly at ``at`` (the body of a MsgType 100000 message)."""
    for s in _VARIANTS:
        found = _header_at(view, at, s, work)
        if found is not None:
            return found
    return None


def _header_at(view: bytes, start: int, s: Settings, work: Work) -> Found | None:
    n = _int(view, start + _COUNT_AT[s.long], s.big)
    if not 1 <= n <= MAX_ATTACHMENTS:
        return None
    end = None
    for size in (FIRST_TRY, MAX_HEADER):
        data = work.take(view, start, start + size)
        end = _end(data, s, n)
        if end is not None or len(data) < size:
            break
    if end is None:
        return None
    unit = decode_part(data[:end], "header")
    if unit.errors:
        return None
    entries = [el for top in unit.elements for el in top.walk() if el.type == "ATTACHMENT"]
    names = ", ".join(str(el.value("qualifier2")) for el in entries[:3])
    more = f" +{len(entries) - 3}" if len(entries) > 3 else ""
    attrs = unit.attrs
    summary = (f"SAS attachment header, {len(entries)} attachment{'s' * (len(entries) != 1)}"
               f" ({names}{more}); {attrs.get('byte_order')}-endian, long {attrs.get('long')}, "
               f"{attrs.get('codepage')}")
    return Found(start, end, FORMAT, "SAS attachment header", 0.9 if not unit.problems else 0.75,
                 summary, (FORMAT,), {"part": "header"}, (), "sas")


def _end(data: bytes, s: Settings, n: int) -> int | None:
    """Where the header ends when it parses in variant ``s`` with ``n`` entries."""
    try:
        return header_tree(data, layouts_for(s), n).end
    except DecodeError:
        return None
