"""TIBCO OSB redolog structures: every surviving dump of seed 003, field by field (values
from the spec's §8 tables and independent arithmetic), the synthetic vectors byte for byte,
builders round-tripping, and the length rule."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.errors import BuildError, DecodeError, InputError
from mqtool.formats.osb import build as osb_build
from mqtool.formats.osb import decode as osb_decode
from mqtool.formats.osb import detect as osb_detect
from mqtool.formats.osb import layout as osb_layout
from mqtool.model import Decoded, Element
from mqtool.tod import Tod
from tests.helpers import seed_bytes

SAMPLE6_INTENT = bytes.fromhex(
    "004A0001 00001E40 40000001 80407C00 00001E40 C5E7C9E3 6DE2C1D4 D7D3C540"
    "40404040 E3C4E240 00020000 00000000" + "00" * 26)
CLRTAB_SPEC = bytes.fromhex(  # spec §8.5, verbatim
    "00580001 00001E40 40000001 80400000 00001E40 C5E7C9E3 6DE2C1D4 D7D3C540"
    "40404040 E3C4E240 00400000 00000000 00000000 00000000 00000000 00000000"
    "00000000 00000000 0000000C 02D7F102 D7F202D7 F302D7F4 0000")
FORMAT1_SPEC = bytes.fromhex(  # spec §8.6, verbatim up to the repeated X'E7'
    "00010000 1E40D900 002DC1C5 E7C9E36D E2C1D4D7 D3C54040 40404002 D7F102D7"
    "F202D7F3 02D7F40F 04000000 0109C6C9 D9E2E340 D9D6E600 A8C1C5E7 C9E36DE2"
    "C1D4D7D3 C5404040 404002D7 F102D7F2 02D7F302 D7F48089 04000000 028082E2"
    "C5C3D6D5 C440D9D6 E640C4C1 E3C140C6 C9C5D3C4 4BE7E7E7") + b"\xe7" * (0xE1 - 0x78)
FORMAT1_SEGMENTS = [
    {"request": "add", "table": "EXIT_SAMPLE", "params": ["P1", "P2", "P3", "P4"],
     "fields": [bytes.fromhex("00000001"), "FIRST ROW"]},
    {"request": "add", "table": "EXIT_SAMPLE", "params": ["P1", "P2", "P3", "P4"],
     "fields": [bytes.fromhex("00000002"), "SECOND ROW DATA FIELD.".ljust(130, "X")]},
]


def one(data: bytes, **options: object) -> Decoded:
    units = list(osb_decode.decode(data, **options))  # type: ignore[arg-type]
    assert len(units) == 1, [u.attrs for u in units]
    return units[0]


def flat(unit: Decoded) -> list[Element]:
    """Every element of the unit's tree, in document order (nested ones after their parent)."""
    return [e for top in unit.elements for e in top.walk()]


def fields(unit: Decoded, etype: str) -> dict[str, object]:
    return next(el for el in flat(unit) if el.type == etype).all_values


def spans(unit: Decoded) -> dict[str, object]:
    return {s.path: s for s in unit.spans()}


# --------------------------------------------------------------------------- parameter lists

PARMLISTS = {  # spec §8.3: intent@, intent_len per sample
    1: (0x46E48C20, 0x176), 3: (0x46E46F20, 0x5A), 4: (0x46E48C20, 0x64),
    5: (0x46E47020, 0x64), 6: (0x46E46A20, 0x4C),
}


@pytest.mark.parametrize("sample", sorted(PARMLISTS))
def test_parameter_lists_field_by_field(sample: int) -> None:
    data = seed_bytes(f"osb/sample{sample}.parmlist.dump")
    assert len(data) == 28
    unit = one(data)
    assert unit.attrs["part"] == "parmlist" and not unit.problems and not unit.errors
    f = fields(unit, "PARMLIST")
    assert (f["intent@"], f["intent_len"]) == PARMLISTS[sample]
    assert f["header@"] == 0x0007A0B0  # the header dumps are at 0007A0B0
    assert (f["unk_0c"], f["userid"], f["unk_18"]) == (0x18, "DZC10", 1)
    s = spans(unit)
    assert (s["parmlist.userid"].start, s["parmlist.userid"].end) == (0x10, 0x18)
    assert s["parmlist.userid"].note == "inferred" and s["parmlist.unk_0c"].note == "unknown"
    assert s["parmlist.unk_18"].start == 0x18 and s["parmlist.intent@"].note == ""


def test_parameter_list_rebuilds_byte_for_byte() -> None:
    data = seed_bytes("osb/sample6.parmlist.dump")
    f = fields(one(data), "PARMLIST")
    assert osb_build.build_parmlist(f) == data
    assert osb_build.build_parmlist({"intent@": 0x46E46A20, "intent_len": 76, "header@": 0x7A0B0,
                               "userid": "DZC10"}) == data  # unknown words default to the samples'


