"""The one walker and the one builder over a toy composition declared here (independent of
every format): nesting, repeats, switches, hooks, counts, faults, and the fast sinks'
refusal of anything the tree would report. Expected bytes are packed by hand with struct."""

from __future__ import annotations

import struct
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
)
from mqtool.compose import build as composer
from mqtool.compose.walk import Decline, FlatSink, Plan, TreeSink, Walk
from mqtool.errors import BuildError
from mqtool.layout import Layout, Reserved, Variant, dsect
from mqtool.model import Decoded, tree_faults

V = Variant(big=True, codepage="latin-1")
LAYOUTS: dict[str, Layout] = {
    "HEAD": dsect("HEAD", "eye" / Reserved(4), "len" / V.S4),
    "HDR": dsect("HDR", "hdreye" / V.eye("HDR "), "hdrlen" / V.S4, "hdrvers" / V.text(2),
                 "hdrres" / Reserved(2), "hdrlent" / V.U4),
    "TAB": dsect("TAB", "tabeye" / V.eye("TAB "), "tablen" / V.S4, "tablenh" / V.S4,
                 "tablend" / V.S4, "nitems" / V.U2, "itemlen" / V.U2),
    "ITEM": dsect("ITEM", "idx" / V.U2, "name" / V.text(6)),
    "REQ": dsect("REQ", "reqeye" / V.eye("REQ "), "reqlen" / V.S4, "reqlenh" / V.S4, "reqlend" / V.S4),
    "ONE": dsect("ONE", "n" / V.S4),
    "PAIR": dsect("PAIR", "mark" / V.S4, "lo" / V.S4, "hi" / V.S4),
    "STA": dsect("STA", "staeye" / V.eye("STA "), "stalen" / V.S4, "stalenh" / V.S4,
                 "stalend" / V.S4, "stast" / V.text(4)),
    "SUB": dsect("SUB", "subeye" / V.text(4), "subtype" / V.U1, "subres" / Reserved(3)),
    "SUB1": dsect("SUB1", "a" / V.S4),
    "TRN": dsect("TRN", "trneye" / V.eye("TRN "), "trnlen" / V.S4, "trncnt" / V.U2, "trnres" / Reserved(2)),
    "TRN2": dsect("TRN", "trneye" / V.eye("TRN "), "trnlen" / V.S4, "trncnt" / V.U2, "trnres" / Reserved(6)),
    "REC": dsect("REC", "receye" / V.eye("REC "), "reclen" / V.S4),
    "END": dsect("END", "endeye" / V.eye("END "), "endlen" / V.S4),
}
ITEMS = Repeat("item", "ITEM", count="nitems", size="itemlen", title="ITEM {index}")
LIST = Repeat("n", Switch(At("PAIR", "mark"), {-1: "PAIR"}, default="ONE"), gather="LIST",
              title="list at {offset}")
SUBS = Nest("sub", "SUB", then=Switch(Own("subtype"), {1: "SUB1"}, name="detail", title="detail {key}"))
RECORDS = (
    Record("TAB", "tablen", ("TAB",), fixed=False,
           trailing=Trailing("rows", "tablenh", "tablend", content=ITEMS)),
    Record("REQ", "reqlen", ("REQ",), fixed=False,
           trailing=Trailing("rdata", "reqlenh", "reqlend", content=Hook("is_list", LIST))),
    Record("STA", "stalen", ("STA",), fixed=False,
           trailing=Trailing("sdata", "stalenh", "stalend", (0,), content=When("stast", ("UTIL",), SUBS))),
    Record("TRN", "trnlen", ("TRN", "TRN2")),
    Record("REC", "reclen", ("REC",)),
    Record("END", "endlen", ("END",)),
)
CHAIN = Chain(At("HEAD", "eye"), At("HEAD", "len"), {r.type: r for r in RECORDS}, unknown="HEAD",
              counts=(Count("trncnt", "TRN", "REC", ("END",), words="{field} {want}, {n} RECs"),))
UNIT = Envelope("HDR", "hdrlen", "hdrlent", CHAIN, {"hdrvers": "01"}, unit="stream")
HOOKS = {"is_list": lambda walk, values, start, stop: walk.options.get("list")}


def s4(*v: int) -> bytes:
    return struct.pack(f">{len(v)}l", *v)


def tab(*items: tuple[int, str]) -> bytes:
    rows = b"".join(struct.pack(">H6s", k, n.encode().ljust(6)) for k, n in items)
    return b"TAB " + s4(20 + len(rows), 20, len(rows)) + struct.pack(">HH", len(items), 8) + rows


