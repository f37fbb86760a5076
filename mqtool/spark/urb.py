"""Event Replicator messages in Spark: the DataSource ``mqtool.urb`` and ``spark-extract urb``.

    from mqtool.spark.urb import register
    register(spark)
    df = (spark.read.format("mqtool.urb").option("table", "changes")
          .option("mode", "PERMISSIVE").load("/data/replicator/"))   # files, directories, globs

``table`` is one of ``extract urb``'s tables (messages, transactions, records, images,
status, errors, changes; default changes), with the same schema (``formats.urb.extract.
schema``). Inputs are paths, directories, globs and URIs (``s3.*`` options as for
``mqtool.csq1logp``). A raw stream is cut into byte ranges of ``splitSize`` (default 32m)
without reading it, one partition each, decoded by the same library function as the local
command (``formats.urb.ranges``: each range from its first restart point); a queue dump or
dump text is one partition. Messages, transactions, records and images are named by their
offsets, so the rows are the local rows whatever the split.

``spark-extract urb`` decodes every range once: each task reads one range and writes every
table's rows itself with pyarrow (``OUTDIR/<table>/part-NNNNN.parquet``, the schema of the
local Parquet tables), returning one stats row; the driver adds them up. The output is
written whole or not at all, as ``spark-extract``'s (``io.outputs.staged_dirs``).

``--typed`` (and the DataSource option ``typed``, with ``table`` = ``changes_DBID_FNR``):
the typed change tables of ``extract urb --typed``. The images of a range may be laid out
by a format field table (URBF/URBG) of an earlier range, so the layout is a second pass on
the driver: each task returns the messages that hold such a table, the driver replays them
in input order (``TypedRun.part``) over the ``changes``, ``transactions`` and ``messages``
the tasks wrote, and writes one folder per table, named then (``StagedDirs.add``).
"""

from __future__ import annotations

import glob
import json
import os
import re
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

NAME = "mqtool.urb"
STATS = "_stats"
DEFAULT_SPLIT = 32 << 20  # bytes per range of a raw stream


def spark_schema(schema: pa.Schema) -> Any:
    """Arrow schema of an ``extract urb`` table -> Spark schema."""
    from pyspark.sql.types import (
        BinaryType,
        LongType,
        StringType,
        StructField,
        StructType,
        TimestampType,
    )

    def typ(t: pa.DataType) -> Any:
        if pa.types.is_string(t):
            return StringType()
        if pa.types.is_binary(t):
            return BinaryType()
        if pa.types.is_timestamp(t):
            return TimestampType()
        if pa.types.is_integer(t):
            return LongType()
        raise TypeError(f"no Spark type for {t}")

    return StructType([StructField(f.name, typ(f.type), True) for f in schema])


def spark_table(table: pa.Table) -> pa.Table:
    """The Arrow table as Spark takes it: every integer a signed long, also inside the
    typed tables' structs and lists (unsigned 64-bit raw TODs keep their 64 bits), times of
    day in nanoseconds."""
    return table.cast(pa.schema([f.with_type(_spark_type(f.type)) for f in table.schema]), safe=False)


def _spark_type(t: pa.DataType) -> pa.DataType:
    if pa.types.is_integer(t):
        return pa.int64()
    if pa.types.is_time(t):  # Spark's TIME comes as nanoseconds
        return pa.time64("ns")
    if pa.types.is_struct(t):
        return pa.struct([t.field(i).with_type(_spark_type(t.field(i).type)) for i in range(t.num_fields)])
    if pa.types.is_list(t):
        return pa.list_(t.value_field.with_type(_spark_type(t.value_type)))
    return t


def expand(paths: list[str]) -> list[str]:
    """Input files of files, directories (walked like ``extract urb``) and globs."""
    from mqtool import api
    from mqtool.io.uris import is_uri

    out: list[str] = []
    for p in paths:
        if is_uri(p):
            out.append(p)  # listed by api.urb_plan
            continue
        if any(ch in p for ch in "*?[") and not os.path.exists(p):
            out += sorted(glob.glob(p))
        else:
            out.append(p)
    return [f for f in out if is_uri(f)] + list(api.urb_input_files(f for f in out if not is_uri(f)))


