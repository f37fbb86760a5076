"""Deterministic generator of Event Replicator streams with typed record images.

A schema (``Field`` list: what the URBGs of a global format field table say) and records
(Python values: ``str``, ``int``, ``Decimal``, ``float``, ``date``, ``time``, ``datetime``,
``bytes``, lists for MU fields, lists of dicts for PE groups) become the URBF/URBG message
and data messages (URBT, URBR, URBD images, URBE), built by the URB builder from the one
layout declaration. The images are encoded here from the values, by the formats'
definitions (packed and zoned decimal digit by digit, IBM hexadecimal floating point from
``math.frexp``), independently of mqtool's decoders. Every field format, MU and PE fields
(occurrence and range order, an MU field in a PE group), optimized counts, variable
lengths, both character sets and both byte orders can be generated.
"""

from __future__ import annotations

import math
import random
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from mqtool.formats.urb.compose import Message, Part, build_message, data_message
from mqtool.formats.urb.meanings import FIELD_FLAG_BITS, FIELD_TYPE_BITS, GFFT_FLAGS, GFFT_FORMATS, ecs_codec


def _code(table: dict[int, str] | tuple[tuple[int, str], ...], text: str) -> int:
    pairs = table.items() if isinstance(table, dict) else table
    return next(code for code, t in pairs if t == text)


# GFFT field formats, type bits and flags (Event Replicator URBG/URBF DSECTs), by meaning
A, B, P, U, SHORT_FLOAT, LONG_FLOAT, DATE, PACKED_DATE, TIME, PACKED_TIME, W, BYTES, SIGNED = (
    _code(GFFT_FORMATS, t) for t in ("A", "B", "P", "U", "short float", "long float", "date", "packed date",
                                      "time", "packed time", "W", "binary string", "signed binary"))
GROUP = _code(GFFT_FORMATS, "none (group)")
T_PE, T_MU, T_COUNTER = (_code(FIELD_TYPE_BITS, t) for t in ("PE", "MU", "MU/PE counter"))
F_NOT_OUTPUT, F_RANGE, F_OPTIMIZED = (_code(FIELD_FLAG_BITS, t) for t in (
    "not in the output", "repeating MU/PE element", "optimized"))
GFFT_OPTIMIZED = _code(GFFT_FLAGS, "optimized")
NATDATE_EPOCH = date(1970, 1, 1)
START = datetime(2004, 6, 9, 15, 22, 52, 385856)  # transaction times count on from here (UTC)
NATDATE_1970 = 719527  # Natural day number of 1970-01-01 (adapya-base dtconv)


@dataclass(frozen=True)
class Field:
    """One URBG: a field (or a PE group, format 0) of the global format."""

    fid: str
    name: str
    fmt: int
    length: int = 0
    decimals: int = 0
    occurs: int = 0  # MU values / PE occurrences (URBGFRNO; URBGFONO for an MU in a PE)
    pe: bool = False  # a PE group, or a member of one (with ``group``)
    mu: bool = False
    group: str = ""
    flag: int = 0
    counter: bool = False


@dataclass(frozen=True)
class Encoding:
    """The character set, byte order and floating point of a stream and its images."""

    ebcdic: bool = True
    big: bool = True
    ieee: bool = False  # IEEE floats (else IBM hexadecimal)
    arc: int = 0  # URBTARC to send (0: not set: the message tells)
    acod: int = 0  # URBTACOD (0: the message's code page)
    wcod: int = 0  # URBTWCOD

    @property
    def acodec(self) -> str:
        return ecs_codec(self.acod) or ("cp037" if self.ebcdic else "latin-1")

    @property
    def wcodec(self) -> str:
        if self.wcod == 4091 or (not self.wcod and not self.ebcdic):
            return "utf-8"
        return "utf-16-be" if self.big or not self.wcod else "utf-16-le"


ZOS = Encoding()
WINTEL = Encoding(ebcdic=False, big=False, ieee=True, arc=9, acod=819, wcod=4091)


# --------------------------------------------------------------------------- schemas


