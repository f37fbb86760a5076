"""STCK / TOD clock values (spec urb.md 7 and 9.6, csq1logp-extract.md 6 and 8.5)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqtool.tod import Tod, tod_array_to_unix_micros, tod_to_unix_micros

BERLIN = ZoneInfo("Europe/Berlin")


@pytest.mark.parametrize(("raw", "iso"), [
    ("BB680AF2C1C27F60", "2004-06-22T10:22:34.789927Z"),  # seed README, URBHTIME
    ("BB680AF2C1C18060", "2004-06-22T10:22:34.789912Z"),
    ("BB680A7E1AF84B02", "2004-06-22T10:20:32.471940Z"),
    ("BB57F5D29C176D82", "2004-06-09T15:22:52.308854Z"),
    ("BB7DBAB2888CCE42", "2004-07-09T16:20:41.098444Z"),  # LE message, read little-endian
    ("DECC38049F04E000", "2024-03-15T13:45:12.345678Z"),
    ("BC1A974DC5F0AC00", "2004-11-11T10:38:18.050314Z"),
    ("B361183F48000000", "2000-01-01T00:00:00.000000Z"),
    ("7D91048BCA000000", "1970-01-01T00:00:00.000000Z"),
])
def test_vectors(raw: str, iso: str) -> None:
    assert Tod(int(raw, 16)).iso() == iso


def test_zero_is_not_set() -> None:
    assert Tod(0).iso() is None and Tod(0).render() == "" and not Tod(0).is_set


def test_seed_prints_local_time_utc_plus_2() -> None:
    tod = Tod(0xBB680AF2C1C27F60)
    assert tod.render(BERLIN) == "2004-06-22 12:22:34.789927 CEST"
    assert tod.render() == "2004-06-22 10:22:34.789927 UTC"


def test_sub_microsecond_bits_are_kept() -> None:
    tod = Tod(0xBB680AF2C1C27F60)
    assert tod.submicro == 0xF60
    assert Tod.coerce(tod.iso(), tod.hex()) == tod  # the JSON pair rebuilds exactly
    assert Tod.coerce(tod.iso()).raw == 0xBB680AF2C1C27000  # ISO alone: low bits zero


def test_edited_iso_wins_over_stale_hex() -> None:
    tod = Tod.coerce("2004-06-22T10:22:35Z", "BB680AF2C1C27F60")
    assert tod.iso() == "2004-06-22T10:22:35.000000Z"


@pytest.mark.parametrize("text", ["BBBBBBBBBBBBBBBB", "X'BBBBBBBBBBBBBBBB'"])
def test_parse_raw_hex(text: str) -> None:
    assert Tod.parse(text).raw == 0xBBBBBBBBBBBBBBBB


def test_parse_iso_with_zone() -> None:
    assert Tod.parse("2004-06-22T12:22:34.789927+02:00").iso() == "2004-06-22T10:22:34.789927Z"


def test_parse_rejects_nonsense() -> None:
    with pytest.raises(ValueError, match="neither 16 hex digits"):
        Tod.parse("yesterday")


def test_unix_micros() -> None:
    assert tod_to_unix_micros(0x7D91048BCA000000) == 0


UNIX = datetime(1970, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize("order", [">u8", "<u8"])
def test_array_unix_micros_agree_with_datetime_arithmetic(order: str) -> None:
    """The bulk paths' vectorised form, checked against the standard library's calendar."""
    import numpy as np

    raws = [0xBB680AF2C1C27F60, 0xDECC38049F04E000, 0xB361183F48000000, 0x7D91048BCA000000,
            0x0000000000001000, 0xFFFFFFFFFFFFFFFF]
    got = tod_array_to_unix_micros(np.array(raws, dtype=order))
    assert got.dtype == np.int64
    want = []
    for raw in raws:
        dt = datetime(1900, 1, 1, tzinfo=UTC) + timedelta(microseconds=raw // 4096)
        delta = dt - UNIX
        want.append((delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds)
    assert got.tolist() == want
    assert got[0] == tod_to_unix_micros(raws[0])


@given(st.datetimes(min_value=datetime(1900, 1, 1, 0, 0, 0, 1), max_value=datetime(2042, 9, 17),
                    timezones=st.just(UTC)))
def test_datetime_round_trip(dt: datetime) -> None:
    """Every instant but the epoch itself (TOD 0 means "not set")."""
    assert Tod.from_datetime(dt).datetime() == dt
