"""Adabas field values decoded, checked against values computed here from the formats'
definitions (packed / unpacked decimal digit by digit, IBM hexadecimal floating point from
sign, exponent and fraction with exact fractions), published vectors, and the Natural day
numbers of Software AG's adapya-base ``dtconv`` doctests."""

from __future__ import annotations

import struct
from datetime import date, datetime, time
from decimal import Context, Decimal
from fractions import Fraction

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.formats.urb.typed.images import decode_images
from mqtool.formats.urb.typed.layout import RecordLayout, Value, check
from mqtool.formats.urb.typed.values import Encoding

ZOS = Encoding()  # EBCDIC, big-endian, IBM floats
PC = Encoding(big=False, floats="ieee", ebcdic=False, acodec="latin-1", wcodec="utf-8")

# decimal128 holds 38 digits; the default context (28) would round the expected value
EXACT = Context(prec=40)


def one(v: Value, images: list[bytes], enc: Encoding = ZOS) -> tuple[list[object], list[object]]:
    arr, fails = decode_images(check(RecordLayout((v,), "test")), pa.array(images, pa.binary()), enc)
    return [r[v.column] for r in arr.to_pylist()], fails


# --------------------------------------------------------------------------- definitions


def packed_bytes(unscaled: int, length: int, plus: int = 0xC) -> bytes:
    """2 x length - 1 decimal digits, a nibble each, then the sign nibble."""
    nibbles = [int(c) for c in str(abs(unscaled)).zfill(2 * length - 1)] + [0xD if unscaled < 0 else plus]
    return bytes(nibbles[k] << 4 | nibbles[k + 1] for k in range(0, len(nibbles), 2))


def zoned_bytes(unscaled: int, length: int, ebcdic: bool) -> bytes:
    digits = [int(c) for c in str(abs(unscaled)).zfill(length)]
    zones = [0xF if ebcdic else 0x3] * length
    if unscaled < 0:
        zones[-1] = 0xD if ebcdic else 0x7
    elif ebcdic:
        zones[-1] = 0xC
    return bytes(z << 4 | d for z, d in zip(zones, digits, strict=True))


def ibm_value(raw: bytes) -> Fraction:
    """(-1)^sign x 0.fraction (base 16) x 16^(exponent - 64)."""
    sign = -1 if raw[0] & 0x80 else 1
    exp = (raw[0] & 0x7F) - 64
    frac = Fraction(int.from_bytes(raw[1:], "big"), 1 << (8 * (len(raw) - 1)))
    return sign * frac * Fraction(16) ** exp


# --------------------------------------------------------------------------- packed, unpacked


def test_packed_vectors() -> None:
    v = Value("AC", "SALARY", "P", 4, scale=2)
    got, fails = one(v, [bytes.fromhex("0123456C"), bytes.fromhex("0000001D"), bytes.fromhex("9999999F"),
                         bytes.fromhex("0000000C")])
    assert got == [Decimal("1234.56"), Decimal("-0.01"), Decimal("99999.99"), Decimal("0.00")]
    assert not fails


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 16), st.data())
def test_packed_any(length: int, data: st.DataObject) -> None:
    digits = 2 * length - 1
    scale = data.draw(st.integers(0, digits))
    n = data.draw(st.integers(-(10**digits) + 1, 10**digits - 1))
    plus = data.draw(st.sampled_from([0xA, 0xC, 0xE, 0xF]))
    got, fails = one(Value("AA", "AA", "P", length, scale=scale), [packed_bytes(n, length, plus)])
    assert not fails
    assert got == [Decimal(n).scaleb(-scale, EXACT)]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 29), st.booleans(), st.data())
def test_zoned_any(length: int, ebcdic: bool, data: st.DataObject) -> None:
    n = data.draw(st.integers(-(10**length) + 1, 10**length - 1))
    scale = data.draw(st.integers(0, length))
    enc = ZOS if ebcdic else PC
    got, fails = one(Value("AA", "AA", "U", length, scale=scale), [zoned_bytes(n, length, ebcdic)], enc)
    assert not fails
    assert got == [Decimal(n).scaleb(-scale, EXACT)]