# --------------------------------------------------------------------------- redolog headers

HEADERS = {  # spec §8.2: rl_len, intent, time (TOD -> UTC), RLSEQ#, rl_log_offset, offset+len
    1: (422, 374, "2004-11-11T10:38:18.050314Z", 0xE5, 0xE020, 0xE1C6),
    3: (138, 90, "2004-11-11T10:42:29.426512Z", 0xE6, 0xE1C6, 0xE250),
    2: (422, 374, "2004-11-11T11:09:11.206266Z", 0xF8, 0x177E1, 0x17987),
    4: (148, 100, "2004-11-11T11:19:02.883449Z", 0x11B, 0x19D4E, 0x19DE2),
    5: (148, 100, "2004-11-11T11:32:59.509320Z", 0x11C, 0x19DE2, 0x19E76),
}


@pytest.mark.parametrize("sample", sorted(HEADERS))
def test_redolog_headers_field_by_field(sample: int) -> None:
    data = seed_bytes(f"osb/sample{sample}.header.dump")
    unit = one(data)
    assert unit.attrs["part"] == "header" and unit.length == 48
    assert not unit.problems and not unit.errors  # (d) every header validates
    f = fields(unit, "RLHDR")
    rl_len, intent, iso, seq, off, nxt = HEADERS[sample]
    assert (f["rl_len"], f["rl_intent_len"], f["rl_seq"], f["rl_log_offset"]) == (rl_len, intent, seq, off)
    assert f["rl_len"] == 48 + f["rl_intent_len"] and off + rl_len == nxt
    assert isinstance(f["rl_time"], Tod) and f["rl_time"].iso() == iso
    assert (f["rl_type"], f["rl_block"]) == (0x60, 1)
    assert (f["rl_unk04"], f["rl_unk08"], f["rl_unk0c"], f["rl_unk10"], f["rl_unk20"]) == (
        0x18, 0x18, 0x63000, b"\x01\x00", 0xC139)
    assert f["rl_eye"] == "REDODATA"
    s = spans(unit)
    assert (s["rlhdr.rl_time"].start, s["rlhdr.rl_seq"].start, s["rlhdr.rl_log_offset"].start,
            s["rlhdr.rl_eye"].start) == (0x14, 0x1C, 0x24, 0x28)
    assert s["rlhdr.rl_type"].meaning == ("RLTYPE: intent-list entry (X'20') + last block of "
                                          "chain 1 (X'40')")
    assert s["rlhdr.rl_type"].note == "inferred" and s["rlhdr.rl_unk20"].note == "unknown"
    assert f"next entry at X'{nxt:X}'" in s["rlhdr.rl_log_offset"].meaning
    assert osb_build.build_header(unit.elements[0].all_values) == data


def test_sample1_header_details() -> None:
    """Spec §8.1: the uniqueness bits X'C00' and the JSON form of the STCK."""
    unit = one(seed_bytes("osb/sample1.header.dump"))
    f = unit.to_json()["elements"][0]["fields"]  # type: ignore[index]
    assert f["rl_time"] == "2004-11-11T10:38:18.050314Z" and f["rl_time_hex"] == "BC1A974DC5F0AC00"
    assert f["rl_unk10"] == "0100"
    s = spans(unit)["rlhdr.rl_time"]
    assert "X'C00'" in s.meaning  # type: ignore[attr-defined]


@pytest.mark.parametrize(("first", "second", "delta", "follows"), [
    (1, 3, 1, True),  # (a) consecutive commits E5 -> E6: E020 + 1A6 = E1C6
    (4, 5, 1, True),  # (b) 11B -> 11C: 19D4E + 94 = 19DE2
    (3, 2, 18, None),  # (c) E6 -> F8: a gap, informational
])
def test_header_chaining(first: int, second: int, delta: int, follows: bool | None) -> None:
    data = seed_bytes(f"osb/sample{first}.header.dump") + seed_bytes(f"osb/sample{second}.header.dump")
    a, b = osb_decode.decode(data)
    assert (a.offset, b.offset) == (0, 48)
    assert b.attrs["seq_delta"] == delta and b.attrs.get("follows_previous") is follows
    assert not a.problems and not b.problems  # a gap is never a problem
    seq = spans(b)["rlhdr.rl_seq"].meaning  # type: ignore[attr-defined]
    assert ("gap" in seq) == (delta > 1)


def test_all_five_headers_in_commit_order() -> None:
    units = list(osb_decode.decode(seed_bytes("osb/combined/headers-in-commit-order.dump")))
    assert [u.elements[0].value("rl_seq") for u in units] == [0xE5, 0xE6, 0xF8, 0x11B, 0x11C]
    assert [u.attrs.get("seq_delta") for u in units] == [None, 1, 18, 35, 1]
    assert [u.attrs.get("follows_previous") for u in units] == [None, True, None, None, True]
    assert not any(u.problems or u.errors for u in units)


