"""Adabas field values to Arrow arrays, many at once (numpy over the value bytes).

Formats (Software AG, Adabas Command Reference, *Record Buffers*; Adabas *Data Types*):

* A — text in the image's alphanumeric code page (URBTACOD; else the message's), trailing
  blanks trimmed unless kept. W — wide-character text in URBTWCOD's encoding.
* B — unsigned binary; 1, 2, 4 or 8 bytes are integers (two's complement when the GFFT
  says signed, X'82'), other lengths bytes. F — two's complement integers.
* G — floating point, 4 or 8 bytes: IBM System/370 hexadecimal floating point (sign bit,
  7-bit excess-64 exponent of 16, fraction) or IEEE 754, chosen per image (``Encoding``).
* P — packed decimal: two digits a byte, the last nibble the sign (A, C, E, F plus;
  B, D minus). U — unpacked (zoned) decimal: one digit a byte in the low nibble, the zone
  of the last byte the sign (EBCDIC: F/C plus, D minus; ASCII: 3 plus, 7 minus).
* Dates and times: digits YYYYMMDD (DATE), HHMMSS (TIME), YYYYMMDDHHMMSS (DATETIME),
  YYYYMMDDHHMMSSuuuuuu (TIMESTAMP); Natural dates (days) and times (tenths of seconds)
  counted from 0000-01-02, so that 1970-01-01 is day 719527 (Software AG, adapya-base
  ``dtconv``: ``date2natdate(1970, 1, 1) == 719527``); UNIXTIME seconds and XTIMESTAMP
  microseconds since 1970-01-01.

A value that does not decode is null, and its row index and reason are returned (the
caller turns them into rows of ``errors``); nothing is guessed.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mqtool.formats.urb.typed.layout import INT_SIZES, Value, decimal_digits, value_type

NATDATE_1970 = 719527  # Natural day number of 1970-01-01
TENTHS_PER_DAY = 864000
US = 1_000_000
BLANK_TRIM = " "
HIGH_NIBBLES, LOW_NIBBLES = slice(0, None, 2), slice(1, None, 2)  # digit positions in packed bytes
UTF16_UNIT = 2  # bytes of a UTF-16 code unit
INT64_DIGITS = 18  # decimal digits an int64 always holds

# (row index within the batch, reason)
Failures = list[tuple[int, str]]


@dataclass(frozen=True)
class Encoding:
    """How the values of an image are encoded: byte order of binary fields, the floating
    point form, the character set of zoned signs and text, and the text codecs."""

    big: bool = True
    floats: str = "ibm"  # ibm / ieee / vax
    ebcdic: bool = True
    acodec: str = "cp037"
    wcodec: str = "utf-16-be"
    keep_blanks: bool = False


# --------------------------------------------------------------------------- bytes


def gather(buf: np.ndarray, pos: np.ndarray, length: int) -> np.ndarray:
    """The ``length`` bytes at each of ``pos`` as an (n, length) matrix (indices past the
    buffer read its last byte: the caller masks those rows)."""
    if length == 0 or not len(pos):
        return np.zeros((len(pos), length), np.uint8)
    idx = pos[:, None] + np.arange(length, dtype=np.int64)
    np.minimum(idx, len(buf) - 1, out=idx)
    return buf[idx]


def ragged(buf: np.ndarray, pos: np.ndarray, lens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The bytes of values of different lengths, one after the other, and their offsets."""
    offsets = np.zeros(len(pos) + 1, np.int64)
    np.cumsum(lens, out=offsets[1:])
    total = int(offsets[-1])
    if total == 0:
        return np.zeros(0, np.uint8), offsets
    idx = np.repeat(pos - offsets[:-1], lens) + np.arange(total, dtype=np.int64)
    return buf[idx], offsets


# --------------------------------------------------------------------------- text


@lru_cache(maxsize=32)
def _single_byte(codec: str) -> np.ndarray | None:
    """UTF-8 length of each byte's character in a single-byte codec, None when not one."""
    try:
        chars = bytes(range(256)).decode(codec)
    except (UnicodeDecodeError, LookupError):
        return None
    if len(chars) != 256:
        return None
    return np.array([len(c.encode("utf-8")) for c in chars], np.int64)


