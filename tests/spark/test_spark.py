"""The DataSource and spark-extract: identical rows to the local extract, exact error rows
per mode, partitioned Parquet output, message reassembly, and a real multi-process cluster."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from mqtool.formats.csq1logp.extract import extract
from mqtool.testing import csq1logp_gen
from tests.helpers import ROOT

pytestmark = pytest.mark.spark


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
    import pyarrow as pa

    from mqtool.formats.csq1logp.extract import decoded_tables, plan

    return pa.concat_tables(decoded_tables(plan([str(path)]), **kw)).to_pylist()


def by_rec(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda r: (r["file"], r["rec_no"]))


@pytest.mark.parametrize("framing", ["rdw", "bdw", "none"])
def test_datasource_rows_equal_local_extract(spark: Any, tmp_path: Path, framing: str) -> None:
    p = damaged_file(tmp_path, framing)
    df = spark.read.format("mqtool.csq1logp").option("splitSize", "64k").load(str(p))
    assert df.rdd.getNumPartitions() > 4  # one file, cut at record boundaries
    spark_rows = by_rec(df.toArrow().to_pylist())
    assert spark_rows == by_rec(local_rows(p))
    assert len(spark_rows) > 350


def test_permissive_error_rows_exact(spark: Any, tmp_path: Path) -> None:
    p = damaged_file(tmp_path)
    df = spark.read.format("mqtool.csq1logp").option("splitSize", "100k").load(str(p))
    counts = df.filter("_error IS NOT NULL").groupBy("_error").count().collect()
    errs = {r["_error"]: r["count"] for r in counts}
    assert errs == {"bad-rdw": 2, "truncated-record": 1}
    bad = df.filter("_error = 'bad-rdw'").orderBy("offset").collect()
    first = int.from_bytes(p.read_bytes()[:2], "big")
    assert bad[0]["offset"] == first and bad[0]["rec_no"] == 1 and bad[0]["_raw_hex"].startswith("0000")
    assert bad[0]["csqueuename"] is None and bad[0]["dtodout"] is None
    dropped = spark.read.format("mqtool.csq1logp").option("mode", "DROPMALFORMED").load(str(p))
    assert dropped.filter("_error IS NOT NULL").count() == 0
    assert dropped.count() == df.count() - 3


def test_failfast_fails_the_job(spark: Any, tmp_path: Path) -> None:
    p = damaged_file(tmp_path)
    df = spark.read.format("mqtool.csq1logp").option("mode", "FAILFAST").load(str(p))
    with pytest.raises(Exception, match=r"bad-rdw.*FAILFAST"):
        df.collect()


@pytest.mark.parametrize("writer", ["arrow", "spark"])
def test_spark_extract_job_outputs(spark: Any, tmp_path: Path, writer: str) -> None:
    from mqtool.spark.job import JobOptions, run_job

    p = damaged_file(tmp_path, "bdw")
    out = tmp_path / "out"
    info = run_job(spark, JobOptions([str(p)], str(out), messages=True, split_size=1 << 20,
                                     writer=writer))
    local = local_rows(p)
    # records/: every row, every value, as the local extract has them (log_date from the path)
    written = by_rec(spark.read.parquet(str(out / "records")).toArrow().to_pylist())
    assert written == by_rec(local)
    reasons: dict[str, int] = {}
    for r in local:
        if r["_error"]:
            reasons[r["_error"]] = reasons.get(r["_error"], 0) + 1
    assert info["errors_by_reason"] == reasons and sum(reasons.values()) >= 3
    assert info["rows_written"] == len(local)
    assert info["records"] == sum(1 for r in local if r["_error"] is None)
    summary = json.loads((out / "_summary.json").read_text())
    assert summary["bad_spans"] == sum(1 for r in local if r["_error"])
    dates = sorted(d.name for d in (out / "records").iterdir() if d.is_dir())
    assert dates == ["log_date=2024-03-15", "log_date=__HIVE_DEFAULT_PARTITION__"]
    f = next((out / "records" / "log_date=2024-03-15").glob("*.parquet"))
    col = pq.ParquetFile(f).schema.column(pq.read_schema(f).get_field_index("dtodout"))
    assert "isAdjustedToUTC=true" in str(col.logical_type) and "microseconds" in str(col.logical_type)
    # messages/: the same rows as the local extract --messages
    buf = io.BytesIO()
    s = extract([str(p)], buf, messages=True)
    local_msgs = by_rec([json.loads(x) for x in buf.getvalue().splitlines()])
    spark_msgs = by_rec(spark.read.parquet(str(out / "messages")).toArrow().to_pylist())
    assert len(spark_msgs) == len(local_msgs) and s.to_json()["messages"] == summary["messages"]
    assert summary["corrupt_fields"] == s.to_json()["corrupt_fields"] != {}
    for a, b in zip(spark_msgs, local_msgs, strict=True):
        assert (a["rec_no"], a["segments"], a["complete"], a["problems"]) == \
            (b["rec_no"], b["segments"], b["complete"], b["problems"])
        assert (a["csvardata"] or b"").hex().upper() == (b["csvardata"] or "")
    assert any(m["segments"] > 1 for m in spark_msgs)


def test_spark_extract_on_a_local_cluster(tmp_path: Path) -> None:
    """Executors in separate processes: mqtool reaches them only as the shipped zip."""
    pytest.importorskip("pyspark")
    from mqtool.errors import EnvError
    from mqtool.spark.job import java_check

    try:
        java_check()
    except EnvError as e:
        pytest.skip(str(e))
    p = damaged_file(tmp_path)
    out = tmp_path / "cluster"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SPARK_LOCAL_IP": "127.0.0.1"}
    r = subprocess.run([sys.executable, "-m", "mqtool", "spark-extract", str(p), "-o", str(out),
                        "--master", "local-cluster[2,1,1024]", "--split-size", "128k",
                        "--conf", "spark.executor.memory=512m"],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 2, r.stderr[-3000:]  # bad spans were met; the rows were written
    assert "3 bad spans (bad-rdw 2, truncated-record 1)" in r.stderr
    summary = json.loads((out / "_summary.json").read_text())
    assert summary["master"] == "local-cluster[2,1,1024]"
    assert summary["files"][0]["splits"] > 4
    rows = pq.read_table(out / "records").num_rows
    assert rows == summary["rows_written"] == len(local_rows(p))
