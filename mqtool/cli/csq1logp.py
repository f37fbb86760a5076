"""``mqtool decode csq1logp``, ``mqtool extract`` and ``mqtool spark-extract``."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import click

from mqtool.cli._common import (
    Env,
    Progress,
    codepage_option,
    decode_sources,
    decoder_options,
    emit_units,
    get_env,
    select_options,
    selection,
    spark_conf,
    summary_option,
    window,
    write_summary,
)
from mqtool.cli._spark import remote_option, report_spark_run, session_target, verbose_option
from mqtool.errors import ExitStatus

FRAMING_HELP = ("Record framing: rdw (FTP 'quote site rdw'), bdw (BDW+RDW blocks, RECFM=U "
                "copies), none (no RDWs: boundaries from ldatalen), auto (detect).")
MODE_HELP = ("Bad spans: PERMISSIVE (one error row each, then resynchronise), DROPMALFORMED "
             "(leave them out, still counted), FAILFAST (stop at the first, exit 2).")


def _framing(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--framing", type=click.Choice(["auto", "rdw", "bdw", "none"]),
                        default="auto", show_default=True, help=FRAMING_HELP)(f)


_codepage_opt = codepage_option("EBCDIC code page of the character fields: 037, 500, 1047, "
                                "1140, ...", "037", ebcdic=True)


def _mode_opt(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--mode", type=click.Choice(["PERMISSIVE", "DROPMALFORMED", "FAILFAST"],
                                                    case_sensitive=False),
                        default="PERMISSIVE", show_default=True, help=MODE_HELP)(f)


def _size(ctx: click.Context, param: click.Parameter, value: str | None) -> int | None:
    if value is None:
        return None
    from mqtool import api

    try:
        return api.parse_size(value)
    except ValueError as e:
        raise click.BadParameter(str(e)) from None


# --------------------------------------------------------------------------- decode


@click.command(short_help="IBM MQ for z/OS CSQ1LOGP EXTRACT records.")
@decoder_options
@_framing
@_codepage_opt
@click.option("--leap-seconds", type=click.IntRange(0, 60), default=0, show_default=True,
              metavar="N", help="Subtract N seconds from STCK times (TOD steered to include leap "
                                "seconds; 27 since 2017).")
def decode_csq1logp(file: str, hex_text: bool, json_out: bool, raw: bool, annotate: bool,
                    tz: Any, strict: bool, framing: str, codepage: str, leap_seconds: int) -> int:
    """Decode the records of a CSQ1LOGP EXTRACT(YES) data set (CSQBACK, CSQCMT, CSQBOTH,
    CSQINFLT, CSQOBJS) as copied off z/OS: every field of the CSQ4LOGD layout with its byte
    span, STCK times in UTC (--tz for listings), csrecorddate parsed (z/OS local time, kept
    naive), keys and RBAs in hex, and the message data.

    The framing is detected (RDW, BDW+RDW or none) unless --framing says; each record's
    heading says whether its fixed part is 199 or 200 bytes (csbora present) and why. A bad
    span is reported with its offset and decoding resumes at the next record (exit 2). A
    directory of extracts (or of dumps and message bodies) is decoded file by file.
    """
    from mqtool import api
    from mqtool.errors import DecodeError

    env = get_env()
    options: dict[str, Any] = {"framing": framing, "codepage": codepage, "leap_seconds": leap_seconds}
    units = (decode_sources(file, hex_text, lambda data: api.decode("csq1logp", data, **options))
             if os.path.isdir(file) else api.decode_file("csq1logp", file, hex_text, window(),
                                                         **options))
    seen = 0

    def counted() -> Iterator[Any]:
        nonlocal seen
        for item in units:
            seen += 1
            yield item

    status = emit_units(env, counted(), json_out=json_out, raw=raw, annotate=annotate, tz=tz,
                        strict_problems=strict)
    if not seen:
        raise DecodeError("csq1logp", "", 0, "empty input, no records")
    return status


# --------------------------------------------------------------------------- extract


@click.command(short_help="Bulk-extract CSQ1LOGP records to JSON lines, CSV or Parquet (no JVM).")
@click.argument("files", nargs=-1, required=True, metavar="FILE...", type=click.Path(allow_dash=True))
@click.option("-o", "--output", metavar="OUT", type=click.Path(),
              help="Output file; its extension picks the format (.jsonl, .csv, .parquet). "
                   "Default: JSON lines on stdout.")
@click.option("--to", type=click.Choice(["jsonl", "csv", "parquet"]), default=None,
              help="Output format, whatever the extension.")
@_framing
@_codepage_opt
@_mode_opt
@click.option("--queue", multiple=True, metavar="GLOB",
              help="Only records of queues matching GLOB (e.g. 'PAYROLL.*'); repeatable.")
@click.option("--verb", multiple=True, metavar="VERB",
              help="Only these csverb values (MQPUT, MQGET, ...); repeatable.")
@click.option("--urid", multiple=True, metavar="HEX", help="Only this unit of work (12 hex digits).")
@click.option("--qmgr", multiple=True, metavar="NAME", help="Only this queue manager.")
@click.option("--since", metavar="TIME", help="Only records with dtodout at or after TIME "
                                                "(ISO-8601, UTC unless it has a zone).")
@click.option("--until", metavar="TIME", help="Only records with dtodout before TIME.")
@click.option("--status", multiple=True, metavar="S",
              help="Only units of work in this state: C/committed, B/backed-out, I/inflight.")
@click.option("--messages", is_flag=True,
              help="One row per logical message (multi-segment data reassembled) instead of "
                   "one per record.")
@click.option("--max-segment", type=click.IntRange(1, 32752), default=32552, show_default=True,
              help="Largest data slice of one record (a shorter one ends a message).")
@click.option("-j", "--workers", type=click.IntRange(1, 256), default=None,
              help="Processes for large inputs (default: every core).")
@click.option("--split-size", callback=_size, default="32m", show_default=True, metavar="SIZE",
              help="Cut files larger than two splits at record boundaries into SIZE pieces.")
@summary_option
@click.option("--force", is_flag=True, help="Overwrite an existing output file.")
@select_options
def extract(files: tuple[str, ...], output: str | None, to: str | None, framing: str,
            codepage: str, mode: str, queue: tuple[str, ...], verb: tuple[str, ...],
            urid: tuple[str, ...], qmgr: tuple[str, ...], since: str | None, until: str | None,
            status: tuple[str, ...], messages: bool, max_segment: int, workers: int | None,
            split_size: int, summary_path: str | None, force: bool) -> int:
    """Decode every record of CSQ1LOGP extract files into rows (JSON lines, CSV or Parquet),
    with provenance columns file, offset, rec_no, rec_len and log_date (UTC date of dtodout).

    Bad spans (damaged RDWs, truncated tails) follow --mode; field-level problems keep the
    row and are listed in _corrupt_fields. Large files are split at record boundaries and
    decoded by every core. Exit status 2 when any bad span was met (the rows were still
    written), 3 when --messages found incomplete messages.
    """
    from mqtool import api
    from mqtool.errors import MqtoolError
    from mqtool.io.inputs import total_size

    env = get_env()
    run = api.ExtractRun(to, framing, codepage, mode, _filters(queue, verb, urid, qmgr, since,
                                                               until, status),
                         messages, max_segment, workers, split_size, force, summary_path,
                         selection())
    try:
        with Progress(env, "extract", total_size(files), steps=True) as advance:
            info = api.extract_csq1logp(files, output, run, stdout=env.stdout, progress=advance)
    except MqtoolError as e:
        if summary_path and hasattr(e, "summary"):
            write_summary(env, summary_path, {**e.summary, "failed": str(e)})
        raise
    if summary_path:
        write_summary(env, summary_path, info)
    if env.stderr_isatty:
        print_summary(env, info)
    return _status(env, info)


def _filters(queue: tuple[str, ...], verb: tuple[str, ...], urid: tuple[str, ...],
             qmgr: tuple[str, ...], since: str | None, until: str | None,
             status: tuple[str, ...]) -> Any:
    from mqtool import api

    try:
        return api.csq1logp_filters(queue, verb, urid, qmgr, since, until, status)
    except ValueError as e:
        raise click.UsageError(str(e)) from None


def _status(env: Env, info: dict[str, Any]) -> int:
    if not info["records"] and not info["bad_spans"]:
        env.error("csq1logp: empty input, no records")
        return ExitStatus.DECODE
    bad = info["bad_spans"]
    if bad:
        by = ", ".join(f"{k} {v}" for k, v in info["errors_by_reason"].items())
        env.error(f"csq1logp: {bad} bad span{'s' if bad > 1 else ''} ({by}); first: "
                  f"{info.get('first_error', '')}")
        return ExitStatus.DECODE
    msgs = info.get("messages")
    if msgs and msgs["incomplete"]:
        by = ", ".join(f"{k} {v}" for k, v in msgs["problems"].items())
        env.error(f"csq1logp: {msgs['incomplete']} incomplete message(s) ({by})")
        return ExitStatus.INCOMPLETE
    return ExitStatus.OK


def print_summary(env: Env, info: dict[str, Any]) -> None:
    """The rich summary on stderr (values escaped: ``render.terminal``)."""
    from rich.table import Table

    from mqtool.render.terminal import text

    console = env.console_err()
    t = Table(title="CSQ1LOGP extract", show_header=False, box=None)
    t.add_row("files", str(len(info["files"])))
    t.add_row("bytes", f"{info['bytes']:,}")
    t.add_row("records", f"{info['records']:,}")
    t.add_row("bad spans", f"{info['bad_spans']:,}" + (f" ({info['mode']})" if info["bad_spans"] else ""))
    for reason, n in info["errors_by_reason"].items():
        t.add_row(text(f"  {reason}"), f"{n:,}")
    for name, n in info["corrupt_fields"].items():
        t.add_row(text(f"  corrupt {name}"), f"{n:,}")
    if "messages" in info:
        m = info["messages"]
        t.add_row("messages", f"{m['total']:,} ({m['incomplete']:,} incomplete)")
        for reason, n in m["problems"].items():
            t.add_row(text(f"  {reason}"), f"{n:,}")
    t.add_row("rows written", f"{info['rows_written']:,}")
    for k in ("output", "elapsed_s", "master"):
        if k in info:
            t.add_row(k.replace("_s", " (s)"), text(info[k]))
    console.print(t)


# --------------------------------------------------------------------------- spark-extract


def _filter_opts(f: Callable[..., Any]) -> Callable[..., Any]:
    """extract's row filters (also on spark-extract and as DataSource options)."""
    for opt in reversed([
        click.option("--queue", multiple=True, metavar="GLOB",
                     help="Only records of queues matching GLOB (e.g. 'PAYROLL.*'); repeatable."),
        click.option("--verb", multiple=True, metavar="VERB",
                     help="Only these csverb values (MQPUT, MQGET, ...); repeatable."),
        click.option("--urid", multiple=True, metavar="HEX",
                     help="Only this unit of work (12 hex digits)."),
        click.option("--qmgr", multiple=True, metavar="NAME", help="Only this queue manager."),
        click.option("--since", metavar="TIME", help="Only records with dtodout at or after "
                                                     "TIME (ISO-8601, UTC unless it has a zone)."),
        click.option("--until", metavar="TIME", help="Only records with dtodout before TIME."),
        click.option("--status", multiple=True, metavar="S",
                     help="Only units of work in this state: C/committed, B/backed-out, "
                          "I/inflight."),
    ]):
        f = opt(f)
    return f