REQ = b"REQ " + s4(16 + 16, 16, 16) + s4(5, -1, 10, 20)
STA = b"STA " + s4(20 + 12, 20, 12) + b"UTIL" + b"SUB " + b"\x01\x00\x00\x00" + s4(7)
TRN = b"TRN " + s4(12) + b"\x00\x02\x00\x00" + b"REC " + s4(8) + b"REC " + s4(8) + b"END " + s4(8)
BODY = tab((1, "NAME"), (2, "TIME")) + REQ + STA + TRN


def walk(data: bytes, sink: Any = None, **options: Any) -> tuple[Decoded, int]:
    unit = Decoded("toy", 0, len(data))
    w = Walk(Plan(CHAIN, LAYOUTS.__getitem__, "latin-1"), data, sink or TreeSink(data, unit, "toy"),
             HOOKS, options, bound="hdr.hdrlent", unit="stream")
    return unit, w.run(0, len(data), len(data))


def test_the_tree_nests_what_the_declaration_nests() -> None:
    unit, end = walk(BODY, list=True)
    assert end == len(BODY) and unit.errors == [] and unit.problems == []
    assert [(e.type, e.offset, e.length) for e in unit.elements] == [
        ("TAB", 0, 36), ("REQ", 36, 32), ("STA", 68, 32), ("TRN", 100, 12), ("REC", 112, 8),
        ("REC", 120, 8), ("END", 128, 8)]
    t, r, s = unit.elements[:3]
    assert [(c.type, c.offset, c.title, c.value("name")) for c in t.children] == [
        ("ITEM", 20, "ITEM 0", "NAME"), ("ITEM", 28, "ITEM 1", "TIME")]
    assert t.data == BODY[20:36] and not t.shows_data
    (lst,) = r.children
    assert (lst.type, lst.offset, lst.length, lst.title) == ("LIST", 52, 16, "list at 52")
    assert lst.extra["fields"] == {"ns": [5, [10, 20]]}  # the switch key (mark) left out
    assert [s.path for s in lst.spans] == ["req[0].n[0].n", "req[0].n[1].mark", "req[0].n[1].lo",
                                           "req[0].n[1].hi"]
    (sub,) = s.children
    (detail,) = sub.children
    assert (sub.type, sub.offset, sub.length, detail.type, detail.title) == (
        "SUB", 88, 12, "SUB1", "detail 1")
    assert detail.spans[0].path == "sta[0].sub.detail.a" and detail.value("a") == 7
    assert tree_faults(unit.elements) == []


def test_a_hook_that_declines_leaves_the_data_bytes() -> None:
    unit, _ = walk(BODY, list=None)
    r = unit.elements[1]
    assert r.children == [] and r.data == s4(5, -1, 10, 20) and r.shows_data
    cut = BODY[:36] + b"REQ " + s4(16 + 6, 16, 6) + s4(5) + b"\xff\xff" + BODY[68:]
    lenient, _ = walk(cut, list=False)  # a list that does not fit: bytes, no error
    assert lenient.elements[1].children == [] and not lenient.errors
    strict, _ = walk(cut, list=True)
    assert [(p.path, p.offset) for p in strict.errors] == [("req[0].n[1]", 56)]
    assert "2 bytes left for item 1, ONE needs 4" in strict.errors[0].reason


def test_counts_generations_and_faults_are_reported_where_they_are() -> None:
    two = BODY.replace(b"\x00\x02\x00\x00REC ", b"\x00\x03\x00\x00REC ")
    unit, _ = walk(two)
    assert [(p.path, p.offset, p.reason) for p in unit.problems] == [
        ("trn[0].trncnt", 108, "trncnt 3, 2 RECs")]
    gen = BODY.replace(b"TRN " + s4(12) + b"\x00\x02\x00\x00", b"TRN " + s4(16) + b"\x00\x02" + bytes(6))
    assert walk(gen)[0].problems == []  # the 16-byte generation
    bad = BODY[:36] + b"REQ " + s4(32, 16, 17) + BODY[52:]
    unit, _ = walk(bad)
    assert [(p.path, p.offset) for p in unit.errors] == [("req[0].reqlend", 48)]
    assert unit.errors[0].reason == "reqlend 17 does not fit: reqlenh 16 + 17 > reqlen 32"
    filler = BODY[:36] + b"REQ " + s4(32, 16, 12) + s4(5, -1, 10, 20) + BODY[68:]
    assert [p.path for p in walk(filler)[0].problems] == ["req[0].filler"]