def _datasource() -> type:
    from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

    class RangePartition(InputPartition):
        def __init__(self, path: str, start: int, end: int, size: int) -> None:
            super().__init__((path, start, end))
            self.path, self.start, self.end, self.size = path, start, end, size

    class TypedPartition(InputPartition):
        def __init__(self, ipc: bytes) -> None:
            super().__init__(len(ipc))
            self.ipc = ipc

    class UrbReader(DataSourceReader):
        def __init__(self, options: dict[str, Any]) -> None:
            from mqtool import api

            tables, modes = api.urb_tables(), api.urb_modes()
            opts = {k.lower(): v for k, v in options.items()}
            self.table = str(opts.get("table", "changes")).lower()
            self.typed = str(opts.get("typed", "false")).lower() == "true"
            self.format_buffers = [b for b in str(opts.get("formatbuffer", "")).splitlines() if b.strip()]
            self.fdts = [f for f in str(opts.get("fdt", "")).split(",") if f]
            if self.typed and not TYPED_TABLE.fullmatch(self.table):
                raise ValueError(f"{NAME}: with typed, table is changes_DBID_FNR (one per database file)")
            if not self.typed and self.table not in tables:
                raise ValueError(f"{NAME}: table must be one of {', '.join(tables)}")
            self.mode = str(opts.get("mode", "PERMISSIVE")).upper()
            if self.mode not in modes:
                raise ValueError(f"{NAME}: mode must be one of {', '.join(modes)}")
            self.leap = int(opts.get("leapseconds", 0))
            try:
                self.split_size = api.parse_size(str(opts.get("splitsize", DEFAULT_SPLIT)))
            except ValueError as e:
                raise ValueError(f"{NAME}: {e}") from None
            from mqtool.io.uris import OPTION_KEYS

            self.fs_options = {k: str(v) for k, v in opts.items() if k in OPTION_KEYS}
            paths = [p for p in str(opts.get("paths", "")).split(",") if p]
            if opts.get("path"):
                paths.insert(0, str(opts["path"]))
            self.paths = paths

        def partitions(self) -> list[Any]:
            from mqtool import api

            files = expand(self.paths)
            if not files:
                raise ValueError(f"{NAME}: no input files (load(path) or option paths)")
            ranges = api.urb_plan(files, self.split_size, self.fs_options)
            if self.typed:
                return [TypedPartition(_ipc(spark_table(typed_table(self, ranges))))]
            return [RangePartition(*r) for r in ranges]

        def read(self, partition: Any) -> Iterator[pa.RecordBatch]:
            from mqtool import api

            p = partition
            if isinstance(p, TypedPartition):
                yield from pa.ipc.open_stream(p.ipc).read_all().to_batches()
                return
            tables, _ = api.urb_range_tables(p.path, p.start, p.end, p.size, self.mode, self.leap,
                                             self.fs_options)
            yield from spark_table(tables.table(self.table)).to_batches()

    class UrbDataSource(DataSource):
        """``spark.read.format("mqtool.urb")``."""

        @classmethod
        def name(cls) -> str:
            return NAME

        def schema(self) -> Any:
            from mqtool import api

            reader = UrbReader(dict(self.options))
            if reader.typed:  # known once the inputs are laid out: the same pass as the reader's
                from pyspark.sql.pandas.types import from_arrow_schema

                ranges = api.urb_plan(expand(reader.paths), reader.split_size, reader.fs_options)
                return from_arrow_schema(spark_table(typed_table(reader, ranges)).schema,
                                         prefer_timestamp_ntz=True)  # Natural times: no zone
            return spark_schema(api.urb_table_schema(reader.table))

        def reader(self, schema: Any) -> Any:
            return UrbReader(dict(self.options))

    return UrbDataSource


TYPED_TABLE = re.compile(r"changes_\d+_\d+")
KEPT = ("changes", "transactions", "messages")  # what a typed change table is made of


def typed_table(reader: Any, ranges: list[tuple[str, int, int, int]]) -> pa.Table:
    """The DataSource's ``typed`` table ``reader.table``, as ``extract urb --typed`` makes
    it: every range read in input order in this process, each part's format field tables
    met before its images (the layouts need the whole input before the first image)."""
    from mqtool import api

    run = api.urb_typed_run(reader.format_buffers, reader.fdts)
    run.files = list(dict.fromkeys(r[0] for r in ranges))
    for path, start, end, size in ranges:
        tables, _ = api.urb_range_tables(path, start, end, size, reader.mode, reader.leap,
                                         reader.fs_options, on_part=run.part)
        for name in KEPT:
            run.keep(name, tables.table(name).cast(api.urb_table_schema(name)))
    made = run.by_name()
    if reader.table not in made:
        raise ValueError(f"{NAME}: no typed table {reader.table} in the input (it has "
                         f"{', '.join(sorted(made)) or 'none'})")
    return made[reader.table]