@click.command(short_help="Extract CSQ1LOGP records with PySpark into partitioned Parquet.")
@click.argument("inputs", nargs=-1, required=True, metavar="INPUT...", type=click.Path())
@click.option("-o", "--output", "outdir", required=True, metavar="OUTDIR", type=click.Path(),
              help="Output directory: records/ (Parquet in log_date=YYYY-MM-DD folders), errors/, "
                   "messages/, _summary.json.")
@click.option("--master", default="local[*]", show_default=True, metavar="URL",
              help="Spark master: local[N], local-cluster[W,C,MB], spark://HOST:PORT, yarn, "
                   "k8s://...")
@click.option("--conf", "confs", multiple=True, metavar="K=V", help="Spark configuration; repeatable.")
@click.option("--print-submit", is_flag=True,
              help="Print the equivalent spark-submit command line and exit.")
@_framing
@_codepage_opt
@_mode_opt
@_filter_opts
@click.option("--split-size", callback=_size, default=None, metavar="SIZE",
              help="Byte range per task, 1k and up (default: about one per core, 64m..128m).")
@click.option("--messages", is_flag=True,
              help="Also write messages/: one row per logical message, segments reassembled.")
@click.option("--max-segment", type=click.IntRange(1, 32752), default=32552, show_default=True,
              help="Largest data slice of one record (a shorter one ends a message).")
