"""``mqtool decode csq1logp``, ``mqtool extract`` and ``mqtool spark-extract``."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

import click

from mqtool.cli._common import Env, decoder_options, emit_units, get_env, read_unit_input
from mqtool.errors import ExitStatus, InputError

FRAMING_HELP = ("Record framing: rdw (FTP 'quote site rdw'), bdw (BDW+RDW blocks, RECFM=U "
                "copies), none (no RDWs: boundaries from ldatalen), auto (detect).")
MODE_HELP = ("Bad spans: PERMISSIVE (one error row each, then resynchronise), DROPMALFORMED "
             "(leave them out, still counted), FAILFAST (stop at the first, exit 2).")


def _framing(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--framing", type=click.Choice(["auto", "rdw", "bdw", "none"]),
                        default="auto", show_default=True, help=FRAMING_HELP)(f)


def _codepage(ctx: click.Context, param: click.Parameter, value: str) -> str:
    from mqtool.codepages import codec_name, is_ebcdic

    try:
        name = codec_name(value)
    except LookupError as e:
        raise click.BadParameter(str(e).strip("'\"")) from None
    if not is_ebcdic(name):
        raise click.BadParameter(f"{value!r} is not an EBCDIC code page (CSQ1LOGP writes EBCDIC)")
    return name


def _codepage_opt(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--codepage", default="cp037", show_default=True, metavar="CP",
                        callback=_codepage,
                        help="EBCDIC code page of the character fields: 037, 500, 1047, 1140, ...")(f)


def _mode_opt(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--mode", type=click.Choice(["PERMISSIVE", "DROPMALFORMED", "FAILFAST"],
                                                    case_sensitive=False),
                        default="PERMISSIVE", show_default=True, help=MODE_HELP)(f)


def _size(ctx: click.Context, param: click.Parameter, value: str | None) -> int | None:
    if value is None:
        return None
    from mqtool.formats.csq1logp.extract import parse_size

    try:
        return parse_size(value)
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
                    tz: Any, framing: str, codepage: str, leap_seconds: int) -> int:
    """Decode the records of a CSQ1LOGP EXTRACT(YES) data set (CSQBACK, CSQCMT, CSQBOTH,
    CSQINFLT, CSQOBJS) as copied off z/OS: every field of the CSQ4LOGD layout with its byte
    span, STCK times in UTC (--tz for listings), csrecorddate parsed (z/OS local time, kept
    naive), keys and RBAs in hex, and the message data.

    The framing is detected (RDW, BDW+RDW or none) unless --framing says; each record's
    heading says whether its fixed part is 199 or 200 bytes (csbora present) and why. A bad
    span is reported with its offset and decoding resumes at the next record (exit 2).
    """
    from mqtool.errors import DecodeError
    from mqtool.formats.csq1logp.decode import decode_stream

    env = get_env()
    if not hex_text and file != "-" and os.path.isfile(file):
        # a file of any size: framed and printed piece by piece (bounded memory)
        from mqtool.formats.csq1logp.framing import SNIFF, read_chunks

        head = b"".join(read_chunks(file, 0, SNIFF, SNIFF))
        read_unit_input(file, False, head)  # refuses dump text with a hint
        units = decode_stream(read_chunks(file), head, framing, codepage,
                              leap_seconds=leap_seconds, final=len(head) < SNIFF)
    else:
        data = read_unit_input(file, hex_text)
        units = decode_stream([data], data[:65536], framing, codepage, leap_seconds=leap_seconds)
    seen = 0

    def counted() -> Iterator[Any]:
        nonlocal seen
        for item in units:
            seen += 1
            yield item

    status = emit_units(env, counted(), json_out=json_out, raw=raw, annotate=annotate, tz=tz)
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
@click.option("--summary", "summary_path", metavar="FILE", type=click.Path(),
              help="Also write the summary as JSON.")
@click.option("--force", is_flag=True, help="Overwrite an existing output file.")
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
    from mqtool.errors import MqtoolError
    from mqtool.formats.csq1logp.extract import Filters, Summary, output_format
    from mqtool.formats.csq1logp.extract import extract as run_extract
    from mqtool.io.outputs import check_output, write_file

    env = get_env()
    try:
        filters = Filters.make(queue, verb, urid, qmgr, since, until, status)
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    from mqtool.formats.csq1logp.extract import is_dir_output

    if is_dir_output(output):
        return _extract_to_dir(env, files, output, framing, codepage, mode, filters,  # type: ignore[arg-type]
                               messages, max_segment, workers, split_size, summary_path, force)
    fmt = output_format(output, to)
    to_file = bool(output and output != "-")
    if not to_file and fmt == "parquet":
        raise click.UsageError("Parquet needs a file: -o OUT.parquet")
    if to_file:
        check_output(output, force)  # type: ignore[arg-type]
    if summary_path:
        check_output(summary_path, True)
    summary = Summary(mode=mode.upper())
    paths, names, cleanup = _spool_stdin(files)
    failed: MqtoolError | None = None
    try:
        total = sum(os.path.getsize(p) for p in paths if os.path.isfile(p))
        with _progress(env, total) as advance:
            run_extract(paths, output if to_file else env.stdout, fmt=fmt,  # type: ignore[arg-type]
                        framing=framing, codepage=codepage, mode=mode.upper(), filters=filters,
                        messages=messages, max_seg=max_segment, workers=workers,
                        split_size=split_size, progress=advance, names=names, summary=summary,
                        force=force)
    except MqtoolError as e:
        failed = e  # the output file was not written (extract writes it whole or not at all)
    finally:
        for p in cleanup:
            os.unlink(p)
    info = summary.to_json()
    if failed is not None:
        info["failed"] = str(failed)
    if summary_path:
        write_file(summary_path, (json.dumps(info, indent=2) + "\n").encode("utf-8"), force=True)
    if failed is not None:
        raise failed
    if env.stderr_isatty:
        print_summary(env, info)
    return _status(env, info)


def _extract_to_dir(env: Env, files: tuple[str, ...], outdir: str, framing: str, codepage: str,
                    mode: str, filters: Any, messages: bool, max_segment: int,
                    workers: int | None, split_size: int, summary_path: str | None,
                    force: bool) -> int:
    """``extract -o DIR/``: spark-extract's layout (records/ by log_date, errors/,
    messages/, _summary.json), written in a scratch folder and moved into place."""
    from pathlib import Path

    from mqtool.formats.csq1logp.extract import Summary
    from mqtool.formats.csq1logp.extract import extract as run_extract
    from mqtool.io.outputs import check_output, write_file
    from mqtool.spark.job import check_output as check_dir

    check_dir(outdir, force)
    if summary_path:
        check_output(summary_path, True)
    root = Path(outdir).resolve()
    paths, names, cleanup = _spool_stdin(files)
    summary = Summary(mode=mode.upper())
    try:
        total = sum(os.path.getsize(p) for p in paths if os.path.isfile(p))
        with _progress(env, total) as advance:
            run_extract(paths, str(root), fmt="dir", framing=framing, codepage=codepage,
                        mode=mode.upper(), filters=filters, messages=messages,
                        max_seg=max_segment, workers=workers, split_size=split_size,
                        progress=advance, names=names, summary=summary)
    finally:
        for p in cleanup:
            os.unlink(p)
    info = summary.to_json()
    info["output"] = str(root)
    for target in (str(root / "_summary.json"), summary_path):
        if target:
            write_file(target, (json.dumps(info, indent=2) + "\n").encode("utf-8"), force=True)
    if env.stderr_isatty:
        print_summary(env, info)
    return _status(env, info)


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


def _spool_stdin(files: tuple[str, ...]) -> tuple[list[str], dict[str, str], list[str]]:
    """``-`` is copied to a temporary file (splits need a seekable file)."""
    import tempfile

    paths, names, cleanup = [], {}, []
    for f in files:
        if f != "-":
            paths.append(f)
            continue
        if sys.stdin.isatty():
            raise InputError("no input: give a FILE or pipe data into stdin")
        fd, tmp = tempfile.mkstemp(prefix="mqtool-stdin-")
        with os.fdopen(fd, "wb") as out:
            while chunk := sys.stdin.buffer.read(1 << 22):
                out.write(chunk)
        paths.append(tmp)
        names[tmp] = "-"
        cleanup.append(tmp)
    return paths, names, cleanup


class _progress:  # noqa: N801 (a context manager used like a function)
    """A rich progress bar on stderr, only when stderr is a terminal."""

    def __init__(self, env: Env, total: int) -> None:
        self.env, self.total = env, total
        self.bar: Any = None

    def __enter__(self) -> Callable[[int], None] | None:
        if not self.env.stderr_isatty or self.total < (8 << 20):
            return None
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            Progress,
            TimeRemainingColumn,
            TransferSpeedColumn,
        )

        self.bar = Progress("extract", BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                            TimeRemainingColumn(), console=Console(file=self.env.stderr),
                            transient=True)
        self.bar.start()
        task = self.bar.add_task("extract", total=self.total)
        return lambda n: self.bar.advance(task, n)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


def print_summary(env: Env, info: dict[str, Any]) -> None:
    """The rich summary on stderr."""
    from rich.console import Console
    from rich.table import Table

    console = Console(file=env.stderr, highlight=False)
    t = Table(title="CSQ1LOGP extract", show_header=False, box=None)
    t.add_row("files", str(len(info["files"])))
    t.add_row("bytes", f"{info['bytes']:,}")
    t.add_row("records", f"{info['records']:,}")
    t.add_row("bad spans", f"{info['bad_spans']:,}" + (f" ({info['mode']})" if info["bad_spans"] else ""))
    for reason, n in info["errors_by_reason"].items():
        t.add_row(f"  {reason}", f"{n:,}")
    for name, n in info["corrupt_fields"].items():
        t.add_row(f"  corrupt {name}", f"{n:,}")
    if "messages" in info:
        m = info["messages"]
        t.add_row("messages", f"{m['total']:,} ({m['incomplete']:,} incomplete)")
        for reason, n in m["problems"].items():
            t.add_row(f"  {reason}", f"{n:,}")
    t.add_row("rows written", f"{info['rows_written']:,}")
    for k in ("output", "elapsed_s", "master"):
        if k in info:
            t.add_row(k.replace("_s", " (s)"), str(info[k]))
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
                   "pyarrow (fast; OUTDIR on a filesystem the executors can write: local, NFS); "
                   "spark = Spark's writer through the DataSource.")
@click.option("--verbose", is_flag=True, help="Let the JVM's start-up notes and Spark's log through.")
def spark_extract(inputs: tuple[str, ...], outdir: str, master: str, confs: tuple[str, ...],
                  print_submit: bool, framing: str, codepage: str, mode: str,
                  queue: tuple[str, ...], verb: tuple[str, ...], urid: tuple[str, ...],
                  qmgr: tuple[str, ...], since: str | None, until: str | None,
                  status: tuple[str, ...], split_size: int | None, messages: bool, max_segment: int,
                  force: bool, writer: str, verbose: bool) -> int:
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
    from mqtool.spark import job

    env = get_env()
    conf = {}
    for kv in confs:
        k, sep, v = kv.partition("=")
        if not sep or not k:
            raise click.BadParameter(f"{kv!r} is not K=V", param_hint="--conf")
        conf[k.strip()] = v
    from mqtool.formats.csq1logp.extract import Filters

    filters = {"queue": ",".join(queue), "verb": ",".join(verb), "urid": ",".join(urid),
               "qmgr": ",".join(qmgr), "since": since or "", "until": until or "",
               "status": ",".join(status)}
    try:
        Filters.make(queue, verb, urid, qmgr, since, until, status)
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    opts = job.JobOptions(inputs=list(inputs), outdir=outdir, framing=framing, codepage=codepage,
                          mode=mode.upper(), split_size=split_size, messages=messages,
                          max_seg=max_segment, force=force, writer=writer,
                          filters={k: v for k, v in filters.items() if v}, verbose=verbose)
    if print_submit:
        env.line(job.submit_line(master, conf, opts))
        return ExitStatus.OK

    def started(spark: Any) -> None:
        url = spark.sparkContext.uiWebUrl
        if not master.startswith("local") and url:
            env.error(f"Spark UI: {url}")

    with _task_progress(env) as progress:
        info = job.run(master, conf, opts, progress=progress, started=started)
    if env.stderr_isatty:
        print_summary(env, info)
    return _status(env, info)


class _task_progress:  # noqa: N801 (a context manager used like a function)
    """Tasks done / total and the input read so far on stderr, only on a terminal."""

    def __init__(self, env: Env) -> None:
        self.env = env
        self.bar: Any = None

    def __enter__(self) -> Callable[[int, int, int], None] | None:
        if not self.env.stderr_isatty:
            return None
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

        self.bar = Progress("spark-extract", BarColumn(), MofNCompleteColumn(), "tasks",
                            "{task.fields[read]}", TimeElapsedColumn(),
                            console=Console(file=self.env.stderr), transient=True)
        self.bar.start()
        task = self.bar.add_task("spark-extract", total=None, read="")

        def update(done: int, total: int, read: int) -> None:
            self.bar.update(task, completed=done, total=total, read=f"{read / 1e6:,.0f} MB read")

        return update

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()