def test_fast_path_gives_the_span_path_values() -> None:
    entries = b"".join(osb_build.build_entry({"rl_seq": i + 1, "rl_log_offset": 0x100 * i},
                                       osb_build.build_format2({"r2b_table": f"T{i}"}, segment=i))
                       for i in range(5))
    fast = list(osb_decode.iter_headers(entries))
    slow = [u.elements[0].all_values for u in osb_decode.decode(entries, part="header")]
    assert [dict(f, offset=None) for f in fast] == [dict(s, offset=None) for s in slow]
    assert [f["offset"] for f in fast] == [0, 124, 248, 372, 496]
    headers = seed_bytes("osb/sample1.header.dump")
    with pytest.raises(DecodeError) as e:  # a lone header: rl_len 422 runs past the end
        list(osb_decode.iter_headers(headers + headers))
    assert e.value.offset == 96 and "rl_len 422, 96 bytes left" in e.value.reason


def test_log_offset_that_does_not_follow_is_a_problem() -> None:
    h1 = seed_bytes("osb/sample1.header.dump")
    h3 = bytearray(seed_bytes("osb/sample3.header.dump"))
    h3[0x24:0x28] = (0xE1C8).to_bytes(4)
    _, b = osb_decode.decode(h1 + bytes(h3))
    assert b.attrs["follows_previous"] is False
    [p] = b.problems
    assert p.path == "rlhdr.rl_log_offset" and p.offset == 48 + 0x24
    assert "X'E020' + 422 = X'E1C6'" in p.reason


def test_duplicate_and_out_of_range_seq() -> None:
    h = seed_bytes("osb/sample1.header.dump")
    _, b = osb_decode.decode(h + h)
    assert [p.path for p in b.problems] == ["rlhdr.rl_seq"] and "repeats" in b.problems[0].reason
    bad = bytearray(h)
    bad[0x1C:0x20] = (0x00FFFFFF).to_bytes(4)
    assert "outside" in one(bytes(bad)).problems[0].reason


def test_seq_delta_wraps() -> None:
    assert osb_decode.seq_delta(0xFFFFFE, 1) == 1
    assert osb_decode.seq_delta(0xE6, 0xF8) == 18
    assert osb_decode.seq_delta(0xFFFFFD, 2) == 3


def test_header_validation_warnings_are_problems_not_errors() -> None:
    bad = bytearray(seed_bytes("osb/sample4.header.dump"))
    bad[0:2] = (150).to_bytes(2)  # rl_len != 48 + 100
    bad[2] = 0x10  # not an intent-list entry
    bad[0x28:0x30] = "REDOLOGX".encode("cp037")
    unit = one(bytes(bad), part="header")
    assert not unit.errors
    assert [p.path for p in unit.problems] == ["rlhdr.rl_len", "rlhdr.rl_type", "rlhdr.rl_eye"]
    assert "X'10'" in unit.problems[1].reason


def test_parameter_list_and_header_cross_checked() -> None:
    ok = list(osb_decode.decode(seed_bytes("osb/sample1.parmlist.dump")
                                + seed_bytes("osb/sample1.header.dump")))
    assert [u.attrs["part"] for u in ok] == ["parmlist", "header"] and not ok[1].problems
    assert spans(ok[1])["rlhdr.rl_intent_len"].meaning.startswith("= intent_len")  # type: ignore[attr-defined]
    bad = list(osb_decode.decode(seed_bytes("osb/sample3.parmlist.dump")
                              + seed_bytes("osb/sample1.header.dump")))
    assert "differs from the parameter list's intent_len 90" in bad[1].problems[0].reason


def test_auto_tells_a_following_parameter_list_from_an_intent_list() -> None:
    data = seed_bytes("osb/sample1.header.dump") + seed_bytes("osb/sample3.parmlist.dump")
    assert [u.attrs["part"] for u in osb_decode.decode(data)] == ["header", "parmlist"]
    [entry] = osb_decode.decode(data, part="header")  # told it is a header: what follows is its intent
    assert entry.attrs["part"] == "entry" and "truncated" in entry.errors[0].reason


def test_rltype_flags_spelled_out() -> None:
    assert osb_layout.rltype_meaning(0) == "dummy entry"
    assert osb_layout.rltype_meaning(0x20) == "intent-list entry (X'20')"
    assert osb_layout.rltype_meaning(0x83) == ("FILETASK initialized (X'01') + normal shutdown (X'02') + "
                                        "checkpoint request initiated (X'80')")


