"""``spark-extract``: the CSQ1LOGP extraction as a Spark job.

In-process (``mqtool spark-extract``: an embedded ``local[*]`` by default, any master, or a
Spark Connect server with ``--remote sc://HOST:PORT``), or through spark-submit with this
file as the application::

    spark-submit --master yarn --py-files mqtool-<version>.zip \\
        .../mqtool/spark/job.py INPUT... -o OUTDIR [--messages] [--mode ...]

mqtool goes to the executors as a zip of the package (``SparkContext.addPyFile`` in
process, ``SparkSession.addArtifacts`` over Spark Connect, ``--py-files`` with
spark-submit). Everything that can be checked is checked before the JVM starts
(``preflight``). The driver only lists the inputs and their sizes and cuts them into byte
ranges; each executor task finds the records of its range itself, decodes them and writes
its own files with pyarrow (``arrow_writer.py``): ``records/log_date=YYYY-MM-DD/``,
``errors/`` and, with ``--messages``, ``messages/`` (only the multi-segment records are
shuffled). With ``--writer spark`` the DataSource and Spark's writer produce the same
layout. Outputs are written whole or not at all (``io.outputs.staged_dirs``): in a scratch
folder moved into place on a file system, under names of their own with ``_SUCCESS`` last
on an object store. Spark's own log goes to ``OUTDIR/_logs/``.
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
import socket
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mqtool.errors import EmptyInputError, EnvError, ExitStatus, InputError, MqtoolError

PACKAGE = Path(__file__).resolve().parent.parent  # .../mqtool
TUNING = {
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS",
    "spark.sql.sources.partitionOverwriteMode": "static",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.python.worker.reuse": "true",
}
# what a Spark Connect session takes at run time (the rest is the server's)
SESSION_TUNING = ("spark.sql.session.timeZone", "spark.sql.parquet.outputTimestampType",
                  "spark.sql.execution.arrow.pyspark.enabled")


FILTERS = ("queue", "verb", "urid", "qmgr", "since", "until", "status")
Listing = list[tuple[str, int]]  # (path or URI, size) of every input file
Ranges = list[tuple[str, str, int, int, int]]  # (path, uri, start, end, size)


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
    remote: str = ""  # sc://HOST:PORT: through a Spark Connect session
    started: float | None = None  # time.perf_counter() when the command started
    log: str = ""  # where the JVM's own output goes while the job runs (set by run)

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
                       "(install e.g. openjdk-17-jre-headless, or set JAVA_HOME; or run on a "
                       "Spark Connect server with --remote sc://HOST:PORT, no Java here)")
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


def connect_check() -> None:
    """The Spark Connect client is importable (``pyspark-client``, or pyspark with its
    ``connect`` extra): no JVM is needed here."""
    import importlib.util

    missing = [m for m in ("pyspark", "grpc", "google.protobuf") if importlib.util.find_spec(m) is None]
    if missing:
        raise EnvError(f"spark-extract --remote needs the Spark Connect client ({', '.join(missing)} "
                       "missing): pip install 'mqtool[spark-connect]'")


def package_zip() -> str:
    """A zip of the mqtool package to ship to executors (cached by content)."""
    files = sorted(p for p in PACKAGE.rglob("*") if p.suffix in (".py", ".properties")
                   and "__pycache__" not in p.parts)
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
            verbose: bool = False, remote: str = "", log: str = "") -> Any:
    """A Spark session for the job: tuned, mqtool shipped, the DataSources registered.
    ``remote``: a Spark Connect session (no JVM here). The JVM's own output (start-up
    notes, log lines) goes to the file ``log`` unless ``verbose``."""
    if remote:
        return connect_session(remote, conf, app)
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
    with kept(), _quiet_fd2(None if verbose else log):
        spark = b.getOrCreate()
    prepare(spark)
    return spark


def connect_session(remote: str, conf: dict[str, str], app: str = "mqtool spark-extract") -> Any:
    """A Spark Connect session on ``remote`` (``sc://HOST:PORT``; Databricks Connect's
    ``DatabricksSession`` is one too): run-time settings applied, mqtool shipped as an
    artifact, the DataSources registered."""
    connect_check()
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.remote(remote).appName(app).getOrCreate()
    for k in SESSION_TUNING:
        spark.conf.set(k, TUNING[k])
    for k, v in conf.items():
        try:
            spark.conf.set(k, v)
        except Exception as e:  # noqa: BLE001 (a static setting: the server's)
            raise InputError(f"--conf {k}: the Spark Connect server does not take it at run "
                             f"time ({_first(e)}); set it where the server starts") from None
    prepare(spark)
    return spark


def _first(e: BaseException) -> str:
    lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
    return lines[0][:200] if lines else type(e).__name__


@contextlib.contextmanager
def _quiet_fd2(log: str | None) -> Any:
    """While the JVM starts, file descriptor 2 points at ``log`` (the JVM keeps it)."""
    if not log:
        yield
        return
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


def is_connect(spark: Any) -> bool:
    """A Spark Connect session (no SparkContext, no RDDs)."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


