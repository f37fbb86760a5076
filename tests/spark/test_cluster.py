"""A real cluster and an object store: a Spark standalone master and worker on 127.0.0.1
(started by the README's how-to, once per session), moto's S3 server; spark-extract and the
DataSource on them give the local extract's rows."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from tests.helpers import ROOT, mq
from tests.spark.conftest import s3_put
from tests.spark.test_spark import by_offset, damaged_file, local_rows, norm

pytestmark = pytest.mark.spark


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "SPARK_LOCAL_IP": "127.0.0.1"}


def test_local_extract_reads_s3(s3_server: dict[str, str], tmp_path: Path) -> None:
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
    # credentials as options: the shared JVM may have started (an in-process spark-extract
    # run) before the test server's environment existed, and executors read with its
    # environment; anonymous reads are refused by S3
    df = (spark.read.format("mqtool.csq1logp").option("splitSize", "200k")
          .option("s3.endpoint", s3_server["AWS_ENDPOINT_URL"])
          .option("s3.access_key", "testing").option("s3.secret_key", "testing").load(uri))
    assert df.rdd.getNumPartitions() == -(-p.stat().st_size // (200 << 10))
    rows = df.toArrow().to_pylist()
    assert {r["file"] for r in rows} == {uri}
    assert by_offset([norm(r, "x") for r in rows]) == by_offset([norm(r, "x") for r in local_rows(p)])


def test_readme_cluster_howto_and_s3_on_the_cluster(standalone_cluster: dict[str, str],
                                                    s3_server: dict[str, str], tmp_path: Path) -> None:
    master, workdir = standalone_cluster["master"], Path(standalone_cluster["dir"])
    p = damaged_file(tmp_path)
    (workdir / "CSQCMT.bin").write_bytes(p.read_bytes())
    local = local_rows(p)
    # 1. the README's command, as written
    r = subprocess.run(["bash", "-c", f"SPARK_MASTER={master}\n{standalone_cluster['command']}"],
                       cwd=workdir, env=_env(), capture_output=True, text=True, timeout=600)
    assert r.returncode == 2, r.stderr[-3000:]  # bad spans were met; the rows were written
    assert r.stderr.endswith("first: bad-rdw: RDW X'00000000': length 0 outside 203..32760 at "
                             f"rdw.length, offset X'{local[1]['offset']:04X}' ({local[1]['offset']}) "
                             f"in {(workdir / 'CSQCMT.bin').as_uri()}\n"), r.stderr[-2000:]
    ui, _status = r.stderr.splitlines()  # the JVM quiet; a cluster's UI on, its URL printed
    # 4040, or the next free port when another driver on the machine holds it
    assert re.fullmatch(r"mqtool: Spark UI: http://[\w.-]+:40[4-9]\d", ui), ui
    out = workdir / "out"
    summary = json.loads((out / "_summary.json").read_text())
    assert summary["master"] == master and summary["rows_written"] == len(local)
    written = pq.read_table(out / "records").to_pylist() + pq.read_table(out / "errors").to_pylist()
    want = [{k: v for k, v in row.items() if k != "log_date"} for row in local]
    assert by_offset([{k: v for k, v in row.items() if k != "log_date"} for row in written]) == \
        by_offset([norm(w, (workdir / "CSQCMT.bin").as_uri()) for w in want])
    # 2. the DataSource on the cluster, reading S3 on the executors
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
    assert by_offset([norm(x, uri) for x in ds_rows]) == by_offset([norm(x, uri) for x in local])


def test_spark_extract_reads_s3(spark: Any, s3_server: dict[str, str], tmp_path: Path) -> None:
    """What ``mqtool spark-extract s3://...`` runs once its checks passed (in the shared
    session: a second driver would cost a JVM start)."""
    from mqtool.spark.job import JobOptions, preflight, run_job

    p = damaged_file(tmp_path)
    uri = s3_put("job/CSQCMT.bin", p.read_bytes())
    opts = JobOptions([uri], str(tmp_path / "out"), split_size=100 << 10, messages=True,
                      fs_options={"s3.access_key": "testing", "s3.secret_key": "testing"})
    ranges = preflight("local[2]", opts)
    assert [(r[1], r[2], r[3]) for r in ranges][:2] == [(uri, 0, 100 << 10), (uri, 100 << 10, 200 << 10)]
    info = run_job(spark, opts, "local[2]")
    local = local_rows(p)
    assert info["files"] == [{"file": uri, "bytes": p.stat().st_size, "ranges": len(ranges)}]
    assert info["records"] == sum(1 for x in local if not x["_error"]) and info["bad_spans"] == 3
    written = pq.read_table(tmp_path / "out" / "records").to_pylist()
    assert by_offset([norm({k: v for k, v in x.items() if k != "log_date"}, uri) for x in written]) == \
        by_offset([norm({k: v for k, v in x.items() if k != "log_date"}, uri) for x in local
                   if not x["_error"]])