def test_header_builder_computes_lengths() -> None:
    intent = osb_build.build_format2({"r2b_table": "EXIT_SAMPLE"}, segment=2)
    entry = osb_build.build_entry({"rl_seq": 7, "rl_time": "2004-11-11T10:00:00Z"}, intent)
    assert int.from_bytes(entry[0:2]) == 48 + 76 and int.from_bytes(entry[0x12:0x14]) == 76
    assert entry[2:4] == b"\x60\x01" and entry[0x28:0x30] == "REDODATA".encode("cp037")
    unit = one(entry)
    assert unit.attrs["part"] == "entry" and unit.length == 124 and not unit.errors
    assert fields(unit, "R2BODY")["r2boparm"] == 2 and fields(unit, "R2TRAILER")["r2_trailer"] == b"\0\0"
    assert not unit.problems
    with pytest.raises(BuildError) as e:
        osb_build.build_header({"rl_seq": -1})
    assert e.value.path == "rl_seq"


# --------------------------------------------------------------------------- format 2


def test_movtab_intent_sample6_field_by_field() -> None:
    data = seed_bytes("osb/sample6.intent.dump")
    assert data == SAMPLE6_INTENT
    unit = one(data)
    assert unit.attrs["intent_format"] == 2 and unit.attrs["body_base"] == 0x0A
    h, b = fields(unit, "R2HDR"), fields(unit, "R2BODY")
    assert h == {"r2_len": 74, "r2_hdr_id": 1, "unk_04": 0x1E40, "r2_hdr_lock": 0x40, "unk_09": 0}
    assert (b["unk_0a"], b["unk_0c"], b["r2b_lock"], b["r2b_req"], b["unk_0f"], b["unk_10"]) == (
        1, 0x80, 0x40, 0x7C, 0, 0x1E40)
    assert (b["r2b_table"], b["r2b_ttype"], b["r2boparm"], b["r2bomisc"]) == ("EXIT_SAMPLE", "TDS", 2, 0)
    assert b["unk_2c"] == bytes(30)
    s = spans(unit)
    assert s["r2.r2b_table"].start == 0x14 and s["r2.r2boparm"].start == 0x28  # type: ignore[attr-defined]
    assert s["r2.r2boparm"].meaning == "MOVTAB: target segment 2"  # type: ignore[attr-defined]
    assert s["r2.r2b_req"].meaning == "MOVTAB" and s["r2.r2b_req"].note == "inferred"  # type: ignore[attr-defined]
    assert s["r2.r2_hdr_lock"].meaning == "retain locks"  # type: ignore[attr-defined]
    assert "UNPARSED" not in {el.type for el in flat(unit)}  # no unparsed bytes
    [p] = unit.problems  # no anomalies except the missing trailer
    assert p.reason.startswith("trailer (2 bytes) not present in input") and p.offset == 74
    assert unit.length == 74


def test_movtab_builder_reproduces_sample6() -> None:
    built = osb_build.build_format2({"r2b_table": "EXIT_SAMPLE"}, segment=2)
    assert built == SAMPLE6_INTENT + b"\0\0" and len(built) == 76  # passed length 4C


def test_parmlist_then_intent_checks_the_passed_length() -> None:
    pl = seed_bytes("osb/sample6.parmlist.dump")
    units = list(osb_decode.decode(pl + SAMPLE6_INTENT))
    assert [u.attrs["part"] for u in units] == ["parmlist", "intent"]
    assert [p.path for p in units[1].problems] == ["r2.r2_trailer"]  # 76 = 74 + 2 agrees
    wrong = list(osb_decode.decode(seed_bytes("osb/sample3.parmlist.dump") + SAMPLE6_INTENT))
    assert "passed length 90" in wrong[1].problems[0].reason


def test_clrtab_synthetic_spec_8_5() -> None:
    built = osb_build.build_format2({"r2b_req": 0, "r2b_table": "EXIT_SAMPLE"},
                              params=["P1", "P2", "P3", "P4"])
    assert built == CLRTAB_SPEC and seed_bytes("osb/synthetic/clrtab.synthetic.dump") == built
    unit = one(built)
    assert unit.attrs["body_base"] == 0x0A and not unit.problems and not unit.errors
    assert fields(unit, "R2HDR")["r2_len"] == 88 and fields(unit, "R2BODY")["r2boparm"] == 0x40
    p = fields(unit, "R2PARMS")
    assert p["r2b_parm_area_len"] == 12
    assert [p[f"r2parm{i}v"] for i in range(1, 5)] == [b"\xd7\xf1", b"\xd7\xf2", b"\xd7\xf3", b"\xd7\xf4"]
    assert [p[f"r2parm{i}l"] for i in range(1, 5)] == [2, 2, 2, 2]
    s = spans(unit)
    assert s["r2.r2parm1v"].start == 0x4D and s["r2.r2parm1v"].meaning == '"P1"'  # type: ignore[attr-defined]
    assert fields(unit, "R2TRAILER")["r2_trailer"] == b"\0\0" and unit.length == 90
    body = next(el for el in flat(unit) if el.type == "R2BODY")
    assert "X'0C' also fits" in body.title  # the unprefixed reading at base X'0C' fits too
    # round trip: decoded fields -> builder -> the same bytes
    rebuilt = osb_build.build_format2({**fields(unit, "R2HDR"), **fields(unit, "R2BODY")},
                                params=[bytes(p[f"r2parm{i}v"]) for i in range(1, 5)])  # type: ignore[arg-type]
    assert rebuilt == built


