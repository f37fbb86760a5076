"""Bulk extraction: rows and provenance, filters, writers, modes, the process pool, and
--messages reassembly with every anomaly the spec names."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from mqtool.errors import DecodeError
from mqtool.formats.csq1logp import build as csq_build
from mqtool.formats.csq1logp.extract import Filters, extract, parse_size
from mqtool.formats.csq1logp.segments import Reassembler, standalone
from mqtool.testing import csq1logp_gen
from tests.formats.csq1logp.test_csq1logp import HELLO, VALUES_81
from tests.helpers import seed_bytes

REC = seed_bytes("csq1logp/mqput-rdw.dump")


def run(tmp_path: Path, data: bytes, **kw: object) -> tuple[list[dict], object]:
    p = tmp_path / "in.bin"
    p.write_bytes(data)
    out = io.BytesIO()
    summary = extract([str(p)], out, **kw)  # type: ignore[arg-type]
    return [json.loads(ln) for ln in out.getvalue().splitlines()], summary


def test_jsonl_row_of_81(tmp_path: Path) -> None:
    (row,), s = run(tmp_path, REC)
    assert row["file"].endswith("in.bin") and row["offset"] == 0 and row["rec_no"] == 0
    assert row["rec_len"] == 215 and row["log_date"] == "2024-03-15"
    assert row["dtodout"] == "2024-03-15T13:45:12.345678Z"
    assert row["dtime"] == "2024-03-15T13:45:12.333000Z"
    assert row["csrecorddate"] == "2024.075 13:45:12.345"
    assert row["csrecorddate_ts"] == "2024-03-15T13:45:12.345000"
    assert row["csvardata"] == "C8C5D3D3D640E6D6D9D3C4" and row["csurid"] == "00000A1B2C3D"
    assert row["_error"] is None and row["_corrupt_fields"] is None
    assert s.records == 1 and s.rows == 1 and not s.errors  # type: ignore[attr-defined]


def test_bdw_offsets_are_rdw_offsets(tmp_path: Path) -> None:
    rows, _ = run(tmp_path, csq_build.block([REC, REC]))
    assert [(r["offset"], r["rec_no"], r["rec_len"]) for r in rows] == [(4, 0, 215), (219, 1, 215)]


def _mix() -> bytes:
    a = csq_build.build_record({**VALUES_81, "csqueuename": "PAYROLL.IN", "csverb": "MQGET",
                        "cscmitstatus": "B"}, b"")
    b = csq_build.build_record({**VALUES_81, "csqmgrname": "QM02", "csurid": bytes.fromhex("0000000000FF"),
                        "dtodout": datetime(2024, 3, 16, tzinfo=UTC)}, HELLO)
    return REC + a + b


@pytest.mark.parametrize(("kw", "rec_nos"), [
    ({"queue": ["PAY*"]}, [1]),
    ({"queue": ["APP.INPUT", "PAYROLL.?N"]}, [0, 1, 2]),
    ({"verb": ["mqget"]}, [1]),
    ({"urid": ["X'0000000000FF'"]}, [2]),
    ({"qmgr": ["qm02"]}, [2]),
    ({"since": "2024-03-16T00:00:00Z"}, [2]),
    ({"until": "2024-03-16"}, [0, 1]),
    ({"status": ["backed-out"]}, [1]),
    ({"status": ["C"], "verb": ["MQPUT"], "qmgr": ["QM01"]}, [0]),
])
def test_filters(tmp_path: Path, kw: dict, rec_nos: list[int]) -> None:
    rows, s = run(tmp_path, _mix(), filters=Filters.make(**kw))
    assert [r["rec_no"] for r in rows] == rec_nos
    assert s.records == 3  # type: ignore[attr-defined]


def test_filter_errors_name_the_option() -> None:
    with pytest.raises(ValueError, match="--urid"):
        Filters.make(urid=["XYZ"])
    with pytest.raises(ValueError, match="--status"):
        Filters.make(status=["done"])
    with pytest.raises(ValueError, match="--since"):
        Filters.make(since="yesterday")


def _damaged() -> bytes:
    good = csq1logp_gen.framed(csq1logp_gen.records(csq1logp_gen.Spec(count=30, seed=2)), "rdw")
    first = int.from_bytes(good[:2], "big")
    bad = csq1logp_gen.damage(good, first, "zero-length")  # record 1's RDW: one span
    return csq1logp_gen.damage(bad, len(bad) // 2, "garbage")[:-10]  # garbage and a truncated tail


def test_permissive_error_rows(tmp_path: Path) -> None:
    rows, s = run(tmp_path, _damaged(), filters=Filters.make(verb=["NOPE"]))
    errs = [r for r in rows if r["_error"]]
    assert rows == errs  # the filter kept only the bad spans: they are never dropped silently
    assert [e["_error"] for e in errs] == ["bad-rdw", "bad-rdw", "truncated-record"]
    assert errs[0]["offset"] > 0 and errs[0]["_raw_hex"].startswith("0000")
    assert errs[0]["csqueuename"] is None and errs[0]["rec_no"] == 1
    assert s.errors == {"bad-rdw": 2, "truncated-record": 1}  # type: ignore[attr-defined]


def test_dropmalformed_counts_but_leaves_out(tmp_path: Path) -> None:
    rows, s = run(tmp_path, _damaged(), mode="DROPMALFORMED")
    assert not any(r["_error"] for r in rows)
    assert s.dropped == 3 and sum(s.errors.values()) == 3  # type: ignore[attr-defined]
    assert len(rows) == s.records  # type: ignore[attr-defined]


def test_failfast_stops_with_the_offset(tmp_path: Path) -> None:
    out = io.BytesIO()
    p = tmp_path / "in.bin"
    p.write_bytes(_damaged())
    with pytest.raises(DecodeError) as e:
        extract([str(p)], out, mode="FAILFAST")
    first = int.from_bytes(p.read_bytes()[:2], "big")
    assert e.value.offset == first and e.value.path == "rdw.length"
    assert "bad-rdw" in str(e.value) and "FAILFAST" in str(e.value)
    assert len(out.getvalue().splitlines()) == 1  # the record before it was written


def test_process_pool_gives_the_same_rows(tmp_path: Path) -> None:
    spec = csq1logp_gen.Spec(count=400, multi_every=25, seed=9)
    data = csq1logp_gen.framed(csq1logp_gen.records(spec), "bdw")
    data = csq1logp_gen.damage(data, len(data) // 3, "garbage")
    one, s1 = run(tmp_path, data, workers=1)
    two, s2 = run(tmp_path, data, workers=2, split_size=70_000)
    assert one == two and len(one) > 400
    assert s1.errors == s2.errors and s1.records == s2.records  # type: ignore[attr-defined]


def test_parquet_and_csv(tmp_path: Path) -> None:
    p = tmp_path / "in.bin"
    p.write_bytes(_mix())
    extract([str(p)], str(tmp_path / "o.parquet"), fmt="parquet")
    t = pq.read_table(tmp_path / "o.parquet")
    assert t.num_rows == 3 and str(t.schema.field("dtodout").type) == "timestamp[us, tz=UTC]"
    assert str(t.schema.field("csrecorddate_ts").type) == "timestamp[us]"
    meta = pq.ParquetFile(tmp_path / "o.parquet").schema.column(
        t.schema.get_field_index("dtodout")).logical_type
    assert "isAdjustedToUTC=true" in str(meta) and "microseconds" in str(meta)
    assert t.column("csvardata").to_pylist()[2] == HELLO
    extract([str(p)], str(tmp_path / "o.csv"), fmt="csv")
    lines = (tmp_path / "o.csv").read_text().splitlines()
    assert lines[0].startswith('"file","offset","rec_no","rec_len","log_date","csrecorddate"')
    assert '"2024-03-15T13:45:12.345678Z"' in lines[1] and '"C8C5D3D3D640E6D6D9D3C4"' in lines[1]


def test_parse_size() -> None:
    assert parse_size("64m") == 64 << 20 and parse_size("1g") == 1 << 30 and parse_size("70000") == 70000
    assert parse_size("1k") == 1024
    with pytest.raises(ValueError, match="at least 1k"):
        parse_size("1000")


# --------------------------------------------------------------------------- messages


def seg(n: int, data: bytes = b"x" * 10, **kw: object) -> bytes:
    return csq_build.build_record({**VALUES_81, "lsegment": n, **kw}, data)


FULL = b"\x01" * 40


def msgs(tmp_path: Path, *records: bytes) -> list[dict]:
    rows, _ = run(tmp_path, b"".join(records), messages=True, max_seg=40)
    return rows


def test_82_reassembly_40000_bytes(tmp_path: Path) -> None:
    data = bytes(range(256)) * 156 + bytes(64)
    for reading in ("A", "B"):
        rows, s = run(tmp_path, b"".join(csq_build.build_message(VALUES_81, data, reading=reading)),
                      messages=True)
        (m,) = rows
        assert bytes.fromhex(m["csvardata"]) == data and m["segments"] == 2 and m["complete"]
        assert m["problems"] is None and m["offset"] == 0 and m["rec_no"] == 0
        assert s.messages == 1 and s.incomplete == 0  # type: ignore[attr-defined]


def test_82_segment_two_only_is_an_orphan(tmp_path: Path) -> None:
    recs = csq_build.build_message(VALUES_81, b"\x00" * 40000)
    (m,) = run(tmp_path, recs[1], messages=True)[0]
    assert not m["complete"] and m["problems"] == ["orphan-segment: first segment seen is 2 (offset 0)"]


def test_gap_duplicate_interleaved_and_tail(tmp_path: Path) -> None:
    other = seg(1, b"y", csqueuename="OTHER")
    recs = [seg(1, FULL), seg(2, FULL), seg(2, FULL), other, seg(4, FULL), seg(5, b"end")]
    at = [sum(len(r) for r in recs[:i]) for i in range(len(recs))]  # record offsets
    rows = msgs(tmp_path, *recs)
    (single, m) = sorted(rows, key=lambda r: r["rec_no"], reverse=True)
    assert single["csqueuename"] == "OTHER" and single["segments"] == 1 and single["complete"]
    assert m["rec_no"] == 0 and m["segments"] == 4 and not m["complete"]
    assert bytes.fromhex(m["csvardata"]) == FULL * 3 + b"end"
    assert m["problems"] == [
        f"duplicate-segment: segment 2 again at offset {at[2]}",
        f"interleaved: offset {at[3]}..{at[4] - 1} between segments",
        f"gap: segment 3 missing before offset {at[4]}",
    ]


def test_missing_tail_and_key_reuse(tmp_path: Path) -> None:
    rows = msgs(tmp_path, seg(1, FULL), seg(1, FULL), seg(2, b"z"))
    assert [(r["rec_no"], r["segments"], r["complete"], r["problems"]) for r in rows] == [
        (0, 1, False, [f"missing-tail: key reused by a new message at offset {len(seg(1, FULL))}"]),
        (1, 2, True, None),
    ]
    (m,) = msgs(tmp_path, seg(1, FULL), seg(2, FULL))
    assert m["problems"] == ["missing-tail: input ended after segment 2"] and not m["complete"]


def test_reading_b_length_mismatch() -> None:
    r = Reassembler(max_seg=40)
    base = {"file": "f", "csqmgrname": "Q", "csurid": "1", "csqueuename": "A", "csdmcp": "K",
            "cssqdmcp": None, "csverb": "MQPUT"}
    assert r.feed({**base, "offset": 0, "rec_len": 244, "lsegment": 1, "ldatalen": 100,
                   "csvardata": FULL}) == []
    (m,) = r.feed({**base, "offset": 244, "rec_len": 284, "lsegment": 2, "ldatalen": 100,
                   "csvardata": FULL * 2})
    assert m["problems"] == ["length-mismatch: ldatalen 100 (reading B), 120 bytes joined"]
    assert not m["complete"] and m["segments"] == 2


def test_standalone_rows(tmp_path: Path) -> None:
    import pyarrow as pa

    t = pa.Table.from_pylist(
        [{"_error": None, "lsegment": 1, "ldatalen": 3, "csvardata": b"abc"},
         {"_error": None, "lsegment": 1, "ldatalen": 9, "csvardata": b"abc"},
         {"_error": None, "lsegment": 2, "ldatalen": 3, "csvardata": b"abc"},
         {"_error": None, "lsegment": 1, "ldatalen": 4, "csvardata": b"abcd"},
         {"_error": "bad-rdw", "lsegment": None, "ldatalen": None, "csvardata": None}],
        pa.schema([("_error", pa.string()), ("lsegment", pa.int32()), ("ldatalen", pa.int32()),
                   ("csvardata", pa.binary())]))
    assert standalone(t, max_seg=4).tolist() == [True, False, False, False, True]


def test_a_directory_is_the_files_in_it(tmp_path: Path) -> None:
    """As spark-extract takes it: a directory's files in name order, hidden and
    _-prefixed ones left out; a glob's matches."""
    from tests.helpers import mq, seed_bytes

    d = tmp_path / "logs"
    d.mkdir()
    data = seed_bytes("csq1logp/hello-2seg.dump")
    for name in ("b.bin", "a.bin", ".hidden.bin", "_SUCCESS"):
        (d / name).write_bytes(data)
    rows = [json.loads(x) for x in mq("extract", d).stdout.splitlines()]
    assert [(Path(r["file"]).name, r["offset"]) for r in rows] == [
        ("a.bin", 0), ("a.bin", 212), ("b.bin", 0), ("b.bin", 212)]
    globbed = [json.loads(x) for x in mq("extract", str(d / "b*")).stdout.splitlines()]
    assert [Path(r["file"]).name for r in globbed] == ["b.bin", "b.bin"]