def test_an_unknown_key_is_shown_and_skipped() -> None:
    data = b"WHAT" + s4(12) + b"abcd" + BODY
    unit, end = walk(data, list=True)
    assert end == len(data) and unit.elements[0].type == "UNKNOWN" and unit.elements[0].data == b"abcd"
    assert unit.errors[0].path == "unknown[0].eye" and "skipped by its length" in unit.errors[0].reason


class Flat(FlatSink):
    def __init__(self, data: bytes) -> None:
        super().__init__()
        self.buf = data

    def record(self, parent: Any, etype: str, layout: Layout, pos: int, length: int, path: str,
               title: str = "") -> tuple[Any, Mapping[str, Any]]:
        if parent is not None:
            raise Decline
        self.out.append([etype, pos, length, None, None, None])
        return len(self.out) - 1, layout.values(self.buf, pos)


def test_a_flat_sink_declines_what_the_tree_would_nest_or_report() -> None:
    with pytest.raises(Decline):
        walk(BODY, Flat(BODY))  # the TAB's items
    flat = TRN
    _, end = walk(flat, Flat(flat))
    wrong = flat.replace(b"\x00\x02", b"\x00\x05")
    with pytest.raises(Decline):  # a wrong count
        walk(wrong, Flat(wrong))
    assert end == len(flat)


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=160), st.integers(0, len(BODY)))
def test_any_damage_is_reported_never_raised(junk: bytes, at: int) -> None:
    data = BODY[:at] + junk + BODY[at + len(junk):]
    unit, end = walk(data, list=True)
    assert 0 <= end <= len(data)
    assert tree_faults(unit.elements) == []  # siblings apart, children inside, whatever the bytes


# --------------------------------------------------------------------------- the builder


def build(parts: list[tuple[str, dict[str, Any], bytes]], bad: composer.Refusals) -> bytes:
    composer.fill_counts(CHAIN.counts, [(t, f, f"{t.lower()}[0]") for t, f, _ in parts], bad)
    out = b""
    for t, fields, data in parts:
        el = composer.Element(CHAIN.records[t], fields, data, f"{t.lower()}[0]")
        out += composer.build_element(el, LAYOUTS.__getitem__, bad) or b""
    return out


def test_the_builder_fills_lengths_offsets_items_and_counts() -> None:
    bad = composer.Refusals("toy")
    values: dict[str, Any] = {}
    rows = composer.build_items(ITEMS, LAYOUTS["ITEM"], [composer.Item({"idx": 1, "name": "NAME"}),
                                                          composer.Item({"idx": 2, "name": "TIME"})],
                                values, "TAB", "tab[0]", bad)
    assert values == {"nitems": 2, "itemlen": 8}
    body = build([("TAB", values, rows or b""), ("REQ", {}, s4(5, -1, 10, 20)),
                  ("STA", {"stast": "UTIL"}, b"SUB \x01\x00\x00\x00" + s4(7)),
                  ("TRN", {"trnlen": 12}, b""), ("REC", {}, b""), ("REC", {}, b""), ("END", {}, b"")], bad)
    bad.raise_any()
    assert body == BODY
    head = composer.header(UNIT, {}, 16, 16 + len(body), "hdr", bad)
    assert head == {"hdrlen": 16, "hdrvers": "01", "hdrlent": 16 + len(BODY)}


def test_the_builder_refuses_given_values_that_disagree_all_at_once() -> None:
    bad = composer.Refusals("toy", "line 3")
    build([("REQ", {"reqlend": 3, "reqlen": 99999}, s4(5)), ("TRN", {"trncnt": 4}, b""),
           ("REC", {}, b"")], bad)
    with pytest.raises(BuildError) as e:
        bad.raise_any()
    assert str(e.value).splitlines() == [
        "toy: line 3: 3 refusals:",
        "  trn[0].trncnt: 4, but 1 REC follow",  # the counts are checked first
        "  req[0].reqlend: 3, but the rdata is 4 bytes",
        "  req[0].reqlen: 99999, but the 16-byte REQ and 4 bytes of data take 20"]
    hinted = composer.Element(CHAIN.records["REQ"], {"reqlen": 99999}, s4(5), "req[0]", align=8, hint=True)
    assert composer.build_element(hinted, LAYOUTS.__getitem__, composer.Refusals("toy"))[4:8] == s4(24)