def employees(optimized: bool = False, range_order: bool = False) -> list[Field]:
    """A schema with every format: text (fixed, variable, wide), binary (unsigned, signed,
    string), packed and unpacked decimals with decimal places, floats, dates and times, an
    MU field, a PE group with an MU field inside (not when ``optimized``: such a table has
    no MU in a PE), and a field that is not put into the output."""
    opt = F_OPTIMIZED if optimized else 0
    rng = F_RANGE if range_order else 0
    fields = [
        Field("AA", "PERSONNEL-ID", A, 8),
        Field("AB", "FIRST-NAME", A, 0),
        Field("AC", "SALARY", P, 5, 2),
        Field("AD", "BONUS-PCT", U, 4, 1),
        Field("AE", "AGE", B, 1),
        Field("AF", "EMP-NO", B, 4),
        Field("AG", "BALANCE", SIGNED, 8),
        Field("AH", "FLAGS", BYTES, 3),
        Field("AI", "RATE", SHORT_FLOAT, 4),
        Field("AJ", "SCORE", LONG_FLOAT, 8),
        Field("AK", "BIRTH", DATE, 8),
        Field("AL", "START-TIME", TIME, 6),
        Field("AM", "HIRED", PACKED_DATE, 4),
        Field("AN", "LAST-LOGIN", PACKED_TIME, 7),
        Field("AO", "NICK", W, 12),
        Field("AZ", "NOT-SENT", A, 5, flag=F_NOT_OUTPUT),
    ]
    if optimized:
        fields.append(Field("AP", "LANG", B, 1, counter=True))
    fields.append(Field("AP", "LANG", A, 3, occurs=3, mu=True, flag=opt))
    if optimized:
        fields.append(Field("AQ", "INCOME", B, 1, counter=True))
    fields += [
        Field("AQ", "INCOME", GROUP, pe=True, flag=opt),
        Field("AR", "CURR-CODE", A, 3, occurs=2, pe=True, group="AQ", flag=opt | rng),
        Field("AS", "AMOUNT", P, 4, 2, occurs=2, pe=True, group="AQ", flag=opt | rng),
    ]
    if not optimized:
        fields.append(Field("AT", "BONUS", P, 3, occurs=2, pe=True, mu=True, group="AQ", flag=rng))
    return fields


def urbg(f: Field, index: int) -> dict[str, Any]:
    """The URBG field values of one schema field."""
    typ = (T_PE if f.pe else 0) | (T_MU if f.mu else 0) | (T_COUNTER if f.counter else 0)
    in_pe = f.pe and f.mu
    return {"urbgidx": index, "urbgfid": f.fid, "urbgffmt": B if f.counter else f.fmt, "urbgtype": typ,
            "urbgflen": f.length, "urbgfprc": f.decimals, "urbgflag": f.flag,
            "urbgfrno": 0 if in_pe else f.occurs, "urbgfrfm": 0 if in_pe or not f.occurs else 1,
            "urbgfono": f.occurs if in_pe else 0, "urbgfofm": 1 if in_pe else 0,
            "urbgfnml": len(f.name), "urbgfnam": f.name, "urbgfgrp": f.group}


def gfft_message(fields: list[Field], enc: Encoding, dbid: int = 10006, fnr: int = 9,
                 gfid: str = "EMPLTYP", name: str = "EMPLOYEES", optimized: bool = False,
                 header: dict[str, Any] | None = None, urbgs: list[dict[str, Any]] | None = None) -> bytes:
    """A message holding the URBF and its URBGs (``urbgs`` replaces the schema's, for
    malformed tables)."""
    items = urbgs if urbgs is not None else [urbg(f, k + 1) for k, f in enumerate(fields)]
    part = Part("URBF", {"urbfvers": "01", "urbfgfid": gfid, "urbfdbid": dbid, "urbffnr": fnr,
                         "urbffnml": len(name), "urbffnam": name,
                         "urbfflag": GFFT_OPTIMIZED if optimized else 0}, None, "urbf[0]",
                [Part("URBG", g, None, f"urbf[0].urbg[{k}]") for k, g in enumerate(items)])
    return build_message(Message(header={"urbhname": "REPTOR", **(header or {})}, elements=[part],
                                 encoding="ebcdic" if enc.ebcdic else "ascii",
                                 byte_order="big" if enc.big else "little"))


# --------------------------------------------------------------------------- encoding values