def text(flat: np.ndarray, offsets: np.ndarray, codec: str, keep_blanks: bool = False
         ) -> tuple[pa.Array, Failures]:
    """Strings from the bytes of each value (``offsets`` into ``flat``)."""
    n = len(offsets) - 1
    lens = _single_byte(codec)
    if lens is not None:
        data = flat.tobytes().decode(codec).encode("utf-8")
        cum = np.zeros(len(flat) + 1, np.int64)
        np.cumsum(lens[flat], out=cum[1:])
        out = pa.StringArray.from_buffers(n, pa.py_buffer(cum[offsets].astype(np.int64)
                                                          .astype(np.int32)), pa.py_buffer(data))
        fails: Failures = []
    else:
        out, fails = _multibyte(flat, offsets, codec)
    if not keep_blanks:
        out = pc.utf8_rtrim(out, characters=BLANK_TRIM)
    return out, fails


def _multibyte(flat: np.ndarray, offsets: np.ndarray, codec: str) -> tuple[pa.Array, Failures]:
    """UTF-8 checked by Arrow in one pass, UTF-16 decoded in one pass; value by value where
    that fails (to say which value is not text) and for other encodings."""
    raw = flat.tobytes()
    n = len(offsets) - 1
    name = codec.replace("-", "").replace("_", "").lower()
    if name == "utf8":
        arr = pa.BinaryArray.from_buffers(pa.binary(), n, [None, pa.py_buffer(offsets.astype(np.int32)),
                                                           pa.py_buffer(raw)])
        try:
            return arr.cast(pa.string()), []
        except pa.ArrowInvalid:
            pass
    elif name in ("utf16be", "utf16le"):
        whole = _utf16(flat, offsets, codec)
        if whole is not None:
            return whole, []
    values: list[str | None] = []
    fails: Failures = []
    for i in range(n):
        chunk = raw[offsets[i]:offsets[i + 1]]
        try:
            values.append(chunk.decode(codec))
        except UnicodeDecodeError as e:
            values.append(None)
            fails.append((i, f"not {codec} text: byte {e.start} of the value ({e.reason})"))
    return pa.array(values, pa.string()), fails


def _utf16(flat: np.ndarray, offsets: np.ndarray, codec: str) -> pa.Array | None:
    """UTF-16 values decoded all at once; None when one of them is not UTF-16 on its own (an
    odd length, a surrogate pair cut at either end: the caller then goes value by value)."""
    if (offsets % 2).any():
        return None
    units = flat.view(">u2" if codec.lower().replace("_", "-").endswith("be") else "<u2")
    low = (units >= 0xDC00) & (units < 0xE000)
    starts, ends = offsets[:-1] // 2, offsets[1:] // 2
    full = ends > starts
    last = units[np.maximum(ends[full] - 1, 0)] if len(units) else np.zeros(0, np.uint16)
    if ((last >= 0xD800) & (last < 0xDC00)).any():
        return None
    if len(units) and low[np.minimum(starts[full], len(units) - 1)].any():
        return None
    try:
        decoded = flat.tobytes().decode(codec)
    except UnicodeDecodeError:
        return None
    points = np.frombuffer(decoded.encode("utf-32-le"), np.uint32)
    utf8 = 1 + (points >= 0x80) + (points >= 0x800) + (points >= 0x10000)
    chars = np.zeros(len(units) + 1, np.int64)  # characters before each code unit
    np.cumsum(1 - low, out=chars[1:])
    cum = np.zeros(len(points) + 1, np.int64)
    np.cumsum(utf8, out=cum[1:])
    unit_offsets = offsets // UTF16_UNIT
    utf8_offsets = cum[chars[unit_offsets]].astype(np.int32)
    return pa.StringArray.from_buffers(len(offsets) - 1, pa.py_buffer(utf8_offsets),
                                       pa.py_buffer(decoded.encode("utf-8")))


# --------------------------------------------------------------------------- binary, floats


def integers(m: np.ndarray, signed: bool, big: bool) -> np.ndarray:
    """Integers from an (n, 1|2|4|8) byte matrix."""
    size = m.shape[1]
    dt = np.dtype(f"{'>' if big else '<'}{'i' if signed else 'u'}{size}")
    return np.ascontiguousarray(m).view(dt).ravel().astype(dt.newbyteorder("="))