def test_six_key_name_and_base_resolution() -> None:
    six = osb_build.build_format2({"r2b_req": 0, "r2b_table": "EXIT_SAMPLE"}, key="DATA")
    unit = one(six)
    assert fields(unit, "R2BODY")["r2bomisc"] == 0x40 and fields(unit, "R2BKEY")["r2b_key"] == "DATA"
    assert unit.attrs["body_base"] == 0x0A and not unit.problems
    # the same list with R2BOMISC counted from X'0C': only that base validates
    alt = bytearray(six)
    alt[0x2A:0x2C] = (0x3E).to_bytes(2)
    unit = one(bytes(alt))
    assert unit.attrs["body_base"] == 0x0C and fields(unit, "R2BKEY")["r2b_key"] == "DATA"
    assert "alternative base" in next(el for el in flat(unit) if el.type == "R2BODY").title
    assert osb_decode.resolve_body_base(six, 0, 0x5A, 0, 0x40, False) == (0x0A, [0x0A], True)


def test_format2_uncovered_bytes_are_unparsed_hex() -> None:
    """SIXBUILD shape (spec §5.2): key name + 8 unexplained bytes -> unk_ spans with offsets."""
    six = osb_build.build_format2({"r2b_table": "EXIT_SAMPLE", "r2b_req": 0}, key="DATA", trailer=False)
    six = (len(six) + 8).to_bytes(2) + six[2:] + bytes.fromhex("0102030405060708") + b"\0\0"
    unit = one(six)
    el = next(el for el in flat(unit) if el.type == "UNPARSED")
    [s] = el.spans
    assert (s.path, s.start, s.end, s.value, s.note) == ("r2.unk_5a", 0x5A, 0x62,
                                                         bytes.fromhex("0102030405060708"), "unknown")
    assert unit.attrs["unparsed_bytes"] == 8 and fields(unit, "R2HDR")["r2_len"] == 98


def test_format2_bad_lock_flag_and_bad_offsets() -> None:
    bad = bytearray(CLRTAB_SPEC)
    bad[8] = 0x41
    bad[0x28:0x2A] = (0x0100).to_bytes(2)  # R2BOPARM beyond the list
    unit = one(bytes(bad))
    paths = [p.path for p in unit.problems]
    assert "r2.r2_hdr_lock" in paths and "r2.r2boparm" in paths
    assert any("X'41'" in p.reason for p in unit.problems)


@pytest.mark.parametrize(("cut", "path", "offset", "reason"), [
    (1, "intent", 0, "intent list truncated: 1 byte(s), the format halfword needs 2"),
    (9, "r2.unk_09", 9, "R2HDR truncated: 0 bytes left for unk_09 (1 bytes)"),
    (50, "r2.unk_2c", 0x2C, "intent list truncated: r2_len 74, 50 bytes present"),
])
def test_format2_truncated_keeps_the_partial_result(cut: int, path: str, offset: int,
                                                    reason: str) -> None:
    unit = one(SAMPLE6_INTENT[:cut], part="intent")
    [err] = unit.errors
    assert (err.path, err.offset, err.reason) == (path, offset, reason)
    if cut == 50:
        assert "truncated" in err.reason
        assert fields(unit, "R2HDR")["r2_len"] == 74  # the header survived


def test_format2_declared_shorter_than_fixed_part() -> None:
    bad = bytearray(SAMPLE6_INTENT)
    bad[0:2] = (60).to_bytes(2)
    unit = one(bytes(bad), part="intent")
    assert unit.errors[0].path == "r2.r2_len" and "shorter than the 74-byte" in unit.errors[0].reason


# --------------------------------------------------------------------------- format 1


@pytest.mark.parametrize(("raw", "value", "size"), [
    ("05", 5, 1), ("7F", 127, 1), ("8080", 128, 2), ("812C", 300, 2), ("FFFF", 32767, 2),
    ("8005", 5, 2),
])
def test_length_rule_unit_vectors(raw: str, value: int, size: int) -> None:
    assert osb_layout.decode_length(bytes.fromhex(raw), 0) == (value, size)
    lay = osb_layout.layouts("cp037").r1browl
    s = lay.parse(bytes.fromhex(raw)).spans[0]
    assert (s.value, s.length) == (value, size)


