"""IBM MQ message descriptor (MQMD), declared once: version 1 (324 bytes) and version 2
(364 bytes), big- or little-endian, eyecatcher ``MD  `` in ASCII or EBCDIC.

Field names are the MQ manuals' names lower-cased (``msgtype``, ``correlid``,
``codedcharsetid``); queue-dump readers and writers, the MQMD-prefixed binary format and the
``index.jsonl`` directory format all use them. Version 1 is the first 24 fields of the same
declaration, not a second copy.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from construct import Renamed

from mqtool.formats.mq import meanings
from mqtool.layout import Hex, Layout, Means, Variant, dsect

MQMD_V1_SIZE = 324
MQMD_V2_SIZE = 364
EYE_ASCII = b"MD  "
EYE_EBCDIC = b"\xd4\xc4\x40\x40"

MSGTYPES = {**meanings.MQMT,
            100000: "SAS attachment header", 100001: "SAS subordinate message"}

# MQENC_* parts of MQMD.Encoding
MQENC_INTEGER_MASK, MQENC_INTEGER_NORMAL, MQENC_INTEGER_REVERSED = 0x0F, 1, 2
MQENC_FLOAT_MASK = 0xF00
MQENC_FLOAT_IEEE_NORMAL, MQENC_FLOAT_IEEE_REVERSED, MQENC_FLOAT_S390 = 0x100, 0x200, 0x300


def _msgtype(value: Any, fields: Any) -> str:
    """MQMT_* names, SAS attachment types 100000/100001, 65536+ application-defined"""
    if value in MSGTYPES:
        return MSGTYPES[value]
    if isinstance(value, int) and 65536 <= value <= 999_999_999:
        return "application-defined"
    return ""


def encoding_meaning(value: Any, fields: Any = None) -> str:
    """``MQMD.Encoding`` in words: ``785`` -> ``integer normal, float S390``."""
    if not isinstance(value, int) or value < 0:
        return ""
    ints = {MQENC_INTEGER_NORMAL: "integer normal", MQENC_INTEGER_REVERSED: "integer reversed"}
    floats = {MQENC_FLOAT_IEEE_NORMAL: "float IEEE normal",
              MQENC_FLOAT_IEEE_REVERSED: "float IEEE reversed", MQENC_FLOAT_S390: "float S390"}
    parts = [ints.get(value & MQENC_INTEGER_MASK, ""), floats.get(value & MQENC_FLOAT_MASK, "")]
    return ", ".join(p for p in parts if p)


def _fields(v: Variant) -> list[Renamed]:
    """The MQMD in the manuals' order; the first 24 fields are version 1."""
    return [
        "strucid" / v.eye("MD  "),
        "version" / v.S4,
        "report" / Means(v.S4, meanings.report_meaning),
        "msgtype" / Means(v.S4, _msgtype),
        "expiry" / v.S4,
        "feedback" / Means(v.S4, meanings.feedback_meaning),
        "encoding" / Means(v.S4, encoding_meaning),
        "codedcharsetid" / Means(v.S4, meanings.ccsid_meaning),
        "format" / v.text(8),
        "priority" / v.S4,
        "persistence" / Means(v.S4, meanings.MQPER),
        "msgid" / Hex(24),
        "correlid" / Hex(24),
        "backoutcount" / v.S4,
        "replytoq" / v.text(48),
        "replytoqmgr" / v.text(48),
        "useridentifier" / v.text(12),
        "accountingtoken" / Hex(32),
        "applidentitydata" / v.text(32),
        "putappltype" / Means(v.S4, meanings.appltype_meaning),
        "putapplname" / v.text(28),
        "putdate" / v.text(8),
        "puttime" / v.text(8),
        "applorigindata" / v.text(4),
        # version 2
        "groupid" / Hex(24),
        "msgseqnumber" / v.S4,
        "offset" / v.S4,
        "msgflags" / v.S4,
        "originallength" / v.S4,
    ]


V1_FIELD_COUNT = 24


@lru_cache(maxsize=8)
def mqmd_layout(big: bool = True, ebcdic: bool = False, version: int = 2) -> Layout:
    """The MQMD layout of one variant (byte order, code page of its character fields)."""
    v = Variant(big=big, codepage="cp037" if ebcdic else "latin-1")
    fields = _fields(v)
    return dsect("MQMD", *(fields if version >= 2 else fields[:V1_FIELD_COUNT]))


