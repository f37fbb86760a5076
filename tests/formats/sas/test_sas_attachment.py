"""SAS attachment codec: the spec's worked examples (sections 10.1, 10.2), detection,
subordinate messages, builders from the same declarations, hostile input."""

from __future__ import annotations

import json
from dataclasses import replace
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.formats.sas import build as sas_build
from mqtool.formats.sas import decode as sas_decode
from mqtool.formats.sas import layout as sas_layout
from mqtool.formats.sas.datasets import DatasetDef
from mqtool.model import Decoded, tree_faults
from tests.helpers import mq, seed_bytes

ZOS_HEADER = seed_bytes("sas/seed-zos.header.dump")
# Spec 10.1, "same header from a Windows sender": ints byte-swapped, strings in ASCII.
WIN_HEADER = bytes.fromhex(
    "11" * 16 + "00" * 8 + "01000000" + "00" * 24 + "22" * 16 + "00" * 8 + "01000000"
    + "03000000" + "33" * 16 + "00" * 8
    + "08000000" + "46494C454E414D45" + "00"
    + "0D000000" + "643A5C6D79746578742E747874" + "00"
    + "0C000000" + "546578742066696C652E2E2E" + "00"
    + "00000000" + "00000000")
# Without NULs: the three terminators (at X'78', X'8A', X'9B') are not there.
ZOS_NO_NUL = ZOS_HEADER[:0x78] + ZOS_HEADER[0x79:0x8A] + ZOS_HEADER[0x8B:0x9B] + ZOS_HEADER[0x9C:]
ZOS = sas_layout.PROFILES["zos"]


def spans(unit: Decoded) -> dict[str, tuple[int, object]]:
    return {s.path: (s.start, s.value) for s in unit.spans()}


def test_zos_header_fields_and_offsets_as_the_spec_prints_them() -> None:
    assert len(ZOS_HEADER) == 164
    unit, header = sas_decode.decode_header(ZOS_HEADER)
    assert unit.ok and header is not None
    sp = spans(unit)
    assert sp["header_correlid"] == (0x00, bytes.fromhex("11" * 16 + "00" * 8))
    assert sp["original_msgtype"] == (0x18, 1)
    assert sp["original_correlid"] == (0x1C, bytes(24))
    assert sp["message_correlid"] == (0x34, bytes.fromhex("22" * 16 + "00" * 8))
    assert sp["num_attachments"] == (0x4C, 1)
    assert sp["attachment[1].type"] == (0x50, 3)
    assert sp["attachment[1].correlid"] == (0x54, bytes.fromhex("33" * 16 + "00" * 8))
    assert sp["attachment[1].qualifier1_len"] == (0x6C, 8)
    assert sp["attachment[1].qualifier1"] == (0x70, "FILENAME")
    assert sp["attachment[1].qualifier2_len"] == (0x79, 13)
    assert sp["attachment[1].qualifier2"] == (0x7D, "d:\\mytext.txt")
    assert sp["attachment[1].description_len"] == (0x8B, 12)
    assert sp["attachment[1].description"] == (0x8F, "Text file...")
    assert sp["attachment[1].minor_version"] == (0x9C, 0)
    assert sp["attachment[1].major_version"] == (0xA0, 0)
    s = header.settings
    assert (s.big, s.long, s.codepage, s.nul, s.float_format) == (True, 4, "cp037", True, "ibm-hfp")
    assert header.entries[0].type_name == "external binary file"


def test_three_variants_decode_to_the_same_logical_header() -> None:
    assert len(ZOS_NO_NUL) == 161
    logical = []
    for body, expect in ((ZOS_HEADER, (True, "cp037", True)), (WIN_HEADER, (False, "latin-1", True)),
                         (ZOS_NO_NUL, (True, "cp037", False))):
        _, header = sas_decode.decode_header(body)
        assert header is not None
        s = header.settings
        assert (s.big, s.codepage, s.nul) == expect
        logical.append((header.header_correlid, header.original_msgtype,
                        header.message_correlid, [(e.type, e.correlid, e.qualifier1, e.qualifier2,
                                                   e.description) for e in header.entries]))
    assert logical[0] == logical[1] == logical[2]


def test_builders_reproduce_the_spec_bytes() -> None:
    _, header = sas_decode.decode_header(ZOS_HEADER)
    assert header is not None
    assert sas_build.build_header(header, ZOS) == ZOS_HEADER
    win = replace(sas_layout.PROFILES["win"], codepage="latin-1")
    assert sas_build.build_header(header, win) == WIN_HEADER
    assert sas_build.build_header(header, replace(ZOS, nul=False)) == ZOS_NO_NUL
    assert sas_build.build_count(3, ZOS) == bytes.fromhex("00000003")
    assert sas_build.build_count(3, sas_layout.PROFILES["win"]) == bytes.fromhex("03000000")