def test_length_rule_encoding_is_canonical() -> None:
    assert [osb_layout.encode_length(n).hex() for n in (0, 5, 127, 128, 300, 32767)] == [
        "00", "05", "7f", "8080", "812c", "ffff"]
    with pytest.raises(ValueError):
        osb_layout.encode_length(32768)
    assert osb_layout.decode_length(b"\x80", 0) is None  # a 2-byte length cut in half


def test_format1_synthetic_spec_8_6_byte_exact() -> None:
    built = osb_build.build_format1(FORMAT1_SEGMENTS)
    assert len(built) == 225 and built == FORMAT1_SPEC
    assert seed_bytes("osb/synthetic/format1.synthetic.dump") == built


def test_format1_synthetic_decode_field_by_field() -> None:
    unit = one(FORMAT1_SPEC, synthetic=True)
    assert unit.attrs["synthetic"] is True and unit.to_json()["synthetic"] is True
    assert unit.attrs["intent_format"] == 1 and unit.attrs["segments"] == 2
    assert not unit.problems and not unit.errors
    h = fields(unit, "R1HDR")
    assert h == {"r1_id": 1, "unk_02": 0x1E40, "r1_lock": 0xD9, "unk_07": 0}
    seg1, seg2 = [el for el in flat(unit) if el.type == "R1SEG"]
    f1, f2 = seg1.all_values, seg2.all_values
    assert (seg1.offset, seg1.length, seg2.offset, seg2.length) == (8, 47, 0x37, 170)
    assert (f1["r1_seglen"], f1["request"], f1["table"]) == (45, 0xC1, "EXIT_SAMPLE")
    assert [f1[f"r1parm{i}v"] for i in range(1, 5)] == [s.encode("cp037") for s in ("P1", "P2", "P3", "P4")]
    assert (f1["r1browl"], f1["r1bf1l"], f1["r1bf1v"], f1["r1bf2l"]) == (15, 4, b"\0\0\0\x01", 9)
    assert f1["r1bf2v"] == "FIRST ROW".encode("cp037")
    assert (f2["r1_seglen"], f2["r1browl"], f2["r1bf1v"], f2["r1bf2l"]) == (168, 137, b"\0\0\0\x02", 130)
    s = {x.path: x for x in seg2.spans}
    assert s["r1seg[2].r1browl"].raw == b"\x80\x89" and s["r1seg[2].r1bf2l"].raw == b"\x80\x82"
    assert s["r1seg[2].request"].note == "synthetic" and s["r1seg[2].request"].meaning == "add"
    assert s["r1seg[2].r1bf2l"].meaning == "2-byte length"
    assert s["r1seg[2].r1bf2v"].meaning.startswith('"SECOND ROW DATA FIELD.XXX')


def test_format1_scan_without_the_synthetic_layout() -> None:
    """Spec §5.3: no offsets assumed; the row is found by the lengths adding up exactly."""
    unit = one(FORMAT1_SPEC)
    assert "synthetic" not in unit.attrs and not unit.problems
    seg1 = next(el for el in flat(unit) if el.type == "R1SEG")
    s = {x.name: x for x in seg1.spans}
    assert s["unk_0a"].raw == bytes.fromhex("C1") + "EXIT_SAMPLE".encode("cp037") + b"\x40" * 5
    assert s["unk_0a"].note == "unknown" and s["unk_0a"].meaning.startswith("request prefix")
    assert (s["r1browl"].start, s["r1browl"].value, s["r1browl"].note) == (0x27, 15, "inferred")
    assert s["r1parm1l"].start == 0x1B


def test_format1_table_definition_guides_the_scan() -> None:
    assert one(FORMAT1_SPEC, params=4, fields=2).problems == []
    unit = one(FORMAT1_SPEC, params=5, fields=2)  # wrong definition: shown as hex, said so
    assert len(unit.problems) == 2 and "segment shown as hex" in unit.problems[0].reason
    seg1 = next(el for el in flat(unit) if el.type == "R1SEG")
    assert [s.name for s in seg1.spans] == ["r1_seglen", "unk_0a"] and seg1.spans[1].end == 0x37
    three = one(FORMAT1_SPEC, params=3, fields=2)  # the scan takes P1 into the request prefix
    prefix = next(s for s in flat(three)[1].spans if s.name == "unk_0a")
    assert prefix.raw.endswith(bytes.fromhex("02D7F1"))


def test_format1_non_canonical_length_is_flagged() -> None:
    seg = bytes([0xC1]) + "T".encode("cp037").ljust(16, b"\x40") + bytes.fromhex("8005") + \
        bytes.fromhex("04C1C2C3C4")
    data = bytes.fromhex("0001 00001E40 4000") + len(seg).to_bytes(2) + seg
    unit = one(data, synthetic=True, fields=1)
    browl = next(s for s in unit.spans() if s.name == "r1browl")
    assert browl.value == 5 and browl.length == 2 and "non-canonical" in browl.meaning


