"""Acceptance: every value the seed's "which can be interpreted as" listings print is
asserted field by field against ``mqtool decode urb --tz Europe/Berlin`` (the seed prints
local time, UTC+2 in June/July 2004).

The seed's typos are documented here and asserted as what the bytes say, not copied into
the decoder (spec urb.md §9.8):

* ``inst-color.data``: the URBE listing says ``urbelen = 64``; the bytes at msg X'0234'
  are X'00000020' = 32, and the message ends at X'0250' = urbhlent.
* ``inst-color.data``: the first URBD's image is labelled ``ubddata``; it is ``urbddata``.
* ``close-destination.reply``: ``urbsptim = 0`` and ``urbsttim = 0``; elsewhere the seed
  prints an unset STCK as nothing after ``=`` (the bytes are zero).
* The little-endian (EMPLOYEE) listings print times without the date: the time part is
  compared.
* The prior-transaction dumps spell the request type ``TRAM`` (X'E3D9C1D4'); that reply
  has no listing. See ``test_urb_decode.py`` for how 'TRAM' is shown.
"""

from __future__ import annotations

import pytest

from mqtool.formats.urb.decode import decode
from tests.formats.urb.urb_listing import parse_listing, parse_seed_listing
from tests.helpers import TESTDATA, mq, seed_bytes

LISTINGS = sorted(p.name.removesuffix(".listing.txt") for p in (TESTDATA / "urb").glob("*.listing.txt"))

NAME_TYPOS = {"ubddata": "urbddata"}  # seed's label of the first COLOR image


def test_all_nine_seed_listings_are_here() -> None:
    assert LISTINGS == [
        "close-destination.reply", "inst-color.cmpl", "inst-color.data", "inst-color.erro",
        "inst-color.init", "inst-employee.cmpl", "inst-employee.data", "inst-employee.init",
        "status.reply",
    ]


def _typo(name: str, offset: int, field: str, ours, seed, data: bytes) -> bool:  # type: ignore[no-untyped-def]
    """Assert a documented seed typo as the bytes say; True when (name, field) is one."""
    if (name, offset, field) == ("inst-color.data", 0x230, "urbelen"):
        assert seed.value == "64"  # what the seed prints
        assert ours.value == "32" and data[0x234:0x238] == bytes.fromhex("00000020")
        assert 0x230 + 32 == len(data) == 0x250
        return True
    if name == "close-destination.reply" and field in ("urbsptim", "urbsttim"):
        assert seed.value == "0"  # the seed prints 0 here, nothing elsewhere
        at = {"urbsptim": 0x40 + 0x48, "urbsttim": 0x40 + 0x50}[field]
        assert ours.value == "" and data[at:at + 8] == bytes(8)
        return True
    return False


@pytest.mark.parametrize("name", LISTINGS)
def test_every_seed_listing_value(name: str, in_root: None) -> None:
    seed = parse_seed_listing((TESTDATA / "urb" / f"{name}.listing.txt").read_text(encoding="utf-8"))
    data = seed_bytes(f"urb/{name}.dump")
    res = mq("decode", "urb", "--hex", f"testdata/urb/{name}.dump", "--tz", "Europe/Berlin")
    assert res.status == 0 and res.stderr == ""
    ours = parse_listing(res.text)
    asserted = 0
    for el in seed:
        heading, fields = ours[el.offset]
        assert heading == f"{el.type} element", (name, el.offset)
        for f in el.fields:
            field = NAME_TYPOS.get(f.name, f.name)
            assert field in fields, f"{name}: {el.type} at X'{el.offset:04X}' has no {field}"
            got = fields[field]
            asserted += 1
            if _typo(name, el.offset, field, got, f, data):
                continue
            where = f"{name}: {el.type} X'{el.offset:04X}' {field}"
            if f.kind == "text":
                assert got.value == f.value.rstrip(" "), where
            elif f.kind in ("hex", "number"):
                assert got.value == f.value, where
            elif f.kind == "time":
                if len(f.value) > 15:
                    assert got.value == f.value, where
                else:  # the little-endian listings print the time only
                    assert got.value.split(" ")[1] == f.value, where
            elif f.kind == "empty":
                assert got.value == "", where
            elif f.kind == "dump":
                assert got.data == f.data, where
            elif f.kind == "fields":  # "GREEN","2004052518354610": the image's two fields
                expected = [v.strip('"') for v in f.value.split(",")]
                assert got.data is not None
                assert got.data.decode("cp037").split() == expected, where
            if f.meaning:
                assert got.meaning == f.meaning, where
    assert asserted == sum(len(el.fields) for el in seed) > 20


def test_the_seed_listings_meanings_are_the_seeds_words() -> None:
    """Status codes, record/image types and response-131 subcode 12 in the seed's words."""
    texts = {}
    for name in LISTINGS:
        for el in parse_seed_listing((TESTDATA / "urb" / f"{name}.listing.txt").read_text()):
            texts.update({(f.name, f.value): f.meaning for f in el.fields if f.meaning})
    assert texts == {
        ("urbsst", "CLOS"): "Destination closed",
        ("urbsst", "INIT"): "Initial-state processing started",
        ("urbsst", "CMPL"): "Initial-state processing completed",
        ("urbsst", "ERRO"): "Initial-state processing ERROR",
        ("urbsst", "SUBS"): "Subscription status information",
        ("urbrtyp", "R"): "initial state",
        ("urbdtyp", "A"): "after image",
        ("urbssubc", "12"): "INITIALSTATE DBID/FNR definition not found as requested in URBI",
    }


def test_little_endian_listing_times_have_their_dates() -> None:
    """The seed leaves the date out of the EMPLOYEE listings; mqtool prints it (2004-07-09)."""
    unit = next(decode(seed_bytes("urb/inst-employee.init.dump")))
    assert unit.elements[0].value("urbhtime").iso() == "2004-07-09T16:20:41.098444Z"  # type: ignore[union-attr]