def test_long_8_sender_header() -> None:
    _, header = sas_decode.decode_header(ZOS_HEADER)
    assert header is not None
    s8 = replace(ZOS, long=8)
    body = sas_build.build_header(header, s8)
    assert len(body) == 168 and body[0x18:0x20] == bytes.fromhex("0000000000000001")
    _, again = sas_decode.decode_header(body)
    assert again is not None and again.settings.long == 8
    assert again.original_msgtype == 1 and again.entries[0].qualifier2 == "d:\\mytext.txt"


def test_mqmd_hints_and_forced_options() -> None:
    # data-set-only header: no FILENAME to fix the character set; the MQMD CCSID decides
    _, header = sas_decode.decode_header(ZOS_HEADER)
    assert header is not None
    ds_header = replace(header, entries=[replace(header.entries[0], type=1, qualifier1="WORK",
                                                 qualifier2="CLASS")])
    body = sas_build.build_header(ds_header, ZOS)
    _, got = sas_decode.decode_header(body, sas_decode.Hints(mqmd_codepage="cp500"))
    assert got is not None and got.settings.codepage == "cp500"
    assert got.entries[0].qualifier2 == "CLASS"
    _, guessed = sas_decode.decode_header(body)
    assert guessed is not None and guessed.settings.codepage == "cp037"
    assert "byte values of the names" in guessed.reason
    unit, forced = sas_decode.decode_header(ZOS_HEADER, sas_decode.Hints(byte_order="little"))
    assert forced is None and unit.errors
    assert "not an attachment header" in unit.errors[0].reason


def test_spec_10_2_data_set_definition() -> None:
    body = seed_bytes("sas/class-zos.dsdef.dump")
    assert len(body) == 84
    unit = sas_decode.decode_dataset(body, ZOS)
    assert unit.ok and unit.attrs["dataset_message"] == "data set definition"
    sp = spans(unit)
    assert sp["type"] == (0, 1)
    assert sp["dsdef.dstype"] == (0x0C, "DATA")
    assert sp["dsdef.label_len"] == (0x11, 0)
    assert sp["dsdef.nobs"] == (0x16, 2)
    assert sp["dsdef.nvars"] == (0x1A, 2)
    assert sp["dsdef.obslen"] == (0x1E, 16)
    assert sp["dsdef.compress"] == (0x26, "NO")
    assert sp["dsdef.reuse"] == (0x29, "N")
    assert sp["dsdef.encrypt"] == (0x2E, "NO")
    assert sp["dsdef.sortkey_nvars"] == (0x31, 0)
    assert sp["dsdef.sortflags"] == (0x3A, 0)
    assert sp["dsdef.alterpw"] == (0x50, bytes(4))
    assert sas_build.build_dsdef(DatasetDef(nobs=2, nvars=2, obslen=16), ZOS) == body


def test_spec_10_2_variables_and_observations_zos_and_windows() -> None:
    ctx = sas_decode.DatasetContext()
    sas_decode.decode_dataset(seed_bytes("sas/class-zos.dsdef.dump"), ZOS, ctx)
    vunit = sas_decode.decode_dataset(seed_bytes("sas/class-zos.vardefs.dump"), ZOS, ctx)
    sp = spans(vunit)
    assert sp["variable[1].name"] == (0x08, "NAME")
    assert sp["variable[1].vartype"] == (0x1C, 2)
    assert sp["variable[1].length"] == (0x1D, 8)
    assert sp["variable[1].nsort"] == (0x31, 0)
    assert sp["variable[2].name_len"] == (0x32, 3)
    assert sp["variable[2].name"] == (0x36, "AGE")
    assert sp["variable[2].vartype"] == (0x49, 1)
    assert sp["variable[2].nsort"] == (0x5E, 0)
    assert [(v.name, v.numeric, v.length) for v in ctx.variables] == [
        ("NAME", False, 8), ("AGE", True, 8)]
    built = sas_build.build_typeid(2, ZOS) + b"".join(sas_build.build_vardef(v, ZOS) for v in ctx.variables)
    assert built == seed_bytes("sas/class-zos.vardefs.dump")
    obs = sas_decode.decode_dataset(seed_bytes("sas/class-zos.obs.dump"), ZOS, ctx)
    rows = [[(s.name, s.value, s.start) for s in el.spans] for el in obs.elements[1:]]
    assert rows == [[("NAME", "ALFRED", 4), ("AGE", 14.0, 12)],
                    [("NAME", "ALICE", 20), ("AGE", 13.0, 28)]]
    win = replace(sas_layout.PROFILES["win"], codepage="latin-1")
    wctx = sas_decode.DatasetContext(dsdef=ctx.dsdef, variables=ctx.variables)
    wobs = sas_decode.decode_dataset(seed_bytes("sas/class-win.obs.dump"), win, wctx)
    assert [[s.value for s in el.spans] for el in wobs.elements[1:]] == [["ALFRED", 14.0],
                                                                        ["ALICE", 13.0]]