@st.composite
def table_rows(draw: st.DrawFn) -> list[dict[str, object]]:
    """Segments of one table: the same parameter and field counts in every row."""
    nparams, nfields = draw(st.integers(0, 4)), draw(st.integers(1, 4))
    param = st.binary(min_size=1, max_size=127).filter(lambda b: b[0] != 0)
    row = st.fixed_dictionaries({
        "request": st.sampled_from(["add", "delete", "replace"]),
        "table": st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ_", min_size=1, max_size=16),
        "params": st.lists(param, min_size=nparams, max_size=nparams),
        "fields": st.lists(st.binary(max_size=300), min_size=nfields, max_size=nfields),
    })
    return draw(st.lists(row, min_size=1, max_size=3))


@settings(max_examples=200, deadline=None)
@given(table_rows(), st.sampled_from(["retain", "release"]))
def test_format1_builder_round_trip(segments: list[dict], lock: str) -> None:
    """Synthetic format-1 entries with 1- and 2-byte lengths: build -> decode -> same values.
    With the table definition (P, N) the synthetic layout fixes every offset."""
    data = osb_build.build_format1(segments, lock=lock)
    nparams, nfields = len(segments[0]["params"]), len(segments[0]["fields"])
    unit = one(data, synthetic=True, params=nparams, fields=nfields)
    assert not unit.errors and not unit.problems
    assert unit.elements[0].all_values["r1_lock"] == (0xD9 if lock == "release" else 0x40)
    segs = [el.all_values for el in flat(unit) if el.type == "R1SEG"]
    assert len(segs) == len(segments)
    for got, want in zip(segs, segments, strict=True):
        assert (got["table"], got["request"]) == (want["table"], osb_layout.F1_REQUEST_CODES[want["request"]])
        assert [got[f"r1parm{k}v"] for k in range(1, nparams + 1)] == want["params"]
        assert [got[f"r1bf{k}v"] for k in range(1, nfields + 1)] == want["fields"]
        assert got["r1browl"] == sum(len(osb_layout.encode_length(len(v))) + len(v) for v in want["fields"])
        assert f"r1bf{nfields + 1}v" not in got
    # rebuilt from the decoded values: the same bytes
    rebuilt = osb_build.build_format1([
        {"request": g["request"], "table": g["table"],
         "params": [g[f"r1parm{k}v"] for k in range(1, nparams + 1)],
         "fields": [g[f"r1bf{k}v"] for k in range(1, nfields + 1)]} for g in segs], lock=lock)
    assert rebuilt == data
    # without the definition the scan still finds a consistent parse of every segment
    assert not one(data, synthetic=True).problems


def test_format1_truncated_segment() -> None:
    unit = one(FORMAT1_SPEC[:100], part="intent")
    [err] = unit.errors
    assert err.path == "r1seg[2].r1_seglen" and err.offset == 0x37 and "runs past" in err.reason
    assert [el.type for el in unit.elements] == ["R1HDR"]  # the segments nested in the list
    assert [el.type for el in unit.elements[0].children] == ["R1SEG", "R1SEG"]


def test_format1_builder_refusals() -> None:
    with pytest.raises(BuildError) as e:
        osb_build.build_format1([{"params": [b"x" * 128], "fields": [b""]}])
    assert "at most 127" in str(e.value)
    with pytest.raises(BuildError) as e:
        osb_build.build_format1([{"fields": [b"x" * 40000]}])
    assert e.value.path == "segment 1.r1bf1v"


# --------------------------------------------------------------------------- USREXTPL, parmset


def test_usrextpl_states() -> None:
    data = seed_bytes("osb/synthetic/usrextpl.synthetic.dump")
    unit = one(data, part="usrextpl")
    el = unit.elements[0]
    assert el.extra["exits"] == {"shared_storage@": "pointer", "exit_1@": "disabled (HOB)",
                                 "exit_2@": "disabled (null)", "exit_3@": "enabled"}
    s = {x.name: x for x in el.spans}
    assert s["exit_1@"].meaning == "disabled (high-order bit on), address X'06E40000'"
    assert s["exit_1@"].note == "unknown" and s["shared_storage@"].note == "inferred"
    named = one(data, part="usrextpl", names=["shared_storage@", "uxinit@", "uxrl1@", "uxcmnd@"])
    assert named.elements[0].extra["exits"]["uxinit@"] == "n/a"  # type: ignore[index]
    assert named.elements[0].spans[1].note == "user map"


def test_usrextpl_set_enabled_toggles_only_the_high_order_bit() -> None:
    data = seed_bytes("osb/synthetic/usrextpl.synthetic.dump")
    on = osb_build.set_enabled(data, "exit_1@", True)
    assert on[4:8] == bytes.fromhex("06E40000") and on[:4] + on[8:] == data[:4] + data[8:]
    assert osb_build.set_enabled(on, "exit_1@", False) == data
    off = osb_build.set_enabled(data, "exit_3@", False)
    assert off[12:16] == bytes.fromhex("86E41000")
    for name, words in (("exit_2@", "pointer is 0"), ("shared_storage@", "not switched"),
                        ("nope@", "not in the USREXTPL field map")):
        with pytest.raises(BuildError) as e:
            osb_build.set_enabled(data, name, True)
        assert words in str(e.value)
    assert osb_build.build_usrextpl(fields(one(data, part="usrextpl"), "USREXTPL")) == data


