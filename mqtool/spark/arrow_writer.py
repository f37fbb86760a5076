"""The default ``spark-extract`` writer: each executor task decodes one byte range and writes
its own Parquet files with pyarrow.

A task runs the same library function as the DataSource and the local ``extract``
(``extract.decode_range``) and streams the rows into

* ``records/log_date=<date>/part-<range>.parquet`` (Hive-style folders; the column is not
  repeated inside the files, so every reader sees one type: a date),
* ``errors/part-<range>.parquet`` (bad-span rows, their own folder, no null partition),
* with ``--messages``: ``messages/log_date=<date>/part-<range>.parquet`` for the records that
  are a whole message by themselves; the records of multi-segment messages leave the task as
  rows, are shuffled by file, sorted by offset, reassembled and written the same way by the
  next stage of the same job (nothing is written twice or read back).

Timestamps TIMESTAMP_MICROS, no dictionary encoding. On a local or shared file system the
files appear by rename, so a retried task replaces its own output; on an object store
(``s3://``, ``gs://``, ``hdfs://``, through ``pyarrow.fs``) each attempt uploads its files
under names of its own (``outputs.part_name``) and reports them in its stats row, and the
driver keeps those and removes every other part (``outputs.RemoteStagedDirs``). A task
returns one stats row (JSON); nothing else crosses into the JVM but the multi-segment
records, so a task keeps one core busy and the job scales with the cores
(``bench/extract.py``).

``MQTOOL_SPARK_FAULT=kill:N`` (read by the driver; for tests of the commit protocol) makes
the first attempt of range N end its Python worker at once after its first output file is
in place, as a lost executor would.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from mqtool import api

STATS = "_stats"  # the one column of a task's stats rows (JSON)
STATS_SCHEMA = f"{STATS} string"


@dataclass
class WriteOptions:
    """What every task needs to know (pickled once into the task closure)."""

    root: str  # where records/, errors/, messages/ go: the job's scratch folder or the URI
    framing: str = "auto"
    codepage: str = "cp037"
    mode: str = "PERMISSIVE"
    filters: Any = None
    messages: bool = False
    max_seg: int = 32552
    fs_options: dict[str, str] = field(default_factory=dict)
    ranges: list[tuple[str, str, int, int, int]] = field(default_factory=list)
    run: str = ""  # a run id on object stores: every attempt's parts are named apart
    fault: str = ""


def _attempt() -> int:
    from pyspark import TaskContext

    ctx = TaskContext.get()
    return ctx.attemptNumber() if ctx is not None else 0


class WriteRanges:
    """The ``mapInArrow`` function over ``spark.range(n)``: the range numbers in, one stats
    row per range out (and, with ``--messages``, the rows of multi-segment records)."""

    def __init__(self, opts: WriteOptions) -> None:
        self.opts = opts

    def __call__(self, batches: Any) -> Any:
        import pyarrow as pa

        pa.set_cpu_count(1)  # one task, one core: Spark schedules the parallelism
        pa.set_io_thread_count(1)
        for b in batches:
            for split in b.column(0).to_pylist():
                stats, multi = write_range(split, self.opts)
                if self.opts.messages:
                    if multi is not None and multi.num_rows:
                        yield from _with_stats(multi, None).to_batches()
                    yield from _with_stats(None, stats).to_batches()
                else:
                    yield pa.RecordBatch.from_pylist([{STATS: json.dumps(stats)}])


def multi_schema() -> Any:
    """The rows the range stage hands to the reassembly stage: record rows and stats rows."""
    import pyarrow as pa

    return api.record_schema().append(pa.field(STATS, pa.string()))


def _with_stats(records: Any, stats: dict[str, Any] | None) -> Any:
    import pyarrow as pa

    schema = multi_schema()
    if records is None:
        cols = [pa.nulls(1, f.type) for f in schema][:-1]
        return pa.Table.from_arrays([*cols, pa.array([json.dumps(stats)])], schema=schema)
    return records.append_column(STATS, pa.nulls(records.num_rows, pa.string())).cast(schema)


def _name(split: int, o: WriteOptions) -> str:
    from mqtool.io.outputs import part_name

    return part_name(split, o.run, _attempt() if o.run else None)


def write_range(split: int, o: WriteOptions) -> tuple[dict[str, Any], Any]:
    """Decode one byte range; write records, errors (and single-record messages); the stats
    and the multi-segment records (with ``--messages``)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    path, uri, start, end, size = o.ranges[split]
    stats = api.range_stats()
    name = _name(split, o)
    join = _join(o.root)
    records = api.partitioned_writer(join("records"), name, options=o.fs_options)
    errors = api.partitioned_writer(join("errors"), name, by=None, options=o.fs_options)
    msgs = (api.partitioned_writer(join("messages"), name, options=o.fs_options)
            if o.messages else None)
    writers = [w for w in (records, errors, msgs) if w is not None]
    rows = n_msgs = 0
    multi: list[Any] = []
    problems: Counter[str] = Counter()
    t0 = time.perf_counter()
    try:
        for batch in api.decode_range(path, start, end, size, o.framing, o.codepage, o.mode, uri,
                                      o.fs_options, stats):
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
            if msgs is not None and table.num_rows:
                alone = pa.array(api.standalone(table, o.max_seg))
                one = api.singles(table.filter(alone))
                one = o.filters.apply(one) if o.filters else one
                msgs.write(one)
                n_msgs += one.num_rows
                multi.append(table.filter(pc.invert(alone)))
        t1 = time.perf_counter()
        files = _close(writers, o, split)
    except BaseException:
        for w in writers:
            w.abort()
        raise
    rest = pa.concat_tables(multi) if multi else None
    return {"split": split, "records": stats.records, "rows": rows, "errors": dict(stats.errors),
            "first": stats.first, "problems": dict(problems), "messages": n_msgs,
            "multi": rest.num_rows if rest is not None else 0, "incomplete": 0, "mproblems": {},
            "files": files, "decode_s": round(t1 - t0, 3),
            "write_s": round(time.perf_counter() - t1, 3)}, rest


