"""``mqtool decode urb`` and ``mqtool build-request urb``: Event Replicator URB messages."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import tzinfo
from typing import Any

import click

from mqtool.cli import BUILD, DECODE
from mqtool.cli._common import (
    Env,
    Progress,
    build_output_options,
    codepage_option,
    color_option,
    decoder_options,
    emit_units,
    get_env,
    port_option,
    read_sources,
    refuse_other_format,
    selection,
    spark_conf,
    summary_option,
    window,
    write_built,
    write_summary,
)
from mqtool.cli._spark import F, print_rows, remote_option, report_spark_run, session_target, verbose_option
from mqtool.cli.csq1logp import _size
from mqtool.errors import ExitStatus
from mqtool.model import Decoded


@click.command(short_help=DECODE["urb"][1])
@decoder_options
@codepage_option("Decode character fields with CP (037, 500, 1047, ..., ascii) instead of the "
                 "page the URBH eyecatcher implies (EBCDIC 037 or ISO 8859-1).")
@click.option("--byte-order", type=click.Choice(["auto", "big", "little"]), default="auto",
              show_default=True, help="Byte order of binary fields; auto reads URBHBORD.")
@click.option("--urbi-data", type=click.Choice(["auto", "isn", "selection"]), default="auto",
              show_default=True,
              help="What follows an initial-state URBI: an ISN list, selection data, or auto "
                   "(an ISN list when it parses as one and is not text).")
@click.option("--leap-seconds", type=click.IntRange(0, 60), default=0, show_default=True, metavar="N",
              help="Show STCK times N seconds earlier (a TOD clock steered to include leap seconds; "
                   "27 since 2017); the raw values (JSON <field>_hex) are unchanged.")
@port_option
def decode_urb(file: str, hex_text: bool, json_out: bool, raw: bool, annotate: bool,
               tz: tzinfo | None, strict: bool, codepage: str | None, byte_order: str,
               urbi_data: str, leap_seconds: int) -> int:
    """Decode Event Replicator for Adabas messages: input requests (URBH + URBI with
    selection data or ISN list), status messages (URBS) and data messages (URBT, URBR,
    URBD with its record image, URBE), URBC, URBU, URBF/URBG.

    EBCDIC or ASCII is read from the URBH eyecatcher and the byte order from URBHBORD,
    independently. Elements are walked by their own length fields and messages back to
    back by URBHLENT. The listing prints one 'name = value  meaning' line per field, times
    in UTC (or --tz); record images as a sub-dump in the message's code page (or
    URBTACOD's). Unknown eyecatchers are shown raw; damaged messages give the partial
    listing, then one error line (format, field path, byte offset) and exit status 2.
    """
    from mqtool import api

    env = get_env()
    # a stream with nothing forced: JSON or the listing straight from the declarations
    plain = (not raw and codepage is None and byte_order == "auto" and urbi_data == "auto"
             and not leap_seconds)
    fast = plain and (json_out or not annotate) and not (window() or selection())

    def units() -> Iterator[tuple[Decoded, bytes]]:
        for src in read_sources(file, hex_text):
            if src.message is None and codepage is None and byte_order == "auto":
                refuse_other_format("urb", src.view, file, claimed=True)
            decoded = (api.decode_fast("urb", src.view, listing=not json_out, tz=tz)
                       if fast and src.message is None else None)
            if decoded is None:
                decoded = api.decode_units("urb", src.view, codepage=codepage,
                                           byte_order=byte_order, urbi_data=urbi_data,
                                           leap_seconds=leap_seconds)
            for u, data in decoded:
                yield src.label(u), data

    return emit_units(env, units(), json_out=json_out, raw=raw, annotate=annotate, tz=tz,
                      strict_problems=strict, fast=fast)


TYPES = ("open", "close", "inst", "tran", "stat", "reply", "data")


def _per_urbi(name: str, metavar: str, text: str) -> Callable[[Callable[..., Any]],
                                                                Callable[..., Any]]:
    return click.option(f"--{name.replace('_', '-')}", name, multiple=True, metavar=metavar,
                        help=text)


@click.command(short_help=BUILD["urb"][1])
@click.argument("rtype", required=False, metavar="[open|close|inst|tran|stat|reply|data]",
                type=click.Choice(TYPES, case_sensitive=False))
@click.option("--from", "from_file", metavar="FILE|-", type=click.Path(allow_dash=True),
              help="Request description (JSON or YAML), or 'decode urb --json' output (one "
                   "message per line); the request type may come from the file. Options "
                   "override the file's values.")
@_per_urbi("token", "NAME", "Request token (urbirtok), returned in the replies.")
@_per_urbi("rnam", "NAME", "Response destination (urbirnam).")
@_per_urbi("dnam", "NAME", "Destination (urbidnam): open, close, tran, stat.")
@_per_urbi("snam", "NAME", "Subscription (urbisnam): tran, stat.")
@_per_urbi("inam", "NAME", "Initial-state definition (urbiinam): inst.")
@_per_urbi("dbid", "N", "Database id (urbidbid): inst.")
@_per_urbi("fnr", "N", "File number (urbifnr): inst; one URBI per file.")
@_per_urbi("tsnr", "N", "Transaction number to resend (urbitsnr): tran.")
@click.option("--isn", "isn", multiple=True, metavar="N|FROM-TO",
              help="ISN list item of an inst request; FROM-TO is a range (X'FFFFFFFF', FROM, TO). "
                   "Repeat to build the list.")
@_per_urbi("selection", "TEXT", "Selection data of an inst request, in the --acode code page "
                                "(else the message's).")
@_per_urbi("selection_hex", "HEX", "Selection data as hex bytes, taken as is.")
@_per_urbi("arc", "N", "Architecture key of the selection data (urbiarc; e.g. 9 = Intel).")
@_per_urbi("acode", "N", "ECS code page of alpha fields in the selection data (urbiacod).")
@_per_urbi("wcode", "N", "ECS code page of wide fields in the selection data (urbiwcod).")
@click.option("--sender", metavar="NAME", help="Sender name (urbhname); default blank.")
@click.option("--msnr", metavar="N", help="Message sequence number (urbhmsnr); default 0.")
@click.option("--stck", metavar="TIME",
              help="Send time (urbhtime): 16 hex digits (raw TOD), ISO-8601 (UTC unless it has "
                   "a zone) or 'now'; default zero.")
@click.option("--charset", type=click.Choice(["ebcdic", "ascii"]),
              help="Character set of the message (default ebcdic; the URBH eyecatcher says it).")
@codepage_option("Code page of the message's characters (default 037 for EBCDIC, ISO 8859-1 "
                 "for ASCII; 500, 1047, ...).")
@click.option("--byte-order", type=click.Choice(["big", "little"]),
              help="Byte order of binary fields (default big).")
@click.option("--align", type=click.IntRange(1, 4096), metavar="N",
              help="Pad selection data with zeros to a multiple of N bytes (default 4; 1 for "
                   "none); URBILEN counts the filler.")
@click.option("--reply-status", "status", metavar="CODE",
              help="reply: the status (urbsst): INIT, CMPL, ERRO, CLOS, SUBS, ...")
@click.option("--answers", metavar="TYPE", help="reply: the request type answered (urbsrt): open, close, "
                                                "inst, tran, stat.")
@click.option("--rsp", metavar="N", help="reply: response code (urbsrsp); 131 for Event Replicator errors.")
@click.option("--subcode", metavar="N", help="reply: response subcode (urbssubc).")
@click.option("--image", "images", multiple=True, metavar="ISN=TEXT",
              help="data: one record (its ISN) with an after image, TEXT in the message's code page; "
                   "repeat for more records. ISN=HEX:.. gives the image bytes in hex.")
@click.option("--before", "befores", multiple=True, metavar="ISN=TEXT",
              help="data: a before image of the record with that ISN (added first).")
@click.option("--record-type", type=click.Choice(["U", "I", "D", "R"], case_sensitive=False),
              default=None, help="data: urbrtyp of every record (default U; R with --initial-state).")
@click.option("--initial-state", is_flag=True, help="data: initial-state data (urbtinst Y, records R).")
@build_output_options
@color_option
def build_urb(rtype: str | None, from_file: str | None, isn: tuple[str, ...], sender: str | None,
              msnr: str | None, stck: str | None, charset: str | None, codepage: str | None,
              byte_order: str | None, align: int | None, output: str | None, force: bool,
              status: str | None, answers: str | None, rsp: str | None, subcode: str | None,
              images: tuple[str, ...], befores: tuple[str, ...], record_type: str | None,
              initial_state: bool, as_dump: bool, **per_urbi: tuple[str, ...]) -> int:
    """Build an Event Replicator input request: a URBH and one or more URBIs.

    \b
      open / close  --dnam (repeat: one URBI per destination), --rnam, --token
      inst          --inam --dbid --fnr --rnam (repeat --fnr/--dbid: one URBI per file),
                    --isn or --selection/--selection-hex, --acode --wcode --arc
      tran          --snam --dnam --tsnr, --rnam, --token
      stat          --snam and/or --dnam, --rnam, --token
      reply         a status message (URBS): --reply-status, --answers, --token, --snam,
                    --dnam, --inam, --dbid, --fnr, --tsnr, --rsp, --subcode
      data          a data message (URBT, URBR + URBD per --image, URBE): --snam,
                    --dbid, --fnr, --tsnr, --token, --record-type, --initial-state,
                    --before

    Per-URBI options may be repeated: given once they apply to every URBI, given N times
    they describe N URBIs in order. Several URBIs with different data (an ISN list per
    file) come from a --from file. Everything is checked before building: request-type
    rules, ISN-list rules, field sizes. The message goes to -o FILE or a pipe (never to a
    terminal); --dump prints its hex dump instead.
    """
    from mqtool import api
    from mqtool.io.inputs import read_text

    env = get_env()
    if not rtype and not from_file:
        raise click.UsageError("give a request type (open, close, inst, tran, stat), reply, data "
                               "or --from FILE")
    built = api.build_urb(rtype, read_text(from_file) if from_file else None, per_urbi=per_urbi,
                          isn=isn, sender=sender, msnr=msnr, stck=stck, encoding=charset,
                          codepage=codepage, byte_order=byte_order, align=align, status=status,
                          answers=answers, rsp=rsp, subcode=subcode, images=images,
                          befores=befores, record_type=record_type, initial_state=initial_state)
    for w in built.warnings:
        env.error(f"warning: {w}")
    return write_built(env, built.pieces, output, force, as_dump)


# --------------------------------------------------------------------------- extract urb

EXTRACT_MODE_HELP = ("Undecodable input: PERMISSIVE (an errors row each, resynchronise at the next "
                     "message, exit 2 at the end), FAILFAST (stop at the first, write nothing, exit 2).")


def typed_options(f: F) -> F:
    """``--typed``, ``--format-buffer``, ``--fdt``: ``extract urb``'s and ``spark-extract urb``'s."""
    f = click.option("--fdt", "fdts", multiple=True, metavar="FILE", type=click.Path(),
                     help="With --typed: an Adabas field definition table as JSON (field names, long "
                          "names, standard lengths and formats); repeatable.")(f)
    f = click.option("--format-buffer", "format_buffers", multiple=True, metavar="DBID:FNR=BUFFER",
                     help="With --typed: the record layout of a file's images as an Adabas format "
                          "buffer (DBID:FNR='AA,8,A,AB,2,P.'); @FILE reads such lines from FILE; "
                          "repeatable. A URBF/URBG table in the stream wins where both are.")(f)
    return click.option("--typed", is_flag=True,
                        help="Also write one change table per (database, file), changes_DBID_FNR, "
                             "with the Adabas fields as typed columns of a before and an after "
                             "struct; layouts from the stream's URBF/URBG tables, --format-buffer "
                             "and --fdt.")(f)


def _need_typed(typed: bool, format_buffers: tuple[str, ...], fdts: tuple[str, ...]) -> None:
    if (format_buffers or fdts) and not typed:
        from mqtool.errors import InputError

        raise InputError("--format-buffer and --fdt lay out typed change tables: give --typed too")


@click.command(short_help="Event Replicator messages to change tables (Parquet, JSON lines, CSV).")
@click.argument("inputs", nargs=-1, required=True, metavar="INPUT...", type=click.Path(allow_dash=True))
@click.option("-o", "--output", "outdir", required=True, metavar="OUTDIR", type=click.Path(),
              help="Output directory: messages, transactions, records, images, status, errors "
                   "and changes, one file each.")
@click.option("--to", "fmt", type=click.Choice(["parquet", "jsonl", "csv"]), default="parquet",
              show_default=True, help="Format of the table files.")
@click.option("--mode", type=click.Choice(["PERMISSIVE", "FAILFAST"], case_sensitive=False),
              default="PERMISSIVE", show_default=True, help=EXTRACT_MODE_HELP)
@summary_option
@click.option("--leap-seconds", type=click.IntRange(0, 60), default=0, show_default=True, metavar="N",
              help="Timestamps N seconds earlier (a TOD clock steered to include leap seconds; 27 "
                   "since 2017); the <field>_raw columns are unchanged.")
@click.option("--force", is_flag=True, help="Overwrite existing table files in OUTDIR.")
@typed_options
@port_option
def extract_urb(inputs: tuple[str, ...], outdir: str, fmt: str, mode: str,
                summary_path: str | None, leap_seconds: int, force: bool, typed: bool,
                format_buffers: tuple[str, ...], fdts: tuple[str, ...]) -> int:
    """Decode every URB message of the inputs into tables: raw streams of back-to-back
    messages, queue dumps of any kind (dmpmqmsg, amqsbcg, MQMD-prefixed binaries, mqtool
    directories), dump text, and directories of them.

    \b
      messages      one row per URBH: file, offset, dump message, MsgType, CorrelId
      transactions  URBT;  records  URBR;  status  URBS
      images        URBD: the image bytes, before/after
      errors        file, offset, field path, reason, first bytes
      changes       one row per record image with its record and transaction:
                    subscription, dbid, file number, ISN, record and image type,
                    transaction and record times, image bytes and text

    Every field of the declarations becomes a column (times as UTC timestamps with the
    raw TOD in <field>_raw, meanings in <field>_meaning). Transactions continued over
    several messages (URBTCONT = Y, then URBC) are stitched: their records carry the same
    transaction id. Exit status 2 when anything could not be decoded (the rest is written).

    \b
    --typed adds, per (database, file):
      changes_DBID_FNR  one row per record: change type, ISN, transaction, times,
                        and the before and after images as structs of typed columns
                        (Adabas long names); a value that cannot be decoded is null
                        and a row of errors (field, offset, reason)
    A bad --format-buffer or --fdt stops the run before anything is written (one
    line naming the option or file and where in it, exit status 2).
    """
    from mqtool import api
    from mqtool.io.inputs import spooled, total_size
    from mqtool.io.outputs import mark_complete
    from mqtool.io.uris import join

    env = get_env()
    _need_typed(typed, format_buffers, fdts)
    with spooled(inputs) as spool, Progress(env, "extract urb", total_size(spool.paths)) as advance:
        result = api.extract_urb(spool.paths, outdir, fmt=fmt, mode=mode.upper(), force=force,
                                 progress=advance, leap_seconds=leap_seconds, names=spool.names,
                                 typed=typed, format_buffers=format_buffers, fdts=fdts)
    info = result.to_json()
    api.write_summary(join(outdir, "_summary.json"), info)
    mark_complete(outdir)
    if summary_path:
        write_summary(env, summary_path, info)
    if summary_path != "-":  # the tables are in files: stdout says how many rows each got
        _print_rows(env, info)
        for line in info.get("layouts", []):
            env.line(f"layout: {line}")
    if result.errors:
        env.error(f"urb: {result.errors} error{'s' if result.errors > 1 else ''}; first: "
                  f"{result.first_error}")
        return ExitStatus.DECODE
    if not info["rows"].get("messages"):  # a queue dump with no messages: nothing decoded
        env.error(f"urb: no URB message in {', '.join(inputs)}")
        return ExitStatus.DECODE
    return ExitStatus.OK


def _print_rows(env: Env, info: dict[str, Any]) -> None:
    """Rows per table, errors by reason."""
    print_rows(env, info["rows"], info.get("errors_by_reason", {}))


# --------------------------------------------------------------------------- spark-extract urb


@click.command(short_help="Event Replicator messages to change tables with PySpark (Parquet).")
@click.argument("inputs", nargs=-1, required=True, metavar="INPUT...", type=click.Path())
@click.option("-o", "--output", "outdir", required=True, metavar="OUTDIR", type=click.Path(),
              help="Output directory or object-store URI (s3://, gs://, hdfs://): one Parquet "
                   "folder per table (messages, transactions, records, images, status, errors, "
                   "changes) and _summary.json.")
@click.option("--master", default="local[*]", show_default=True, metavar="URL",
              help="Spark master: local[N], spark://HOST:PORT, yarn, k8s://...")
@click.option("--conf", "confs", multiple=True, metavar="K=V", help="Spark configuration; repeatable.")
@click.option("--mode", type=click.Choice(["PERMISSIVE", "FAILFAST"], case_sensitive=False),
              default="PERMISSIVE", show_default=True, help=EXTRACT_MODE_HELP)
@click.option("--leap-seconds", type=click.IntRange(0, 60), default=0, show_default=True, metavar="N",
              help="Timestamps N seconds earlier (a TOD clock steered to include leap seconds).")
@click.option("--force", is_flag=True, help="Replace existing table folders in OUTDIR.")
@click.option("--split-size", callback=_size, default="32m", show_default=True, metavar="SIZE",
              help="Cut raw streams into byte ranges of SIZE, one task each (1k and up).")
@typed_options
@remote_option
@summary_option
@verbose_option
def spark_extract_urb(inputs: tuple[str, ...], outdir: str, master: str, confs: tuple[str, ...],
                      mode: str, leap_seconds: int, force: bool, split_size: int, typed: bool,
                      format_buffers: tuple[str, ...], fdts: tuple[str, ...],
                      remote: str | None, summary_path: str | None, verbose: bool) -> int:
    """The tables of 'extract urb' from Spark: each raw stream (a path or an object-store
    URI) is cut into byte ranges of --split-size, each decoded once in an executor task by
    the same library function as the local command (a queue dump is one task), and the task
    writes every table's rows as Parquet (OUTDIR/<table>/, the local tables' schema) with
    pyarrow. Inputs, output, master (or --remote server) and Java (17+) are checked before
    the JVM starts; the output is written whole or not at all, Spark's log goes to
    OUTDIR/_logs/. Messages, transactions, records and images are named by their offsets,
    as locally, so the rows do not depend on the split. Exit status 2 when the errors table
    has rows, or no URB message was found.

    --typed adds the typed change tables of 'extract urb --typed' (OUTDIR/changes_DBID_FNR/),
    laid out on the driver after the tasks: the tasks hand over the messages that hold
    URBF/URBG tables, which are replayed in input order over the changes the tasks wrote.
    A bad --format-buffer or --fdt stops the run before the JVM starts, nothing written.
    """
    import time

    from mqtool.spark import urb as spark_urb

    started_at = time.perf_counter()
    env = get_env()
    _need_typed(typed, format_buffers, fdts)
    opts = spark_urb.UrbJobOptions(list(inputs), outdir, mode.upper(), force, leap_seconds,
                                   split_size=split_size, verbose=verbose,
                                   remote=session_target(master, remote), started=started_at,
                                   typed=typed, format_buffers=list(format_buffers), fdts=list(fdts))
    info = spark_urb.run(master, spark_conf(confs), opts)
    report_spark_run(env, info, summary_path, info["rows"], verbose)
    if summary_path != "-":
        for line in info.get("layouts", []):
            env.line(f"layout: {line}")
    if info["rows"].get("errors"):
        env.error(f"urb: {info['rows']['errors']} error{'s' if info['rows']['errors'] > 1 else ''}; "
                  f"first: {info.get('first_error', '')}")
        return ExitStatus.DECODE
    if not info["rows"].get("messages"):  # as extract urb: nothing decoded is status 2
        env.error(f"urb: no URB message in {', '.join(inputs)}")
        return ExitStatus.DECODE
    return ExitStatus.OK