def test_usrextpl_map_shorter_or_longer_than_the_words() -> None:
    data = seed_bytes("osb/synthetic/usrextpl.synthetic.dump")
    short = one(data, part="usrextpl", names=["shared_storage@", "uxcmnd@"])
    assert [s.name for s in short.spans()] == ["shared_storage@", "uxcmnd@", "unk_08", "unk_0c"]
    assert not short.errors and "names 2 pointers, the input holds 4" in short.problems[0].reason
    long = one(data, part="usrextpl", names=[f"p{i}@" for i in range(6)])
    assert len(list(long.spans())) == 4 and long.problems


def test_usrextpl_odd_length_is_an_error() -> None:
    unit = one(seed_bytes("osb/synthetic/usrextpl.synthetic.dump") + b"\x01\x02", part="usrextpl")
    assert unit.errors[0].offset == 16 and "left over" in unit.errors[0].reason


def test_parmset() -> None:
    data = seed_bytes("osb/synthetic/parmset.synthetic.dump")
    unit = one(data, part="parmset")
    assert fields(unit, "PARMSET") == {"max_concurrent_messages": 50, "max_pages_per_checkpoint": 2000,
                                       "max_transactions_per_checkpoint": 500, "resident_pages": 4096}
    assert all(s.note == "inferred" for s in unit.spans())
    assert osb_build.build_parmset(fields(unit, "PARMSET")) == data
    longer = one(data + b"\xff\xff", part="parmset")
    assert longer.problems[0].offset == 8 and longer.elements[-1].type == "UNPARSED"


# --------------------------------------------------------------------------- the decode loop


def test_empty_and_unknown_input() -> None:
    with pytest.raises(DecodeError) as e:
        list(osb_decode.decode(b""))
    assert e.value.format == "redolog"
    unit = one(b"\xff" * 20)
    assert unit.errors and "neither a parameter list" in unit.errors[0].reason
    with pytest.raises(InputError):
        list(osb_decode.decode(b"x", part="nope"))
    with pytest.raises(InputError):
        list(osb_decode.decode(b"x", codepage="cp99999"))


def test_truncated_header_keeps_fields_before_the_cut() -> None:
    unit = one(seed_bytes("osb/sample1.header.dump")[:30], part="header")
    [err] = unit.errors
    assert (err.path, err.offset) == ("rlhdr.rl_seq", 28)
    assert err.reason == "RLHDR truncated: 2 bytes left for rl_seq (4 bytes)"
    assert unit.elements[0].value("rl_time").iso() == "2004-11-11T10:38:18.050314Z"  # type: ignore[union-attr]


def test_entry_with_truncated_intent() -> None:
    entry = osb_build.build_entry({"rl_seq": 1}, CLRTAB_SPEC)
    unit = one(entry[:48 + 60])
    assert unit.attrs["part"] == "entry" and unit.errors
    assert "truncated" in unit.errors[-1].reason


def test_other_code_page() -> None:
    data = bytearray(seed_bytes("osb/sample6.parmlist.dump"))
    data[16:24] = "DZC10   ".encode("cp1047")
    assert fields(one(bytes(data), codepage="1047"), "PARMLIST")["userid"] == "DZC10"


def test_detect() -> None:
    d = osb_detect.detect(seed_bytes("osb/sample1.header.dump"))
    assert d is not None and (d.format, d.confidence, d.options) == ("redolog", 0.95, {"part": "header"})
    assert osb_detect.detect(seed_bytes("osb/sample6.parmlist.dump")).options == {"part": "parmlist"}  # type: ignore[union-attr]
    d = osb_detect.detect(SAMPLE6_INTENT)
    assert d is not None and d.options == {"part": "intent"} and "EXIT_SAMPLE" in d.reason
    assert osb_detect.detect(FORMAT1_SPEC).options == {"part": "intent"}  # type: ignore[union-attr]
    both = osb_detect.detect(seed_bytes("osb/combined/sample1.parmlist-header.dump"))
    assert both is not None and (both.confidence, both.options) == (0.9, {"part": "auto"})
    assert both.reason.endswith("then a redolog header with the same intent length")
    pl_intent = osb_detect.detect(seed_bytes("osb/sample6.parmlist.dump") + SAMPLE6_INTENT)
    assert pl_intent is not None and pl_intent.options == {"part": "auto"}
    assert osb_detect.detect(bytes(100)) is None and osb_detect.detect(b"") is None
