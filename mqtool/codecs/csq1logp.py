"""IBM MQ for z/OS CSQ1LOGP ``EXTRACT(YES)`` records (CSQ4LOGD layout; seed 002).

The record layout is declared once (``layouts(codepage).logd``): the forensic decoder below
(spans, listing, ``--annotate``, ``--json``), the builder, and the vectorised bulk path
(``codecs/csq1logp_bulk.py``: numpy dtype and Arrow schema derived from the same
``FieldInfo`` table) all read it.

A record is RDW (4 bytes, when the framing keeps it) + a fixed part of 199 bytes
(``csrecorddate`` .. ``lsegment``) + the variable part: ``csbora`` (1 byte, present or not:
the 199/200 ambiguity, resolved per record from the RDW length and ``ldatalen``, spec §3.2)
and ``csvardata``. Offsets in spans and errors are offsets in the input.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import Any

from mqtool.codecs._fields import Hex, Layout, Means, Variant, dsect
from mqtool.codecs.registry import Detection
from mqtool.codepage import codec_name
from mqtool.errors import DecodeError
from mqtool.model import Decoded, Element, Problem
from mqtool.tod import Tod

FORMAT = "csq1logp"

FIXED = 199  # csrecorddate .. lsegment
FIXED_BORA = 200  # + csbora: the builders' default (spec §3.2)
RDW_LEN = 4
MIN_RECORD = RDW_LEN + FIXED  # 203: smallest RDW length of a valid record
MAX_RDW = 32760  # an RDW length never exceeds the block size
LRECL = 32756  # CSQ1LOGP's LRECL (includes the RDW)
MAX_SEGMENT = LRECL - RDW_LEN - FIXED_BORA  # 32552 data bytes per record (spec §4)

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
    """The CSQ4LOGD declaration (IBM's table, seed 002) in a code page; big-endian always."""
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
    return Layouts(v.codepage, rdw, bdw, logd, bora)


# How each field becomes a bulk row column (everything not named: its natural type).
# Not a layout: offsets, sizes and types come from ``layouts().logd.fields``.
ROW_TEXT_AND_DATE = {"csrecorddate"}  # text + ``<name>_ts`` (naive timestamp)
ROW_BLANK_INT = {"cstimedelta"}  # right-justified digits -> integer (blank -> null)
ROW_TEXT_AND_HEX = {"cscorrelator"}  # text + ``<name>_hex`` (may hold binary bytes)
ROW_BLANK_KEY = {"cssqdmcp", "csdmcp"}  # hex; null when blank


# ------------------------------------------------------------------ text helpers

_DATE_RE = re.compile(r"^(\d{4})\.(\d{3}) (\d{2}):(\d{2}):(\d{2})\.(\d{3})$", re.ASCII)


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


def resolve_fixed(avail: int, ldatalen: int) -> tuple[int, str]:
    """Fixed-part size of a record whose bytes after the RDW number ``avail`` (spec §3.2)."""
    if avail == FIXED_BORA + ldatalen:
        return FIXED_BORA, f"{avail} bytes = 200 + ldatalen {ldatalen}: csbora present"
    if avail == FIXED + ldatalen:
        return FIXED, f"{avail} bytes = 199 + ldatalen {ldatalen}: no csbora byte"
    if avail < FIXED_BORA:
        return FIXED, f"{avail} bytes: no room for csbora"
    return FIXED_BORA, (f"{avail} bytes is neither 199 nor 200 + ldatalen {ldatalen}: "
                        "csbora assumed present")


def data_slice(avail: int, fixed: int, ldatalen: int) -> tuple[int, str]:
    """How many csvardata bytes to take, and the ldatalen reading used (spec §4)."""
    sl = avail - fixed
    if ldatalen < 0 or sl == ldatalen:
        return sl, "A"
    if sl < ldatalen:
        return sl, "B"
    return ldatalen, "trailing-bytes"


# ------------------------------------------------------------------ decoding


def decode(data: bytes, framing: str = "auto", codepage: str = "cp037", *,
           leap_seconds: int = 0, **_: Any) -> Iterator[Decoded]:
    """Decode every record (and every bad span) of an extract held in ``data``.

    Framing ``auto|rdw|bdw|none`` (spec §2). A bad span becomes a unit with one error;
    decoding resumes at the next valid record. An ASCII-mode transfer raises DecodeError.
    """
    from mqtool.io.framing import frames, resolve_framing

    chosen, _reason = resolve_framing(data[:65536], framing, codepage, final=True)
    for fr in frames([data], chosen, codepage):
        if fr.error:
            yield _bad_unit(fr, chosen, codepage)
        else:
            yield decode_record(data, fr.pos, fr.length, fr.hdr, codepage, framing=chosen,
                                rec_no=fr.rec_no, block=fr.block, leap_seconds=leap_seconds)


def _bad_unit(fr: Any, framing: str, codepage: str) -> Decoded:
    unit = Decoded(FORMAT, fr.offset, fr.length,
                   attrs={"framing": framing, "rec_no": fr.rec_no, "codepage": codepage,
                          "raw_hex": bytes(fr.head).hex().upper()},
                   title=f"Bad span {fr.rec_no} at offset X'{fr.offset:04X}', {fr.length} bytes")
    unit.errors.append(Problem(fr.path, fr.offset, f"{fr.error}: {fr.detail}"))
    return unit


def decode_record(buf: bytes, pos: int, rec_len: int, hdr: int, codepage: str = "cp037", *,
                  framing: str = "rdw", rec_no: int = 0, block: int = -1,
                  leap_seconds: int = 0) -> Decoded:
    """One framed record at ``buf[pos:pos+rec_len]`` (``hdr`` = 4 with an RDW, else 0)."""
    lay = layouts(codepage)
    unit = Decoded(FORMAT, pos, rec_len,
                   attrs={"framing": framing, "rec_no": rec_no, "rec_len": rec_len,
                          "codepage": lay.codepage})
    if block >= 0:
        unit.attrs["block"] = block
    title = f"Record {rec_no} at offset X'{pos:04X}', {rec_len} bytes"
    if hdr:
        unit.elements.append(lay.rdw.parse(buf, pos, prefix="rdw", fmt=FORMAT))
    start = pos + hdr
    end = pos + rec_len
    try:
        el = lay.logd.parse(buf, start, prefix="", fmt=FORMAT, limit=end)
    except DecodeError as e:
        if isinstance(e.partial, Element):
            unit.elements.append(e.partial)
        unit.errors.append(Problem(e.path, e.offset, e.reason))
        unit.title = title
        return unit
    el.title = f"CSQ4LOGD fixed part at offset X'{start:04X}'"
    unit.elements.append(el)
    f = el.fields
    ld = int(f["ldatalen"])
    avail = rec_len - hdr
    fixed, why = resolve_fixed(avail, ld)
    take, reading = data_slice(avail, fixed, ld)
    unit.attrs.update(fixed_len=fixed, fixed_reason=why, reading=reading)
    if fixed == FIXED_BORA:
        bora = lay.bora.parse(buf, start + FIXED, prefix="", fmt=FORMAT)
        el.spans.extend(bora.spans)
    data_at = start + fixed
    el.data = bytes(buf[data_at:data_at + take])
    el.data_offset = data_at
    el.length = fixed + take
    rows = field_problems(f, bool(fixed == FIXED_BORA), el.value("csbora"), reading)
    where = {s.name: s.start for s in el.spans} | {"csvardata": data_at}
    for name, reason in rows:
        unit.problems.append(Problem(name, where[name], reason))
    if reading == "B":
        unit.problems.append(Problem("ldatalen", start + lay.logd.offset_of("ldatalen"),
                                     f"reading B: ldatalen {ld} is the message total, "
                                     f"this record holds {take} bytes"))
    _dates(unit, f, leap_seconds)
    where = f" in the block at X'{block:04X}'" if block >= 0 else ""
    unit.title = title + f", {framing.upper()} framing{where}, fixed part {fixed} ({why})"
    return unit


def field_problems(f: Mapping[str, Any], has_bora: bool, bora: Any, reading: str,
                   ) -> list[tuple[str, str]]:
    """Field-level problems of one record: ``(field, reason)``; the bulk path mirrors this."""
    out: list[tuple[str, str]] = []
    try:
        parse_recorddate(str(f["csrecorddate"]))
    except ValueError:
        out.append(("csrecorddate", BAD_DATE))
    try:
        parse_timedelta(str(f["cstimedelta"]))
    except ValueError:
        out.append(("cstimedelta", BAD_DELTA))
    for name in ("cscnty", "csstatus"):
        if f[name] not in ENUMS[name]:
            out.append((name, BAD_ENUM))
    if int(f["ldatalen"]) < 0:
        out.append(("ldatalen", NEG_LEN))
    for name in ("csverb", "cscmitstatus", "csshunt"):
        if f[name] not in ENUMS[name]:
            out.append((name, BAD_ENUM))
    if int(f["lsegment"]) < 1:
        out.append(("lsegment", BAD_SEGMENT))
    if has_bora and f["csverb"] == "ALTER" and bora not in BORA:
        out.append(("csbora", BAD_ENUM))
    if reading == "trailing-bytes":
        out.append(("csvardata", TRAILING))
    return out


def _dates(unit: Decoded, f: Mapping[str, Any], leap_seconds: int) -> None:
    try:
        local = parse_recorddate(str(f["csrecorddate"]))
    except ValueError:
        return
    unit.attrs["csrecorddate_ts"] = local.isoformat(timespec="milliseconds")
    tod = f["dtodout"]
    if isinstance(tod, Tod) and tod.is_set:
        utc = tod.datetime(leap_seconds).replace(tzinfo=None)
        minutes = round((local - utc).total_seconds() / 900) * 15
        sign = "-" if minutes < 0 else "+"
        unit.attrs["csrecorddate_offset"] = f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
    if leap_seconds:
        unit.attrs["leap_seconds"] = leap_seconds


# ------------------------------------------------------------------ detection


def detect(data: bytes) -> Detection | None:
    """An RDW (or BDW+RDW, or none) followed by an EBCDIC ``yyyy.ddd hh:mm:ss.thm``."""
    from mqtool.io.framing import sniff

    try:
        found = sniff(data[:65536], "cp037", final=len(data) <= 65536)
    except DecodeError:
        return Detection(FORMAT, 0.5, "ASCII yyyy.ddd date: a text-mode transfer of an extract")
    if found is None:
        return None
    framing, reason = found
    conf = 0.95 if framing in ("rdw", "bdw") else 0.8
    return Detection(FORMAT, conf, reason, {"framing": framing})


# ------------------------------------------------------------------ building


def build_record(values: Mapping[str, Any] | None = None, data: bytes = b"", *,
                 codepage: str = "cp037", bora: bool = True, framing: str = "rdw",
                 ldatalen: int | None = None) -> bytes:
    """One record: RDW (``framing='rdw'``; ``'none'`` leaves it out) + fixed part +
    csbora (``bora``; ``40`` unless given, e.g. ``B``/``A`` for ALTER) + data.

    ``ldatalen`` defaults to ``len(data)`` (reading A).
    """
    lay = layouts(codepage)
    vals = dict(values or {})
    vals.setdefault("ldatalen", len(data) if ldatalen is None else ldatalen)
    vals.setdefault("lsegment", 1)
    ts = vals.get("csrecorddate")
    if isinstance(ts, datetime):
        vals["csrecorddate"] = format_recorddate(ts)
    delta = vals.get("cstimedelta")
    if isinstance(delta, int):
        vals["cstimedelta"] = f"{delta:>7d}"
    blank = " ".encode(lay.codepage)
    for key, n in (("cssqdmcp", 12), ("csdmcp", 8)):
        if vals.get(key) is None:
            vals[key] = blank * n
    for key in ("csurid", "cslogrba", "csshuntrba"):
        if vals.get(key) is None:
            vals[key] = bytes(6)
    body = lay.logd.build(vals, fmt=FORMAT)
    if bora:
        body += lay.bora.build({"csbora": vals.get("csbora", "")}, fmt=FORMAT)
    body += bytes(data)
    if framing == "none":
        return body
    return (len(body) + RDW_LEN).to_bytes(2, "big") + b"\x00\x00" + body


def build_message(values: Mapping[str, Any], data: bytes, *, max_seg: int = MAX_SEGMENT,
                  reading: str = "A", codepage: str = "cp037", bora: bool = True,
                  framing: str = "rdw") -> list[bytes]:
    """The records of one message: data split into <= ``max_seg`` bytes, ``lsegment`` 1..n,
    the same header fields in every segment; ``ldatalen`` per record (A) or total (B)."""
    pieces = [data[i:i + max_seg] for i in range(0, len(data), max_seg)] or [b""]
    out = []
    for n, piece in enumerate(pieces, 1):
        vals = dict(values)
        vals["lsegment"] = n
        out.append(build_record(vals, piece, codepage=codepage, bora=bora, framing=framing,
                                ldatalen=len(data) if reading == "B" else len(piece)))
    return out


def block(records: list[bytes], extended: bool = False) -> bytes:
    """A BDW-framed block of RDW-framed records (RECFM=VB block as copied with RECFM=U)."""
    body = b"".join(records)
    n = len(body) + 4
    bdw = (n | 0x80000000).to_bytes(4, "big") if extended else n.to_bytes(2, "big") + b"\0\0"
    return bdw + body