def test_count_and_file_info_messages() -> None:
    unit = sas_decode.decode_count(bytes.fromhex("00000003"), ZOS)
    assert spans(unit)["count"] == (0, 3)
    info = sas_decode.decode_fileinfo(bytes.fromhex("0000005000001000"), ZOS)
    assert spans(info) == {"lrecl": (0, 80), "filesize": (4, 4096)}
    short = sas_decode.decode_count(b"\x00\x00", ZOS)
    assert short.errors and short.errors[0].path == "count" and short.errors[0].offset == 0


def test_record_stream_across_message_boundaries() -> None:
    s = ZOS
    pack = sas_layout.int_struct(s, long=True).pack
    stream = pack(5) + "HELLO".encode("cp037") + pack(6) + "WORLD!".encode("cp037")
    records: list[bytes] = []
    for cut in range(1, len(stream)):
        rs = sas_decode.RecordStream(s)
        data, got = b"", []
        for part in (stream[:cut], stream[cut:]):
            for kind, a, b, ends in rs.pieces(part):
                if kind in ("data", "cont"):
                    data += part[a:b]
                    if ends:
                        got.append(data)
                        data = b""
        assert [g.decode("cp037") for g in got] == ["HELLO", "WORLD!"], cut
        assert rs.at_boundary
        records = got
    assert len(records) == 2
    unit = sas_decode.decode_records(stream[:11], s, text=True)
    assert [(sp.path, sp.start, sp.value) for sp in unit.spans()] == [
        ("len", 0, 5), ("record", 4, "HELLO"), ("len", 9, "2 of 4 bytes")]
    assert unit.problems[0].reason == "the length field continues in the next message"


def test_negative_record_length_is_an_error_with_offset() -> None:
    body = bytes.fromhex("00000002C1C2FFFFFFFF")
    unit = sas_decode.decode_records(body, ZOS, text=True)
    assert unit.errors[0].reason == "record length -1 is negative"
    assert unit.errors[0].offset == 6


def test_decode_part_auto_and_detect() -> None:
    d = sas_decode.detect(ZOS_HEADER)
    assert d is not None and d.format == "sas-attachment" and d.confidence >= 0.9
    assert d.options["byte_order"] == "big" and d.options["codepage"] == "cp037"
    assert sas_decode.detect(b"\x00" * 200) is None
    dsd = sas_decode.detect(seed_bytes("sas/class-zos.dsdef.dump"))
    assert dsd is not None and dsd.options == {"part": "dataset"}
    assert sas_decode.decode_part(bytes.fromhex("00000003"), "auto").attrs["part"] == "count"
    assert sas_decode.decode_part(seed_bytes("sas/class-zos.vardefs.dump"), "auto").attrs["part"] == "dataset"


def test_cli_decode_header_listing_and_json(in_root: None) -> None:
    r = mq("decode", "sas-attachment", "--hex", "testdata/sas/seed-zos.header.dump")
    assert r.status == 0
    lines = r.text.splitlines()
    assert lines[0] == "HEADER element at offset X'0000'"
    assert "  ATTACHMENT[1] element at offset X'0050'" in lines  # nested in the HEADER
    assert "    type            = 3  external binary file" in lines
    assert '    qualifier2      = "d:\\\\mytext.txt"' in lines
    j = json.loads(mq("decode", "sas-attachment", "--hex", "--json",
                      "testdata/sas/seed-zos.header.dump").text)
    assert j["format"] == "sas-attachment" and j["byte_order"] == "big" and j["long"] == 4
    (head,) = j["elements"]
    # the HEADER (80 bytes, long 4) spans its one entry: 4+24 + (4+8+1)+(4+13+1)+(4+12+1) + 4+4 = 84
    assert head["length"] == 164 == head["children"][0]["offset"] + head["children"][0]["length"]
    assert head["children"][0]["fields"]["qualifier1"] == "FILENAME"
    assert "qualifier1_nul" not in head["children"][0]["fields"]  # fillers stay out of JSON