def ibm_floats(m: np.ndarray) -> np.ndarray:
    """IBM hexadecimal floating point (short 4 / long 8 bytes, big-endian) to float64:
    (-1)^sign x fraction x 16^(exponent - 64), the fraction the bytes after the first read
    as a binary fraction."""
    size = m.shape[1]
    first = m[:, 0].astype(np.int64)
    frac = np.zeros(len(m), np.uint64)
    for k in range(1, size):
        frac = (frac << np.uint64(8)) | m[:, k].astype(np.uint64)
    exp = (first & 0x7F) - 64
    value = np.ldexp(frac.astype(np.float64), (4 * exp - 8 * (size - 1)).astype(np.int32))
    out: np.ndarray = np.where(first & 0x80, -value, value)
    return out


def floats(m: np.ndarray, enc: Encoding) -> tuple[np.ndarray, np.ndarray]:
    """Floating-point values and the rows that could not be read (VAX)."""
    size = m.shape[1]
    bad = np.zeros(len(m), bool)
    if enc.floats == "ibm":
        if not enc.big:  # an IBM float in a little-endian image: its bytes were swapped
            m = m[:, ::-1]
        return ibm_floats(m), bad
    if enc.floats == "vax":
        return np.full(len(m), np.nan), ~bad
    dt = np.dtype(f"{'>' if enc.big else '<'}f{size}")
    return np.ascontiguousarray(m).view(dt).ravel().astype(np.float64), bad


# --------------------------------------------------------------------------- decimal digits


@dataclass
class Digits:
    """The digits of packed or zoned values (most significant first), their signs, and
    which rows are not decimal (with why)."""

    d: np.ndarray  # (n, digits) int64
    negative: np.ndarray
    bad: np.ndarray
    why: np.ndarray  # object: reason per bad row


def packed(m: np.ndarray) -> Digits:
    n, size = m.shape
    hi, lo = (m >> 4).astype(np.int64), (m & 0xF).astype(np.int64)
    d = np.empty((n, 2 * size - 1), np.int64)
    d[:, HIGH_NIBBLES] = hi
    d[:, LOW_NIBBLES] = lo[:, :-1]
    sign = lo[:, -1]
    why = np.full(n, None, object)
    bad_digit = d > 9
    bad = bad_digit.any(axis=1)
    for i in np.nonzero(bad)[0]:
        k = int(np.argmax(bad_digit[i]))
        why[i] = f"packed decimal: nibble X'{d[i, k]:X}' at byte {k // 2} is no digit"
    bad_sign = sign < 0xA
    for i in np.nonzero(bad_sign & ~bad)[0]:
        why[i] = f"packed decimal: sign nibble X'{sign[i]:X}' (A-F)"
    return Digits(d, (sign == 0xB) | (sign == 0xD), bad | bad_sign, why)


def zoned(m: np.ndarray, ebcdic: bool) -> Digits:
    n = len(m)
    zone, d = (m >> 4).astype(np.int64), (m & 0xF).astype(np.int64)
    why = np.full(n, None, object)
    digit_zone = 0xF if ebcdic else 0x3
    plus, minus = ((0xA, 0xC, 0xE, 0xF), (0xB, 0xD)) if ebcdic else ((0x3,), (0x7,))
    bad_zone = zone[:, :-1] != digit_zone
    bad_digit = d > 9
    last = zone[:, -1]
    bad_sign = ~np.isin(last, plus + minus)
    bad = bad_zone.any(axis=1) | bad_digit.any(axis=1) | bad_sign
    for i in np.nonzero(bad)[0]:
        if bad_digit[i].any():
            k = int(np.argmax(bad_digit[i]))
            why[i] = f"unpacked decimal: byte {k} X'{m[i, k]:02X}' is no digit"
        elif bad_zone[i].any():
            k = int(np.argmax(bad_zone[i]))
            why[i] = (f"unpacked decimal: byte {k} X'{m[i, k]:02X}' has zone {zone[i, k]:X}, "
                      f"not {digit_zone:X}")
        else:
            why[i] = f"unpacked decimal: sign zone {last[i]:X} of the last byte X'{m[i, -1]:02X}'"
    return Digits(d, np.isin(last, minus), bad, why)


def _number(d: np.ndarray) -> np.ndarray:
    """The integer value of up to 18 digits a row."""
    width = d.shape[1]
    if width == 0:
        return np.zeros(len(d), np.int64)
    pow10 = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    out: np.ndarray = d @ pow10
    return out


