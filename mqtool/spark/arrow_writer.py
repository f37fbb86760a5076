"""The default ``spark-extract`` writer: each executor task decodes its split and writes its
own Parquet files with pyarrow.

Spark hands out the splits of the header pass, one task each. A task runs the same bulk
decoder as the DataSource and the local ``extract`` (``csq1logp_bulk.batches``) and streams
the batches into ``records/log_date=<date>/part-<split>.parquet`` (timestamps
TIMESTAMP_MICROS, no dictionary encoding), one thread per task; it returns one small stats
row. Nothing crosses into the JVM but those rows, so a task keeps one core busy and the job
scales with the cores (``bench/extract.py``). Files appear by rename, so a retried task
replaces its own output. The output must be on a filesystem the executors can write with
plain file I/O (local disk, NFS, a mounted share); for HDFS or object stores use
``--writer spark`` (Spark's own committer).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import Any

NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__"  # Spark's directory name for a null value
STATS_SCHEMA = "split long, rows long, problems string"


class WriteSplits:
    """The ``mapInArrow`` function: split rows in, one stats row per split out."""

    def __init__(self, records_dir: str, codepage: str, mode: str) -> None:
        self.records_dir, self.codepage, self.mode = records_dir, codepage, mode

    def __call__(self, batches: Any) -> Any:
        import pyarrow as pa

        pa.set_cpu_count(1)  # one task, one core: Spark schedules the parallelism
        pa.set_io_thread_count(1)
        for b in batches:
            for row in b.to_pylist():
                yield write_split(row, self.records_dir, self.codepage, self.mode)


def write_split(row: dict[str, Any], records_dir: str, codepage: str, mode: str) -> Any:
    """Decode one split and write its rows by ``log_date``; the stats as a RecordBatch."""
    import pyarrow as pa

    from mqtool.formats.csq1logp.bulk import batches
    from mqtool.formats.csq1logp.framing import Split, split_frames

    split = Split(row["path"], row["start"], row["end"], row["rec_no"], row["framing"])
    out = _PartitionedWriter(records_dir, f"part-{row['split']:05d}.parquet")
    rows, problems = 0, Counter()
    try:
        for batch in batches(row["name"], split_frames(split, codepage), codepage, mode):
            rows += batch.num_rows
            problems.update(field_problems(batch))
            out.write(batch)
    except BaseException:
        out.abort()
        raise
    out.close()
    return pa.RecordBatch.from_pylist(
        [{"split": row["split"], "rows": rows, "problems": json.dumps(problems)}])


def field_problems(batch: Any) -> Counter[str]:
    """Rows with a problem in each field (``_corrupt_fields`` entries read ``field: why``)."""
    import pyarrow.compute as pc

    lists = batch.column("_corrupt_fields")
    has = pc.fill_null(pc.greater(pc.list_value_length(lists), 0), False)
    counts: Counter[str] = Counter()
    if pc.any(has).as_py():
        for entries in lists.filter(has).to_pylist():
            counts.update({e.split(":", 1)[0] for e in entries})
    return counts


class _PartitionedWriter:
    """One Parquet file per ``log_date`` value, written under a temporary name and renamed
    into place on close (so readers never see a half-written file)."""

    def __init__(self, root: str, name: str) -> None:
        self.root, self.name = root, name
        self.open: dict[object, tuple[Any, str, str]] = {}

    def write(self, batch: Any) -> None:
        import pyarrow as pa
        import pyarrow.compute as pc

        if batch.num_rows == 0:
            return
        dates = batch.column("log_date")
        data = batch.drop_columns(["log_date"])
        bounds = pc.min_max(dates)
        if dates.null_count == 0 and bounds["min"] == bounds["max"]:
            self._writer(dates[0].as_py(), data.schema).write_batch(data)  # one date: no copy
            return
        for d in pc.unique(dates).to_pylist():
            mask = pc.is_null(dates) if d is None else pc.equal(dates, pa.scalar(d, dates.type))
            self._writer(d, data.schema).write_batch(data.filter(pc.fill_null(mask, False)))

    def _writer(self, date: object, schema: Any) -> Any:
        import pyarrow.parquet as pq

        if date not in self.open:
            folder = os.path.join(self.root, f"log_date={NULL_PARTITION if date is None else date}")
            os.makedirs(folder, exist_ok=True)
            final = os.path.join(folder, self.name)
            tmp = os.path.join(folder, f".{self.name}.{os.getpid()}.tmp")
            w = pq.ParquetWriter(tmp, schema, use_dictionary=False, coerce_timestamps="us",
                                 allow_truncated_timestamps=False)
            self.open[date] = (w, tmp, final)
        return self.open[date][0]

    def close(self) -> None:
        for w, tmp, final in self.open.values():
            w.close()
            os.replace(tmp, final)
        self.open.clear()

    def abort(self) -> None:
        for w, tmp, _ in self.open.values():
            try:
                w.close()
            finally:
                if os.path.exists(tmp):
                    os.remove(tmp)
        self.open.clear()


def write_records(spark: Any, splits: list[list[Any]], names: dict[str, str], records_dir: str,
                  codepage: str, mode: str) -> tuple[int, Counter[str]]:
    """Run the tasks (one partition per split); returns rows written and field problems."""
    from pyspark.sql import Row

    rows = [Row(split=k, path=p, name=names.get(p, p), start=a, end=b, rec_no=r, framing=f)
            for k, (p, a, b, r, f) in enumerate(splits)]
    if not rows:
        return 0, Counter()
    rdd = spark.sparkContext.parallelize(rows, len(rows))
    frame = spark.createDataFrame(rdd, "split long, path string, name string, start long, "
                                       "end long, rec_no long, framing string")
    stats = frame.mapInArrow(WriteSplits(records_dir, codepage, mode), STATS_SCHEMA).collect()
    problems: Counter[str] = Counter()
    for s in stats:
        problems.update(json.loads(s["problems"]))
    with open(os.path.join(records_dir, "_SUCCESS"), "w"):
        pass
    return sum(s["rows"] for s in stats), problems