def test_cli_decode_bad_header_prints_partial_then_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    p = tmp_path / "cut.bin"
    p.write_bytes(ZOS_HEADER[:0x90])
    r = mq("decode", "sas-attachment", "--part", "header", "--input-format", "message", p)
    assert r.status == 2
    assert r.text.startswith("HEADER element at offset X'0000'")
    assert "sas-attachment: not an attachment header" in r.stderr
    assert "Traceback" not in r.stderr


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=300), st.sampled_from(sas_layout.PARTS), st.booleans(), st.sampled_from([4, 8]))
def test_random_bodies_never_raise(body: bytes, part: str, big: bool, long: int) -> None:
    hints = sas_decode.Hints(byte_order="big" if big else "little", long=long)
    unit = sas_decode.decode_part(body, part, hints)
    assert unit.format == "sas-attachment"
    for p in unit.errors + unit.problems:
        assert isinstance(p.offset, int) and p.reason


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 163), st.integers(0, 255)), min_size=1, max_size=4),
       st.integers(100, 164))
def test_mutated_headers_decode_or_fail_cleanly(edits: list[tuple[int, int]], cut: int) -> None:
    body = bytearray(ZOS_HEADER)
    for pos, value in edits:
        body[pos] = value
    unit, header = sas_decode.decode_header(bytes(body[:cut]))
    assert (header is None) == bool(unit.errors)
    if header is not None:  # the message parsed exactly: its fields tile it, end to end
        ends = [(s.start, s.end) for s in unit.spans() if s.end > s.start]
        assert ends[0][0] == 0 and ends[-1][1] == cut
        assert all(a[1] == b[0] for a, b in pairwise(ends))
        assert len(header.entries) == unit.elements[0].value("num_attachments")
        assert tree_faults(unit.elements) == []  # the entries nest in the HEADER, none overlap
        assert [el.type for el in unit.elements[0].children] == ["ATTACHMENT"] * len(header.entries)
        assert sas_build.build_header(header, header.settings) == bytes(body[:cut])  # round trip


NAMES = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:\\", max_size=14)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(sorted(sas_layout.ATTACHMENT_TYPES)), NAMES, NAMES, NAMES,
                          st.integers(0, 9), st.integers(0, 9)), min_size=1, max_size=5),
       st.booleans(), st.sampled_from([4, 8]), st.booleans(), st.sampled_from(["cp037", "latin-1"]))
def test_headers_round_trip_through_the_declaration(entries: list[tuple[int, str, str, str, int, int]],
                                                    big: bool, long: int, nul: bool, cp: str) -> None:
    """build(decode(x)) == x for headers of 1..5 entries in every variant; the entries are
    the HEADER's children, back to back from its fixed part to the end of the message."""
    s = sas_layout.Settings(big, long, cp, nul)
    header = sas_layout.Header(b"\x11" * 24, 1, bytes(24), b"\x22" * 24, [
        sas_layout.Entry(i, t, bytes([i]) * 16 + bytes(8), q1, q2, d, mi, ma)
        for i, (t, q1, q2, d, mi, ma) in enumerate(entries, 1)], s)
    body = sas_build.build_header(header, s)
    hints = sas_decode.Hints(byte_order=s.byte_order, long=long, codepage=cp, nul=nul)
    unit, got = sas_decode.decode_header(body, hints)
    assert got is not None and unit.ok, unit.errors
    (head,) = unit.elements
    assert tree_faults(unit.elements) == [] and head.end == len(body)
    assert head.children[0].offset == sas_layout.layouts_for(s).header.size
    assert [(e.qualifier1, e.qualifier2, e.description) for e in got.entries] == [
        (q1, q2, d) for _t, q1, q2, d, _mi, _ma in entries]
    assert sas_build.build_header(got, got.settings) == body


def test_the_catalog_and_the_ksy_read_the_composition() -> None:
    """``mqtool layouts`` and docs/ksy say the header's entries as the declaration does."""
    import yaml

    from mqtool import catalog

    (head,) = [r for r in catalog.format_doc("sas-attachment").records if r.name == "HEADER"]
    (member,) = head.members
    assert (member.record, member.repeat) == (sas_layout.ENTRIES.item, sas_layout.ENTRIES.count)
    seq = yaml.safe_load(catalog.ksy("sas-attachment"))["types"]["header"]["seq"]
    assert seq[-1] == {"id": "attachments", "type": "attachment", "repeat": "expr",
                       "repeat-expr": "num_attachments"}


def test_view_shows_the_entries_under_the_header() -> None:
    from mqtool.view.fields import ELEMENT, build_tree

    unit, _ = sas_decode.decode_header(ZOS_HEADER)
    (head,) = [n for n in build_tree(unit).children if n.kind == ELEMENT]
    (entry,) = [n for n in head.children if n.kind == ELEMENT]
    assert (head.start, head.end, entry.start, entry.end, entry.path) == (0, 164, 0x50, 164, "attachment[1]")