def _ipc(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as w:
        w.write_table(table)
    return bytes(sink.getvalue().to_pybytes())


def register(spark: Any) -> None:
    """Make ``spark.read.format("mqtool.urb")`` available in a session."""
    spark.dataSource.register(_datasource())


# --------------------------------------------------------------------------- spark-extract urb


@dataclass
class UrbJobOptions:
    """``spark-extract urb``'s inputs, output and settings."""

    inputs: list[str]
    outdir: str
    mode: str = "PERMISSIVE"
    force: bool = False
    leap_seconds: int = 0
    fs_options: dict[str, str] = field(default_factory=dict)
    split_size: int = DEFAULT_SPLIT
    verbose: bool = False
    remote: str = ""
    started: float | None = None
    log: str = ""
    typed: bool = False  # also one typed change table per (database, file)
    format_buffers: list[str] = field(default_factory=list)
    fdts: list[str] = field(default_factory=list)
    layouts: Any = None  # the TypedRun: the user's layouts, read before the JVM starts


@dataclass
class TaskOptions:
    """What every task needs (pickled once into the task closure)."""

    root: str
    ranges: list[tuple[str, int, int, int]]  # (path, start, end, size) of every task
    mode: str = "PERMISSIVE"
    leap_seconds: int = 0
    fs_options: dict[str, str] = field(default_factory=dict)
    run: str = ""
    typed: bool = False  # return the messages that hold format field tables


class _TableWriters:
    """``extract_file``'s writers in a task: one Parquet file per table under ``root``."""

    def __init__(self, root: str, name: str, options: dict[str, str]) -> None:
        from mqtool import api
        from mqtool.io.uris import join

        self.writers = {t: api.partitioned_writer(join(root, t), name, by=None, keep=True,
                                                  options=options)
                        for t in api.urb_tables()}

    def write(self, name: str, table: pa.Table) -> None:
        from mqtool import api

        self.writers[name].write(table.cast(api.urb_table_schema(name)))

    def close(self) -> list[str]:
        files: list[str] = []
        for w in self.writers.values():
            w.close()
            files += w.written
        return files

    def abort(self) -> None:
        for w in self.writers.values():
            w.abort()


def write_file(split: int, o: TaskOptions) -> dict[str, Any]:
    """Decode one byte range of an input once (``api.urb_range_tables``), write every
    table's rows; the task's stats."""
    from mqtool import api
    from mqtool.io.outputs import part_name
    from mqtool.spark.arrow_writer import _attempt

    t0 = time.perf_counter()
    writers = _TableWriters(o.root, part_name(split, o.run, _attempt() if o.run else None),
                            o.fs_options)
    held: list[tuple[str, int, str]] = []  # (file, offset, hex) of format-field-table messages

    def on_part(file: str, data: bytes, base: int) -> None:
        held.extend((file, at, m.hex()) for at, m in api.urb_format_tables(data, base))

    try:
        path, start, end, size = o.ranges[split]
        _, summary = api.urb_range_tables(path, start, end, size, o.mode, o.leap_seconds,
                                          o.fs_options, writers, on_part if o.typed else None)
        files = writers.close()
    except BaseException:
        writers.abort()
        raise
    return {"split": split, "rows": dict(summary.rows),
            "errors_by_reason": dict(summary.errors_by_reason), "first": summary.first_error,
            "files": files, "gffts": held, "seconds": round(time.perf_counter() - t0, 3)}


class WriteFiles:
    """The ``mapInArrow`` function over ``spark.range(n)``: input numbers in, stats out."""

    def __init__(self, opts: TaskOptions) -> None:
        self.opts = opts

    def __call__(self, batches: Any) -> Any:
        pa.set_cpu_count(1)
        pa.set_io_thread_count(1)
        for b in batches:
            for split in b.column(0).to_pylist():
                yield pa.RecordBatch.from_pylist([{STATS: json.dumps(write_file(split, self.opts))}])


def preflight(master: str, opts: UrbJobOptions) -> list[tuple[str, int]]:
    """What ``spark-extract urb`` checks before the JVM starts: inputs, output, the master
    or Spark Connect server; the input files and sizes (all empty: exit 2)."""
    from mqtool import api
    from mqtool.errors import EmptyInputError
    from mqtool.spark import job

    job.check_inputs(opts.inputs)
    job.check_output(opts.outdir, opts.force, outputs=(*api.urb_tables(), "_summary.json"))
    job.check_session(master, opts.remote)
    if opts.typed and opts.layouts is None:  # a bad format buffer or FDT: nothing written
        opts.layouts = api.urb_typed_run(opts.format_buffers, opts.fdts)
    files = expand(opts.inputs)
    sizes = _sizes(files, opts.fs_options)
    if not any(size for _, size in sizes) and not any(os.path.isdir(f) for f in files):
        raise EmptyInputError("urb", ", ".join(opts.inputs))
    return sizes


def run(master: str, conf: dict[str, str], opts: UrbJobOptions, spark: Any = None,
        started: Any = None) -> dict[str, Any]:
    """``spark-extract urb`` in this process: checks, the session, the job."""
    from mqtool.spark import job

    return job.in_session(master, conf, opts, lambda: preflight(master, opts),
                          lambda sp, files, ss: run_job(sp, opts, opts.remote or master, files, ss),
                          spark, started, app="mqtool spark-extract urb")


def run_job(spark: Any, opts: UrbJobOptions, master: str = "",
            files: list[tuple[str, int]] | None = None,
            session_s: float | None = None) -> dict[str, Any]:
    """Every table of ``extract urb`` as Parquet under ``OUTDIR/<table>/``, each input
    decoded once by one task; ``_summary.json``; returns the summary."""
    from pathlib import Path

    from mqtool import api
    from mqtool.io.outputs import staged_dirs
    from mqtool.io.uris import driver_settings, is_remote, join, local_path
    from mqtool.spark import job

    t0 = time.perf_counter()
    register(spark)  # the mqtool.urb DataSource (job.prepare registers CSQ1LOGP's)
    master = master or job.master_of(spark, opts.remote)
    mode = opts.mode.upper()
    opts.fs_options = {**driver_settings(), **opts.fs_options}
    if files is None:
        files = _sizes(expand(opts.inputs), opts.fs_options)
    ranges = api.urb_plan([f for f, _ in files], opts.split_size, opts.fs_options) if files else []
    root = opts.outdir.rstrip("/") if is_remote(opts.outdir) else str(Path(local_path(opts.outdir)).resolve())
    tables = api.urb_tables()
    staged = staged_dirs(root, tables, opts.fs_options)
    with staged as scratch:
        t_plan = t_jobs = time.perf_counter()
        t_plan -= t0
        task = TaskOptions(str(scratch), ranges, mode, opts.leap_seconds,
                           dict(opts.fs_options), getattr(staged, "run", ""), opts.typed)
        stats = _tasks(spark, task, master)
        t_jobs = time.perf_counter() - t_jobs
        rows: Counter[str] = Counter()
        reasons: Counter[str] = Counter()
        first = ""
        for st in sorted(stats, key=lambda s: s["split"]):
            rows.update(st["rows"])
            reasons.update(st["errors_by_reason"])
            first = first or st["first"]
        staged.keep(f for st in stats for f in st["files"])
        typed = None
        if opts.typed:
            typed = _typed(opts, staged, task, sorted(stats, key=lambda s: s["split"]))
            rows["errors"] += typed.rows["errors"]
            reasons.update(typed.errors_by_reason)
            first = first or typed.first_error
        staged.keep(_empty_tables(str(scratch), [t for t in tables if not rows[t]], task))
    info: dict[str, Any] = {
        "mode": mode, "files": [f for f, _ in files], "bytes": sum(s for _, s in files),
        "rows": {t: rows[t] for t in tables}, "errors_by_reason": dict(sorted(reasons.items())),
        "output": root, "format": "parquet", "master": master,
        "planning_s": round(t_plan, 3), "spark_jobs_s": round(t_jobs, 3),
        "elapsed_s": round(time.perf_counter() - t0, 3)}
    if typed is not None:
        info["rows"].update(typed.typed)
        info["layouts"] = typed.layouts
    if first:
        info["first_error"] = first
    if session_s is not None:
        info["session_s"] = round(session_s, 3)
    if opts.started is not None:
        info["wall_s"] = round(time.perf_counter() - opts.started, 3)
    api.write_summary(join(root, "_summary.json"), info)
    job.keep_log(opts, root)
    staged.success()
    return info


class _DriverTables:
    """The writers ``api.urb_typed_tables`` writes to on the driver: a typed change table
    as a folder of its own (named now, ``StagedDirs.add``), the values that did not decode
    as one more part of ``errors``."""

    def __init__(self, staged: Any, task: TaskOptions) -> None:
        self.staged, self.task = staged, task

    def add(self, name: str, table: pa.Table) -> None:
        self.staged.add([name])
        self.write(name, table)

    def write(self, name: str, table: pa.Table) -> None:
        from mqtool.io.outputs import part_name
        from mqtool.io.uris import join

        target = join(str(self.staged.scratch), name, part_name(len(self.task.ranges), self.task.run))
        self.staged.keep([_write_part(target, table, self.task)])


def _typed(opts: UrbJobOptions, staged: Any, task: TaskOptions, stats: list[dict[str, Any]]) -> Any:
    """The typed change tables, laid out on the driver after the tasks: the format field
    tables the tasks met, replayed in input order, and the untyped ``changes``,
    ``transactions`` and ``messages`` the tasks wrote, read back in range order."""
    import pyarrow.parquet as pq

    from mqtool import api
    from mqtool.io.uris import resolve

    run = opts.layouts if opts.layouts is not None else api.urb_typed_run(opts.format_buffers, opts.fdts)
    run.files = list(dict.fromkeys(r[0] for r in task.ranges))  # input order, as read locally
    for st in stats:
        for file, at, hexed in st["gffts"]:
            run.part(file, bytes.fromhex(hexed), at)
    for name in ("changes", "transactions", "messages"):
        for st in stats:
            for f in st["files"]:
                if f.replace("\\", "/").split("/")[-2] == name:
                    fs, where = resolve(f, task.fs_options)
                    run.keep(name, pq.read_table(where, filesystem=fs).cast(api.urb_table_schema(name)))
    return api.urb_typed_tables(run, _DriverTables(staged, task), task.mode)


def _tasks(spark: Any, task: TaskOptions, master: str) -> list[dict[str, Any]]:
    from mqtool.errors import MqtoolError
    from mqtool.spark import job
    from mqtool.spark.arrow_writer import ranges_frame

    try:
        n = len(task.ranges)
        frame = ranges_frame(spark, n)
        return [json.loads(r[STATS]) for r in
                frame.mapInArrow(WriteFiles(task), f"{STATS} string").collect()]
    except MqtoolError:
        raise
    except Exception as e:  # noqa: BLE001 (any Spark or py4j failure: one line)
        raise job._spark_error(e, master) from None


def _sizes(files: list[str], options: dict[str, str]) -> list[tuple[str, int]]:
    """Every input with its size (a listing; 0 for a directory)."""
    from mqtool.io.uris import is_uri, list_files

    return [(f, sum(n for _, n in list_files([f], options)[:1]) if is_uri(f)
             else 0 if os.path.isdir(f) else os.path.getsize(f)) for f in files]


def _empty_tables(root: str, names: list[str], task: TaskOptions) -> list[str]:
    """An empty Parquet file (the schema alone) for each table no task wrote, so every
    table reads back with its columns."""
    from mqtool import api
    from mqtool.io.outputs import part_name
    from mqtool.io.uris import join

    return [_write_part(join(root, name, part_name(0, task.run).replace("part-", "part-empty-")),
                        api.urb_table_schema(name).empty_table(), task) for name in names]


def _write_part(target: str, table: pa.Table, task: TaskOptions) -> str:
    """One Parquet part written whole or not at all; its name."""
    import pyarrow.parquet as pq

    from mqtool.io.outputs import atomic_path, remote

    if not remote(target):
        os.makedirs(os.path.dirname(target), exist_ok=True)
    with atomic_path(target, force=True, options=task.fs_options, check=False) as tmp:
        pq.write_table(table, tmp)
    return target
