"""``spark-extract``: the CSQ1LOGP extraction as a Spark job.

In-process (``mqtool spark-extract``, embedded ``local[*]`` by default, or any master), or
through spark-submit with this file as the application::

    spark-submit --master yarn --py-files mqtool-<version>.zip \\
        .../mqtool/spark/job.py INPUT... -o OUTDIR [--messages] [--mode ...]

mqtool goes to the executors as a zip of the package (``SparkContext.addPyFile`` in
process, ``--py-files`` / ``spark.submit.pyFiles`` with spark-submit). Everything that can
be checked is checked before the JVM starts (``preflight``). The driver only lists the
inputs and their sizes and cuts them into byte ranges; each executor task finds the records
of its range itself, decodes them and writes its own files with pyarrow
(``arrow_writer.py``): ``records/log_date=YYYY-MM-DD/``, ``errors/`` and, with
``--messages``, ``messages/`` (only the multi-segment records are shuffled). With
``--writer spark`` the DataSource and Spark's writer produce the same layout. Everything is
written in a scratch folder inside OUTDIR and moved into place when the job succeeded.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import logging
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mqtool.errors import EnvError, ExitStatus, InputError, MqtoolError

PACKAGE = Path(__file__).resolve().parent.parent  # .../mqtool
TUNING = {
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS",
    "spark.sql.sources.partitionOverwriteMode": "static",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.python.worker.reuse": "true",
}


FILTERS = ("queue", "verb", "urid", "qmgr", "since", "until", "status")


@dataclass
class JobOptions:
    inputs: list[str]
    outdir: str
    framing: str = "auto"
    codepage: str = "cp037"
    mode: str = "PERMISSIVE"
    split_size: int | None = None
    messages: bool = False
    max_seg: int = 32552
    force: bool = False
    writer: str = "arrow"  # "arrow": executors write with pyarrow (arrow_writer.py); "spark"
    filters: dict[str, str] = field(default_factory=dict)  # queue, verb, ... (lists: a,b)
    fs_options: dict[str, str] = field(default_factory=dict)  # s3.endpoint, ...
    verbose: bool = False

    def argv(self) -> list[str]:
        out = [*self.inputs, "-o", self.outdir, "--framing", self.framing, "--codepage",
               self.codepage, "--mode", self.mode, "--max-segment", str(self.max_seg),
               "--writer", self.writer]
        if self.split_size:
            out += ["--split-size", str(self.split_size)]
        if self.messages:
            out.append("--messages")
        if self.force:
            out.append("--force")
        for k, v in self.filters.items():
            if v:
                out += [f"--{k}", v]
        return out


# --------------------------------------------------------------------------- environment


def java_check() -> str:
    """The Java version, or EnvError saying what is missing (Spark 4 needs Java 17+)."""
    home = os.environ.get("JAVA_HOME")
    java = str(Path(home) / "bin" / "java") if home else shutil.which("java")
    if not java or not os.path.exists(java):
        where = f"JAVA_HOME={home} has no bin/java" if home else "no 'java' on PATH and JAVA_HOME is not set"
        raise EnvError(f"spark-extract needs Java 17 or newer: {where} "
                       "(install e.g. openjdk-17-jre-headless, or set JAVA_HOME)")
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise EnvError(f"spark-extract needs Java 17 or newer: {java} -version failed: {e}") from None
    text = out.stderr + out.stdout
    m = re.search(r'version "(\d+)(?:\.(\d+))?', text)
    if not m:
        raise EnvError(f"spark-extract needs Java 17 or newer: cannot read the version of {java}")
    major = int(m.group(1))
    if major == 1 and m.group(2):  # 1.8 -> 8
        major = int(m.group(2))
    if major < 17:
        raise EnvError(f"spark-extract needs Java 17 or newer: {java} is Java {major} "
                       "(install openjdk-17 or point JAVA_HOME at it)")
    return text.splitlines()[0] if text else f"Java {major}"


def pyspark_check() -> None:
    """pyspark and the pandas it converts with, or ``MissingExtraError`` (exit 4)."""
    from mqtool.errors import require_extra

    require_extra("spark", "pyspark", "py4j", "pandas")


def package_zip() -> str:
    """A zip of the mqtool package to ship to executors (cached by content)."""
    files = sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)
    h = hashlib.sha256()
    for p in files:
        h.update(str(p.relative_to(PACKAGE.parent)).encode())
        h.update(p.read_bytes())
    from mqtool import __version__

    target = Path(tempfile.gettempdir()) / "mqtool-spark" / f"mqtool-{__version__}-{h.hexdigest()[:12]}.zip"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(f".{os.getpid()}.tmp")
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
            for p in files:
                z.write(p, str(p.relative_to(PACKAGE.parent)))
        os.replace(tmp, target)
    return str(target)


def _conf(master: str, conf: dict[str, str], verbose: bool = False) -> dict[str, str]:
    out = dict(TUNING)
    local = master.startswith("local")
    if not verbose:
        log4j = PACKAGE / "spark" / "log4j2.properties"
        out["spark.driver.extraJavaOptions"] = f"-Dlog4j.configurationFile=file:{log4j}"
    out["spark.ui.enabled"] = "false" if local else "true"  # a cluster's UI stays on
    if local:
        out["spark.pyspark.python"] = sys.executable
        out["spark.pyspark.driver.python"] = sys.executable
        out["spark.sql.shuffle.partitions"] = "8"
        # local mode: the driver JVM is the executor; at the default 1 GB heap two Parquet
        # writers spend their time in GC
        out["spark.driver.memory"] = "2g"
    out.update(conf)
    return out


def submit_line(master: str, conf: dict[str, str], opts: JobOptions) -> str:
    """The spark-submit command line equivalent to this spark-extract run."""
    q = shlex.quote
    lines = ["spark-submit", f"--master {q(master)}"]
    lines += [f"--conf {q(f'{k}={v}')}" for k, v in _conf(master, conf).items()]
    lines += [f"--py-files {q(package_zip())}", q(str(Path(__file__).resolve())),
              " ".join(q(a) for a in opts.argv())]
    return " \\\n  ".join(lines)


def session(master: str, conf: dict[str, str], app: str = "mqtool spark-extract",
            verbose: bool = False) -> Any:
    """A Spark session for the job: tuned, mqtool shipped, the DataSource registered. The
    JVM's own output (start-up notes, log lines) goes to a file unless ``verbose``."""
    java_check()
    pyspark_check()
    from pyspark.sql import SparkSession

    if master.startswith("local"):
        # every Python process Spark starts here (planner, workers) is this interpreter
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    b = SparkSession.builder.master(master).appName(app)
    for k, v in _conf(master, conf, verbose).items():
        b = b.config(k, v)
    from mqtool.io.signals import kept

    if not verbose and not os.environ.get("MQTOOL_DEBUG"):
        quiet_py4j()
    with kept(), _quiet_fd2(not verbose):
        spark = b.getOrCreate()
    prepare(spark)
    return spark


