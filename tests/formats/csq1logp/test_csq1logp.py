"""CSQ1LOGP records: the spec's worked examples (§8) field by field, the 199/200 rule, code
pages, detection, the builder, and the fast path giving exactly the forensic decoder's rows."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.errors import DecodeError
from mqtool.formats.csq1logp import build as csq_build
from mqtool.formats.csq1logp import bulk as csq_bulk
from mqtool.formats.csq1logp import decode as csq_decode
from mqtool.formats.csq1logp import layout as csq_layout
from mqtool.formats.csq1logp.framing import frames
from mqtool.layout import fixed_dtype
from mqtool.testing import csq1logp_gen
from mqtool.tod import Tod
from tests.helpers import seed_bytes

REC = seed_bytes("csq1logp/mqput-rdw.dump")  # spec §8.1, 215 bytes

VALUES_81 = {
    "csrecorddate": "2024.075 13:45:12.345", "cstimedelta": 12,
    "dtodout": Tod(0xDECC38049F04E000), "csurid": bytes.fromhex("00000A1B2C3D"),
    "cscorrelator": "PAYROLL1", "csauth": "USER01", "dtime": Tod(0xDECC38049BEC8000),
    "csresource": "PAYROLL1", "cscnty": "BATCH", "cscnid": "PAYROLL1", "csstatus": "BUR",
    "csqmgrname": "QM01", "csqueuename": "APP.INPUT", "csdmcp": bytes.fromhex("C4B0A1B2C3D4E5F6"),
    "csverb": "MQPUT", "cscmitstatus": "C", "csshunt": "N",
    "cslogrba": bytes.fromhex("00000A1B3040"), "csshuntrba": bytes(6),
}
HELLO = "HELLO WORLD".encode("cp037")


def only(data: bytes, **kw: object) -> csq_layout.Decoded:  # type: ignore[name-defined]
    units = list(csq_decode.decode(data, **kw))
    assert len(units) == 1
    return units[0]


def vardata(unit) -> bytes | None:  # type: ignore[no-untyped-def]
    """csvardata: the data of the variable part (nested under the fixed part when the record
    carries csbora, else the fixed part's own)."""
    fixed = unit.elements[1]
    holder = fixed.children[0] if fixed.children else fixed
    return holder.data


def spans(unit) -> dict:  # type: ignore[no-untyped-def]
    return {s.path: s for s in unit.spans()}


def test_81_every_field_at_its_file_offset() -> None:
    assert len(REC) == 215
    u = only(REC)
    assert u.ok and not u.problems
    s = spans(u)
    expect = [  # (path, file offset, length, value) as the spec lists them
        ("rdw.length", 0x00, 2, 215),
        ("csrecorddate", 0x04, 21, "2024.075 13:45:12.345"),
        ("cstimedelta", 0x19, 7, "     12"),
        ("dtodout", 0x20, 8, Tod(0xDECC38049F04E000)),
        ("csurid", 0x28, 6, bytes.fromhex("00000A1B2C3D")),
        ("cscorrelator", 0x2E, 12, "PAYROLL1"),
        ("csauth", 0x3A, 8, "USER01"),
        ("dtime", 0x42, 8, Tod(0xDECC38049BEC8000)),
        ("csresource", 0x4A, 8, "PAYROLL1"),
        ("cscnty", 0x52, 8, "BATCH"),
        ("cscnid", 0x5A, 8, "PAYROLL1"),
        ("csstatus", 0x62, 3, "BUR"),
        ("ldatalen", 0x65, 4, 11),
        ("csqmgrname", 0x69, 4, "QM01"),
        ("csqueuename", 0x6D, 48, "APP.INPUT"),
        ("cssqdmcp", 0x9D, 12, b"\x40" * 12),
        ("csdmcp", 0xA9, 8, bytes.fromhex("C4B0A1B2C3D4E5F6")),
        ("csverb", 0xB1, 8, "MQPUT"),
        ("cscmitstatus", 0xB9, 1, "C"),
        ("csshunt", 0xBA, 1, "N"),
        ("cslogrba", 0xBB, 6, bytes.fromhex("00000A1B3040")),
        ("csshuntrba", 0xC1, 6, bytes(6)),
        ("lsegment", 0xC7, 4, 1),
        ("csbora", 0xCB, 1, ""),
    ]
    for path, off, n, value in expect:
        assert (s[path].start, s[path].length, s[path].value) == (off, n, value), path
    assert s["csbora"].raw == b"\x40"
    assert s["cstimedelta"].raw.hex().upper() == "4040404040F1F2"
    assert s["cscmitstatus"].meaning == "committed" and s["csshunt"].meaning == "not shunted"
    assert s["cssqdmcp"].meaning == "blank: not a shared queue"
    el = u.elements[1].children[0]  # the variable part: csbora, then csvardata
    assert (el.type, el.offset, el.length) == ("CSBORA", 0xCB, 12)
    assert el.data == HELLO and el.data_offset == 0xCC and el.data.decode("cp037") == "HELLO WORLD"
    assert u.attrs["fixed_len"] == 200 and u.attrs["reading"] == "A"
    assert u.attrs["fixed_reason"] == "211 bytes = 200 + ldatalen 11: csbora present"
    assert u.attrs["csrecorddate_ts"] == "2024-03-15T13:45:12.345"
    assert u.attrs["csrecorddate_offset"] == "+00:00"
    # STCK in JSON: ISO UTC with microseconds; cstimedelta ~ (dtodout - dtime) / 4096000 ms
    j = u.to_json()["elements"][1]["fields"]
    assert j["dtodout"] == "2024-03-15T13:45:12.345678Z" and j["dtime"] == "2024-03-15T13:45:12.333000Z"
    assert j["csurid"] == "00000A1B2C3D" and j["cslogrba"] == "00000A1B3040"
    assert pytest.approx(12.678) == (0xDECC38049F04E000 - 0xDECC38049BEC8000) / 4_096_000


def test_81_builder_is_byte_exact() -> None:
    assert csq_build.build_record(VALUES_81, HELLO) == REC
    fixed = only(REC).elements[1]
    assert csq_build.build_record(fixed.fields | fixed.children[0].fields, HELLO) == REC


def test_81_row_values() -> None:
    (row,) = next(csq_bulk.batches("x.bin", frames([REC], "rdw"))).to_pylist()
    assert row["offset"] == 0 and row["rec_no"] == 0 and row["rec_len"] == 215
    assert row["log_date"].isoformat() == "2024-03-15"
    assert row["csrecorddate"] == "2024.075 13:45:12.345"
    assert row["csrecorddate_ts"] == datetime(2024, 3, 15, 13, 45, 12, 345000)  # naive
    assert row["cstimedelta"] == 12
    assert row["dtodout"] == datetime(2024, 3, 15, 13, 45, 12, 345678, tzinfo=UTC)
    assert row["cscorrelator_hex"] == "D7C1E8D9D6D3D3F140404040"
    assert row["cssqdmcp"] is None and row["csdmcp"] == "C4B0A1B2C3D4E5F6"
    assert row["csbora"] == "" and row["fixed_len"] == 200 and row["csvardata"] == HELLO
    assert row["_corrupt_fields"] is None and row["_error"] is None


def test_82_two_segments_reading_a() -> None:
    data = bytes(range(256)) * 156 + bytes(64)  # 40 000 bytes
    recs = csq_build.build_message(VALUES_81, data)
    assert [r[:4].hex().upper() for r in recs] == ["7FF40000", "1DE40000"]
    assert [r[0x65:0x69].hex().upper() for r in recs] == ["00007F28", "00001D18"]
    assert [r[0xC7:0xCB].hex().upper() for r in recs] == ["00000001", "00000002"]
    assert recs[0][4:0x65] == recs[1][4:0x65] and recs[0][0x69:0xC7] == recs[1][0x69:0xC7]
    u1, u2 = csq_decode.decode(b"".join(recs))
    assert len(vardata(u1)) + len(vardata(u2)) == 40000
    assert u1.attrs["reading"] == u2.attrs["reading"] == "A"


def test_82_reading_b_is_reported() -> None:
    data = b"\x5c" * 40000
    recs = csq_build.build_message(VALUES_81, data, reading="B")
    assert [r[0x65:0x69].hex().upper() for r in recs] == ["00009C40", "00009C40"]
    u1, u2 = csq_decode.decode(b"".join(recs))
    assert (u1.attrs["reading"], u2.attrs["reading"]) == ("B", "B")
    assert u1.problems[0].path == "ldatalen" and u1.problems[0].offset == 0x65
    assert "reading B" in u1.problems[0].reason
    assert len(vardata(u1)) == 32552 and len(vardata(u2)) == 7448


def test_83_bdw_block_of_two_records() -> None:
    blk = csq_build.block([REC, REC])
    assert blk[:4].hex().upper() == "01B20000" and len(blk) == 434
    units = list(csq_decode.decode(blk))
    assert [(u.offset, u.length, u.attrs["framing"], u.attrs["block"]) for u in units] == [
        (4, 215, "bdw", 0), (219, 215, "bdw", 0)]
    assert all(u.ok and vardata(u) == HELLO for u in units)
    assert csq_decode.detect(blk).options == {"framing": "bdw"}  # type: ignore[union-attr]


def test_83_same_bytes_as_rdw_fail_at_offset_0() -> None:
    units = list(csq_decode.decode(csq_build.block([REC, REC]), framing="rdw"))
    bad = units[0]
    assert bad.errors[0].offset == 0 and bad.errors[0].reason.startswith("no-record-date")
    assert "RDW X'01B20000' (434)" in bad.errors[0].reason
    assert (bad.offset, bad.length) == (0, 4)  # resynchronised on the next RDW + date
    assert [(u.offset, u.ok) for u in units[1:]] == [(4, True), (219, True)]


@pytest.mark.parametrize(("bora", "rdw", "fixed"), [(True, "00CC", 200), (False, "00CB", 199)])
def test_84_zero_data_phase2(bora: bool, rdw: str, fixed: int) -> None:
    rec = csq_build.build_record({**VALUES_81, "csverb": "PHASE2"}, b"", bora=bora)
    assert rec[:4].hex().upper() == rdw + "0000"
    u = only(rec)
    assert u.ok and not u.problems and u.attrs["fixed_len"] == fixed
    assert vardata(u) == b""
    assert ("csbora" in spans(u)) is bora


@pytest.mark.parametrize(("raw", "iso"), [
    (0xDECC38049F04E000, "2024-03-15T13:45:12.345678Z"),
    (0xBC1A974DC5F0AC00, "2004-11-11T10:38:18.050314Z"),
    (0xB361183F48000000, "2000-01-01T00:00:00.000000Z"),
    (0x7D91048BCA000000, "1970-01-01T00:00:00.000000Z"),
])
def test_85_stck_vectors(raw: int, iso: str) -> None:
    rec = REC[:0x20] + raw.to_bytes(8, "big") + REC[0x28:]
    u = only(rec)
    assert u.to_json()["elements"][1]["fields"]["dtodout"] == iso
    (row,) = next(csq_bulk.batches("f", frames([rec], "rdw"))).to_pylist()
    assert row["dtodout"].strftime("%Y-%m-%dT%H:%M:%S.%fZ") == iso
    assert row["log_date"].isoformat() == iso[:10]


def test_recorddate_ordinal_and_leap_years() -> None:
    assert csq_layout.parse_recorddate("2024.075 13:45:12.345") == datetime(2024, 3, 15, 13, 45, 12, 345000)
    assert csq_layout.parse_recorddate("2024.366 23:59:59.999") == datetime(2024, 12, 31, 23, 59, 59, 999000)
    for bad in ("2023.366 00:00:00.000", "2024.000 00:00:00.000", "2024.075 24:00:00.000",
                "2024.075 13:45:12", "2024-075 13:45:12.345"):
        with pytest.raises(ValueError):
            csq_layout.parse_recorddate(bad)
    assert csq_layout.format_recorddate(datetime(2024, 3, 15, 13, 45, 12, 345678)) == "2024.075 13:45:12.345"


def test_text_mode_transfer_is_refused_with_a_hint() -> None:
    ascii_copy = REC[4:].decode("cp037").encode("latin-1")
    with pytest.raises(DecodeError) as e:
        list(csq_decode.decode(ascii_copy))
    assert "text-mode-transfer" in e.value.reason and "binary" in e.value.reason
    assert e.value.path == "csrecorddate" and e.value.offset == 0


def test_not_an_extract() -> None:
    with pytest.raises(DecodeError) as e:
        list(csq_decode.decode(b"\x00" * 300))
    assert "no EBCDIC yyyy.ddd" in e.value.reason and e.value.offset == 0
    assert csq_decode.detect(b"\x00" * 300) is None


def test_detect_rdw_and_unframed() -> None:
    d = csq_decode.detect(REC)
    assert d is not None and d.format == "csq1logp" and d.options == {"framing": "rdw"}
    assert d.confidence >= 0.9 and "X'00D70000'" in d.reason
    assert csq_decode.detect(REC[4:]).options == {"framing": "none"}  # type: ignore[union-attr]


@pytest.mark.parametrize("codepage", ["cp500", "cp1047", "cp1140"])
def test_code_pages(codepage: str) -> None:
    vals = {**VALUES_81, "csqueuename": "APP.[INPUT]!", "csauth": "ÄUSER"}
    rec = csq_build.build_record(vals, b"", codepage=codepage)
    u = only(rec, codepage=codepage)
    assert spans(u)["csqueuename"].value == "APP.[INPUT]!" and spans(u)["csauth"].value == "ÄUSER"
    (row,) = next(csq_bulk.batches("f", frames([rec], "rdw", codepage), codepage)).to_pylist()
    assert row["csqueuename"] == "APP.[INPUT]!" and row["csauth"] == "ÄUSER"
    assert row == csq_bulk.unit_row(u, "f")


def test_numpy_dtype_is_derived_from_the_declaration() -> None:
    lay = csq_layout.layouts().logd
    dt = fixed_dtype(lay)
    assert dt.itemsize == 199 == lay.size
    for f in lay.fields:
        assert dt.fields[f.name][1] == f.start and dt.fields[f.name][0].itemsize == f.size
    assert dt.fields["ldatalen"][0] == np.dtype(">i4") and dt.fields["ldatalen"][1] == 97
    assert dt.fields["lsegment"][1] == 195 and dt.fields["dtodout"][0] == np.dtype(">u8")


def _odd_records() -> list[bytes]:
    """Records with every field-level problem the decoder knows."""
    base = dict(VALUES_81)
    return [
        csq_build.build_record({**base, "csrecorddate": "2023.366 00:00:00.000"}, HELLO),
        csq_build.build_record({**base, "cstimedelta": "  1 2  "}, HELLO),
        csq_build.build_record({**base, "cstimedelta": "      "}, HELLO),
        csq_build.build_record({**base, "csverb": "FROB", "cscnty": "\x00" * 8}, b""),
        csq_build.build_record({**base, "cscnty": "TSO", "csstatus": "XX", "cscmitstatus": "Z",
                        "csshunt": "S"}, b""),
        csq_build.build_record({**base, "lsegment": 0, "ldatalen": -5}, b"abc"),
        csq_build.build_record({**base, "csverb": "ALTER", "csbora": "X"}, b"obj"),
        csq_build.build_record({**base, "csverb": "ALTER", "csbora": "A"}, b"obj"),
        csq_build.build_record(base, HELLO, ldatalen=5),  # trailing bytes after ldatalen
        csq_build.build_record(base, HELLO, bora=False),  # 199-byte fixed part
        csq_build.build_record({**base, "dtodout": None, "cssqdmcp": b"\x01" * 12, "csdmcp": None}, b""),
    ]


def test_field_problems_keep_the_row() -> None:
    rows = next(csq_bulk.batches("f", frames([b"".join(_odd_records())], "rdw"))).to_pylist()
    got = [r["_corrupt_fields"] for r in rows]
    assert got == [
        ["csrecorddate: not a yyyy.ddd hh:mm:ss.thm date"],
        ["cstimedelta: not blank-padded digits"],
        None,
        ["csverb: unknown value"],
        ["cscnty: unknown value", "csstatus: unknown value", "cscmitstatus: unknown value"],
        ["ldatalen: negative", "lsegment: less than 1"],
        ["csbora: unknown value"],
        None,
        ["csvardata: bytes after ldatalen"],
        None,
        None,
    ]
    assert rows[2]["cstimedelta"] is None and rows[1]["cstimedelta"] is None
    assert rows[0]["csrecorddate_ts"] is None and rows[0]["csrecorddate"] == "2023.366 00:00:00.000"
    assert rows[7]["csbora"] == "A" and rows[9]["csbora"] is None and rows[9]["fixed_len"] == 199
    assert rows[8]["csvardata"] == HELLO[:5]
    assert rows[10]["dtodout"] is None and rows[10]["log_date"] is None
    assert rows[10]["cssqdmcp"] == "01" * 12 and rows[10]["csdmcp"] is None


@pytest.mark.parametrize("framing", ["rdw", "bdw", "none"])
def test_fast_path_equals_forensic_decoder(framing: str) -> None:
    recs = csq1logp_gen.records(csq1logp_gen.Spec(count=120, multi_every=15, seed=7)) + _odd_records()
    data = csq1logp_gen.framed(recs, framing)
    if framing == "rdw":  # damaged RDW and a truncated tail too
        data = csq1logp_gen.damage(data, len(recs[0]) + len(recs[1]), "spanned")[:-50]
    units = list(csq_decode.decode(data, framing="auto"))
    assert any(u.errors for u in units) is (framing == "rdw")
    forensic = [csq_bulk.unit_row(u, "f") for u in units]
    for chunk in (1 << 20, 4099):
        pieces = [data[i:i + chunk] for i in range(0, len(data), chunk)]
        fast = [r for b in csq_bulk.batches("f", frames(pieces, framing)) for r in b.to_pylist()]
        assert fast == forensic


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=600), st.sampled_from(["auto", "rdw", "bdw", "none"]))
def test_hostile_bytes_never_raise_anything_but_decode_errors(blob: bytes, framing: str) -> None:
    data = REC[:4] + blob if blob[:1] == b"\x01" else REC + blob
    try:
        units = list(csq_decode.decode(data, framing=framing))
    except DecodeError:
        return
    rows = [csq_bulk.unit_row(u, "f") for u in units]
    if framing != "auto":
        fast = [r for b in csq_bulk.batches("f", frames([data], framing)) for r in b.to_pylist()]
        assert fast == rows
