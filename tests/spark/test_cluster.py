"""A real cluster and an object store: a Spark standalone master and two workers of one core
each on 127.0.0.1 (started by the docs' how-to, once per session), moto's S3 server;
spark-extract and the DataSource on them give the local extract's rows, every row once."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from mqtool.testing import csq1logp_gen
from tests.helpers import ROOT
from tests.spark.conftest import s3_download, s3_keys, s3_put
from tests.spark.test_spark import DATE_PARTITIONS, by_offset, damaged_file, local_rows, norm

pytestmark = pytest.mark.spark
BIG = 64 << 20  # the object both workers read ranges of
SPLIT = 16 << 20  # the documented --split-size


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "SPARK_LOCAL_IP": "127.0.0.1", **extra}


def big_extract(path: Path) -> Path:
    """A CSQ1LOGP extract of 64 MB and more: a generated 2 MB stretch (multi-segment messages
    included) repeated, three descriptors damaged (one of them 16 MB into the file, where a
    range starts)."""
    base = csq1logp_gen.framed(csq1logp_gen.records(csq1logp_gen.Spec(
        count=1300, avg_data=1400, multi_every=97, multi_size=60_000, seed=31)), "rdw")
    data = base * (BIG // len(base) + 1)
    first = int.from_bytes(base[:2], "big")
    data = csq1logp_gen.damage(data, len(base) * 20, "zero-length")  # the last first: the
    for at in (len(base) * (SPLIT // len(base)) + first, len(base) * 3 + first):  # others
        data = csq1logp_gen.damage(data, at, "garbage")  # insert bytes before it
    path.write_bytes(data)
    return path


def _local_table(path: Path, uri: str) -> pa.Table:
    """The local extract's rows as Spark writes them: ``file`` the URI, no ``rec_no``."""
    from mqtool.formats.csq1logp.extract import decoded_tables, plan

    t = pa.concat_tables(decoded_tables(plan([str(path)])))
    t = t.set_column(t.schema.get_field_index("file"), "file", pa.array([uri] * t.num_rows))
    return t.drop_columns(["rec_no"])


def _written(root: Path) -> pa.Table:
    """records/ and errors/ of a spark-extract output, one table (no log_date)."""
    records = ds.dataset(root / "records", partitioning=DATE_PARTITIONS).to_table()
    records = records.drop_columns(["log_date", "rec_no"])
    errors = pq.read_table(root / "errors").drop_columns(["rec_no"])
    return pa.concat_tables([records, errors.cast(records.schema)])


def _executors_that_ran(workdir: Path, stage: int = 0) -> dict[str, int]:
    """Tasks of ``stage`` each executor ran, from its log (``work/<app>/<id>/stderr``)."""
    runs: dict[str, int] = {}
    for log in sorted(workdir.glob("work/app-*/*/stderr")):
        n = len(re.findall(rf"Running task \d+\.\d+ in stage {stage}\.\d+ ", log.read_text()))
        if n:
            runs[f"{log.parent.parent.name}/{log.parent.name}"] = n
    return runs