@contextlib.contextmanager
def _quiet_fd2(quiet: bool) -> Any:
    """While the JVM starts, file descriptor 2 points at a log file (the JVM keeps it)."""
    if not quiet:
        yield
        return
    log = Path(tempfile.gettempdir()) / f"mqtool-spark-{os.getpid()}.log"
    sys.stderr.flush()
    saved = os.dup(2)
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.dup2(fd, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(fd)


def prepare(spark: Any) -> None:
    """Ship mqtool to the executors and register the DataSource (idempotent)."""
    from mqtool.spark.datasource import register

    zip_path = package_zip()
    sc = spark.sparkContext
    if os.path.basename(zip_path) not in getattr(sc, "_python_includes", []):
        sc.addPyFile(zip_path)
    register(spark)


# --------------------------------------------------------------------------- checks


_MASTER = re.compile(
    r"^(local(\[(\*|\d+)(,\d+)?\])?"
    r"|local-cluster\[\d+,\d+,\d+\]"
    r"|spark://[A-Za-z0-9._-]+:\d{1,5}(,[A-Za-z0-9._-]+:\d{1,5})*"
    r"|yarn"
    r"|k8s://(https?://)?[A-Za-z0-9._-]+(:\d{1,5})?(/.*)?"
    r"|mesos://.+)$")
OUTPUTS = ("records", "errors", "messages", "_summary.json")


def check_master(master: str) -> None:
    """A well-formed master URL, and for ``spark://`` a master that answers (2 s), before
    a JVM is started."""
    from mqtool.errors import InputError

    if not _MASTER.match(master):
        raise InputError(f"--master: {master!r} is not a Spark master URL (local[N], "
                         "local-cluster[W,C,MB], spark://HOST:PORT, yarn, k8s://https://HOST:PORT)")
    if master.startswith("spark://"):
        import socket

        errors = []
        for hostport in master.removeprefix("spark://").split(","):
            host, _, port = hostport.rpartition(":")
            try:
                with socket.create_connection((host, int(port)), timeout=2):
                    return
            except OSError as e:
                errors.append(e.strerror or str(e))
        raise EnvError(f"spark-extract: master {master} unreachable ({'; '.join(errors)})")


def check_output(outdir: str, force: bool) -> None:
    """OUTDIR holds none of the outputs (unless --force) and can be created and written."""
    from mqtool.io.uris import check_output_dir

    check_output_dir(outdir, force, OUTPUTS)


def preflight(master: str, opts: JobOptions) -> list[tuple[str, str, int, int, int]]:
    """Everything that can be checked before the JVM starts; nothing is created. Returns
    the byte ranges (a listing of the inputs, no data read)."""
    if "-" in opts.inputs:
        raise InputError("spark-extract: stdin (-) cannot be split across executors; "
                         "give files, directories, globs or URIs")
    check_output(opts.outdir, opts.force)
    check_master(master)
    java_check()
    pyspark_check()
    from mqtool.spark.datasource import plan_ranges

    return plan_ranges(opts.inputs, opts.split_size or MAX_SPLIT, opts.fs_options)


# --------------------------------------------------------------------------- the job


MIN_SPLIT, MAX_SPLIT = 64 << 20, 128 << 20


def auto_split(total: int, parallelism: int) -> int:
    """About one split per core, between 64 MB and 128 MB: every task pays ~0.15 s for its
    Python worker, so finer splits cost more than they balance. Large inputs still get many
    128 MB splits, so one big file keeps every core busy."""
    return max(MIN_SPLIT, min(MAX_SPLIT, -(-total // max(1, parallelism))))


def run(master: str, conf: dict[str, str], opts: JobOptions, spark: Any = None,
        progress: Any = None, started: Any = None) -> dict[str, Any]:
    """Check, start Spark, run the job (in this process); returns the summary written to
    ``_summary.json``. Spark failures are EnvError naming the master (exit 4).
    ``started(spark)`` is called once the session is up; ``progress(done, total, bytes)``
    while tasks run."""
    preflight(master, opts)
    own = spark is None
    try:
        spark = spark or session(master, conf, verbose=opts.verbose)
    except MqtoolError:
        raise
    except Exception as e:  # noqa: BLE001 (any Spark or py4j failure: one line)
        raise _spark_error(e, master) from None
    if started is not None:
        started(spark)
    try:
        return run_job(spark, opts, master, progress)
    finally:
        if own:
            with contextlib.suppress(Exception):
                spark.stop()


def run_job(spark: Any, opts: JobOptions, master: str = "", progress: Any = None) -> dict[str, Any]:
    from mqtool import api
    from mqtool.io.outputs import StagedDirs
    from mqtool.spark.datasource import filters_from, plan_ranges

    t0 = time.perf_counter()
    master = master or spark.sparkContext.master
    check_output(opts.outdir, opts.force)
    from mqtool.io.uris import driver_settings

    opts.fs_options = {**driver_settings(), **opts.fs_options}  # endpoint, region: not secrets
    try:
        filters = filters_from(opts.filters)
    except ValueError as e:
        raise InputError(str(e)) from None
    listed = plan_ranges(opts.inputs, MAX_SPLIT, opts.fs_options)
    files: dict[str, int] = {}
    for path, _uri, _a, _b, size in listed:
        files[path] = size
    total = sum(files.values())
    split = opts.split_size or auto_split(total, spark.sparkContext.defaultParallelism)
    ranges = plan_ranges(list(files), split, opts.fs_options) if files else []
    t_plan = time.perf_counter() - t0
    summary = api.csq1logp_summary(opts.mode)
    for path, size in files.items():
        summary.files.append({"file": path, "bytes": size,
                              "ranges": sum(1 for r in ranges if r[0] == path)})
    summary.bytes = total
    root = Path(opts.outdir.removeprefix("file://")).resolve()  # executors have other cwds
    with StagedDirs(root, api.csq1logp_out_dirs()) as scratch:
        t_jobs = time.perf_counter()
        stats = _jobs(spark, ranges, opts, filters, scratch, progress, master)
        t_jobs = time.perf_counter() - t_jobs
        _count(summary, stats, opts.mode)
        shutil.rmtree(scratch / "multi", ignore_errors=True)
        if summary.rows and not (scratch / "records").exists() and not (scratch / "errors").exists():
            raise EnvError(f"spark-extract: the executors wrote {summary.rows} rows but none "
                           f"reached {root}: is it on a file system they share? (else --writer spark)")
    info = summary.to_json()
    info["output"] = str(root.resolve())
    info["master"] = master
    info["split_size"] = split
    info["ranges"] = len(ranges)
    info["planning_s"] = round(t_plan, 3)
    info["spark_jobs_s"] = round(t_jobs, 3)  # the rest of elapsed_s is the driver's own work
    info["elapsed_s"] = round(time.perf_counter() - t0, 3)
    api.write_summary(str(root / "_summary.json"), info)
    return info


def _jobs(spark: Any, ranges: list[tuple[str, str, int, int, int]], opts: JobOptions,
          filters: Any, scratch: Path, progress: Any, master: str) -> list[dict[str, Any]]:
    """The Spark jobs that write into ``scratch``: their stats rows; a Spark or py4j
    failure is one line."""
    try:
        if opts.writer == "arrow":
            return _arrow_job(spark, ranges, opts, filters, scratch, progress)
        return _spark_writer_job(spark, opts, scratch)
    except KeyboardInterrupt:  # SIGINT, SIGTERM: the JVM ends before its outputs are removed
        stop_jvm(spark)
        raise
    except MqtoolError:
        raise
    except Exception as e:  # noqa: BLE001 (any Spark or py4j failure: one line)
        raise _spark_error(e, master) from None


class _NoPy4jRecords(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return "py4j" not in record.pathname and not record.name.startswith("py4j")


def quiet_py4j() -> None:
    """py4j logs a traceback (through the root logger: ``ERROR:root:...``) for every call an
    interrupt or a failed JVM broke; mqtool reports the failure itself, in one line (the
    trace with MQTOOL_DEBUG=1), so those records are dropped."""
    root = logging.getLogger()
    if not root.handlers:  # else logging.exception() would print through basicConfig
        root.addHandler(logging.NullHandler())
    for h in root.handlers:
        if not any(isinstance(f, _NoPy4jRecords) for f in h.filters):
            h.addFilter(_NoPy4jRecords())
    logging.getLogger("py4j").disabled = True


def stop_jvm(spark: Any, wait: float = 30) -> None:
    """After an interrupt: end the JVM this process started (its tasks and Python workers
    with it) without another call through py4j, whose connection the interrupt may have
    left halfway through a command; py4j's complaints about the closed connection are not
    printed. A JVM this process did not start (spark-submit) is left to its owner."""
    quiet_py4j()
    proc = getattr(getattr(spark.sparkContext, "_gateway", None), "proc", None)
    if proc is None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=wait)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=wait)


def _count(summary: Any, stats: list[dict[str, Any]], mode: str) -> None:
    """The tasks' stats rows added up into the run's summary."""
    for st in stats:
        summary.records += st["records"]
        summary.errors.update(json.loads(st["errors"]))
        summary.corrupt_fields.update(json.loads(st["problems"]))
        summary.rows += st["rows"]
        summary.messages += st["messages"]
        summary.incomplete += st["incomplete"]
        summary.message_problems.update(json.loads(st["mproblems"]))
        if st["first"] and not summary.first_error:
            summary.first_error = st["first"]
    if mode == "DROPMALFORMED":
        summary.dropped = sum(summary.errors.values())


def _arrow_job(spark: Any, ranges: list[tuple[str, str, int, int, int]], opts: JobOptions,
               filters: Any, scratch: Path, progress: Any) -> list[dict[str, Any]]:
    from mqtool.spark.arrow_writer import WriteOptions, run_ranges, run_reassembly

    wo = WriteOptions(str(scratch), opts.framing, opts.codepage, opts.mode, filters or None,
                      opts.messages, opts.max_seg, dict(opts.fs_options))
    total = sum(r[3] - r[2] for r in ranges)
    with _Tracker(spark, progress, total):
        stats = run_ranges(spark, ranges, wo)
        if opts.messages:
            stats += run_reassembly(spark, wo)
    return stats


def _spark_writer_job(spark: Any, opts: JobOptions, scratch: Path) -> list[dict[str, Any]]:
    """``--writer spark``: the DataSource and Spark's own Parquet writer."""
    from pyspark.sql import functions as F  # noqa: N812

    from mqtool import api
    from mqtool.spark.datasource import NAME

    reader = (spark.read.format(NAME).option("framing", opts.framing)
              .option("codepage", opts.codepage)
              .option("mode", "FAILFAST" if opts.mode == "FAILFAST" else "PERMISSIVE")
              .option("paths", ",".join(opts.inputs)))
    for k, v in {**opts.filters, **opts.fs_options}.items():
        if v:
            reader = reader.option(k, v)
    if opts.split_size:
        reader = reader.option("splitSize", str(opts.split_size))
    df = reader.load().persist()
    try:
        counts = {"records": F.sum(F.col("_error").isNull().cast("long")), **CORRUPT_COUNTS()}
        counts.update({r: F.sum((F.col("_error") == r).cast("long")) for r in api.bad_span_reasons()})
        got = df.agg(*[c.alias(n) for n, c in counts.items()]).collect()[0].asDict()
        problems = _count_fields(got.pop(PROBLEM_LISTS) or [])
        records = df.filter("_error IS NULL")
        writer_opts = {"parquet.enable.dictionary": "false"}
        (records.write.options(**writer_opts).partitionBy("log_date")
         .parquet(str(scratch / "records")))
        errors = {r: int(got[r] or 0) for r in api.bad_span_reasons() if got[r]}
        if opts.mode == "PERMISSIVE" and errors:
            df.filter("_error IS NOT NULL").drop("log_date").write.options(**writer_opts) \
                .parquet(str(scratch / "errors"))
        first = df.filter("_error IS NOT NULL").orderBy("file", "offset").limit(1).collect()
        stats = {"records": int(got["records"] or 0),
                 "rows": int(got["records"] or 0) + (sum(errors.values())
                                                     if opts.mode == "PERMISSIVE" else 0),
                 "errors": json.dumps(errors), "problems": json.dumps(problems), "messages": 0,
                 "incomplete": 0,
                 "mproblems": "{}",
                 "first": (f"{first[0]['_error']}: {first[0]['_error_detail']}, offset "
                           f"X'{first[0]['offset']:04X}' ({first[0]['offset']}) in "
                           f"{first[0]['file']}") if first else ""}
        if opts.messages:
            msgs = messages_frame(records, opts.max_seg)
            obs = _write(msgs, "errorifexists", str(scratch / "messages"), MESSAGE_COUNTS)
            stats["messages"], stats["incomplete"] = obs.pop("_messages"), obs.pop("_incomplete")
            stats["mproblems"] = json.dumps({k: v for k, v in obs.items() if v})
        return [stats]
    finally:
        df.unpersist()


class _Tracker:
    """Feeds ``progress(done, total, bytes)`` from Spark's status tracker while a job runs
    (bytes: the input share of the tasks done)."""

    def __init__(self, spark: Any, progress: Any, total_bytes: int = 0) -> None:
        self.spark, self.progress, self.total_bytes = spark, progress, total_bytes
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None

    def __enter__(self) -> _Tracker:
        if self.progress is not None:
            self.thread = threading.Thread(target=self._poll, daemon=True)
            self.thread.start()
        return self

    def _poll(self) -> None:
        tracker = self.spark.sparkContext.statusTracker()
        while not self.stop.wait(0.25):
            try:
                done = total = 0
                for sid in tracker.getActiveStageIds():
                    info = tracker.getStageInfo(sid)
                    if info is not None:
                        done += info.numCompletedTasks
                        total += info.numTasks
                if total:
                    self.progress(done, total, self.total_bytes * done // total)
            except Exception:  # noqa: BLE001 (progress is best effort)
                return

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        if self.thread is not None:
            self.thread.join(timeout=2)


def _spark_error(e: Exception, master: str = "") -> MqtoolError:
    """One line for a Spark failure: FAILFAST's bad span (exit 2), else EnvError naming the
    master (exit 4). The Java stack trace only with MQTOOL_DEBUG=1."""
    text = str(e)
    if os.environ.get("MQTOOL_DEBUG") == "1":
        import traceback

        traceback.print_exception(e, file=sys.stderr)
    m = re.search(r"MalformedError: (csq1logp: .*?\(mode FAILFAST\))", text)
    if m:
        err = MqtoolError(m.group(1))
        err.status = ExitStatus.DECODE
        return err
    m = re.search(r"(?:MqtoolError|InputError|DecodeError): (.+)", text)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    first = m.group(1) if m else next(
        (ln for ln in lines if "Exception" in ln or "Error" in ln), lines[0] if lines else type(e).__name__)
    return EnvError(f"spark-extract: Spark failed on master {master or '?'}: {first[:300]}")


def _write(df: Any, mode: str, path: str, counts: Any) -> dict[str, int]:
    """Parquet partitioned by log_date; ``counts()`` (name -> aggregate) are observed during
    the same pass, so the summary costs no second job. No dictionary encoding: on the
    message data column it costs more than the whole decode and saves nothing."""
    from pyspark.sql import Observation

    obs = Observation("mqtool")
    (df.observe(obs, *[c.alias(n) for n, c in counts().items()])
     .write.mode(mode).option("parquet.enable.dictionary", "false")
     .partitionBy("log_date").parquet(path))
    got = dict(obs.get)
    problem_lists = got.pop(PROBLEM_LISTS, None)
    out = {k: int(v or 0) for k, v in got.items()}
    if problem_lists is not None:
        out.update(_count_fields(problem_lists))
    return out


PROBLEM_LISTS = "_problem_lists"


def CORRUPT_COUNTS() -> dict[str, Any]:  # noqa: N802 (a table, built lazily)
    """The ``_corrupt_fields`` lists of the rows that have any, collected while writing;
    ``_count_fields`` turns them into rows-with-a-problem per field on the driver. One cheap
    per-row test (a size) instead of a lambda per field per row: clean rows cost nothing."""
    from pyspark.sql import functions as F  # noqa: N812

    c = F.col("_corrupt_fields")
    return {PROBLEM_LISTS: F.collect_list(F.when(F.size(c) > 0, c))}


def _count_fields(lists: list[list[str]]) -> dict[str, int]:
    """Rows with a problem in each field (an entry reads ``"field: reason"``)."""
    from collections import Counter

    counts: Counter[str] = Counter()
    for entries in lists:
        counts.update({e.split(":", 1)[0] for e in entries})
    return dict(counts)


def _starts(prefix: str) -> Any:
    return lambda x: x.startswith(prefix)


MESSAGE_PROBLEMS = ("gap", "duplicate-segment", "orphan-segment", "interleaved", "missing-tail",
                    "length-mismatch")


def MESSAGE_COUNTS() -> dict[str, Any]:  # noqa: N802
    from pyspark.sql import functions as F  # noqa: N812

    ok = F.col("_error").isNull()
    out = {"_messages": F.sum(ok.cast("long")),
           "_incomplete": F.sum((ok & ~F.coalesce(F.col("complete"), F.lit(False))).cast("long"))}
    for k in MESSAGE_PROBLEMS:
        out[k] = F.sum(F.size(F.filter(F.coalesce("problems", F.array().cast("array<string>")),
                                       _starts(f"{k}:"))))
    return out


def messages_frame(records: Any, max_seg: int) -> Any:
    """Message rows: standalone records mapped in place, only the others shuffled (by file,
    sorted by offset) and reassembled with the same ``Reassembler`` as the local path."""
    from pyspark.sql import functions as F  # noqa: N812

    from mqtool import api
    from mqtool.spark.datasource import spark_schema

    schema = spark_schema(api.message_schema())
    alone = F.expr(api.standalone_sql(max_seg))
    singles = records.filter(alone).mapInArrow(_singles, schema)
    multi = (records.filter(~alone).repartition("file").sortWithinPartitions("file", "offset")
             .mapInArrow(_Reassemble(max_seg), schema))
    return singles.unionByName(multi)


def _singles(batches: Any) -> Any:
    from mqtool import api

    for b in batches:
        yield from api.singles(b).to_batches()


class _Reassemble:
    def __init__(self, max_seg: int) -> None:
        self.max_seg = max_seg

    def __call__(self, batches: Any) -> Any:
        import pyarrow as pa

        from mqtool import api

        r = api.reassembler(self.max_seg)
        schema = api.message_schema()
        for b in batches:
            done = []
            for row in b.to_pylist():
                done += r.feed(row)
            if done:
                yield from pa.Table.from_pylist(done, schema=schema).to_batches()
        done = r.finish()
        if done:
            yield from pa.Table.from_pylist(done, schema=schema).to_batches()


# --------------------------------------------------------------------------- spark-submit


def main(argv: list[str] | None = None) -> int:
    """spark-submit entry point: the master and confs come from spark-submit."""
    p = argparse.ArgumentParser(prog="mqtool-spark-extract", description=__doc__.splitlines()[0])
    p.add_argument("inputs", nargs="+")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--framing", default="auto", choices=["auto", "rdw", "bdw", "none"])
    p.add_argument("--codepage", default="cp037")
    p.add_argument("--mode", default="PERMISSIVE", choices=["PERMISSIVE", "DROPMALFORMED", "FAILFAST"])
    p.add_argument("--split-size", type=int, default=None)
    p.add_argument("--messages", action="store_true")
    p.add_argument("--max-segment", type=int, default=32552)
    p.add_argument("--force", action="store_true")
    p.add_argument("--writer", default="arrow", choices=["arrow", "spark"])
    for k in FILTERS:
        p.add_argument(f"--{k}", default="")
    a = p.parse_args(argv)
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName("mqtool spark-extract").getOrCreate()
    prepare(spark)
    opts = JobOptions(a.inputs, a.output, a.framing, a.codepage, a.mode, a.split_size, a.messages,
                      a.max_segment, a.force, a.writer, {k: getattr(a, k) for k in FILTERS})
    try:
        info = run_job(spark, opts)
    except MqtoolError as e:
        sys.stderr.write(f"mqtool: {e}\n")
        return int(e.status)
    finally:
        spark.stop()
    print(json.dumps(info, indent=2))
    return 2 if info["bad_spans"] else (3 if info.get("messages", {}).get("incomplete") else 0)


if __name__ == "__main__":
    sys.exit(main())
