"""``spark-extract --remote``: the job through a Spark Connect server (started from the
pyspark wheel by the docs' procedure), with no JVM on the client: the local extract's rows."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from tests.helpers import ROOT, mq
from tests.spark.conftest import s3_download, s3_keys, s3_put
from tests.spark.test_spark import DATE_PARTITIONS, by_offset, damaged_file, local_rows, norm

pytestmark = pytest.mark.spark


def test_docs_connect_procedure_gives_the_local_rows(connect_server: dict[str, Any],
                                                      s3_server: dict[str, str],
                                                      pyspark_client: str, tmp_path: Path) -> None:
    """The documented command as written, with ``mqtool[spark-connect]``'s client: the
    ``pyspark-client`` package (first on the path, so ``pyspark`` is it) and no Java
    (JAVA_HOME names none)."""
    p = damaged_file(tmp_path)
    uri = s3_put("CSQCMT.bin", p.read_bytes())
    (command,) = connect_server["commands"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([pyspark_client, str(ROOT)]),
           "JAVA_HOME": str(tmp_path / "no-java")}
    which = subprocess.run([sys.executable, "-c", "import pyspark; print(pyspark.__file__)"],
                           env=env, capture_output=True, text=True, check=True)
    assert which.stdout.startswith(pyspark_client)
    r = subprocess.run(["bash", "-c", command + " --messages"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 2, r.stderr[-3000:]  # bad spans were met; the rows were written
    local = local_rows(p)
    good = [x for x in local if not x["_error"]]
    assert r.stdout.splitlines()[:2] == [f"records       {len(good):>9,} rows",
                                         f"errors        {len(local) - len(good):>9,} rows"]
    assert "_SUCCESS" in s3_keys("connect/")
    got = s3_download("connect/", tmp_path / "got")
    summary = json.loads((got / "_summary.json").read_text())
    assert summary["master"] == connect_server["remote"] and summary["bad_spans"] == 3
    records = ds.dataset(got / "records", partitioning=DATE_PARTITIONS).to_table()
    errors = pq.read_table(got / "errors")
    rows = pa.concat_tables([records.drop_columns(["log_date"]),
                             errors.cast(records.drop_columns(["log_date"]).schema)]).to_pylist()
    want = [{k: v for k, v in x.items() if k != "log_date"} for x in local]
    assert by_offset([norm(x, uri) for x in rows]) == by_offset([norm(x, uri) for x in want])
    messages = pq.read_table(got / "messages").num_rows
    assert messages == summary["messages"]["total"] > 300


def test_remote_checks_before_the_job(tmp_path: Path) -> None:
    """The same checks as without --remote, and the server's: one line each, nothing made."""
    p = damaged_file(tmp_path)
    r = mq("spark-extract", p, "-o", tmp_path / "out", "--remote", "http://x:1")
    assert r.status == 1 and r.stderr == ("mqtool: --remote: 'http://x:1' is not a Spark Connect "
                                          "URL (sc://HOST:PORT)\n")
    r = mq("spark-extract", p, "-o", tmp_path / "out", "--remote", "sc://127.0.0.1:1")
    assert r.status == 4 and r.stderr.startswith(
        "mqtool: spark-extract: Spark Connect server sc://127.0.0.1:1 unreachable (")
    r = mq("spark-extract", p, "-o", tmp_path / "out", env={"SPARK_REMOTE": "sc://127.0.0.1:1"})
    assert r.status == 4 and "sc://127.0.0.1:1 unreachable" in r.stderr  # the environment's
    r = mq("spark-extract", p, "-o", tmp_path / "out", "--remote", "sc://h:1", "--master", "local[1]")
    assert r.status == 1 and "--master or --remote, not both" in r.stderr
    r = mq("spark-extract", tmp_path / "none.bin", "-o", tmp_path / "out", "--remote", "sc://h:1")
    assert r.status == 1 and "none.bin" in r.stderr
    assert sorted(x.name for x in tmp_path.iterdir()) == [p.name]