def test_docs_cluster_two_workers_s3_in_and_out(standalone_cluster: dict[str, Any],
                                                s3_server: dict[str, str], tmp_path: Path) -> None:
    """The how-to's commands as written. The first reads a local file; the second a 64 MB
    object on S3 in 16 MB ranges, which both workers read, and writes to S3; in its
    environment ``MQTOOL_SPARK_FAULT=kill:1`` ends range 1's first attempt right after its
    first part is uploaded (a lost executor): the job still writes every row once."""
    master, workdir = standalone_cluster["master"], Path(standalone_cluster["dir"])
    local_cmd, s3_cmd = standalone_cluster["commands"]
    small = damaged_file(tmp_path)
    (workdir / "CSQCMT.bin").write_bytes(small.read_bytes())
    local = local_rows(small)
    # 1. a local file, out/ on the shared file system
    r = subprocess.run(["bash", "-c", f"SPARK_MASTER={master}\n{local_cmd}"], cwd=workdir,
                       env=_env(), capture_output=True, text=True, timeout=600)
    assert r.returncode == 2, r.stderr[-3000:]  # bad spans were met; the rows were written
    assert r.stderr.endswith("first: bad-rdw: RDW X'00000000': length 0 outside 203..32760 at "
                             f"rdw.length, offset X'{local[1]['offset']:04X}' ({local[1]['offset']}) "
                             f"in {(workdir / 'CSQCMT.bin').as_uri()}\n"), r.stderr[-2000:]
    ui, _status = r.stderr.splitlines()  # the JVM quiet; a cluster's UI on, its URL printed
    assert re.fullmatch(r"mqtool: Spark UI: http://[\w.-]+:\d+", ui), ui
    out = workdir / "out"
    summary = json.loads((out / "_summary.json").read_text())
    assert summary["master"] == master and summary["rows_written"] == len(local)
    assert summary["wall_s"] >= summary["session_s"] > 0  # the cold run, JVM start included
    assert next(p.name for p in (out / "_logs").iterdir()).startswith("spark-")  # Spark's log
    written = _written(out).to_pylist()
    want = [{k: v for k, v in row.items() if k != "log_date"} for row in local]
    assert by_offset(written) == by_offset([norm(w, (workdir / "CSQCMT.bin").as_uri()) for w in want])
    # 2. a 64 MB object, read in ranges by both workers, written to S3; a task killed
    big = big_extract(tmp_path / "CSQCMT-big.bin")
    uri = s3_put("CSQCMT.bin", big.read_bytes())
    before = _executors_that_ran(workdir)
    r = subprocess.run(["bash", "-c", f"SPARK_MASTER={master}\n{s3_cmd}"], cwd=workdir,
                       env=_env(MQTOOL_SPARK_FAULT="kill:1"), capture_output=True, text=True,
                       timeout=900)
    assert r.returncode == 2, r.stderr[-3000:]
    ran = {k: v for k, v in _executors_that_ran(workdir).items() if k not in before}
    assert len(ran) == 2 and sum(ran.values()) >= -(-len(big.read_bytes()) // SPLIT) + 1, ran
    keys = s3_keys("out/")
    summary = json.loads(s3_download("out/", tmp_path / "got").joinpath("_summary.json").read_text())
    run_id = re.search(r"part-\d{5}-(\w+)-a\d", next(k for k in keys if "part-" in k)).group(1)
    parts = [k for k in keys if "/part-" in k]
    assert not [k for k in parts if run_id not in k]
    assert [k for k in parts if f"part-00001-{run_id}-" in k] and \
        not [k for k in parts if f"part-00001-{run_id}-a0" in k]  # the killed attempt's: gone
    assert "_SUCCESS" in keys and any(k.startswith("_logs/spark-") for k in keys)
    got = _written(tmp_path / "got").sort_by("offset")
    want = _local_table(big, uri).sort_by("offset")
    assert summary["ranges"] == -(-len(big.read_bytes()) // SPLIT)
    assert summary["bad_spans"] == want.filter(want.column("_error").is_valid()).num_rows == 3
    assert got.num_rows == want.num_rows == summary["rows_written"] > 40_000
    assert got.equals(want.select(got.column_names).cast(got.schema))


def test_datasource_on_the_cluster_reads_s3(standalone_cluster: dict[str, Any],
                                             s3_server: dict[str, str], tmp_path: Path) -> None:
    """The DataSource on the cluster, reading S3 on the executors, ranges of 300 KB."""
    master = standalone_cluster["master"]
    p = damaged_file(tmp_path)
    uri = s3_put("cluster/CSQCMT.bin", p.read_bytes())
    script = textwrap.dedent(f"""
        import json
        from mqtool.spark.job import session
        spark = session({master!r}, {{}})
        df = spark.read.format("mqtool.csq1logp").option("splitSize", "300k").load({uri!r})
        df.write.parquet("ds-rows")
        print(json.dumps({{"parts": df.rdd.getNumPartitions()}}))
        spark.stop()
    """)
    r = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=_env(),
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert json.loads(r.stdout.splitlines()[-1]) == {"parts": -(-p.stat().st_size // (300 << 10))}
    ds_rows = pq.read_table(tmp_path / "ds-rows").to_pylist()
    assert by_offset([norm(x, uri) for x in ds_rows]) == by_offset([norm(x, uri) for x in local_rows(p)])


def test_local_extract_reads_s3(s3_server: dict[str, str], tmp_path: Path) -> None:
    from tests.helpers import mq

    p = damaged_file(tmp_path)
    uri = s3_put("local/CSQCMT.bin", p.read_bytes())
    r = mq("extract", uri, "--to", "jsonl")
    s3_rows = [json.loads(x) for x in r.stdout.splitlines()]
    r2 = mq("extract", p, "--to", "jsonl")
    local = [json.loads(x) for x in r2.stdout.splitlines()]
    assert r.status == r2.status == 2 and len(s3_rows) == len(local) > 350
    assert [{**x, "file": None} for x in s3_rows] == [{**x, "file": None} for x in local]
    assert {x["file"] for x in s3_rows} == {uri}
    missing = mq("extract", "s3://logs/nothing.bin")
    assert missing.status == 2 and "s3://logs/nothing.bin" in missing.stderr


def test_datasource_reads_s3(spark: Any, s3_server: dict[str, str], tmp_path: Path) -> None:
    p = damaged_file(tmp_path, "bdw")
    uri = s3_put("ds/CSQCMT.bin", p.read_bytes())
    df = (spark.read.format("mqtool.csq1logp").option("splitSize", "200k")
          .option("s3.endpoint", s3_server["AWS_ENDPOINT_URL"])
          .option("s3.access_key", "testing").option("s3.secret_key", "testing").load(uri))
    assert df.rdd.getNumPartitions() == -(-p.stat().st_size // (200 << 10))
    rows = df.toArrow().to_pylist()
    assert {r["file"] for r in rows} == {uri}
    assert by_offset([norm(r, "x") for r in rows]) == by_offset([norm(r, "x") for r in local_rows(p)])


def test_spark_extract_reads_s3(spark: Any, s3_server: dict[str, str], tmp_path: Path) -> None:
    """What ``mqtool spark-extract s3://...`` runs once its checks passed (in the shared
    session: a second driver would cost a JVM start)."""
    from mqtool.spark.job import JobOptions, cut, preflight, run_job

    p = damaged_file(tmp_path)
    uri = s3_put("job/CSQCMT.bin", p.read_bytes())
    opts = JobOptions([uri], str(tmp_path / "out"), split_size=100 << 10, messages=True,
                      fs_options={"s3.access_key": "testing", "s3.secret_key": "testing"})
    files = preflight("local[2]", opts)
    assert files == [(uri, p.stat().st_size)]
    ranges = cut(files, 100 << 10)
    assert [(r[1], r[2], r[3]) for r in ranges][:2] == [(uri, 0, 100 << 10), (uri, 100 << 10, 200 << 10)]
    info = run_job(spark, opts, "local[2]")
    local = local_rows(p)
    assert info["files"] == [{"file": uri, "bytes": p.stat().st_size, "ranges": len(ranges)}]
    assert info["records"] == sum(1 for x in local if not x["_error"]) and info["bad_spans"] == 3
    written = ds.dataset(tmp_path / "out" / "records", partitioning=DATE_PARTITIONS).to_table().to_pylist()
    assert by_offset([norm({k: v for k, v in x.items() if k != "log_date"}, uri) for x in written]) == \
        by_offset([norm({k: v for k, v in x.items() if k != "log_date"}, uri) for x in local
                   if not x["_error"]])
