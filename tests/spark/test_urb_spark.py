"""``mqtool.urb`` in Spark: the rows of every table equal the local ``extract urb`` rows
(per file: Spark numbers transactions per file)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mqtool.formats.urb.extract import extract_tables
from mqtool.formats.urb.tables import TABLES
from tests.helpers import TESTDATA

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


def test_spark_extract_writes_every_table(spark: Any, tmp_path: Path) -> None:
    from mqtool.spark.urb import run

    info = run(spark, SEEDS, str(tmp_path / "out"))
    assert info["rows"]["changes"] == 5 and info["rows"]["messages"] == 3 and info["rows"]["errors"] == 0
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted([*TABLES, "_summary.json"])
