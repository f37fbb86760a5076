"""The default ``spark-extract`` writer: each executor task decodes one byte range and writes
its own Parquet files with pyarrow.

A task runs the same library function as the DataSource and the local ``extract``
(``extract.decode_range``) and streams the rows into

* ``records/log_date=<date>/part-<range>.parquet`` (Hive-style folders; the column is not
  repeated inside the files, so every reader sees one type: a date),
* ``errors/part-<range>.parquet`` (bad-span rows, their own folder, no null partition),
* with ``--messages``: ``messages/log_date=<date>/part-<range>.parquet`` for the records that
  are a whole message by themselves, and the multi-segment records into a scratch folder
  that a second, small job shuffles, reassembles and writes the same way.

Timestamps TIMESTAMP_MICROS, no dictionary encoding. Files appear by rename, so a retried
task replaces its own output. A task returns one stats row; nothing else crosses into the
JVM, so a task keeps one core busy and the job scales with the cores (``bench/extract.py``).
The output must be on a filesystem the executors can write with plain file I/O (local disk,
NFS, a mounted share); for HDFS or object stores use ``--writer spark``.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from mqtool import api

STATS_SCHEMA = ("split long, records long, rows long, errors string, first string, "
                "problems string, messages long, multi long, incomplete long, mproblems string")
RANGE_SCHEMA = "split long, path string, name string, start long, end long, size long"


@dataclass
class WriteOptions:
    """What every task needs to know (pickled once into the task closure)."""

    root: str  # the job's scratch directory: records/, errors/, messages/, multi/
    framing: str = "auto"
    codepage: str = "cp037"
    mode: str = "PERMISSIVE"
    filters: Any = None
    messages: bool = False
    max_seg: int = 32552
    fs_options: dict[str, str] = field(default_factory=dict)


class WriteRanges:
    """The ``mapInArrow`` function: range rows in, one stats row per range out."""

    def __init__(self, opts: WriteOptions) -> None:
        self.opts = opts

    def __call__(self, batches: Any) -> Any:
        import pyarrow as pa

        pa.set_cpu_count(1)  # one task, one core: Spark schedules the parallelism
        pa.set_io_thread_count(1)
        for b in batches:
            for row in b.to_pylist():
                yield write_range(row, self.opts)


def write_range(row: dict[str, Any], o: WriteOptions) -> Any:
    """Decode one byte range; write records, errors (and message parts); the stats."""
    import pyarrow as pa
    import pyarrow.compute as pc

    stats = api.range_stats()
    name = f"part-{row['split']:05d}.parquet"
    records = api.partitioned_writer(os.path.join(o.root, "records"), name)
    errors = api.partitioned_writer(os.path.join(o.root, "errors"), name, by=None)
    msgs = api.partitioned_writer(os.path.join(o.root, "messages"), name) if o.messages else None
    multi = api.partitioned_writer(os.path.join(o.root, "multi"), name, by=None, keep=True) \
        if o.messages else None
    writers = [w for w in (records, errors, msgs, multi) if w is not None]
    rows = n_msgs = n_multi = 0
    problems: Counter[str] = Counter()
    try:
        for batch in api.decode_range(row["path"], row["start"], row["end"], row["size"], o.framing,
                                  o.codepage, o.mode, row["name"], o.fs_options, stats):
            table = pa.Table.from_batches([batch])
            bad = table.column("_error").is_valid()
            if pc.any(bad).as_py():
                errs = table.filter(bad)
                errors.write(errs)
                rows += errs.num_rows
                table = table.filter(pc.invert(bad))
            kept = o.filters.apply(table) if o.filters else table
            records.write(kept)
            rows += kept.num_rows
            problems.update(field_problems(kept))
            if msgs is not None and multi is not None and table.num_rows:
                alone = pa.array(api.standalone(table, o.max_seg))
                one = api.singles(table.filter(alone))
                one = o.filters.apply(one) if o.filters else one
                msgs.write(one)
                n_msgs += one.num_rows
                rest = table.filter(pc.invert(alone))
                multi.write(rest)
                n_multi += rest.num_rows
    except BaseException:
        for w in writers:
            w.abort()
        raise
    for w in writers:
        w.close()
    return pa.RecordBatch.from_pylist([{
        "split": row["split"], "records": stats.records, "rows": rows,
        "errors": json.dumps(stats.errors), "first": stats.first, "problems": json.dumps(problems),
        "messages": n_msgs, "multi": n_multi, "incomplete": 0, "mproblems": "{}"}])


class ReassembleWrite:
    """Second job of ``--messages``: multi-segment records of a file, sorted by offset, in;
    message rows written like records; one stats row out."""

    def __init__(self, opts: WriteOptions) -> None:
        self.opts = opts

    def __call__(self, batches: Any) -> Any:
        import pyarrow as pa
        from pyspark import TaskContext

        ctx = TaskContext.get()
        part = ctx.partitionId() if ctx is not None else 0
        out = api.partitioned_writer(os.path.join(self.opts.root, "messages"),
                                f"part-m{part:05d}.parquet")
        r = api.reassembler(self.opts.max_seg)
        schema = api.message_schema()
        total = incomplete = 0
        problems: Counter[str] = Counter()

        def emit(done: list[dict[str, Any]]) -> None:
            nonlocal total, incomplete
            if not done:
                return
            table = pa.Table.from_pylist(done, schema=schema)
            table = self.opts.filters.apply(table) if self.opts.filters else table
            for m in table.select(["complete", "problems"]).to_pylist():
                total += 1
                incomplete += not m["complete"]
                problems.update(p.split(":", 1)[0] for p in m["problems"] or [])
            out.write(table)

        try:
            for b in batches:
                done: list[dict[str, Any]] = []
                for row in b.to_pylist():
                    done += r.feed(row)
                emit(done)
            emit(r.finish())
        except BaseException:
            out.abort()
            raise
        out.close()
        yield pa.RecordBatch.from_pylist([{
            "split": part, "records": 0, "rows": 0, "errors": "{}", "first": "", "problems": "{}",
            "messages": total, "multi": 0, "incomplete": incomplete,
            "mproblems": json.dumps(problems)}])


def field_problems(table: Any) -> Counter[str]:
    """Rows with a problem in each field (``_corrupt_fields`` entries read ``field: why``)."""
    import pyarrow.compute as pc

    counts: Counter[str] = Counter()
    if table.num_rows == 0:
        return counts
    lists = table.column("_corrupt_fields")
    has = pc.fill_null(pc.greater(pc.list_value_length(lists), 0), False)
    if pc.any(has).as_py():
        for entries in lists.filter(has).to_pylist():
            counts.update({e.split(":", 1)[0] for e in entries})
    return counts


def run_ranges(spark: Any, ranges: list[tuple[str, str, int, int, int]], opts: WriteOptions,
               progress: Any = None) -> list[dict[str, Any]]:
    """Run one task per byte range; the stats rows."""
    rows = [(k, p, uri, a, b, size) for k, (p, uri, a, b, size) in enumerate(ranges)]
    if not rows:
        return []
    frame = spark.createDataFrame(
        spark.sparkContext.parallelize(rows, len(rows)), RANGE_SCHEMA)
    return [r.asDict() for r in frame.mapInArrow(WriteRanges(opts), STATS_SCHEMA).collect()]


def run_reassembly(spark: Any, opts: WriteOptions) -> list[dict[str, Any]]:
    """The multi-segment records (written by the range tasks): shuffled by file, sorted by
    offset, reassembled and written; the stats rows."""
    multi = os.path.join(opts.root, "multi")
    if not os.path.isdir(multi) or not any(n.endswith(".parquet") for n in os.listdir(multi)):
        return []
    from mqtool.spark.datasource import spark_schema

    records = spark.read.schema(spark_schema(api.record_schema())).parquet(multi)
    parts = max(1, min(int(spark.conf.get("spark.sql.shuffle.partitions", "8")),
                       spark.sparkContext.defaultParallelism))
    stats = (records.repartition(parts, "file").sortWithinPartitions("file", "offset")
             .mapInArrow(ReassembleWrite(opts), STATS_SCHEMA).collect())
    return [r.asDict() for r in stats]