def decimals(dg: Digits, precision: int, scale: int) -> pa.Array:
    """decimal128(precision, scale) from digits (the unscaled value), null where bad."""
    n, width = dg.d.shape
    words = np.zeros((n, 2), np.int64)
    if width <= 18:
        v = _number(dg.d)
        v = np.where(dg.negative, -v, v)
        words[:, 0] = v
        words[:, 1] = v >> 63
    else:
        split = width - INT64_DIGITS
        high, low = _number(dg.d[:, :split]), _number(dg.d[:, split:])
        raw = bytearray()
        for h, lo_, neg in zip(high.tolist(), low.tolist(), dg.negative.tolist(), strict=True):
            v = h * 10**18 + lo_
            raw += (-v if neg else v).to_bytes(16, "little", signed=True)
        words = np.frombuffer(bytes(raw), np.int64).reshape(n, 2).copy() if n else words
    words[dg.bad] = 0
    validity = _validity(~dg.bad)
    return pa.Array.from_buffers(pa.decimal128(precision, scale), n,
                                 [validity, pa.py_buffer(np.ascontiguousarray(words))])


def _validity(valid: np.ndarray) -> pa.Buffer | None:
    if valid.all():
        return None
    return pa.py_buffer(np.packbits(valid, bitorder="little"))


# --------------------------------------------------------------------------- dates and times