_SHIPPED: set[tuple[int, str]] = set()


def prepare(spark: Any) -> None:
    """Ship mqtool to the executors and register the CSQ1LOGP DataSource (idempotent;
    ``spark.urb.run_job`` registers the URB one)."""
    from mqtool.spark.datasource import register

    zip_path = package_zip()
    if is_connect(spark):
        if (id(spark), zip_path) not in _SHIPPED:
            spark.addArtifacts(zip_path, pyfile=True)
            _SHIPPED.add((id(spark), zip_path))
    else:
        sc = spark.sparkContext
        if os.path.basename(zip_path) not in getattr(sc, "_python_includes", []):
            sc.addPyFile(zip_path)
    register(spark)


def parallelism(spark: Any) -> int:
    """The cores the session's executors offer (0 when a Spark Connect server does not say)."""
    if not is_connect(spark):
        return int(spark.sparkContext.defaultParallelism)
    try:
        return int(spark.conf.get("spark.default.parallelism"))
    except Exception:  # noqa: BLE001 (not set on the server)
        return 0


def master_of(spark: Any, remote: str = "") -> str:
    if is_connect(spark):
        return remote or "Spark Connect"
    return str(spark.sparkContext.master)


# --------------------------------------------------------------------------- checks


_MASTER = re.compile(
    r"^(local(\[(\*|\d+)(,\d+)?\])?"
    r"|local-cluster\[\d+,\d+,\d+\]"
    r"|spark://[A-Za-z0-9._-]+:\d{1,5}(,[A-Za-z0-9._-]+:\d{1,5})*"
    r"|yarn"
    r"|k8s://(https?://)?[A-Za-z0-9._-]+(:\d{1,5})?(/.*)?"
    r"|mesos://.+)$")
_REMOTE = re.compile(r"^sc://(?P<host>\[[0-9A-Fa-f:]+\]|[A-Za-z0-9._-]+)(:(?P<port>\d{1,5}))?/?(;.*)?$")
OUTPUTS = ("records", "errors", "messages", "_summary.json")


def _reachable(host: str, port: int) -> str:
    """'' when something listens at host:port (2 s), else why not."""
    try:
        with socket.create_connection((host, port), timeout=2):
            return ""
    except OSError as e:
        return e.strerror or str(e)


def check_master(master: str) -> None:
    """A well-formed master URL, and for ``spark://`` a master that answers (2 s), before
    a JVM is started."""
    if not _MASTER.match(master):
        raise InputError(f"--master: {master!r} is not a Spark master URL (local[N], "
                         "local-cluster[W,C,MB], spark://HOST:PORT, yarn, k8s://https://HOST:PORT)")
    if master.startswith("spark://"):
        errors = []
        for hostport in master.removeprefix("spark://").split(","):
            host, _, port = hostport.rpartition(":")
            why = _reachable(host, int(port))
            if not why:
                return
            errors.append(why)
        raise EnvError(f"spark-extract: master {master} unreachable ({'; '.join(errors)})")


