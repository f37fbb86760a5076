"""``mqtool.urb`` and ``spark-extract urb`` in Spark: the rows of every table equal the local
``extract urb`` rows; each input is decoded once (one Spark job writes every table)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from mqtool.formats.urb.extract import extract_tables
from mqtool.formats.urb.tables import TABLES
from tests.helpers import TESTDATA, mq

pytestmark = pytest.mark.spark
SEEDS = [str(TESTDATA / "urb" / f"{n}.dump") for n in ("inst-color.data", "inst-employee.data",
                                                       "status.reply")]


def _local(path: str, table: str) -> list[dict]:
    tables, _ = extract_tables(path)
    rows = tables.table(table).to_pylist()
    for r in rows:  # Spark longs: raw TOD values above 2**63 come back negative
        for k, v in r.items():
            if k.endswith("_raw") and isinstance(v, int) and v >= 1 << 63:
                r[k] = v - (1 << 64)
    return rows


def test_spark_rows_equal_local_rows(spark: Any) -> None:
    from mqtool.spark.urb import register

    register(spark)
    for table in ("changes", "messages", "transactions", "status"):
        df = spark.read.format("mqtool.urb").option("table", table).option("paths", ",".join(SEEDS)).load()
        got = sorted((r.asDict() for r in df.collect()), key=lambda r: (r["file"], r["offset"]))
        want = sorted((r for p in SEEDS for r in _local(p, table)), key=lambda r: (r["file"], r["offset"]))
        assert len(got) == len(want) > 0, table
        for g, w in zip(got, want, strict=True):
            for k, v in w.items():
                if hasattr(v, "tzinfo") and v is not None:
                    assert g[k].timestamp() == v.timestamp(), (table, k)
                else:
                    assert g[k] == v, (table, k)
    isns = [r.isn for r in spark.read.format("mqtool.urb").load(SEEDS[0]).orderBy("offset").collect()]
    assert isns == [2, 3, 4]


def test_spark_extract_urb_decodes_once_and_writes_every_table(spark: Any, tmp_path: Path) -> None:
    from mqtool.spark.urb import UrbJobOptions, run_job

    tracker = spark.sparkContext.statusTracker()
    spark.sparkContext.setJobGroup("urb-once", "spark-extract urb")
    try:
        info = run_job(spark, UrbJobOptions(SEEDS, str(tmp_path / "out")))
    finally:
        spark.sparkContext.setJobGroup("", "")
    assert len(tracker.getJobIdsForGroup("urb-once")) == 1  # one job: every input decoded once
    assert info["rows"] == {"messages": 3, "transactions": 2, "records": 5, "images": 5,
                            "status": 1, "errors": 0, "changes": 5}
    out = tmp_path / "out"
    assert sorted(p.name for p in out.iterdir()) == sorted([*TABLES, "_summary.json"])
    local = tmp_path / "local"
    assert mq("extract", "urb", *SEEDS, "-o", local).status == 0
    for table in TABLES:
        got, want = pq.read_table(out / table), pq.read_table(local / f"{table}.parquet")
        assert got.schema == want.schema, table  # the local tables' types: no Spark casts
        assert got.num_rows == want.num_rows == info["rows"][table], table


def test_spark_extract_urb_command(cli_uses_shared_spark: Any, tmp_path: Path) -> None:
    """The command prints the same rows table as ``extract urb``, on a terminal or not."""
    r = mq("spark-extract", "urb", *SEEDS, "-o", tmp_path / "s")
    local = mq("extract", "urb", *SEEDS, "-o", tmp_path / "l")
    assert r.status == local.status == 0 and r.text == local.text
    r = mq("spark-extract", "urb", *SEEDS, "-o", tmp_path / "s", "--force", "--summary", "-")
    assert r.status == 0 and r.text.startswith("{") and '"changes": 5' in r.text


def _comparable(rows: list[dict]) -> list[dict]:
    out = []
    for r in rows:
        r = dict(r)
        for k, v in r.items():
            if k.endswith("_raw") and isinstance(v, int) and v >= 1 << 63:
                r[k] = v - (1 << 64)  # Spark longs
            elif hasattr(v, "tzinfo") and v is not None:
                r[k] = v.timestamp()
        out.append(r)
    return sorted(out, key=lambda r: (r["offset"], str(r.get("path"))))


def test_a_raw_stream_on_byte_ranges_gives_the_local_rows(spark: Any, tmp_path: Path) -> None:
    """A raw stream of messages in both code pages and byte orders, with junk between two
    of them, cut into 1 KiB ranges: the DataSource and spark-extract urb give every table's
    rows of the local run, each message once."""
    from mqtool.spark.urb import UrbJobOptions, register, run_job
    from tests.formats.urb.test_urb_extract import _stream

    data = _stream([(k, k % 4) for k in range(24)])
    data = data[:len(data) // 2] + b"\x00junk\xff" * 5 + data[len(data) // 2:]
    path = tmp_path / "stream.urb"
    path.write_bytes(data)
    local, _ = extract_tables(str(path))
    register(spark)
    reader = spark.read.format("mqtool.urb").option("splitSize", "1k")
    assert reader.option("table", "messages").load(str(path)).rdd.getNumPartitions() > 4
    info = run_job(spark, UrbJobOptions([str(path)], str(tmp_path / "out"), split_size=1024))
    for table in TABLES:
        want = _comparable(local.table(table).to_pylist())
        got = _comparable([r.asDict() for r in reader.option("table", table).load(str(path)).collect()])
        assert got == want, table
        written = _comparable(pq.read_table(tmp_path / "out" / table).to_pylist())
        assert written == want and info["rows"][table] == len(want), table
    assert info["rows"]["messages"] == 24 and info["rows"]["errors"] == 1
