"""The composition vocabulary: its rules on ints and numpy arrays alike, switches, and what a
declaration says the builder computes."""

from __future__ import annotations

import numpy as np
import pytest

from mqtool.compose import (
    At,
    Chain,
    Count,
    Envelope,
    Hook,
    Nest,
    Own,
    Record,
    Repeat,
    Switch,
    Trailing,
    When,
    computed,
    contents,
    layouts_of,
)

DATA = Trailing("data", "lenh", "lend")
STATUS = Trailing("sdata", "slenh", "slend", tolerated=(0,))


@pytest.mark.parametrize(("start", "length", "record", "size", "faults"), [
    (32, 0, 32, 32, (False, False)),   # no data
    (32, 96, 128, 32, (False, False)),  # data to the end
    (32, 90, 128, 32, (False, False)),  # 6 bytes of filler after it
    (28, 4, 128, 32, (True, False)),   # starts inside the fixed part
    (130, 0, 128, 32, (True, True)),   # starts after the record
    (32, 97, 128, 32, (False, True)),  # runs past the record
    (32, -1, 128, 32, (False, True)),  # negative length
])
def test_trailing_faults_on_ints_and_arrays_agree(start: int, length: int, record: int, size: int,
                                                  faults: tuple[bool, bool]) -> None:
    assert tuple(map(bool, DATA.faults(start, length, record, size))) == faults
    arrays = DATA.faults(np.array([start, 32]), np.array([length, 0]), np.array([record, 32]),
                         np.array([size, 32]))
    assert [bool(a[0]) for a in arrays] == list(faults)
    assert [bool(a[1]) for a in arrays] == [False, False]


def test_tolerated_offsets() -> None:
    assert STATUS.tolerates(128, 128) and STATUS.tolerates(0, 128)
    assert not STATUS.tolerates(64, 128)
    assert DATA.tolerates(32, 32) and not DATA.tolerates(0, 32)
    got = STATUS.tolerates(np.array([0, 128, 64]), 128)
    assert got.tolist() == [True, True, False]


def test_switch_chooses_by_value_and_default() -> None:
    sw = Switch(At("RANGE", "marker"), {0xFFFFFFFF: "RANGE"}, default="ONE")
    assert sw.choose(0xFFFFFFFF) == "RANGE" and sw.choose(7) == "ONE"
    assert Switch(Own("kind"), {1: "A"}).choose(2) is None
    assert Switch(Own("kind"), {1: "A"}).choose([1]) is None  # unhashable: nothing chosen


ITEMS = Repeat("item", "ITEM", count="nitems", size="itemlen")
DETAIL = Nest("sub", "SUB", then=Switch(Own("subtype"), {1: "SUB1", 2: "SUB2"}, name="detail"))
LIST = Hook("is_list", Repeat("n", Switch(At("PAIR", "mark"), {-1: "PAIR"}, default="ONE"),
                              gather="LIST"))
CHAIN = Chain(key=At("HEAD", "eye"), length=At("HEAD", "len"), records={
    "TAB": Record("TAB", "tablen", ("TAB",), fixed=False,
                  trailing=Trailing("rows", "tablenh", "tablend", content=ITEMS)),
    "STA": Record("STA", "stalen", ("STA",), fixed=False,
                  trailing=Trailing("sdata", "stalenh", "stalend", (0,),
                                    content=When("stast", ("UTIL",), DETAIL))),
    "REQ": Record("REQ", "reqlen", ("REQ",), fixed=False,
                  trailing=Trailing("rdata", "reqlenh", "reqlend", content=LIST)),
    "TRN": Record("TRN", "trnlen", ("TRN", "TRN2")),
    "REC": Record("REC", "reclen", ("REC",)),
}, counts=(Count("trncnt", "TRN", "REC", ("END",)),))
UNIT = Envelope("HDR", "hdrlen", "hdrlent", CHAIN, {"hdrvers": "01"})


def test_computed_fields_come_from_the_declaration() -> None:
    assert computed(UNIT) == {
        "hdrlen": "the HDR size", "hdrlent": "the unit length", "hdrvers": "constant",
        "tablen": "the element length", "tablenh": "the fixed part's size",
        "tablend": "the data length", "nitems": "the number of items", "itemlen": "the item size",
        "stalen": "the element length", "stalenh": "the fixed part's size",
        "stalend": "the data length", "reqlen": "the element length",
        "reqlenh": "the fixed part's size", "reqlend": "the data length",
        "trnlen": "the element length", "reclen": "the element length",
        "trncnt": "the number of RECs"}


def test_contents_and_the_layouts_they_read() -> None:
    when = CHAIN.records["STA"].trailing.content  # type: ignore[union-attr]
    assert [type(c).__name__ for c in contents(when)] == ["When", "Nest", "Switch"]
    assert layouts_of(when) == ["SUB", "SUB1", "SUB2"]
    assert layouts_of(LIST) == ["PAIR", "ONE"]
    assert layouts_of(ITEMS) == ["ITEM"]
    assert LIST.content.key_field == "mark" and ITEMS.key_field is None  # type: ignore[union-attr]