@click.option("--force", is_flag=True, help="Replace existing records/, errors/, messages/ in OUTDIR.")
@click.option("--writer", type=click.Choice(["arrow", "spark"]), default="arrow", show_default=True,
              help="Who writes the output: arrow = each executor task writes its range with "
                   "pyarrow (fast; OUTDIR a filesystem the executors share or an object store: "
                   "s3://, gs://, hdfs://); spark = Spark's writer through the DataSource "
                   "(local and shared filesystems).")
@remote_option
@summary_option
@verbose_option
def spark_extract(inputs: tuple[str, ...], outdir: str, master: str, confs: tuple[str, ...],
                  print_submit: bool, framing: str, codepage: str, mode: str,
                  queue: tuple[str, ...], verb: tuple[str, ...], urid: tuple[str, ...],
                  qmgr: tuple[str, ...], since: str | None, until: str | None,
                  status: tuple[str, ...], split_size: int | None, messages: bool, max_segment: int,
                  force: bool, writer: str, remote: str | None, summary_path: str | None,
                  verbose: bool) -> int:
    """Run the same codec inside Spark. The driver lists the inputs (paths, directories,
    globs, or URIs: file://, s3://, gs://, hdfs://) and cuts them into byte ranges without
    reading them; each executor task finds the records of its range, decodes them with the
    bulk decoder and writes OUTDIR/records/ as Parquet in Hive-style log_date=YYYY-MM-DD
    folders (timestamps TIMESTAMP_MICROS), bad spans to OUTDIR/errors/. With --messages,
    OUTDIR/messages/ holds the reassembled messages (only multi-segment records are
    shuffled). OUTDIR/_summary.json has the counts by reason.

    Inputs, output, master URL and Java (17+) are checked before the JVM starts; nothing is
    created when a check fails. The default master is an embedded local[*]: no cluster
    needed. mqtool is shipped to the executors as a zip (spark.submit.pyFiles), so a
    cluster needs only Python with pyarrow and numpy. S3 settings come from the AWS
    environment (AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY).
    """
    import time

    from mqtool.spark import job

    started_at = time.perf_counter()
    env = get_env()
    conf = spark_conf(confs)
    remote = session_target(master, remote)
    filters = {"queue": ",".join(queue), "verb": ",".join(verb), "urid": ",".join(urid),
               "qmgr": ",".join(qmgr), "since": since or "", "until": until or "",
               "status": ",".join(status)}
    _filters(queue, verb, urid, qmgr, since, until, status)  # refused before the JVM starts
    opts = job.JobOptions(inputs=list(inputs), outdir=outdir, framing=framing, codepage=codepage,
                          mode=mode.upper(), split_size=split_size, messages=messages,
                          max_seg=max_segment, force=force, writer=writer,
                          filters={k: v for k, v in filters.items() if v}, verbose=verbose,
                          remote=remote, started=started_at)
    if print_submit:
        if remote:
            raise click.UsageError("--print-submit: spark-submit does not take --remote; run the "
                                   "command itself")
        env.line(job.submit_line(master, conf, opts))
        return ExitStatus.OK

    def started(spark: Any) -> None:
        if remote or master.startswith("local"):
            return
        url = spark.sparkContext.uiWebUrl
        if url:
            env.error(f"Spark UI: {url}")

    with _task_progress(env) as progress:
        info = job.run(master, conf, opts, progress=progress, started=started)
    report_spark_run(env, info, summary_path, _rows(info), verbose)
    if env.stderr_isatty:
        print_summary(env, info)
    return _status(env, info)


def _rows(info: dict[str, Any]) -> dict[str, int]:
    """Rows written per output folder of a CSQ1LOGP extract directory."""
    errors = info["bad_spans"] if info["mode"] == "PERMISSIVE" else 0
    rows = {"records": info["rows_written"] - errors, "errors": errors}
    if "messages" in info:
        rows["messages"] = info["messages"]["total"]
    return rows


class _task_progress:  # noqa: N801 (a context manager used like a function)
    """Tasks done / total and the input read so far on stderr, only on a terminal."""

    def __init__(self, env: Env) -> None:
        self.env = env
        self.bar: Any = None

    def __enter__(self) -> Callable[[int, int, int], None] | None:
        if not self.env.stderr_isatty:
            return None
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

        self.bar = Progress("spark-extract", BarColumn(), MofNCompleteColumn(), "tasks",
                            "{task.fields[read]}", TimeElapsedColumn(),
                            console=self.env.console_err(), transient=True)
        self.bar.start()
        task = self.bar.add_task("spark-extract", total=None, read="")

        def update(done: int, total: int, read: int) -> None:
            self.bar.update(task, completed=done, total=total, read=f"{read / 1e6:,.0f} MB read")

        return update

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()