def check_remote(remote: str) -> None:
    """A Spark Connect URL (``sc://HOST[:PORT][/;key=value...]``, port 15002 by default)
    whose server answers (2 s)."""
    m = _REMOTE.match(remote)
    if not m:
        raise InputError(f"--remote: {remote!r} is not a Spark Connect URL (sc://HOST:PORT)")
    host = m.group("host").strip("[]")
    port = int(m.group("port") or 15002)
    why = _reachable(host, port)
    if why:
        raise EnvError(f"spark-extract: Spark Connect server {remote} unreachable ({why})")


def check_output(outdir: str, force: bool, writer: str = "arrow",
                 outputs: tuple[str, ...] = OUTPUTS) -> None:
    """OUTDIR holds none of the outputs (unless --force) and can be created and written; a
    URI stays a URI. Spark's writer (``--writer spark``) writes what its Hadoop file systems
    reach: not an object store here (pyspark ships no S3/GCS connector)."""
    from mqtool.io.uris import check_output_dir, is_remote

    if writer == "spark" and is_remote(outdir):
        raise InputError(f"{outdir}: --writer spark cannot write there (Spark's writer needs a "
                         "Hadoop connector such as hadoop-aws, which pyspark does not ship); "
                         "the default --writer arrow writes it through pyarrow.fs")
    check_output_dir(outdir, force, outputs)


def check_inputs(inputs: list[str]) -> None:
    """Names the executors can read: no stdin, no URI no file system serves."""
    from mqtool.io.uris import refuse_unserved

    if "-" in inputs:
        raise InputError("spark-extract: stdin (-) cannot be split across executors; "
                         "give files, directories, globs or URIs")
    for name in inputs:
        refuse_unserved(name, "an input")


def check_session(master: str, remote: str) -> None:
    """The master (and pyspark, Java) or the Spark Connect server (and its client)."""
    if remote:
        check_remote(remote)
        connect_check()
        return
    check_master(master)
    java_check()
    pyspark_check()


def listing(inputs: list[str], fs_options: dict[str, str] | None = None,
            fmt: str = "csq1logp") -> Listing:
    """Every input file and its size (a listing, nothing read); all empty:
    ``EmptyInputError`` (exit 2)."""
    from mqtool.io.uris import list_files

    files = list_files(inputs, fs_options)
    if not any(size for _, size in files):
        raise EmptyInputError(fmt, ", ".join(inputs))
    return files


def preflight(master: str, opts: JobOptions) -> Listing:
    """Everything that can be checked before the JVM starts; nothing is created. Returns
    the listing of the inputs (no data read)."""
    check_inputs(opts.inputs)
    check_output(opts.outdir, opts.force, opts.writer)
    files = listing(opts.inputs, opts.fs_options)
    check_session(master, opts.remote)
    return files


def cut(files: Listing, split: int) -> Ranges:
    """``(path, uri, start, end, size)`` of every byte range of the files: no data read."""
    from mqtool import api
    from mqtool.io.uris import absolute

    out: Ranges = []
    for path, size in files:
        uri = absolute(path)
        out += [(path, uri, r.start, r.end, size) for r in api.byte_ranges(path, size, split)]
    return out


# --------------------------------------------------------------------------- the job


MIN_SPLIT, MAX_SPLIT = 64 << 20, 128 << 20


