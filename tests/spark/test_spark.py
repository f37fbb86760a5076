"""The DataSource and spark-extract: the same rows as the local extract (byte ranges cut
anywhere, no driver pass), exact error rows per mode, filters in the scan, the output layout
(Hive log_date folders read back as dates, errors/ apart, messages/ written alike)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from mqtool.formats.csq1logp.extract import extract
from mqtool.testing import csq1logp_gen

pytestmark = pytest.mark.spark
DATE_PARTITIONS = ds.partitioning(pa.schema([("log_date", pa.date32())]), flavor="hive")


def damaged_file(tmp_path: Path, framing: str = "rdw") -> Path:
    """~400 generated records (multi-segment messages included, and records with field
    problems) with two damaged descriptors and a truncated tail: exactly 3 bad spans."""
    from tests.formats.csq1logp.test_csq1logp import _odd_records

    recs = csq1logp_gen.records(csq1logp_gen.Spec(count=400, multi_every=40, multi_size=50_000, seed=21))
    recs[200:200] = _odd_records()  # every field-level problem, mid-file
    data = csq1logp_gen.framed(recs, framing)
    first = len(recs[0])
    data = csq1logp_gen.damage(data, first, "zero-length")
    data = csq1logp_gen.damage(data, len(data) // 2 + 7, "garbage")[:-10]
    p = tmp_path / f"extract-{framing}.bin"
    p.write_bytes(data)
    return p


def local_rows(path: Path, **kw: Any) -> list[dict[str, Any]]:
    """The local extract's rows, ``file`` as the absolute URI and ``rec_no`` dropped (a
    byte range does not know it), as Spark gives them."""
    from mqtool.formats.csq1logp.extract import decoded_tables, plan

    rows = pa.concat_tables(decoded_tables(plan([str(path)]), **kw)).to_pylist()
    return [norm(r, path.resolve().as_uri()) for r in rows]


def norm(row: dict[str, Any], uri: str | None = None) -> dict[str, Any]:
    row = {k: v for k, v in row.items() if k != "rec_no"}
    if uri is not None:
        row["file"] = uri
    return row


def by_offset(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted((norm(r) for r in rows), key=lambda r: (r["file"], r["offset"]))


@pytest.mark.parametrize("framing", ["rdw", "bdw", "none"])
def test_datasource_rows_equal_local_extract(spark: Any, tmp_path: Path, framing: str) -> None:
    p = damaged_file(tmp_path, framing)
    df = spark.read.format("mqtool.csq1logp").option("splitSize", "150k").load(str(p))
    assert df.rdd.getNumPartitions() == -(-p.stat().st_size // (150 << 10))  # ranges, no pass
    rows = df.toArrow().to_pylist()
    assert {r["rec_no"] for r in rows} == {None}
    spark_rows = by_offset(rows)
    assert spark_rows == by_offset(local_rows(p))
    assert len(spark_rows) > 350


def test_permissive_dropmalformed_failfast(spark: Any, tmp_path: Path) -> None:
    p = damaged_file(tmp_path)
    df = spark.read.format("mqtool.csq1logp").option("splitSize", "100k").load(str(p))
    counts = df.filter("_error IS NOT NULL").groupBy("_error").count().collect()
    assert {r["_error"]: r["count"] for r in counts} == {"bad-rdw": 2, "truncated-record": 1}
    bad = df.filter("_error = 'bad-rdw'").orderBy("offset").collect()
    first = int.from_bytes(p.read_bytes()[:2], "big")
    assert bad[0]["offset"] == first and bad[0]["_raw_hex"].startswith("0000")
    assert bad[0]["csqueuename"] is None and bad[0]["dtodout"] is None
    dropped = spark.read.format("mqtool.csq1logp").option("mode", "DROPMALFORMED").load(str(p))
    assert dropped.filter("_error IS NOT NULL").count() == 0
    assert dropped.count() == df.count() - 3
    failing = spark.read.format("mqtool.csq1logp").option("mode", "FAILFAST").load(str(p))
    with pytest.raises(Exception, match=r"bad-rdw.*FAILFAST"):
        failing.collect()


def test_filters_are_datasource_options(spark: Any, tmp_path: Path) -> None:
    p = damaged_file(tmp_path)
    df = (spark.read.format("mqtool.csq1logp").option("queue", "PAYROLL.*")
          .option("verb", "MQPUT,MQGET").load(str(p)))
    rows = df.toArrow().to_pylist()
    want = [r for r in local_rows(p) if r["_error"] or (
        (r["csqueuename"] or "").startswith("PAYROLL.") and r["csverb"] in ("MQPUT", "MQGET"))]
    assert by_offset(rows) == by_offset(want) and 20 < len(want) < 300
    with pytest.raises(Exception, match="--urid"):
        spark.read.format("mqtool.csq1logp").option("urid", "xyz").load(str(p)).collect()


def test_a_file_that_is_no_extract_is_one_error_row(spark: Any, tmp_path: Path) -> None:
    d = tmp_path / "in"
    d.mkdir()
    recs = csq1logp_gen.records(csq1logp_gen.Spec(count=12, avg_data=300, seed=2))
    (d / "a.bin").write_bytes(csq1logp_gen.damage(b"".join(recs), len(recs[0]), "zero-length"))
    (d / "blank.bin").write_bytes(b"\x40" * 5000)  # D6: a glob with it still reads
    df = spark.read.format("mqtool.csq1logp").option("splitSize", "1k").load(str(d / "*.bin"))
    assert df.rdd.getNumPartitions() == -(-(d / "a.bin").stat().st_size // 1024) + 5
    errs = df.filter("_error = 'not-csq1logp'").collect()
    assert len(errs) == 1 and errs[0]["file"].endswith("/blank.bin") and errs[0]["rec_len"] == 5000
    assert df.filter("_error IS NULL").count() == sum(1 for r in local_rows(d / "a.bin")
                                                      if not r["_error"])


@pytest.mark.parametrize("writer", ["arrow", "spark"])
def test_spark_extract_outputs(spark: Any, tmp_path: Path, writer: str) -> None:
    from mqtool.spark.job import JobOptions, run_job

    p = damaged_file(tmp_path, "bdw")
    out = tmp_path / "out"
    info = run_job(spark, JobOptions([str(p)], str(out), messages=True, split_size=300 << 10,
                                     writer=writer))
    local = local_rows(p)
    good = [r for r in local if r["_error"] is None]
    bad = [r for r in local if r["_error"]]
    # records/: Hive folders, a date column for Spark and for pyarrow (one-liner in README)
    sdf = spark.read.parquet(str(out / "records"))
    assert dict(sdf.dtypes)["log_date"] == "date"
    written = by_offset(sdf.toArrow().to_pylist())
    assert written == by_offset(good)
    table = ds.dataset(out / "records", format="parquet", partitioning=DATE_PARTITIONS).to_table()
    assert table.schema.field("log_date").type == pa.date32()
    assert table.group_by("log_date").aggregate([("offset", "count")]).num_rows >= 1
    assert sorted(d.name for d in (out / "records").iterdir() if d.is_dir()) == \
        ["log_date=2024-03-15", "log_date=__HIVE_DEFAULT_PARTITION__"]  # a record whose dtodout is bad
    f = next((out / "records" / "log_date=2024-03-15").glob("*.parquet"))
    assert "log_date" not in pq.read_schema(f).names
    col = pq.ParquetFile(f).schema.column(pq.read_schema(f).get_field_index("dtodout"))
    assert "isAdjustedToUTC=true" in str(col.logical_type) and "microseconds" in str(col.logical_type)
    # errors/: the bad spans, apart
    errors = by_offset(pq.read_table(out / "errors").to_pylist())
    assert errors == by_offset([{k: v for k, v in r.items() if k != "log_date"} for r in bad])
    assert info["errors_by_reason"] == {"bad-bdw": 1, "no-record-date": 1, "truncated-record": 1} \
        or sum(info["errors_by_reason"].values()) == len(bad)
    assert info["rows_written"] == len(local) and info["records"] == len(good)
    want_fields: dict[str, int] = {}
    for r in good:
        for name in {e.split(":", 1)[0] for e in r["_corrupt_fields"] or []}:
            want_fields[name] = want_fields.get(name, 0) + 1
    assert info["corrupt_fields"] == want_fields != {}
    summary = json.loads((out / "_summary.json").read_text())
    assert summary["bad_spans"] == len(bad) and summary["ranges"] == -(-p.stat().st_size // (300 << 10))
    assert [x.name for x in out.iterdir() if x.name.startswith(".")] == []  # no scratch left
    # messages/: the same messages as the local extract --messages
    buf = io.BytesIO()
    s = extract([str(p)], buf, messages=True)
    local_msgs = sorted((m for m in (json.loads(x) for x in buf.getvalue().splitlines())
                         if not m["_error"]), key=lambda r: r["offset"])
    spark_msgs = sorted(pq.read_table(out / "messages").to_pylist(), key=lambda r: r["offset"])
    assert [(m["offset"], m["segments"], m["complete"], m["problems"]) for m in spark_msgs] == \
        [(m["offset"], m["segments"], m["complete"], m["problems"]) for m in local_msgs]
    assert [(m["csvardata"] or b"").hex().upper() for m in spark_msgs] == \
        [m["csvardata"] or "" for m in local_msgs]
    assert s.to_json()["messages"] == summary["messages"] and summary["messages"]["total"] > 300
    assert any(m["segments"] > 1 for m in spark_msgs)
    if writer == "arrow":  # written alike: no .crc in one folder only
        assert not list(out.rglob("*.crc"))
    # the local extract to a directory writes the same layout and rows
    from tests.helpers import mq

    assert mq("extract", p, "-o", f"{tmp_path / 'local'}/", "--messages").status == 2
    for sub in ("records", "errors", "messages"):
        a = ds.dataset(out / sub, partitioning=DATE_PARTITIONS if sub != "errors" else None).to_table()
        b = ds.dataset(tmp_path / "local" / sub,
                       partitioning=DATE_PARTITIONS if sub != "errors" else None).to_table()
        assert a.schema == b.schema, sub
        key = sorted(range(a.num_rows), key=lambda i: a.column("offset")[i].as_py())
        key_b = sorted(range(b.num_rows), key=lambda i: b.column("offset")[i].as_py())
        strip = ("file", "rec_no")
        assert [{k: v for k, v in a.slice(i, 1).to_pylist()[0].items() if k not in strip} for i in key] == \
            [{k: v for k, v in b.slice(i, 1).to_pylist()[0].items() if k not in strip} for i in key_b], sub
