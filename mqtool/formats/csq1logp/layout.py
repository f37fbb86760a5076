"""IBM MQ for z/OS CSQ1LOGP ``EXTRACT(YES)`` records (CSQ4LOGD layout; IBM MQ for z/OS,
CSQ1LOGP, "Record layouts for the output data sets").

The record layout is declared once (``layouts(codepage).logd``): the forensic decoder below
(spans, listing, ``--annotate``, ``--json``), the builder, and the vectorised bulk path
(``bulk.py``: numpy dtype and Arrow schema derived from the same
``FieldInfo`` table) all read it.

A record is RDW (4 bytes, when the framing keeps it) + a fixed part of 199 bytes
(``csrecorddate`` .. ``lsegment``) + the variable part: ``csbora`` (1 byte, present or not:
the 199/200 ambiguity, resolved per record from the RDW length and ``ldatalen``)
and ``csvardata``. Offsets in spans and errors are offsets in the input.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import Any

from mqtool.codepages import codec_name
from mqtool.compose import Hook, Nest, Record
from mqtool.layout import Hex, Layout, Means, Variant, dsect

FORMAT = "csq1logp"

FIXED = 199  # csrecorddate .. lsegment
FIXED_BORA = 200  # + csbora: the builders' default
FIXED_SIZES = (FIXED, FIXED_BORA)  # the two fixed parts a record may have (fits_ldatalen)
RDW_LEN = 4
MIN_RECORD = RDW_LEN + FIXED  # 203: smallest RDW length of a valid record
MAX_RDW = 32760  # an RDW length never exceeds the block size
LRECL = 32756  # CSQ1LOGP's LRECL (includes the RDW)
MAX_SEGMENT = LRECL - RDW_LEN - FIXED_BORA  # 32552 data bytes per record: the LRECL less RDW and fixed part
MAX_DATA = MAX_RDW - 2 * RDW_LEN  # 32752: the largest data slice framing believes in
BDW_LEN = 4  # a block descriptor (RECFM=U copies)
MIN_BLOCK = BDW_LEN + MIN_RECORD  # smallest BDW length of a valid block
EXTENDED_BDW = 0x80  # first BDW byte: the 4-byte extended form (31-bit length)
MAX_BLOCK = 256 << 10  # the largest block of the large block interface (tape)
# The record-date sync pattern: every record starts with ``csrecorddate`` in this format.
RECORD_DATE = "yyyy.ddd hh:mm:ss.thm"
DATE_LEN = len(RECORD_DATE)  # 21, the size of ``csrecorddate``

# ------------------------------------------------------------------ meaning tables

VERBS = {
    "ALTER": "the object was changed",
    "DEFINE": "the object was created",
    "MQGET": "the message was got",
    "MQPUT": "the message was put",
    "EXPIRE": "the message expired",
    "ABORT2": "the message was backed out",
    "PHASE1": "the first phase of two phase commit",
    "PHASE2": "second phase of two phase commit, or the only phase of one phase commit",
}
UOW_TYPES = {"BUR": "begin unit of recovery", "CP": "checkpoint information"}
COMMIT_STATUS = {"B": "backed out", "C": "committed", "I": "inflight"}
SHUNT = {"S": "shunted record", "N": "not shunted"}
BORA = {"B": "before image", "A": "after image"}
BORA_MEANING = {**BORA, "": "blank (not an ALTER record)"}
NULLS8 = "\x00" * 8
CONNECTION_TYPES = {
    "BATCH": "batch", "RRSBATCH": "RRS batch", "IMS": "IMS", "CICS": "CICS",
    "CHIN": "channel initiator", NULLS8: "internal task (nulls)",
}
# Fields whose values must come from a list; anything else is reported, not rejected.
ENUMS: dict[str, Mapping[str, str]] = {
    "cscnty": CONNECTION_TYPES, "csstatus": UOW_TYPES, "csverb": VERBS,
    "cscmitstatus": COMMIT_STATUS, "csshunt": SHUNT,
}
# Field-level problems: the row is kept and ``_corrupt_fields`` lists "field: reason".
BAD_DATE = "not a yyyy.ddd hh:mm:ss.thm date"
BAD_DELTA = "not blank-padded digits"
BAD_ENUM = "unknown value"
NEG_LEN = "negative"
BAD_SEGMENT = "less than 1"
TRAILING = "bytes after ldatalen"


def _key_meaning(when_blank: str):  # type: ignore[no-untyped-def]
    def meaning(value: Any, fields: Mapping[str, Any]) -> str:
        if isinstance(value, bytes) and value and value == value[:1] * len(value) and value[0] == 0x40:
            return when_blank
        return ""

    return meaning


def _recorddate_meaning(value: Any, fields: Mapping[str, Any]) -> str:
    try:
        ts = parse_recorddate(value)
    except ValueError as e:
        return str(e)
    return f"{ts:%Y-%m-%d %H:%M:%S.%f}"[:-3] + " (z/OS local time, zone not recorded)"


@dataclass(frozen=True)
class Layouts:
    """The layouts of one code page: the 4-byte descriptors, the fixed part, ``csbora``."""

    codepage: str
    rdw: Layout
    bdw: Layout
    logd: Layout
    bora: Layout


@lru_cache(maxsize=16)
def layouts(codepage: str = "cp037") -> Layouts:
    """The CSQ4LOGD declaration (IBM's table, "Record layouts for the output data sets") in
    a code page; big-endian always."""
    v = Variant(big=True, codepage=codec_name(codepage))
    rdw = dsect("RDW", "length" / v.U2, "spanning" / v.hexint(2))
    bdw = dsect("BDW", "length" / v.U2, "flags" / v.hexint(2))
    logd = dsect(
        "CSQ4LOGD",
        "csrecorddate" / Means(v.text(21), _recorddate_meaning),
        "cstimedelta" / v.text(7),
        "dtodout" / v.stck(),
        "csurid" / Hex(6),
        "cscorrelator" / v.text(12),
        "csauth" / v.text(8),
        "dtime" / v.stck(),
        "csresource" / v.text(8),
        "cscnty" / Means(v.text(8), CONNECTION_TYPES),
        "cscnid" / v.text(8),
        "csstatus" / Means(v.text(3), UOW_TYPES),
        "ldatalen" / v.S4,
        "csqmgrname" / v.text(4),
        "csqueuename" / v.text(48),
        "cssqdmcp" / Means(Hex(12), _key_meaning("blank: not a shared queue")),
        "csdmcp" / Means(Hex(8), _key_meaning("blank: a shared queue")),
        "csverb" / Means(v.text(8), VERBS),
        "cscmitstatus" / Means(v.text(1), COMMIT_STATUS),
        "csshunt" / Means(v.text(1), SHUNT),
        "cslogrba" / Hex(6),
        "csshuntrba" / Hex(6),
        "lsegment" / v.S4,
    )
    bora = dsect("CSBORA", "csbora" / Means(v.text(1), BORA_MEANING))
    assert logd.size == FIXED, logd.size
    assert logd.field("csrecorddate").size == DATE_LEN
    return Layouts(v.codepage, rdw, bdw, logd, bora)


# ------------------------------------------------------------------ composition
# IBM MQ for z/OS, CSQ1LOGP, "Record layouts for the output data sets": after the fixed part
# (offset 199) the variable data part: ``csbora`` "if csverb is ALTER" (B before image, A
# after image), then ``csvardata``, "message or object data", of ``ldatalen`` bytes. Whether
# a record carries the csbora byte is not said for other verbs, so it is the format's
# judgement per record (the hook ``BORA_HOOK``: ``bora_present``, the 199/200 rule from the
# RDW length); the data's length field and its readings are ``DATA_LENGTH`` / ``data_slice``.

BORA_HOOK = "csbora"
DATA = "csvardata"
DATA_LENGTH = "ldatalen"
VARIABLE = Hook(BORA_HOOK, Nest("csbora", "CSBORA", rest=DATA,
                                title="Variable part at offset X'{offset:04X}': csbora, then "
                                      "csvardata"))
# The record: its length is the frame's (the RDW's), the variable part runs to its end.
RECORD = Record("CSQ4LOGD", "", ("CSQ4LOGD",), fixed=False)


def bora_present(avail: int, ldatalen: int) -> bool:
    """The ``BORA_HOOK`` judgement: does a record of ``avail`` bytes after its RDW carry
    csbora (``fixed_size`` decides)?"""
    return int(fixed_size(avail, ldatalen)) == FIXED_BORA


HOOKS = {BORA_HOOK: bora_present}


@lru_cache(maxsize=16)
def resolver(codepage: str = "cp037") -> Callable[[str], Layout]:
    """The layouts the declarations above name, in ``codepage``."""
    lay = layouts(codepage)
    return {x.name: x for x in (lay.rdw, lay.bdw, lay.logd, lay.bora)}.__getitem__


# How each field becomes a bulk row column (everything not named: its natural type).
# Not a layout: offsets, sizes and types come from ``layouts().logd.fields``.
ROW_TEXT_AND_DATE = {"csrecorddate"}  # text + ``<name>_ts`` (naive timestamp)
ROW_BLANK_INT = {"cstimedelta"}  # right-justified digits -> integer (blank -> null)
ROW_TEXT_AND_HEX = {"cscorrelator"}  # text + ``<name>_hex`` (may hold binary bytes)
ROW_BLANK_KEY = {"cssqdmcp", "csdmcp"}  # hex; null when blank


# ------------------------------------------------------------------ text helpers

# RECORD_DATE with each run of letters a captured group of digits
_DATE_RE = re.compile("^" + re.sub(r"[a-z]+", lambda m: f"(\\d{{{len(m.group())}}})",
                                   RECORD_DATE.replace(".", "\\.")) + "$", re.ASCII)


@lru_cache(maxsize=16)
def date_pattern(codepage: str = "cp037") -> re.Pattern[bytes]:
    """``RECORD_DATE`` as bytes of a code page (EBCDIC: ``F1|F2 Fx Fx Fx 4B ...``): the
    pattern framing resynchronises on; ``parse_recorddate`` then checks the values."""
    cp = codec_name(codepage)

    def enc(s: str) -> bytes:
        return re.escape(s.encode(cp))

    digit = b"[" + b"".join(enc(c) for c in "0123456789") + b"]"
    parts = {"y": b"[" + enc("1") + enc("2") + b"]", "d": digit, "h": digit, "m": digit,
             "s": digit, "t": digit}
    out, first = b"", True
    for ch in RECORD_DATE:
        if ch == "y" and first:
            out += parts["y"]
            first = False
        elif ch in parts:
            out += digit
        else:
            out += enc(ch)
    return re.compile(out, re.S)


def parse_recorddate(text: str) -> datetime:
    """``yyyy.ddd hh:mm:ss.thm`` (ordinal day) -> naive datetime; ValueError says why."""
    m = _DATE_RE.match(text or "")
    if not m:
        raise ValueError(BAD_DATE)
    y, ddd, hh, mm, ss, ms = (int(g) for g in m.groups())
    leap = y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
    if not (y >= 1 and 1 <= ddd <= (366 if leap else 365) and hh < 24 and mm < 60 and ss < 60):
        raise ValueError(BAD_DATE)
    return datetime(y, 1, 1) + timedelta(days=ddd - 1, hours=hh, minutes=mm, seconds=ss,
                                         milliseconds=ms)


def format_recorddate(ts: datetime) -> str:
    """The inverse of ``parse_recorddate`` (for builders)."""
    ddd = (ts.date() - date(ts.year, 1, 1)).days + 1
    return f"{ts.year:04d}.{ddd:03d} {ts:%H:%M:%S}.{ts.microsecond // 1000:03d}"


def parse_timedelta(text: str) -> int | None:
    """``cstimedelta``: right-justified blank-padded digits; None when blank."""
    body = text.lstrip(" ")
    if not body:
        return None
    if not body.isascii() or not body.isdigit():
        raise ValueError(BAD_DELTA)
    return int(body)


def fits_ldatalen(avail: int, ldatalen: int) -> bool:
    """The 199/200 rule's test: do ``avail`` bytes (a record after its RDW) hold a fixed part
    of ``FIXED`` or ``FIXED_BORA`` bytes and exactly ``ldatalen`` data bytes?"""
    return avail - ldatalen in FIXED_SIZES


def fixed_size(avail: Any, ldatalen: Any) -> Any:
    """The 199/200 rule, on ints or numpy arrays (the bulk path): 200 when the bytes after
    the RDW are 200 + ldatalen, 199 when 199 + ldatalen, 199 when there is no room for
    ``csbora``, else 200."""
    import numpy as np

    return np.where(avail == FIXED_BORA + ldatalen, FIXED_BORA,
                    np.where(avail == FIXED + ldatalen, FIXED,
                             np.where(avail < FIXED_BORA, FIXED, FIXED_BORA)))


def data_take(avail: Any, fixed: Any, ldatalen: Any) -> Any:
    """csvardata bytes taken, on ints or numpy arrays: the whole slice, or
    ``ldatalen`` when fewer (bytes after it are a field problem)."""
    import numpy as np

    sl = avail - fixed
    return np.where((ldatalen < 0) | (sl <= ldatalen), sl, ldatalen)


def resolve_fixed(avail: int, ldatalen: int) -> tuple[int, str]:
    """Fixed-part size of a record whose bytes after the RDW number ``avail``,
    and why (``fixed_size`` decides)."""
    fixed = int(fixed_size(avail, ldatalen))
    if avail == fixed + ldatalen:
        return fixed, (f"{avail} bytes = {fixed} + ldatalen {ldatalen}: "
                       + ("csbora present" if fixed == FIXED_BORA else "no csbora byte"))
    if fixed == FIXED:
        return FIXED, f"{avail} bytes: no room for csbora"
    return FIXED_BORA, (f"{avail} bytes is {neither_fixed(ldatalen)}: csbora assumed present")


def neither_fixed(ldatalen: int) -> str:
    """The words of a length the 199/200 rule does not explain."""
    return f"neither {FIXED} nor {FIXED_BORA} + ldatalen {ldatalen}"


def data_slice(avail: int, fixed: int, ldatalen: int) -> tuple[int, str]:
    """How many csvardata bytes to take (``data_take``), and the ldatalen reading (A: this record's
    data, B: the whole message's)."""
    take = int(data_take(avail, fixed, ldatalen))
    sl = avail - fixed
    if ldatalen < 0 or sl == ldatalen:
        return take, "A"
    return take, "B" if sl < ldatalen else "trailing-bytes"