def auto_split(total: int, parallelism: int) -> int:
    """About one split per core, between 64 MB and 128 MB: every task pays ~0.15 s for its
    Python worker, so finer splits cost more than they balance. Large inputs still get many
    128 MB splits, so one big file keeps every core busy."""
    return max(MIN_SPLIT, min(MAX_SPLIT, -(-total // max(1, parallelism))))


def run(master: str, conf: dict[str, str], opts: JobOptions, spark: Any = None,
        progress: Any = None, started: Any = None) -> dict[str, Any]:
    """Check, start Spark (or connect), run the job (in this process); returns the summary
    written to ``_summary.json``. Spark failures are EnvError naming the master (exit 4).
    ``started(spark)`` is called once the session is up; ``progress(done, total, bytes)``
    while tasks run."""
    where = opts.remote or master
    return in_session(master, conf, opts, lambda: preflight(master, opts),
                      lambda sp, files, ss: run_job(sp, opts, where, progress, files, ss),
                      spark, started)


def in_session(master: str, conf: dict[str, str], opts: Any, check: Any, body: Any,
               spark: Any = None, started: Any = None,
               app: str = "mqtool spark-extract") -> dict[str, Any]:
    """``check()`` (everything before the JVM; returns the listing), then ``body(spark,
    listing, session_s)`` in a session started here (stopped after) unless one is given.
    The JVM's own output goes to a log file that the job keeps in ``OUTDIR/_logs/``
    (``keep_log``); when the job fails it stays in ``$TMPDIR`` and a Spark failure's message
    names it. ``opts``: ``verbose``, ``remote``, ``log`` (set here)."""
    files = check()
    own = spark is None
    t0 = time.perf_counter()
    if own and not opts.verbose and not opts.remote:
        fd, opts.log = tempfile.mkstemp(prefix="mqtool-spark-", suffix=".log")
        os.close(fd)
    try:
        spark = spark or _start(master, conf, opts, app)
        if started is not None:
            started(spark)
        result: dict[str, Any] = body(spark, files, time.perf_counter() - t0)
        _drop(opts.log)  # kept in the output by now
        return result
    except EnvError as e:  # a Spark failure: its log says more
        if opts.log and os.path.exists(opts.log):
            raise EnvError(f"{e}; Spark's log: {opts.log}") from None
        raise
    except BaseException:
        _drop(opts.log)
        raise
    finally:
        if own and spark is not None:
            with contextlib.suppress(Exception):
                spark.stop()


def _start(master: str, conf: dict[str, str], opts: Any, app: str) -> Any:
    try:
        return session(master, conf, app, verbose=opts.verbose, remote=opts.remote, log=opts.log)
    except MqtoolError:
        raise
    except Exception as e:  # noqa: BLE001 (any Spark or py4j failure: one line)
        raise _spark_error(e, opts.remote or master) from None


def _drop(log: str) -> None:
    if log:
        with contextlib.suppress(OSError):
            os.unlink(log)


def keep_log(opts: Any, root: str) -> str:
    """The JVM's log so far into ``root/_logs/`` (``spark-<time>.log``); its new place."""
    from mqtool.io.outputs import atomic_path
    from mqtool.io.uris import is_remote, join

    if not opts.log or not os.path.exists(opts.log):
        return ""
    target = join(root, "_logs", time.strftime("spark-%Y%m%dT%H%M%S.log", time.gmtime()))
    if not is_remote(target):
        os.makedirs(os.path.dirname(target), exist_ok=True)
    with atomic_path(target, force=True, check=False) as tmp:
        shutil.copyfile(opts.log, tmp)
    return target


def run_job(spark: Any, opts: JobOptions, master: str = "", progress: Any = None,
            files: Listing | None = None, session_s: float | None = None) -> dict[str, Any]:
    """The job in a running session: plan, tasks, commit, ``_summary.json``, the log,
    ``_SUCCESS`` (object stores); returns the summary."""
    from mqtool import api
    from mqtool.io.outputs import staged_dirs
    from mqtool.io.uris import driver_settings, join, local_path
    from mqtool.io.uris import is_remote as remote
    from mqtool.spark.datasource import filters_from

    t0 = time.perf_counter()
    master = master or master_of(spark, opts.remote)
    check_output(opts.outdir, opts.force, opts.writer)
    opts.fs_options = {**driver_settings(), **opts.fs_options}  # endpoint, region: not secrets
    try:
        filters = filters_from(opts.filters)
    except ValueError as e:
        raise InputError(str(e)) from None
    files = files if files is not None else listing(opts.inputs, opts.fs_options)
    total = sum(size for _, size in files)
    split = opts.split_size or auto_split(total, parallelism(spark))
    ranges = cut(files, split)
    t_plan = time.perf_counter() - t0
    summary = api.csq1logp_summary(opts.mode)
    per_file: dict[str, int] = {}
    for r in ranges:
        per_file[r[0]] = per_file.get(r[0], 0) + 1
    summary.files += [{"file": p, "bytes": size, "ranges": per_file.get(p, 0)} for p, size in files]
    summary.bytes = total
    root = opts.outdir.rstrip("/") if remote(opts.outdir) else str(Path(local_path(opts.outdir)).resolve())
    staged = staged_dirs(root, api.csq1logp_out_dirs(), opts.fs_options)
    with staged as scratch:
        t_jobs = time.perf_counter()
        stats = _jobs(spark, ranges, opts, filters, str(scratch), progress, master,
                      getattr(staged, "run", ""))
        t_jobs = time.perf_counter() - t_jobs
        _count(summary, stats, opts.mode)
        staged.keep(f for st in stats for f in st.get("files", []))
        if not remote(root) and summary.rows and not any(
                (Path(scratch) / d).exists() for d in ("records", "errors")):
            raise EnvError(f"spark-extract: the executors wrote {summary.rows} rows but none "
                           f"reached {root}: is it on a file system they share? (else an "
                           "object store: -o s3://...)")
    info = summary.to_json()
    info.update(output=root, master=master, split_size=split, ranges=len(ranges))
    info.update(_timings(stats, t0, t_plan, t_jobs, session_s, opts.started))
    api.write_summary(join(root, "_summary.json"), info)
    keep_log(opts, root)
    staged.success()
    return info


def _timings(stats: list[dict[str, Any]], t0: float, t_plan: float, t_jobs: float,
             session_s: float | None, started: float | None) -> dict[str, Any]:
    """Where the time went: planning, the Spark jobs (and inside them the tasks' decoding
    and writing, summed over tasks), the whole job; with the JVM's start (``session_s``)
    and from the command's start (``wall_s``, the cold run) when known."""
    now = time.perf_counter()
    out: dict[str, Any] = {
        "planning_s": round(t_plan, 3),
        "spark_jobs_s": round(t_jobs, 3),  # the rest of elapsed_s is the driver's own work
        "tasks_decode_s": round(sum(st.get("decode_s", 0.0) for st in stats), 3),
        "tasks_write_s": round(sum(st.get("write_s", 0.0) for st in stats), 3),
        "elapsed_s": round(now - t0, 3),
    }
    if session_s is not None:
        out["session_s"] = round(session_s, 3)  # the JVM's start and the session's set-up
    if started is not None:
        out["wall_s"] = round(now - started, 3)  # from the command's start: the cold run
    return out


def _jobs(spark: Any, ranges: Ranges, opts: JobOptions, filters: Any, scratch: str,
          progress: Any, master: str, run_id: str) -> list[dict[str, Any]]:
    """The Spark jobs that write into ``scratch``: their stats rows; a Spark or py4j
    failure is one line."""
    try:
        if opts.writer == "arrow":
            return _arrow_job(spark, ranges, opts, filters, scratch, progress, run_id)
        return _spark_writer_job(spark, opts, Path(scratch))
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
        summary.errors.update(_dict(st["errors"]))
        summary.corrupt_fields.update(_dict(st["problems"]))
        summary.rows += st["rows"]
        summary.messages += st["messages"]
        summary.incomplete += st["incomplete"]
        summary.message_problems.update(_dict(st["mproblems"]))
        if st["first"] and not summary.first_error:
            summary.first_error = st["first"]
    if mode == "DROPMALFORMED":
        summary.dropped = sum(summary.errors.values())


def _dict(value: Any) -> dict[str, int]:
    return json.loads(value) if isinstance(value, str) else dict(value)


def _arrow_job(spark: Any, ranges: Ranges, opts: JobOptions, filters: Any, scratch: str,
               progress: Any, run_id: str) -> list[dict[str, Any]]:
    from mqtool.spark.arrow_writer import WriteOptions, run_ranges

    wo = WriteOptions(scratch, opts.framing, opts.codepage, opts.mode, filters or None,
                      opts.messages, opts.max_seg, dict(opts.fs_options), list(ranges), run_id,
                      os.environ.get("MQTOOL_SPARK_FAULT", ""))
    total = sum(r[3] - r[2] for r in ranges)
    with _Tracker(spark, progress, total):
        stats = run_ranges(spark, wo)
    stats.sort(key=lambda st: st["split"] if st["split"] >= 0 else len(ranges) - st["split"])
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
        if self.progress is not None and not is_connect(self.spark):  # Connect has no tracker
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
    m = re.search(r"(?:MalformedError|DecodeError): ((?:csq1logp|urb): .*?\(mode FAILFAST\))", text)
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
