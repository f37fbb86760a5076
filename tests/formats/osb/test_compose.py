"""The redolog entry's composition (TIBCO Object Service Broker, "Using Data Object Broker
User Exits: Data Layouts", "Redolog header" and "Redolog Entries"): what the declaration
says, that the decoder nests by it, that the builder fills its lengths, and the error
contract and round trip over generated entries."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqtool.compose.prefixed import Prefixed, items
from mqtool.compose.prefixed import build as build_items
from mqtool.errors import DecodeError
from mqtool.formats.osb import build as osb_build
from mqtool.formats.osb import decode as osb_decode
from mqtool.formats.osb.compose import ENTRY, INTENT_LIST, REDOLOG, SEGMENTS, intent_format, resolver
from mqtool.formats.osb.layout import layouts
from mqtool.model import Decoded, element_json, tree_faults


def test_the_declaration_says_what_the_document_says() -> None:
    # RLLEN is the entry's length; the intent list follows the 48-byte header, rl_intent_len long
    assert (ENTRY.length, ENTRY.trailing and ENTRY.trailing.length) == ("rl_len", "rl_intent_len")
    assert resolver()(ENTRY.layouts[0]).size == 48
    assert (REDOLOG.key.field, REDOLOG.length.field) == ("rl_eye", "rl_len")
    # the first halfword of the list: X'0001' is format 1, anything else format 2's length
    assert INTENT_LIST.choose(1) == "R1HDR" and INTENT_LIST.choose(76) == "R2HDR"
    assert intent_format(b"\x00\x01", 0) == 1 and intent_format(b"\x00\x4c", 0) == 2
    assert SEGMENTS.length == "r1_seglen" and SEGMENTS.adjust == 0


def test_prefixed_items_walk_and_build() -> None:
    lay = layouts().r1seg
    data = bytes.fromhex("0002AAAA 0000 0001BB")
    got = [(i.pos, i.start, i.stop) for i in items(SEGMENTS, lay, data, 0, len(data))]
    assert got == [(0, 2, 4), (4, 6, 6), (6, 8, 9)]
    assert build_items(SEGMENTS, lay, [b"\xaa\xaa", b"", b"\xbb"], "redolog") == data
    # a length that runs past the end is the last item, its stop past the data
    assert [i.stop for i in items(SEGMENTS, lay, bytes.fromhex("0009AA"), 0, 3)] == [11]
    # a length counting itself: the body is 2 bytes shorter
    counts_itself = Prefixed("x", "R1SEG", "r1_seglen", adjust=2)
    assert [i.stop for i in items(counts_itself, lay, bytes.fromhex("0004AAAA"), 0, 4)] == [4]
    assert build_items(counts_itself, lay, [b"\xaa\xaa"], "redolog") == bytes.fromhex("0004AAAA")


def one(data: bytes, **options: object) -> Decoded:
    units = list(osb_decode.decode(data, **options))  # type: ignore[arg-type]
    assert len(units) == 1
    return units[0]


def test_an_entry_nests_its_intent_list_under_the_header() -> None:
    intent = osb_build.build_format1([{"table": "T", "params": ["P"], "fields": [b"1", b"22"]}])
    entry = osb_build.build_entry({"rl_seq": 3}, intent)
    assert int.from_bytes(entry[0:2]) == 48 + len(intent)  # RLLEN, independent arithmetic
    assert int.from_bytes(entry[0x12:0x14]) == len(intent)  # rl_intent_len
    unit = one(entry, synthetic=True)
    [hdr] = unit.elements
    assert (hdr.type, hdr.offset, hdr.length) == ("RLHDR", 0, len(entry))
    [r1] = hdr.children
    assert (r1.type, r1.offset, r1.length) == ("R1HDR", 48, len(intent))
    [seg] = r1.children
    assert (seg.type, seg.offset, seg.length) == ("R1SEG", 48 + 8, len(intent) - 8)
    assert tree_faults(unit.elements) == []
    shown = element_json(hdr)
    assert [c["type"] for c in shown["children"]] == ["R1HDR"]  # type: ignore[index]
    assert json.loads(json.dumps(shown))["children"][0]["children"][0]["type"] == "R1SEG"


def test_the_builder_refuses_a_length_the_entry_contradicts() -> None:
    from mqtool.errors import BuildError

    intent = osb_build.build_format2({"r2b_table": "T"}, segment=1)
    try:
        osb_build.build_entry({"rl_intent_len": len(intent) + 1}, intent)
    except BuildError as e:
        assert e.path == "rlhdr.rl_intent_len" and str(len(intent)) in e.reason
    else:
        raise AssertionError("a contradicting rl_intent_len was built")


def intents() -> st.SearchStrategy[bytes]:
    fmt1 = st.lists(st.fixed_dictionaries({
        "table": st.text("ABC", min_size=1, max_size=8),
        "params": st.lists(st.binary(min_size=1, max_size=20).filter(lambda b: b[0] != 0), max_size=2),
        "fields": st.lists(st.binary(max_size=200), min_size=1, max_size=2),
    }), min_size=1, max_size=2).map(osb_build.build_format1)
    fmt2 = st.builds(lambda t, seg: osb_build.build_format2({"r2b_table": t}, segment=seg),
                     st.text("XYZ", min_size=1, max_size=16), st.integers(0, 0xFFFF))
    return st.one_of(fmt1, fmt2)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(intents(), st.integers(1, 0xFFFFFE))
def test_entry_round_trip(intent: bytes, seq: int) -> None:
    """build(decode(x)) == x: the header's decoded values and its intent list's bytes (the
    children's span) rebuild the entry byte for byte; the tree has no overlap."""
    entry = osb_build.build_entry({"rl_seq": seq}, intent)
    unit = one(entry, synthetic=True)
    assert not unit.errors and tree_faults(unit.elements) == []
    [hdr] = unit.elements
    lo = min(c.offset for c in hdr.children)
    assert osb_build.build_entry(hdr.all_values, entry[lo:hdr.end]) == entry


@settings(max_examples=80, deadline=None)
@given(intents(), st.data())
def test_damaged_entries_keep_the_error_contract(intent: bytes, data: st.DataObject) -> None:
    """A cut or overwritten entry decodes to units with errors or problems (offsets inside
    the input, a tree without overlaps), or one DecodeError; nothing else escapes."""
    entry = bytearray(osb_build.build_entry({"rl_seq": 1}, intent))
    cut = data.draw(st.integers(1, len(entry)))
    at = data.draw(st.integers(0, len(entry) - 1))
    entry[at] = data.draw(st.integers(0, 255))
    blob = bytes(entry[:cut])
    try:
        units = list(osb_decode.decode(blob))
    except DecodeError as e:
        assert 0 <= e.offset <= len(blob)
        return
    assert units
    for unit in units:
        assert tree_faults(unit.elements) == []
        for p in (*unit.errors, *unit.problems):
            assert 0 <= p.offset <= len(blob), p


def test_a_format2_list_nests_what_its_length_covers() -> None:
    """The manual's sample 6 (MOVTAB): r2_len 74 covers the 10-byte header and the 64-byte
    body; the 2-byte trailer the passed length counts lies after it."""
    from tests.helpers import seed_bytes

    unit = one(seed_bytes("osb/sample6.intent.dump"), part="intent")
    [hdr] = unit.elements
    assert (hdr.type, hdr.offset, hdr.length) == ("R2HDR", 0, 74)
    assert [(c.type, c.offset, c.length) for c in hdr.children] == [("R2BODY", 10, 64)]
    intent = osb_build.build_format2({"r2b_table": "T"}, params=["AB"], key="K")
    top = one(intent, part="intent").elements
    assert [e.type for e in top] == ["R2HDR", "R2TRAILER"] and tree_faults(top) == []
    assert top[0].length == int.from_bytes(intent[:2]) and top[1].offset == top[0].end