FIELD_NAMES: tuple[str, ...] = mqmd_layout().names
INT_FIELDS = frozenset(f.name for f in mqmd_layout().fields if f.fmt == "l")
HEX_FIELDS = frozenset(f.name for f in mqmd_layout().fields if f.kind == "hex")
TEXT_FIELDS = frozenset(f.name for f in mqmd_layout().fields if f.kind == "text")


def sniff_mqmd(data: bytes, offset: int = 0) -> tuple[bool, bool, int] | None:
    """``(big, ebcdic, version)`` when an MQMD starts at ``offset``, else None."""
    eye = bytes(data[offset:offset + 4])
    if eye not in (EYE_ASCII, EYE_EBCDIC) or len(data) < offset + 8:
        return None
    raw = bytes(data[offset + 4:offset + 8])
    for big in (True, False):
        version = int.from_bytes(raw, "big" if big else "little")
        if version in (1, 2):
            size = MQMD_V2_SIZE if version == 2 else MQMD_V1_SIZE
            if len(data) - offset >= size:
                return big, eye == EYE_EBCDIC, version
    return None


def parse_mqmd(data: bytes, offset: int = 0) -> tuple[dict[str, Any], int, tuple[bool, bool, int]]:
    """Field values, size and variant of the MQMD at ``offset`` (``sniff_mqmd`` first)."""
    variant = sniff_mqmd(data, offset)
    if variant is None:
        raise ValueError("no MQMD (eyecatcher 'MD  ' and version 1 or 2) at this offset")
    layout = mqmd_layout(*variant)
    return layout.values(data, offset), layout.size or 0, variant


def build_mqmd(values: dict[str, Any], *, big: bool = True, ebcdic: bool = False,
               version: int = 2) -> bytes:
    """Bytes of an MQMD from field values (unset: zero / blank; ``version`` set for you)."""
    full = {"expiry": -1, "originallength": -1, "msgseqnumber": 1, **values, "version": version}
    return mqmd_layout(big, ebcdic, version).build(full, fmt="mqmd")


def byte_order_of(encoding: int | None) -> str | None:
    """``big`` / ``little`` from ``MQMD.Encoding``'s integer part, None when it says neither."""
    if not isinstance(encoding, int) or encoding < 0:
        return None
    return {MQENC_INTEGER_NORMAL: "big", MQENC_INTEGER_REVERSED: "little"}.get(
        encoding & MQENC_INTEGER_MASK)


def float_format_of(encoding: int | None) -> str | None:
    """``ieee-be`` / ``ieee-le`` / ``ibm-hfp`` from ``MQMD.Encoding``'s float part."""
    if not isinstance(encoding, int) or encoding < 0:
        return None
    return {MQENC_FLOAT_IEEE_NORMAL: "ieee-be", MQENC_FLOAT_IEEE_REVERSED: "ieee-le",
            MQENC_FLOAT_S390: "ibm-hfp"}.get(encoding & MQENC_FLOAT_MASK)


def encoding_for(byte_order: str, float_format: str) -> int:
    """``MQMD.Encoding`` of a sender: ``("big", "ibm-hfp")`` -> 785 (z/OS native)."""
    integer = MQENC_INTEGER_NORMAL if byte_order == "big" else MQENC_INTEGER_REVERSED
    flt = {"ieee-be": MQENC_FLOAT_IEEE_NORMAL, "ieee-le": MQENC_FLOAT_IEEE_REVERSED,
           "ibm-hfp": MQENC_FLOAT_S390}[float_format]
    decimal = 0x10 if byte_order == "big" else 0x20  # MQENC_DECIMAL_NORMAL / _REVERSED
    return integer | decimal | flt


def has_eye(buf: bytes | bytearray, at: int = 0) -> bool:
    """Does an MQMD StrucId (``MD  `` in ASCII or EBCDIC) start at ``at``?"""
    return buf[at:at + _EYE_SIZE] in (EYE_ASCII, EYE_EBCDIC)


_EYE_SIZE = mqmd_layout().field("strucid").size or len(EYE_ASCII)