def test_bad_digits_are_null_with_a_reason() -> None:
    got, fails = one(Value("AC", "SALARY", "P", 3), [bytes.fromhex("12A45C"), bytes.fromhex("123453"),
                                                      bytes.fromhex("12345D")])
    assert got == [None, None, Decimal(-12345)]
    assert [(f.image, f.offset) for f in fails] == [(0, 0), (1, 0)]
    assert "nibble X'A' at byte 1" in fails[0].reason
    assert "sign nibble X'3'" in fails[1].reason
    assert fails[0].first_bytes == "12A45C"
    got, fails = one(Value("AD", "AD", "U", 3), ["1A3".encode("cp037"), bytes.fromhex("F1F293")])
    assert got == [None, None]
    assert "byte 1 X'C1' has zone C, not F" in fails[0].reason
    assert "sign zone 9" in fails[1].reason


# --------------------------------------------------------------------------- floats


@pytest.mark.parametrize(("hexed", "value"), [
    ("C276A000", -118.625),  # the IBM System/360 hexadecimal floating point example
    ("42640000", 100.0),
    ("41100000", 1.0),
    ("00000000", 0.0),
    ("4110000000000000", 1.0),
    ("C120000000000000", -2.0),
])
def test_ibm_float_vectors(hexed: str, value: float) -> None:
    raw = bytes.fromhex(hexed)
    got, fails = one(Value("AI", "RATE", "G", len(raw)), [raw])
    assert got == [value] == [float(ibm_value(raw))]
    assert not fails


@settings(max_examples=100, deadline=None)
@given(st.sampled_from([4, 8]), st.binary(min_size=8, max_size=8))
def test_ibm_float_any(length: int, raw: bytes) -> None:
    raw = raw[:length]
    got, _ = one(Value("AJ", "SCORE", "G", length), [raw])
    assert got[0] == float(ibm_value(raw))
    swapped, _ = one(Value("AJ", "SCORE", "G", length), [raw[::-1]], Encoding(big=False))
    assert swapped == [float(ibm_value(raw))]


@settings(max_examples=50, deadline=None)
@given(st.floats(allow_nan=False, width=32), st.booleans())
def test_ieee_floats(x: float, big: bool) -> None:
    enc = Encoding(big=big, floats="ieee", ebcdic=False)
    raw = struct.pack(">f" if big else "<f", x)
    got, _ = one(Value("AI", "RATE", "G", 4), [raw], enc)
    assert got == [x]


# --------------------------------------------------------------------------- binary, text


def test_binary_by_length_and_sign() -> None:
    got, _ = one(Value("AF", "N", "B", 2), [b"\xff\xfe"])
    assert got == [0xFFFE]
    got, _ = one(Value("AF", "N", "B", 2, signed=True), [b"\xff\xfe"])
    assert got == [-2]
    got, _ = one(Value("AF", "N", "F", 4), [b"\xfe\xff\xff\xff"], PC)
    assert got == [-2]
    got, _ = one(Value("AF", "N", "B", 3), [b"\x01\x02\x03"])
    assert got == [b"\x01\x02\x03"]
    got, _ = one(Value("AF", "N", "B", 4, raw=True), [b"\x00\x00\x00\x07"])
    assert got == [b"\x00\x00\x00\x07"]


def test_text_trimmed_or_kept_in_its_code_page() -> None:
    v = Value("AA", "NAME", "A", 8)
    got, _ = one(v, ["GREEN".encode("cp037").ljust(8, b"\x40")])
    assert got == ["GREEN"]
    got, _ = one(v, ["GREEN".encode("cp037").ljust(8, b"\x40")], Encoding(keep_blanks=True))
    assert got == ["GREEN   "]
    got, _ = one(v, ["Müller".encode("latin-1").ljust(8)], PC)
    assert got == ["Müller"]


