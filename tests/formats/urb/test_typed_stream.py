"""Typed change tables from whole streams: the generator's URBF/URBG tables and data
messages (every field format, MU and PE fields, optimized counts, variable lengths, both
character sets and byte orders) decoded back to the values it was given; layouts from the
stream and from the user, their precedence and conflicts; errors with their byte offsets;
malformed global format field tables."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqtool.errors import MqtoolError
from mqtool.formats.urb.extract import extract_tables
from mqtool.formats.urb.formatbuffer import parse_option
from mqtool.formats.urb.typed import Layouts, scan, typed_changes
from mqtool.formats.urb.typed.images import decode_images
from mqtool.formats.urb.typed.layout import LayoutError
from mqtool.formats.urb.typed.values import Encoding
from mqtool.testing import urb_gen as g

KEY = (10006, 9)
ENCODINGS = {
    "zos": g.ZOS,
    "wintel": g.WINTEL,
    "ascii-big-ieee": g.Encoding(ebcdic=False, big=True, ieee=True),
    "ebcdic-little-arc": g.Encoding(ebcdic=True, big=False, ieee=False, arc=3),
    "ascii-utf8-arc8": g.Encoding(ebcdic=False, big=True, ieee=True, arc=8, acod=4091, wcod=4095),
}


def typed(tmp_path: Path, data: bytes, given: list[str] = (), prefer: str = "stream"):  # type: ignore[no-untyped-def]
    path = tmp_path / "stream.urb"
    path.write_bytes(data)
    tables, summary = extract_tables(str(path))
    assert summary.errors == 0, summary.first_error
    layouts = Layouts.of([((0, off), x) for off, x in scan(data, str(path))],
                         [parse_option(o) for o in given], prefer=prefer)
    return typed_changes(tables.table("changes"), layouts, tables.table("transactions"),
                         tables.table("messages"), [str(path)])


def check_rows(table: pa.Table, fields: list[g.Field], txs: list[list[g.Change]], optimized: bool) -> None:
    rows = table.to_pylist()
    changes = list(g.iter_records(txs))
    assert len(rows) == len(changes)
    for row, c in zip(rows, changes, strict=True):
        assert (row["isn"], row["record_type"], row["dbid"], row["file_number"]) == (c.isn, c.kind, *KEY)
        for side in ("before", "after"):
            want = getattr(c, side)
            assert (row[side] is None) == (want is None)
            if want is not None:
                assert row[side] == g.expected(fields, want, optimized)


@pytest.mark.parametrize("name", list(ENCODINGS))
@pytest.mark.parametrize(("optimized", "range_order"), [(False, False), (True, False), (False, True)])
def test_generated_streams_decode_to_their_values(tmp_path: Path, name: str, optimized: bool,
                                                   range_order: bool) -> None:
    fields = g.employees(optimized, range_order)
    txs = g.changes(25, seed=len(name), optimized=optimized)
    result = typed(tmp_path, g.stream(fields, txs, ENCODINGS[name], optimized).data)
    assert result.errors.num_rows == 0, result.errors.to_pylist()[:2]
    check_rows(result.tables[KEY], fields, txs, optimized)
    t = result.tables[KEY]
    assert t.schema.field("after").type.field("SALARY").type == pa.decimal128(9, 2)
    assert "NOT-SENT" not in t.schema.field("after").type.names
    assert t.column("layout")[0].as_py().startswith("GFFT EMPLTYP of file 9")


def test_columns_are_the_long_names_and_types(tmp_path: Path) -> None:
    fields = g.employees()
    result = typed(tmp_path, g.stream(fields, g.changes(3, seed=2)).data)
    after = result.tables[KEY].schema.field("after").type
    assert [(f.name, str(f.type)) for f in after] == [
        ("PERSONNEL-ID", "string"), ("FIRST-NAME", "string"), ("SALARY", "decimal128(9, 2)"),
        ("BONUS-PCT", "decimal128(4, 1)"), ("AGE", "uint8"), ("EMP-NO", "uint32"), ("BALANCE", "int64"),
        ("FLAGS", "binary"), ("RATE", "double"), ("SCORE", "double"), ("BIRTH", "date32[day]"),
        ("START-TIME", "time64[us]"), ("HIRED", "date32[day]"), ("LAST-LOGIN", "timestamp[us]"),
        ("NICK", "string"), ("LANG", "list<item: string>"),
        ("INCOME", "list<item: struct<CURR-CODE: string, AMOUNT: decimal128(7, 2), "
                   "BONUS: list<item: decimal128(5, 0)>>>")]


def test_a_refreshed_table_replaces_the_layout(tmp_path: Path) -> None:
    old = [f for f in g.employees() if f.fid in ("AA", "AC")]
    new = [*old, g.Field("AE", "AGE", g.B, 1)]
    tx1 = [[g.Change("I", 1, None, {"PERSONNEL-ID": "1", "SALARY": 5})]]
    tx2 = [[g.Change("U", 1, {"PERSONNEL-ID": "1", "SALARY": 5, "AGE": 7},
                     {"PERSONNEL-ID": "1", "SALARY": 6, "AGE": 8})]]
    data = g.stream(old, tx1).data + g.stream(new, tx2).data
    result = typed(tmp_path, data)
    rows = result.tables[KEY].to_pylist()
    assert [r["after"] for r in rows] == [{"PERSONNEL-ID": "1", "SALARY": 5, "AGE": None},
                                          {"PERSONNEL-ID": "1", "SALARY": 6, "AGE": 8}]
    assert rows[0]["layout"] != rows[1]["layout"]
    assert any("2 images" in line or "1 image" in line for line in result.report)


def test_format_buffer_where_the_stream_has_no_table(tmp_path: Path) -> None:
    fields = [f for f in g.employees() if f.fid in ("AA", "AC", "AE")]
    txs = [[g.Change("I", 5, None, {"PERSONNEL-ID": "ABC", "SALARY": Decimal("-12.5"), "AGE": 40})]]
    data = g.stream(fields, txs, gfft=False).data
    nothing = typed(tmp_path, data)
    assert nothing.tables == {}
    assert "no layout for database 10006 file 9" in nothing.errors.column("reason")[0].as_py()
    result = typed(tmp_path, data, ["10006:9='AA,8,A,AC,5.2,P,AE,1,B.'"])
    assert result.tables[KEY].column("after").to_pylist() == [{"AA": "ABC", "AC": -12.5, "AE": 40}]
    assert any("--format-buffer 10006:9: 1 image" in line for line in result.report)


def test_stream_wins_and_the_conflict_is_reported(tmp_path: Path) -> None:
    fields = [f for f in g.employees() if f.fid in ("AA", "AC")]
    data = g.stream(fields, [[g.Change("I", 1, None, {"PERSONNEL-ID": "X", "SALARY": 1})]]).data
    result = typed(tmp_path, data, ["10006:9=AA,8,A,AC,4,P"])
    assert result.tables[KEY].column("after").to_pylist()[0]["SALARY"] == 1
    conflict = [line for line in result.report if "lay out different values" in line]
    assert conflict and "value 2: AC P5 vs AC P4" in conflict[0] and "the GFFT is used" in conflict[0]
    user = typed(tmp_path, data, ["10006:9=AA,8,A,AC,5,P"], prefer="user")
    assert user.tables[KEY].schema.field("after").type.names == ["AA", "AC"]


def test_a_bad_value_is_null_and_an_error_row_at_its_offset(tmp_path: Path) -> None:
    fields = [f for f in g.employees() if f.fid in ("AA", "AC", "AE")]
    txs = [[g.Change("I", 7, None, {"PERSONNEL-ID": "20011000", "SALARY": Decimal("31415.92"), "AGE": 3})]]
    data = bytearray(g.stream(fields, txs).data)
    at = bytes(data).find(g.packed(3141592, 5))
    assert at > 0
    data[at + 1] = 0xAB  # a nibble that is no digit
    result = typed(tmp_path, bytes(data))
    assert result.tables[KEY].column("after").to_pylist() == [{"PERSONNEL-ID": "20011000", "SALARY": None,
                                                               "AGE": 3}]
    (err,) = result.errors.to_pylist()
    assert (err["offset"], err["path"]) == (at, "urbd.after.SALARY")
    assert "nibble X'A' at byte 1" in err["reason"]
    assert err["first_bytes"] == bytes(data[at:at + 5]).hex().upper()


def test_an_image_shorter_than_its_layout(tmp_path: Path) -> None:
    fields = [f for f in g.employees() if f.fid in ("AA", "AC")]
    data = g.stream(fields, [[g.Change("I", 1, None, {"PERSONNEL-ID": "1", "SALARY": 1})]]).data
    result = typed(tmp_path, data, ["10006:9=AA,8,A,AC,5,P,AD,4,B"], prefer="user")
    (err,) = result.errors.to_pylist()
    assert err["path"] == "urbd.after.AD" and "the image ends 0 bytes into AD (B) of 4 bytes" in err["reason"]
    assert err["offset"] == data.find(g.packed(100, 5)) + 5


# --------------------------------------------------------------------------- hostile tables

URBG_VALUES = st.fixed_dictionaries({
    "urbgfid": st.sampled_from(["AA", "AB", "  ", "G1", "AQ"]),
    "urbgffmt": st.sampled_from([*sorted(g.GFFT_FORMATS), 0x07, 0xFF]),
    "urbgtype": st.integers(0, 255), "urbgflen": st.integers(0, 300), "urbgfprc": st.integers(0, 40),
    "urbgflag": st.integers(0, 255), "urbgfrno": st.integers(0, 65535),
    "urbgfrfm": st.integers(0, 3), "urbgfono": st.integers(0, 5), "urbgfofm": st.integers(0, 3),
    "urbgfnam": st.sampled_from(["", "NAME", "X" * 32]), "urbgfgrp": st.sampled_from(["", "AQ", "G1"]),
})


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(URBG_VALUES, max_size=6), st.booleans(), st.lists(st.binary(max_size=80), max_size=4))
def test_malformed_tables_give_a_layout_or_one_line(urbgs: list[dict[str, object]], optimized: bool,
                                                    images: list[bytes]) -> None:
    data = g.gfft_message([], g.ZOS, optimized=optimized,
                          urbgs=[{"urbgidx": k + 1, **u, "urbgfnml": len(str(u["urbgfnam"]))}
                                 for k, u in enumerate(urbgs)])
    for _off, found in scan(data):
        if isinstance(found, LayoutError):
            assert "\n" not in str(found) and str(found).startswith("urb: GFFT")
            continue
        structs, fails = decode_images(found.layout, pa.array(images, pa.binary()), Encoding())
        assert len(structs) == len(images)
        assert all("\n" not in f.reason for f in fails)


def test_a_table_whose_count_disagrees() -> None:
    from mqtool.formats.urb.layout import layouts

    data = bytearray(g.gfft_message(g.employees()[:2], g.ZOS))
    ((_, good),) = list(scan(bytes(data)))
    assert not isinstance(good, LayoutError)
    urbf = layouts().URBH.size
    at = urbf + layouts().URBF.offset_of("urbfcntg")
    assert data[at:at + 2] == b"\x00\x02"
    data[at + 1] = 3
    found = [x for _, x in scan(bytes(data))]
    assert len(found) == 1 and isinstance(found[0], LayoutError)
    assert "\n" not in str(found[0]) and str(found[0]).startswith("urb: GFFT EMPLTYP")
    layouts_ = Layouts.of([((0, 0), found[0])])
    assert layouts_.report() == [str(found[0]).removeprefix("urb: ")]


@settings(max_examples=40, deadline=None)
@given(st.binary(min_size=1, max_size=200), st.integers(0, 400))
def test_bytes_around_a_table(noise: bytes, cut: int) -> None:
    data = noise + g.gfft_message(g.employees()[:3], g.WINTEL) + noise
    data = data[:cut] + data[cut + 1:]
    try:
        for _off, found in scan(data):
            assert isinstance(found, LayoutError) or found.layout.items
    except MqtoolError as e:
        assert "\n" not in str(e)


def test_unknown_format_codes_are_kept_as_bytes() -> None:
    data = g.gfft_message([], g.ZOS, urbgs=[{"urbgidx": 1, "urbgfid": "AA", "urbgffmt": 0x07, "urbgflen": 2,
                                             "urbgfnml": 0}])
    (_, found), = list(scan(data))
    assert not isinstance(found, LayoutError)
    assert found.layout.notes == ("URBG 1 (AA): format X'07' is kept as bytes",)
    rec, _ = decode_images(found.layout, pa.array([b"\x01\x02"]), Encoding())
    assert rec.to_pylist() == [{"AA": b"\x01\x02"}]


def test_encodings_from_the_architecture_key() -> None:
    from mqtool.formats.urb.typed.table import encoding_of

    assert encoding_of(9, 819, 4091, "latin-1", False) == Encoding(False, "ieee", False, "latin-1", "utf-8")
    assert encoding_of(0, 0, 0, "cp037", False) == Encoding(True, "ibm", True, "cp037", "utf-16-be")
    assert encoding_of(0, 0, 0, "latin-1", True) == Encoding(True, "ieee", False, "latin-1", "utf-8")
    assert encoding_of(2, 0, 4095, "latin-1", False) == Encoding(True, "ibm", True, "cp037", "utf-16-be")
    assert encoding_of(4, 0, 0, "cp500", True).floats == "vax"
    assert replace(encoding_of(0, 0, 0, "cp037", True, wide_codec="utf-8")).wcodec == "utf-8"
    assert np.array_equal(np.zeros(1), np.zeros(1))


def test_an_fdt_lays_out_a_file_without_table_or_buffer(tmp_path: Path) -> None:
    from mqtool.formats.urb.fdt import parse_fdt

    fields = [f for f in g.employees() if f.fid in ("AA", "AE")]
    data = g.stream(fields, [[g.Change("I", 3, None, {"PERSONNEL-ID": "P3", "AGE": 41})]], gfft=False).data
    path = tmp_path / "s.urb"
    path.write_bytes(data)
    tables, _ = extract_tables(str(path))
    fdts = parse_fdt('{"dbid": 10006, "fnr": 9, "fields": [{"name": "AA", "long_name": "PERSONNEL-ID",'
                     ' "length": 8, "format": "A"}, {"name": "AE", "long_name": "AGE", "length": 1,'
                     ' "format": "B"}]}', "FDT employees.json")
    result = typed_changes(tables.table("changes"), Layouts.of(fdts=fdts), tables.table("transactions"))
    assert result.tables[KEY].column("after").to_pylist() == [{"PERSONNEL-ID": "P3", "AGE": 41}]
    assert result.tables[KEY].column("layout").to_pylist() == ["FDT employees.json"]
    assert any("FDT employees.json: 1 image" in line for line in result.report)


def test_images_before_the_first_table(tmp_path: Path) -> None:
    fields = [f for f in g.employees() if f.fid in ("AA", "AE")]
    early = g.stream(fields, [[g.Change("I", 1, None, {"PERSONNEL-ID": "A", "AGE": 1})]], gfft=False).data
    late = g.stream(fields, [[g.Change("I", 2, None, {"PERSONNEL-ID": "B", "AGE": 2})]]).data
    result = typed(tmp_path, early + late)
    assert result.tables[KEY].column("after").to_pylist() == [None, {"PERSONNEL-ID": "B", "AGE": 2}]
    (err,) = result.errors.to_pylist()
    assert "no layout for 1 images of database 10006 file 9 (before its first GFFT" in err["reason"]
    assert err["offset"] == early.find(b"\xe4\xd9\xc2\xc4")  # the URBD of the first image