def _join(root: str) -> Any:
    from mqtool.io.uris import join

    return lambda name: join(root, name)


def _close(writers: list[Any], o: WriteOptions, split: int) -> list[str]:
    """Close every writer (its files go in place); the files written."""
    files: list[str] = []
    for w in writers:
        w.close()
        files += w.written
        if files and o.fault == f"kill:{split}" and _attempt() == 0:
            os._exit(1)  # the test hook: a worker lost after its first file is in place
    return files


class ReassembleWrite:
    """The second stage of ``--messages``: multi-segment records of a file, sorted by offset,
    in (and the range stage's stats rows, passed on); message rows written like records;
    stats rows out."""

    def __init__(self, opts: WriteOptions) -> None:
        self.opts = opts

    def __call__(self, batches: Any) -> Any:
        import pyarrow as pa
        import pyarrow.compute as pc
        from pyspark import TaskContext

        ctx = TaskContext.get()
        part = ctx.partitionId() if ctx is not None else 0
        from mqtool.io.outputs import part_name

        name = part_name(part, self.opts.run, _attempt() if self.opts.run else None)
        out = api.partitioned_writer(_join(self.opts.root)("messages"), name.replace("part-", "part-m"),
                                     options=self.opts.fs_options)
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

        passed: list[str] = []
        try:
            for b in batches:
                is_stats = b.column(STATS).is_valid()
                if pc.any(is_stats).as_py():
                    passed += b.filter(is_stats).column(STATS).to_pylist()
                    b = b.filter(pc.invert(is_stats))
                done: list[dict[str, Any]] = []
                for row in b.drop_columns([STATS]).to_pylist():
                    done += r.feed(row)
                emit(done)
            emit(r.finish())
            out.close()
        except BaseException:
            out.abort()
            raise
        passed.append(json.dumps({
            "split": -1 - part, "records": 0, "rows": 0, "errors": {}, "first": "", "problems": {},
            "messages": total, "multi": 0, "incomplete": incomplete, "mproblems": dict(problems),
            "files": out.written}))
        yield pa.RecordBatch.from_pylist([{STATS: s} for s in passed])


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


def ranges_frame(spark: Any, n: int) -> Any:
    """``n`` rows ``0..n-1``, one per partition: a task per range, in classic Spark and over
    Spark Connect alike (no RDD needed)."""
    return spark.range(0, n, 1, n)


def run_ranges(spark: Any, opts: WriteOptions) -> list[dict[str, Any]]:
    """One task per byte range (``opts.ranges``), and with ``--messages`` the reassembly
    stage in the same job; every task's stats."""
    n = len(opts.ranges)
    if not n:
        return []
    frame = ranges_frame(spark, n)
    if not opts.messages:
        rows = frame.mapInArrow(WriteRanges(opts), STATS_SCHEMA).collect()
        return [json.loads(r[STATS]) for r in rows]
    from mqtool.spark.datasource import spark_schema

    staged = frame.mapInArrow(WriteRanges(opts), spark_schema(multi_schema()))
    parts = max(1, min(n, int(spark.conf.get("spark.sql.shuffle.partitions", "8"))))
    rows = (staged.repartition(parts, "file").sortWithinPartitions("file", "offset")
            .mapInArrow(ReassembleWrite(opts), STATS_SCHEMA).collect())
    return [json.loads(r[STATS]) for r in rows]