def days_from_civil(y: np.ndarray, m: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Days since 1970-01-01 of proleptic Gregorian dates (H. Hinnant, *chrono-Compatible
    Low-Level Date Algorithms*, days_from_civil)."""
    y = y - (m <= 2)
    era = np.floor_divide(y, 400)
    yoe = y - era * 400
    mp = (m + 9) % 12
    doy = (153 * mp + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    out: np.ndarray = era * 146097 + doe - 719468
    return out


def _valid_date(y: np.ndarray, m: np.ndarray, d: np.ndarray) -> np.ndarray:
    leap = ((y % 4 == 0) & (y % 100 != 0)) | (y % 400 == 0)
    mdays = np.array([0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31], np.int64)
    months = np.clip(m, 0, 12)
    last = mdays[months] + ((m == 2) & leap)
    out: np.ndarray = (y >= 1) & (y <= 9999) & (m >= 1) & (m <= 12) & (d >= 1) & (d <= last)
    return out


DIGIT_MASKS = {"DATE": 8, "TIME": 6, "DATETIME": 14, "TIMESTAMP": 20}
# digit positions: YYYYMMDD, HHMMSS, and in a DATETIME / TIMESTAMP after the date, HHMMSSuuuuuu
DATE_PARTS = (slice(0, 4), slice(4, 6), slice(6, 8))
TIME_PARTS = (slice(0, 2), slice(2, 4), slice(4, 6))
CLOCK_PARTS = (slice(8, 10), slice(10, 12), slice(12, 14))
MICROS = slice(14, 20)


def _tail(dg: Digits, width: int) -> tuple[np.ndarray, np.ndarray]:
    """The last ``width`` digits (the leading ones must be zero and the value positive)."""
    d = dg.d
    extra = d[:, :max(d.shape[1] - width, 0)]
    ok = ~dg.bad & ~dg.negative & (extra == 0).all(axis=1)
    t = d[:, max(d.shape[1] - width, 0):]
    if t.shape[1] < width:
        t = np.concatenate([np.zeros((len(d), width - t.shape[1]), np.int64), t], axis=1)
    return t, ok


def digit_times(dg: Digits, mask: str) -> tuple[pa.Array, np.ndarray, np.ndarray]:
    """DATE/TIME/DATETIME/TIMESTAMP digits to date32 / time64 / timestamp: the array, the
    rows that are not a date or time, and the rows that are all zero (null, no error)."""
    t, ok = _tail(dg, DIGIT_MASKS[mask])
    zero = ~dg.bad & (dg.d == 0).all(axis=1)
    if mask == "TIME":
        hh, mi, ss = (_number(t[:, s]) for s in TIME_PARTS)
        ok &= (hh < 24) & (mi < 60) & (ss < 60)
        us = ((hh * 60 + mi) * 60 + ss) * US
        return _arrow(us, ok, pa.time64("us")), ~ok & ~zero, zero
    y, mo, da = (_number(t[:, s]) for s in DATE_PARTS)
    valid = _valid_date(y, mo, da)
    days = days_from_civil(y, mo, da)
    if mask == "DATE":
        ok &= valid
        return _arrow(days, ok, pa.date32()), ~ok & ~zero, zero
    hh, mi, ss = (_number(t[:, s]) for s in CLOCK_PARTS)
    frac = _number(t[:, MICROS]) if mask == "TIMESTAMP" else np.zeros(len(t), np.int64)
    ok &= valid & (hh < 24) & (mi < 60) & (ss < 60)
    us = ((days * 24 + hh) * 60 + mi) * 60 * US + ss * US + frac
    return _arrow(us, ok, pa.timestamp("us")), ~ok & ~zero, zero


def _arrow(values: np.ndarray, ok: np.ndarray, typ: pa.DataType) -> pa.Array:
    """An array of ``values`` where ``ok`` (null elsewhere)."""
    values = np.where(ok, values, 0)
    if typ == pa.date32():
        return pa.array(values.astype(np.int32), pa.int32(), mask=~ok).cast(typ)
    return pa.array(values.astype(np.int64), typ, mask=~ok)


def count_times(values: np.ndarray, mask: str, bad: np.ndarray) -> tuple[pa.Array, np.ndarray]:
    """NATDATE (days since 0000-01-02), NATTIME (tenths of seconds), UNIXTIME (seconds since
    1970), XTIMESTAMP (microseconds since 1970) to date32 / timestamp; zero is null."""
    ok = ~bad & (values != 0)
    if mask == "NATDATE":
        days = values - NATDATE_1970
        ok &= (days > -719162) & (days < 2932897)  # 0001-01-01 .. 9999-12-31
        return _arrow(days, ok, pa.date32()), ~ok & ~bad & (values != 0)
    if mask == "NATTIME":
        us = (values - NATDATE_1970 * TENTHS_PER_DAY) * (US // 10)
    elif mask == "UNIXTIME":
        us = values * US
    else:
        us = values
    return _arrow(us, ok, pa.timestamp("us")), np.zeros(len(values), bool)


# --------------------------------------------------------------------------- one format


def fixed(v: Value, m: np.ndarray, enc: Encoding) -> tuple[pa.Array, Failures]:
    """The values of field ``v`` from an (n, length) matrix of their bytes."""
    n = len(m)
    if v.fmt in ("A", "W"):
        offsets = np.arange(n + 1, dtype=np.int64) * m.shape[1]
        return text(m.ravel(), offsets, enc.acodec if v.fmt == "A" else enc.wcodec, enc.keep_blanks)
    if v.fmt in ("P", "U"):
        return _decimal(v, packed(m) if v.fmt == "P" else zoned(m, enc.ebcdic))
    if v.fmt == "G":
        vals, bad = floats(m, enc)
        return pa.array(vals, pa.float64(), mask=bad), [(int(i), "VAX floating point is not decoded")
                                                        for i in np.nonzero(bad)[0]]
    size = m.shape[1]
    if v.fmt == "F" or (not v.raw and size in INT_SIZES):
        ints = integers(m, v.fmt == "F" or v.signed, enc.big)
        if v.mask is not None:
            arr, _bad = count_times(ints.astype(np.int64), v.mask, np.zeros(n, bool))
            return arr, []
        return pa.array(ints, value_type(v)), []
    raw = pa.py_buffer(np.ascontiguousarray(m).tobytes())
    return pa.Array.from_buffers(pa.binary(size), n, [None, raw]).cast(pa.binary()), []


def _decimal(v: Value, dg: Digits) -> tuple[pa.Array, Failures]:
    fails: Failures = [(int(i), str(dg.why[i])) for i in np.nonzero(dg.bad)[0]]
    if v.mask in DIGIT_MASKS:
        arr, bad, _zero = digit_times(dg, v.mask)
        fails += [(int(i), f"not a {v.mask.lower()} ({_digits_text(dg.d[i])})")
                  for i in np.nonzero(bad & ~dg.bad)[0]]
        return arr, fails
    if v.mask is not None:
        value = _number(dg.d)
        arr, bad = count_times(np.where(dg.negative, -value, value), v.mask, dg.bad)
        fails += [(int(i), f"{v.mask} {value[i]} is out of range") for i in np.nonzero(bad)[0]]
        return arr, fails
    digits = decimal_digits(v) if v.length else dg.d.shape[1]
    return decimals(dg, max(digits, v.scale, 1), v.scale).cast(value_type(v)), fails


def _digits_text(d: np.ndarray) -> str:
    return "".join(str(int(x)) for x in d)
