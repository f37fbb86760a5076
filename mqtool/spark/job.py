"""``spark-extract``: the CSQ1LOGP extraction as a Spark job.

In-process (``mqtool spark-extract``, embedded ``local[*]`` by default, or any master), or
through spark-submit with this file as the application::

    spark-submit --master yarn --py-files mqtool-<version>.zip \\
        .../mqtool/spark/job.py INPUT... -o OUTDIR [--messages] [--mode ...]

mqtool goes to the executors as a zip of the package (``SparkContext.addPyFile`` in
process, ``--py-files`` / ``spark.submit.pyFiles`` with spark-submit). The driver does the
header pass (sparse index: splits and counts by reason); then, by default, each executor
task decodes its split and writes its own ``records/log_date=.../part-N.parquet`` with
pyarrow (``direct.py``: one core per task, nothing but a stats row crosses into the JVM);
with ``--writer spark`` the executors decode through the DataSource and Spark's writer
produces ``records/``. ``messages/`` (with ``--messages``) is always Spark's: only the
multi-segment records are shuffled.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mqtool.errors import DecodeError, EnvError, InputError, MqtoolError

PACKAGE = Path(__file__).resolve().parent.parent  # .../mqtool
TUNING = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS",
    "spark.sql.sources.partitionOverwriteMode": "static",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.python.worker.reuse": "true",
}


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
    writer: str = "arrow"  # "arrow": executors write with pyarrow (direct.py); "spark"
    extra: dict[str, Any] = field(default_factory=dict)

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
    import importlib.util

    if importlib.util.find_spec("pyspark") is None:
        raise EnvError("spark-extract needs pyspark 4: pip install 'mqtool[spark]'")


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


def _conf(master: str, conf: dict[str, str]) -> dict[str, str]:
    out = dict(TUNING)
    if master.startswith("local"):
        log4j = PACKAGE / "spark" / "log4j2.properties"
        out["spark.driver.extraJavaOptions"] = f"-Dlog4j.configurationFile=file:{log4j}"
        out["spark.pyspark.python"] = sys.executable
        out["spark.pyspark.driver.python"] = sys.executable
        out["spark.sql.shuffle.partitions"] = "8"
        # local mode: the driver JVM is the executor; at the default 1 GB heap two Parquet
        # writers spend their time in GC (bench/extract.py: 83 -> 97 MB/s with 2 GB)
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


def session(master: str, conf: dict[str, str], app: str = "mqtool spark-extract") -> Any:
    """A Spark session for the job: tuned, mqtool shipped, the DataSource registered."""
    pyspark_check()
    java_check()
    from pyspark.sql import SparkSession

    if master.startswith("local"):
        # every Python process Spark starts here (planner, workers) is this interpreter
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    b = SparkSession.builder.master(master).appName(app)
    for k, v in _conf(master, conf).items():
        b = b.config(k, v)
    spark = b.getOrCreate()
    prepare(spark)
    return spark


def prepare(spark: Any) -> None:
    """Ship mqtool to the executors and register the DataSource (idempotent)."""
    from mqtool.spark.datasource import register

    zip_path = package_zip()
    sc = spark.sparkContext
    if os.path.basename(zip_path) not in getattr(sc, "_python_includes", []):
        sc.addPyFile(zip_path)
    register(spark)


# --------------------------------------------------------------------------- the job


MIN_SPLIT, MAX_SPLIT = 64 << 20, 128 << 20


def auto_split(total: int, parallelism: int) -> int:
    """About one split per core, between 64 MB and 128 MB: every task pays ~0.15 s for its
    Python worker, so finer splits cost more than they balance (bench/extract.py: 4 splits
    per core ran at 82 MB/s on local[2], 1 per core at 129 MB/s). Large inputs still get
    many 128 MB splits, so one big file keeps every core busy."""
    return max(MIN_SPLIT, min(MAX_SPLIT, -(-total // max(1, parallelism))))


def run(master: str, conf: dict[str, str], opts: JobOptions, spark: Any = None) -> dict[str, Any]:
    """Run the job (in this process); returns the summary written to ``_summary.json``."""
    own = spark is None
    spark = spark or session(master, conf)
    try:
        return run_job(spark, opts, master)
    finally:
        if own:
            spark.stop()


def run_job(spark: Any, opts: JobOptions, master: str = "") -> dict[str, Any]:
    from pyspark.errors import PySparkException

    from mqtool.formats.csq1logp.extract import Summary, plan
    from mqtool.io.outputs import OutputDir
    from mqtool.spark.datasource import NAME, expand

    t0 = time.perf_counter()
    files = expand(opts.inputs)
    if not files:
        raise InputError("spark-extract: no input files")
    out = OutputDir(opts.outdir, opts.force)
    targets = ["records", *(["messages"] if opts.messages else [])]
    for t in targets:
        if out.path(t).exists() and not opts.force:
            raise MqtoolError(f"{out.path(t)} exists (use --force to replace it)")
    total = sum(os.path.getsize(f) for f in files if os.path.isfile(f))
    split = opts.split_size or auto_split(total, spark.sparkContext.defaultParallelism)
    indexes = plan(files, opts.framing, opts.codepage, split, index_all=True)
    summary = Summary(mode=opts.mode)
    splits = []
    for ix in indexes:
        summary.files.append({"file": ix.path, "bytes": ix.size, "framing": ix.framing,
                              "framing_reason": ix.framing_reason, "splits": len(ix.splits)})
        summary.bytes += ix.size
        summary.records += ix.records
        summary.errors.update(ix.errors)
        if ix.first_error is not None and not summary.first_error:
            fr = ix.first_error
            summary.first_error = (f"{fr.error}: {fr.detail} at {fr.path}, offset X'{fr.offset:04X}' "
                                   f"({fr.offset}) in {ix.path}")
            if opts.mode == "FAILFAST":
                raise DecodeError("csq1logp", fr.path, fr.offset,
                                  f"{fr.error}: {fr.detail} in {ix.path} (mode FAILFAST)")
        splits += [[s.path, s.start, s.end, s.rec_no, s.framing] for s in ix.splits]
    if opts.mode == "DROPMALFORMED":
        summary.dropped = sum(summary.errors.values())
    write_mode = "overwrite" if opts.force else "errorifexists"
    try:
        if opts.writer == "arrow":  # the executors decode and write (direct.py)
            from mqtool.spark.arrow_writer import write_records

            rec_dir = out.path("records")
            if rec_dir.exists():
                shutil.rmtree(rec_dir)  # --force was checked above
            rec_dir.mkdir(parents=True)
            _rows, problems = write_records(spark, splits, {}, str(rec_dir), opts.codepage,
                                            opts.mode)
            summary.corrupt_fields.update(problems)
            records = spark.read.parquet(str(rec_dir)) if opts.messages else None
        else:  # Spark's own writer, through the DataSource
            reader = (spark.read.format(NAME).option("framing", opts.framing)
                      .option("codepage", opts.codepage).option("mode", opts.mode)
                      .option("_splits", json.dumps(splits)))
            records = reader.load()
            if opts.messages:
                records = records.persist()
            obs = _write(records, write_mode, str(out.path("records")), CORRUPT_COUNTS)
            summary.corrupt_fields.update({k: v for k, v in obs.items() if v})
        summary.rows = summary.records + (sum(summary.errors.values())
                                          if opts.mode == "PERMISSIVE" else 0)
        if opts.messages:
            obs = _write(messages_frame(records, opts.max_seg), write_mode,
                         str(out.path("messages")), MESSAGE_COUNTS)
            if opts.writer != "arrow":
                records.unpersist()
            summary.messages, summary.incomplete = obs.pop("_messages"), obs.pop("_incomplete")
            summary.message_problems.update({k: v for k, v in obs.items() if v})
    except PySparkException as e:
        raise _spark_error(e) from None
    except Exception as e:
        if type(e).__module__.startswith(("py4j", "pyspark")):
            raise _spark_error(e) from None
        raise
    info = summary.to_json()
    info["output"] = str(out.root)
    info["master"] = master or spark.sparkContext.master
    info["split_size"] = split
    info["elapsed_s"] = round(time.perf_counter() - t0, 3)
    with open(out.path("_summary.json"), "w", encoding="utf-8") as f:
        json.dump(info, f, indent=2)
        f.write("\n")
    return info


def _spark_error(e: Exception) -> MqtoolError:
    text = str(e)
    m = re.search(r"MalformedError: (csq1logp: .*?\(mode FAILFAST\))", text)
    if m:
        err = MqtoolError(m.group(1))
        err.status = DecodeError.status  # type: ignore[misc]
        return err
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), type(e).__name__)
    return EnvError(f"spark-extract: Spark failed: {first[:500]}")


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

    from mqtool.formats.csq1logp.segments import message_schema, standalone_sql
    from mqtool.spark.datasource import spark_schema

    schema = spark_schema(message_schema())
    alone = F.expr(standalone_sql(max_seg))
    singles = records.filter(alone).mapInArrow(_singles, schema)
    multi = (records.filter(~alone).repartition("file").sortWithinPartitions("file", "offset")
             .mapInArrow(_Reassemble(max_seg), schema))
    return singles.unionByName(multi)


def _singles(batches: Any) -> Any:
    from mqtool.formats.csq1logp.segments import singles

    for b in batches:
        yield from singles(b).to_batches()


class _Reassemble:
    def __init__(self, max_seg: int) -> None:
        self.max_seg = max_seg

    def __call__(self, batches: Any) -> Any:
        import pyarrow as pa

        from mqtool.formats.csq1logp.segments import Reassembler, message_schema

        r = Reassembler(self.max_seg)
        schema = message_schema()
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
    a = p.parse_args(argv)
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName("mqtool spark-extract").getOrCreate()
    prepare(spark)
    opts = JobOptions(a.inputs, a.output, a.framing, a.codepage, a.mode, a.split_size, a.messages,
                      a.max_segment, a.force, a.writer)
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