def packed(unscaled: int, length: int, plus: int = 0xC) -> bytes:
    """Packed decimal: 2 x length - 1 digits, then the sign nibble (C or F plus, D minus)."""
    digits = str(abs(unscaled)).rjust(2 * length - 1, "0")
    if len(digits) > 2 * length - 1:
        raise ValueError(f"{unscaled} does not fit {length} packed bytes")
    return bytes.fromhex(digits + format(0xD if unscaled < 0 else plus, "X"))


def zoned(unscaled: int, length: int, ebcdic: bool) -> bytes:
    """Unpacked decimal: one digit a byte, the last byte's zone the sign."""
    digits = str(abs(unscaled)).rjust(length, "0")
    if len(digits) > length:
        raise ValueError(f"{unscaled} does not fit {length} unpacked bytes")
    zone = 0xF0 if ebcdic else 0x30
    out = bytearray(zone | int(c) for c in digits)
    if ebcdic:
        out[-1] = (0xD0 if unscaled < 0 else 0xC0) | int(digits[-1])
    elif unscaled < 0:
        out[-1] = 0x70 | int(digits[-1])
    return bytes(out)


def ibm_float(x: float, length: int) -> bytes:
    """IBM System/370 hexadecimal floating point: sign, exponent of 16 in excess 64, and a
    fraction of 8 x (length - 1) bits with its first hex digit non-zero (truncated)."""
    if x == 0:
        return bytes(length)
    mant, exp2 = math.frexp(abs(x))  # abs(x) = mant * 2**exp2, 0.5 <= mant < 1
    exp16 = -(-exp2 // 4)  # ceil(exp2 / 4)
    frac = mant * 2.0 ** (exp2 - 4 * exp16)  # 1/16 <= frac < 1
    bits = int(frac * (1 << (8 * (length - 1))))
    first = (0x80 if x < 0 else 0) | (exp16 + 64)
    return bytes([first]) + bits.to_bytes(length - 1, "big")


def _text(value: str, length: int, codec: str, blank: bytes) -> bytes:
    raw = value.encode(codec)
    if length == 0:
        return bytes([len(raw) + 1]) + raw
    if len(raw) > length:
        raise ValueError(f"{value!r} is longer than {length} bytes")
    return raw + blank * ((length - len(raw)) // len(blank))


def encode(f: Field, value: Any, enc: Encoding) -> bytes:
    """The image bytes of one value of field ``f``."""
    if f.fmt == A:
        return _text(value, f.length, enc.acodec, " ".encode(enc.acodec))
    if f.fmt == W:
        return _text(value, f.length, enc.wcodec, " ".encode(enc.wcodec))
    if f.fmt in (B, SIGNED):
        return int(value).to_bytes(f.length, "big" if enc.big else "little", signed=f.fmt == SIGNED)
    if f.fmt == BYTES:
        return bytes(value)
    if f.fmt in (P, U):
        unscaled = int(Decimal(value).scaleb(f.decimals))
        return packed(unscaled, f.length) if f.fmt == P else zoned(unscaled, f.length, enc.ebcdic)
    if f.fmt in (SHORT_FLOAT, LONG_FLOAT):
        if enc.ieee:
            return struct.pack(("<" if not enc.big else ">") + ("f" if f.length == 4 else "d"), value)
        raw = ibm_float(value, f.length)
        return raw if enc.big else raw[::-1]
    if f.fmt == DATE:
        return zoned(int(value.strftime("%Y%m%d")), f.length, enc.ebcdic)
    if f.fmt == TIME:
        return zoned(int(value.strftime("%H%M%S")), f.length, enc.ebcdic)
    if f.fmt == PACKED_DATE:
        return packed((value - NATDATE_EPOCH).days + NATDATE_1970, f.length)
    if f.fmt == PACKED_TIME:
        delta = value - datetime(1970, 1, 1)
        tenths = (delta.days * 86400 + delta.seconds) * 10 + delta.microseconds // 100_000
        return packed(tenths + NATDATE_1970 * 864000, f.length)
    raise ValueError(f"format X'{f.fmt:02X}'")


def image(fields: list[Field], record: dict[str, Any], enc: Encoding, optimized: bool = False) -> bytes:
    """The record image of ``record`` (values by long name) in the schema's order."""
    out = bytearray()
    k = 0
    while k < len(fields):
        f = fields[k]
        if f.flag & F_NOT_OUTPUT:
            k += 1
        elif f.counter:
            values = record.get(f.name) or []
            out += len(values).to_bytes(f.length, "big" if enc.big else "little")
            k += 1
        elif f.fmt == GROUP:
            members = [m for m in fields[k + 1:] if m.group == f.fid]
            out += _group(members, record.get(f.name) or [], enc, optimized)
            k += 1 + len(members)
        elif f.mu:
            values = record.get(f.name) or []
            occurs = len(values) if optimized else f.occurs
            for v in _padded(values, occurs, _null(f)):
                out += encode(f, v, enc)
            k += 1
        else:
            out += encode(f, record[f.name], enc)
            k += 1
    return bytes(out)


def _group(members: list[Field], occurrences: list[dict[str, Any]], enc: Encoding, optimized: bool) -> bytes:
    occurs = len(occurrences) if optimized else members[0].occurs
    rows = _padded(occurrences, occurs, {})
    out = bytearray()
    if members[0].flag & F_RANGE:
        for m in members:
            for occ in rows:
                out += _member(m, occ, enc)
        return bytes(out)
    for occ in rows:
        for m in members:
            out += _member(m, occ, enc)
    return bytes(out)


def _member(m: Field, occ: dict[str, Any], enc: Encoding) -> bytes:
    if m.mu:
        return b"".join(encode(m, v, enc) for v in _padded(occ.get(m.name) or [], m.occurs, _null(m)))
    return encode(m, occ.get(m.name, _null(m)), enc)


def _padded(values: list[Any], n: int, empty: Any) -> list[Any]:
    return list(values[:n]) + [empty] * (n - len(values))


def _null(f: Field) -> Any:
    """The Adabas null value of a field (blanks, zero)."""
    if f.fmt in (A, W):
        return ""
    if f.fmt == BYTES:
        return bytes(f.length)
    if f.fmt in (SHORT_FLOAT, LONG_FLOAT):
        return 0.0
    return 0


# --------------------------------------------------------------------------- records


def expected(fields: list[Field], record: dict[str, Any], optimized: bool = False) -> dict[str, Any]:
    """What a decoder must give for ``record``: unsent fields left out, MU values and PE
    occurrences padded to their fixed count with null values (not when ``optimized``)."""
    out: dict[str, Any] = {}
    for f in fields:
        if f.flag & F_NOT_OUTPUT or f.counter or f.group:
            continue
        if f.fmt == GROUP:
            members = [m for m in fields if m.group == f.fid and not m.counter]
            occs = record.get(f.name) or []
            if not optimized:
                occs = _padded(occs, members[0].occurs, {})
            out[f.name] = [{m.name: (_padded(o.get(m.name) or [], m.occurs, _null(m)) if m.mu
                                     else o.get(m.name, _null(m))) for m in members} for o in occs]
        elif f.mu:
            vals = record.get(f.name) or []
            out[f.name] = vals if optimized else _padded(vals, f.occurs, _null(f))
        else:
            out[f.name] = record[f.name]
    return out


def random_record(rnd: random.Random, k: int, optimized: bool = False) -> dict[str, Any]:
    """Values for the ``employees`` schema (all exactly representable in their formats)."""
    born = date(1950, 1, 1) + timedelta(days=rnd.randrange(20000))
    return {
        "PERSONNEL-ID": f"{20000000 + k:08d}",
        "FIRST-NAME": rnd.choice(["BOB", "SHIRLY", "ALEXANDRE", "JEAN-MARIE", "Ö", ""]),
        "SALARY": Decimal(rnd.randrange(-10**8 + 1, 10**8)).scaleb(-2),
        "BONUS-PCT": Decimal(rnd.randrange(-999, 1000)).scaleb(-1),
        "AGE": rnd.randrange(256),
        "EMP-NO": rnd.randrange(2**32),
        "BALANCE": rnd.randrange(-2**63, 2**63),
        "FLAGS": rnd.randbytes(3),
        "RATE": rnd.randrange(-2**20, 2**20) / 64,
        "SCORE": rnd.randrange(-2**50, 2**50) / 1024,
        "BIRTH": born,
        "START-TIME": time(rnd.randrange(24), rnd.randrange(60), rnd.randrange(60)),
        "HIRED": born + timedelta(days=rnd.randrange(1, 15000)),
        "LAST-LOGIN": datetime(2004, 6, 9, 15, 22, 52, 500000) + timedelta(seconds=rnd.randrange(10**8)),
        "NICK": rnd.choice(["Bob", "Ægir", "Zoë", "李"]),
        "LANG": [rnd.choice(["ENG", "GER", "FRE"]) for _ in range(rnd.randrange(4 if optimized else 3))],
        "INCOME": [{"CURR-CODE": rnd.choice(["EUR", "USD"]),
                    "AMOUNT": Decimal(rnd.randrange(-10**6, 10**6)).scaleb(-2),
                    **({} if optimized else
                       {"BONUS": [rnd.randrange(-99999, 100000) for _ in range(rnd.randrange(3))]})}
                   for _ in range(rnd.randrange(3 if optimized else 2))],
    }


@dataclass
class Change:
    """One record change: URBR type (I, U, D, R), ISN, its images' values."""

    kind: str
    isn: int
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None


@dataclass
class Stream:
    """A generated stream: its bytes and the changes it carries, transaction by transaction."""

    data: bytes
    transactions: list[list[Change]] = field(default_factory=list)


def changes(n: int, seed: int = 0, optimized: bool = False, per_tx: int = 5) -> list[list[Change]]:
    """``n`` changes on ISNs 1.. in transactions: inserts, updates, deletes, re-inserts."""
    rnd = random.Random(seed)
    live: dict[int, dict[str, Any]] = {}
    out: list[list[Change]] = []
    tx: list[Change] = []
    for k in range(n):
        isn = rnd.randrange(1, max(2, n // 3))
        rec = random_record(rnd, isn, optimized)
        if isn not in live:
            c = Change("I", isn, None, rec)
            live[isn] = rec
        elif rnd.random() < 0.25:
            c = Change("D", isn, live.pop(isn), None)
        else:
            c = Change("U", isn, live[isn], rec)
            live[isn] = rec
        tx.append(c)
        if len(tx) == per_tx or k == n - 1:
            out.append(tx)
            tx = []
    return out


def stream(fields: list[Field], transactions: list[list[Change]], enc: Encoding = ZOS,
           optimized: bool = False, dbid: int = 10006, fnr: int = 9, gfft: bool = True,
           subscription: str = "EMPLOYEE") -> Stream:
    """The URBF message (``gfft``), then one data message per transaction."""
    parts = [gfft_message(fields, enc, dbid, fnr, optimized=optimized)] if gfft else []
    for t, tx in enumerate(transactions):
        when = START + timedelta(seconds=t)
        records = []
        for c in tx:
            images = []
            if c.before is not None:
                images.append(("B", image(fields, c.before, enc, optimized)))
            if c.after is not None:
                images.append(("A", image(fields, c.after, enc, optimized)))
            records.append(({"urbrfnr": fnr, "urbrisn": c.isn, "urbrtyp": c.kind,
                             "urbrtime": when.isoformat() + "Z"}, images))
        msg = data_message({"urbtsnam": subscription, "urbttsnr": t + 1, "urbtdbid": dbid,
                            "urbtarc": enc.arc, "urbtacod": enc.acod, "urbtwcod": enc.wcod,
                            "urbtttim": when.isoformat() + "Z"},
                           records, {"urbhname": "REPTOR", "urbhmsnr": t + 2})
        parts.append(build_message(replace(msg, encoding="ebcdic" if enc.ebcdic else "ascii",
                                           byte_order="big" if enc.big else "little")))
    return Stream(b"".join(parts), transactions)


def iter_records(transactions: list[list[Change]]) -> Iterator[Change]:
    for tx in transactions:
        yield from tx


def final_state(fields: list[Field], transactions: list[list[Change]]) -> dict[int, dict[str, Any]]:
    """What a current-state table keyed by ISN must hold after the changes, in commit
    order: a delete removes the ISN, an insert or update leaves its after-image as
    ``expected`` gives it (computed from the records, not by the decoder)."""
    state: dict[int, dict[str, Any]] = {}
    for c in iter_records(transactions):
        if c.kind == "D":
            state.pop(c.isn, None)
        else:
            assert c.after is not None, f"{c.kind} of ISN {c.isn} without an after-image"
            state[c.isn] = expected(fields, c.after)
    return state