@pytest.mark.parametrize("codec", ["utf-8", "utf-16-be", "utf-16-le"])
def test_wide_text(codec: str) -> None:
    words = ["Zoë", "李", "😀x", ""]
    raw = [w.encode(codec) + " ".encode(codec) * (6 - len(w.encode(codec)) // len(" ".encode(codec)))
           for w in words]
    size = max(len(r) for r in raw)
    raw = [r.ljust(size, b"\x00") if codec == "utf-8" else r for r in raw]
    if len({len(r) for r in raw}) != 1:
        raw = [w.encode(codec) for w in words]
        got, _ = one(Value("AO", "NICK", "W", 0), [bytes([len(r) + 1]) + r for r in raw],
                     Encoding(wcodec=codec))
        assert got == words
        return
    got, _ = one(Value("AO", "NICK", "W", size), raw, Encoding(wcodec=codec))
    assert [g.rstrip("\x00") for g in got] == words


def test_wide_text_cut_surrogate_pair_is_an_error() -> None:
    pair = "😀".encode("utf-16-be")
    got, fails = one(Value("AO", "NICK", "W", 2), [pair[:2], "ab".encode("utf-16-be")[:2]],
                     Encoding(wcodec="utf-16-be"))
    assert got == [None, "a"]
    assert fails and fails[0].image == 0 and "utf-16-be" in fails[0].reason


# --------------------------------------------------------------------------- dates and times


def natdate(d: date) -> int:
    """adapya-base dtconv: date2natdate(1970, 1, 1) == 719527, one per day."""
    return 719527 + (d - date(1970, 1, 1)).days


def test_natural_day_numbers_of_adapya() -> None:
    # dtconv doctests: date2natdate(2000,1,1) == 730484, (1582,1,1) == 577813, (1,1,1) == 365
    assert natdate(date(2000, 1, 1)) == 730484
    assert natdate(date(1582, 1, 1)) == 577813
    assert natdate(date(1, 1, 1)) == 365
    got, fails = one(Value("AM", "HIRED", "P", 4, mask="NATDATE"),
                     [packed_bytes(730484, 4), packed_bytes(577813, 4), packed_bytes(0, 4)])
    assert got == [date(2000, 1, 1), date(1582, 1, 1), None]
    assert not fails


@settings(max_examples=50, deadline=None)
@given(st.datetimes(min_value=datetime(1583, 1, 1), max_value=datetime(9999, 12, 31)))
def test_dates_and_times_from_digits_and_counts(t: datetime) -> None:
    t = t.replace(microsecond=t.microsecond // 100_000 * 100_000)
    got, _ = one(Value("AK", "BIRTH", "U", 8, mask="DATE"), [zoned_bytes(int(t.strftime("%Y%m%d")), 8, True)])
    assert got == [t.date()]
    got, _ = one(Value("AL", "AT", "U", 6, mask="TIME"), [zoned_bytes(int(t.strftime("%H%M%S")), 6, True)])
    assert got == [time(t.hour, t.minute, t.second)]
    got, _ = one(Value("AL", "AT", "P", 8, mask="DATETIME"),
                 [packed_bytes(int(t.strftime("%Y%m%d%H%M%S")), 8)])
    assert got == [t.replace(microsecond=0)]
    got, _ = one(Value("AL", "AT", "U", 20, mask="TIMESTAMP"),
                 [zoned_bytes(int(t.strftime("%Y%m%d%H%M%S%f")), 20, True)])
    assert got == [t]
    seconds = t.hour * 3600 + t.minute * 60 + t.second
    tenths = natdate(t.date()) * 864000 + seconds * 10 + t.microsecond // 100_000
    got, _ = one(Value("AN", "AT", "P", 7, mask="NATTIME"), [packed_bytes(tenths, 7)])
    assert got == [t]
    unix = int((t.replace(microsecond=0) - datetime(1970, 1, 1)).total_seconds())
    got, _ = one(Value("AN", "AT", "F", 8, mask="UNIXTIME"), [unix.to_bytes(8, "big", signed=True)])
    assert got == [t.replace(microsecond=0) if unix else None]  # zero: the null value


def test_not_a_date() -> None:
    got, fails = one(Value("AK", "BIRTH", "U", 8, mask="DATE"),
                     [zoned_bytes(n, 8, True) for n in (20040231, 0, 20040229)])
    assert got == [None, None, date(2004, 2, 29)]
    assert len(fails) == 1 and "not a date (20040231)" in fails[0].reason


def test_many_values_at_once_match_one_by_one() -> None:
    rng = np.random.default_rng(5)
    values = rng.integers(-(10**9) + 1, 10**9, 2000).tolist()
    raw = [packed_bytes(n, 5) for n in values]
    got, fails = one(Value("AC", "X", "P", 5, scale=3), raw)
    assert got == [Decimal(n).scaleb(-3, EXACT) for n in values]
    assert not fails
