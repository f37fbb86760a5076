"""SAS attachments: ``decode sas-attachment``, ``reassemble attachment`` (alias
``reassemble-attachment``) and ``build-request sas-attachment``."""

from __future__ import annotations

import codecs
from collections.abc import Callable
from typing import Any

import click

from mqtool import api, registry
from mqtool.cli._common import (
    CORRELID,
    Env,
    Progress,
    codepage_option,
    color_option,
    decoder_options,
    emit_units,
    get_env,
    port_option,
    window,
)
from mqtool.errors import ExitStatus
from mqtool.io.inputs import size_of

INPUT_FORMATS = ["auto", *registry.queue_dumps()]
FLOATS = list(api.float_formats())


def _encoding(ctx: click.Context, param: click.Parameter, value: str) -> str:
    try:
        return codecs.lookup(value).name
    except LookupError:
        raise click.BadParameter(f"unknown encoding {value!r} (utf-8, latin-1, cp1252, ...)"
                                 ) from None


Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def sender_options(building: bool = False) -> Decorator:
    """--long, --byte-order, --codepage, --float: force what detection would decide, or
    (``building``) override what the profile writes."""
    if building:
        helps = ("Size of the C long to write (default: the profile's).",
                 "Byte order to write (default: the profile's).",
                 "Code page to write strings and text in: 037, 500, 1047, 1252, latin-1... "
                 "(default: the profile's).",
                 "Format to write SAS numerics in (default: the profile's).")
    else:
        helps = ("Size of the sender's C long (default: detected from the header).",
                 "Sender's byte order (auto: MQMD Encoding, else detected).",
                 "Sender's code page: 037, 500, 1047, 1252, latin-1... (default: MQMD "
                 "CodedCharSetId, else detected: cp037 or latin-1).",
                 "Format of SAS numerics (default: MQMD Encoding, else ibm-hfp for EBCDIC "
                 "senders, IEEE in the sender's byte order otherwise).")

    orders = ["big", "little"] if building else ["auto", "big", "little"]

    def add(f: Callable[..., Any]) -> Callable[..., Any]:
        options: list[Decorator] = [
            click.option("--long", "long_size", type=click.Choice(["4", "8"]), help=helps[0]),
            click.option("--byte-order", type=click.Choice(orders),
                         default=None if building else "auto", show_default=not building,
                         help=helps[1]),
            codepage_option(helps[2]),
            click.option("--float", "float_format", type=click.Choice(FLOATS), help=helps[3]),
        ]
        for opt in reversed(options):
            f = opt(f)
        return f

    return add


def _hints(long_size: str | None, byte_order: str | None, codepage: str | None,
           float_format: str | None, nul: bool | None = None) -> Any:
    from mqtool import api

    return api.sender_hints(None if byte_order == "auto" else byte_order,
                            int(long_size) if long_size else None, codepage, nul, float_format)


# --------------------------------------------------------------------------- decode


@click.command(short_help="SAS Application Messaging attachment header or subordinate message.")
@decoder_options
@click.option("--part", type=click.Choice(["auto", "header", "application", "count", "file-info",
                                           "records", "dataset"]), default="auto",
              show_default=True, help="What the message is (a lone message body only; in a dump "
                                      "each message's role comes from its header).")
@click.option("--input-format", type=click.Choice(["message", *INPUT_FORMATS]), default="auto",
              show_default=True, help="FILE is one message body (message) or a queue dump; "
                                      "auto recognises dumps.")
@sender_options()
@click.option("--nul/--no-nul", "nul", default=None,
              help="Strings are (not) followed by a NUL byte (default: detected).")
@click.option("--text-records", "text", is_flag=True,
              help="With --part records: the records are text.")
@port_option
def decode_sas(file: str, hex_text: bool, json_out: bool, raw: bool, annotate: bool, tz: Any,
               strict: bool, part: str, input_format: str, long_size: str | None, byte_order: str | None,
               codepage: str | None, float_format: str | None, nul: bool | None,
               text: bool) -> int:
    """Decode SAS attachment messages: the attachment header (MsgType 100000) or any
    subordinate message (MsgType 100001): application message, count message, external-file
    messages (lrecl and file size; len|record pairs), data set definition, variable
    definitions, observations, indexes.

    FILE (or stdin) is one message body (binary, or dump text with --hex), or a queue dump
    (dmpmqmsg, amqsbcg, MQMD-prefixed binary, mqtool directory): then every message is
    decoded in the role its header gives it. Byte order, long size, code page and NUL
    terminators are detected (the MQMD's Encoding and CodedCharSetId win when the dump has
    them); the options force them.

    A body that no attachment message fits (with --part auto) is refused: its first 256
    bytes are listed and the error says what `mqtool identify` takes it for. Bodies of any
    size are decoded in bounded memory: beyond 1 MiB, records and application bytes come
    out in pieces of 256 KiB. Exit status 2 when anything could not be decoded.
    """
    from mqtool import api

    env = get_env()
    hints = _hints(long_size, byte_order, codepage, float_format, nul)
    units = api.decode_sas_attachment(file, hex_text=hex_text, input_format=input_format,
                                      part=part, text=text, hints=hints, say=env.error,
                                      window=window())
    return emit_units(env, units, json_out=json_out, raw=raw, annotate=annotate, tz=tz,
                      strict_problems=strict)


# --------------------------------------------------------------------------- reassemble


@click.command(short_help="Rebuild SAS attachments (files, data sets) from a queue dump.")
@click.argument("dump", metavar="DUMP", type=click.Path(allow_dash=True))
@click.option("-o", "--output", "outdir", metavar="OUTDIR", type=click.Path(file_okay=False),
              help="Write one folder per attachment header here (created if missing).")
@click.option("--list", "list_only", is_flag=True,
              help="Check completeness and print the table; write nothing.")
@click.option("--input-format", type=click.Choice(INPUT_FORMATS), default="auto",
              show_default=True, help="Kind of dump (auto recognises it).")
@click.option("--force", is_flag=True, help="Overwrite existing outputs.")
@click.option("--partial", is_flag=True,
              help="Also write incomplete attachments (gaps recorded in the manifest).")
@click.option("--keep-orphans", is_flag=True,
              help="Save messages that belong to no attachment in OUTDIR/orphans (an mqtool "
                   "directory dump).")
@click.option("--text-encoding", "encoding", default="utf-8", show_default=True,
              callback=_encoding, metavar="NAME",
              help="Text encoding of rebuilt text files (type 2): utf-8, latin-1, cp1252, ...")
@click.option("--newline", type=click.Choice(["lf", "crlf"]), default="lf", show_default=True,
              help="Line end written after every record of a text file.")
@sender_options()
@click.option("--obs-layout", type=click.Choice(["definition", "numerics-first"]),
              default="definition", show_default=True,
              help="Order of variables inside an observation.")
@click.option("--no-xpt", is_flag=True, help="Do not write SAS transport (.xpt) files.")
@click.option("--json", "json_out", is_flag=True,
              help="Print each header's manifest as a JSON line, then a summary line.")
@click.option("-q", "--quiet", is_flag=True, help="No table; errors only.")
@color_option
@port_option
def reassemble_attachment(dump: str, outdir: str | None, list_only: bool, input_format: str,
                          force: bool, partial: bool, keep_orphans: bool, encoding: str,
                          newline: str, long_size: str | None, byte_order: str | None,
                          codepage: str | None, float_format: str | None, obs_layout: str,
                          no_xpt: bool, json_out: bool, quiet: bool) -> int:
    """Rebuild SAS attachments from the messages of a queue dump (dmpmqmsg file or
    directory, amqsbcg listing, MQMD-prefixed binaries, mqtool directory; DUMP may be - for
    stdin).

    Messages are grouped by header (MsgType 100000), message correlid and attachment
    correlid (first 20 of the 24 CorrelId bytes). An attachment is complete when its count
    message is there and sequence numbers 1..N are all there. Per header,
    OUTDIR/<header CorrelId in hex>/ gets message.bin (the application message), the
    attachments (external files under the sender's base name, made safe; data sets as
    <member>.parquet, .csv and .xpt) and manifest.json.

    The summary table goes to stdout (or JSON lines with --json); errors go to stderr, and a
    progress bar when stderr is a terminal. Exit status 3 when anything is incomplete,
    2 when something could not be read.
    """
    env = get_env()
    if not outdir and not list_only:
        raise click.UsageError("give -o OUTDIR, or --list to check without writing")
    if outdir and list_only:
        raise click.UsageError("--list writes nothing: leave out -o")
    formats = ("parquet", "csv") if no_xpt else ("parquet", "csv", "xpt")
    hints = _hints(long_size, byte_order, codepage, float_format)
    with Progress(env, "reassembling", size_of(dump), least=1) as progress:
        report = api.reassemble_attachments(
            dump, outdir, progress=progress, force=force, partial=partial,
            keep_orphans=keep_orphans, encoding=encoding, newline=newline, hints=hints,
            obs_layout=obs_layout, formats=formats,
            input_format=None if input_format == "auto" else input_format)
    said = api.reassembly_report(report)
    if json_out:
        for obj in said.json_lines():
            env.json_line(obj)
    elif not quiet:
        _report_table(env, said, outdir)
    for line in said.errors():
        env.error(line)
    return report.status


def _report_table(env: Env, said: Any, outdir: str | None) -> None:
    from rich import box
    from rich.table import Table

    from mqtool.render.terminal import text

    console = env.console()
    for hs in said.report.headers:
        s = hs.header.settings
        where = f"{outdir.rstrip('/')}/{hs.folder}/" if outdir else hs.folder
        console.print(text(f"{where}  (header: dump message {hs.position}; {s.describe()})"))
        table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
        for col, just in (("#", "right"), ("type", "left"), ("sender's name", "left"),
                          ("output", "left"), ("size", "right"), ("status", "left")):
            table.add_column(col, justify=just)  # type: ignore[arg-type]
        table.add_row("", "application message", "", "message.bin" if outdir else "",
                      str(hs.app_size) if hs.app_position else "",
                      "present" if hs.app_position else "missing")
        for a in hs.attachments:
            size = f"{a.rows} obs" if a.rows is not None else str(a.size)
            table.add_row(str(a.entry.index), text(a.entry.type_name), text(a.entry.qualifier2),
                          text(a.output or ("-" if outdir else "")), size,
                          text(said.status_of(a)))
        console.print(table)
        for a in hs.attachments:
            for note in a.anomalies:
                console.print(text(f"  attachment {a.entry.index}: {note}"))
        for note in hs.anomalies:
            console.print(text(f"  header: {note}"))
        console.print()
    console.print(text(said.summary_line()))


# --------------------------------------------------------------------------- build


@click.command(short_help="The message set of a SAS attachment, as a queue dump.")
@click.option("--attach", "attach", multiple=True, metavar="KIND:PATH[=NAME]",
              help="An attachment to build, in order: binary:FILE[=SENDER-NAME], "
                   "text:FILE[=SENDER-NAME] or dataset:CSV[=LIBRARY.MEMBER]. Repeatable.")
@click.option("--description", multiple=True, metavar="TEXT",
              help="Description to write for the attachments, in the order of --attach. "
                   "Repeatable.")
@click.option("--message", "message_text", metavar="TEXT",
              help="The application message to write (encoded in the sender's code page).")
@click.option("--message-file", metavar="FILE", type=click.Path(allow_dash=True),
              help="The application message to write, bytes as is.")
@click.option("--from", "request_file", metavar="FILE", type=click.Path(allow_dash=True),
              help="Build from a request in YAML or JSON (all of the above and more; see the "
                   "README); - reads it from stdin.")
@click.option("--correlid", metavar="HEX", type=CORRELID,
              help="CorrelId G of the header to build (16 bytes in hex); the application message "
                   "and attachment G's step from it (each byte + X'11'). Default: a new random "
                   "G, the same for the same --seed.")
@click.option("--seed", type=click.IntRange(0, 1 << 63), metavar="N",
              help="Build the same default CorrelIds for the same N (reproducible sets).")
@click.option("--profile", type=click.Choice(["zos", "win", "linux", "unix64", "unix32"]),
              default="zos", show_default=True,
              help="Sender to build as: zos = big-endian EBCDIC (cp037) IBM HFP long 4; win = "
                   "little-endian cp1252 IEEE long 4; linux = little-endian latin-1 IEEE long 8; "
                   "unix64 / unix32 = big-endian latin-1 IEEE long 8 / 4.")
@sender_options(building=True)
@click.option("--nul/--no-nul", "nul", default=None,
              help="Write a NUL byte after each string (default: yes).")
@click.option("--record-nul", is_flag=True, help="Write a NUL byte after each file record.")
@click.option("--max-msg", type=click.IntRange(64, 100 << 20), default=32768, show_default=True,
              help="Largest message body to build, in bytes (SAS: 32K).")
@click.option("--lrecl", type=click.IntRange(1, 1 << 30),
              help="Record length for binary files (default: one record per message).")
@click.option("--straddle", is_flag=True,
              help="Fill every message: records and observations may continue in the next one.")
@click.option("--seq-order", type=click.Choice(["big", "little"]), default="big",
              show_default=True, help="Byte order of the sequence numbers written in correlids.")
@click.option("--source-encoding", default="utf-8", show_default=True, callback=_encoding,
              metavar="NAME",
              help="Text encoding of text files and CSV files given with --attach or in the "
                   "request.")
@click.option("--to", "output_format", type=click.Choice(list(api.set_kinds())), default="dmpmqmsg",
              show_default=True,
              help="Write dmpmqmsg text, an mqtool directory, an amqsbcg-style listing, or a "
                   "directory of MQMD-prefixed binaries.")
@click.option("--width", type=click.IntRange(1, 65536), default=32, show_default=True,
              help="dmpmqmsg: bytes per X line.")
@click.option("-o", "--output", metavar="FILE|DIR", type=click.Path(),
              help="Write here (a directory for mqtool-dir and mqmd-binary); default stdout.")
@click.option("--force", is_flag=True, help="Overwrite existing output.")
def build_sas(attach: tuple[str, ...], description: tuple[str, ...], message_text: str | None,
              message_file: str | None, request_file: str | None, correlid: str | None,
              seed: int | None, profile: str, long_size: str | None, byte_order: str | None,
              codepage: str | None, float_format: str | None, nul: bool | None,
              record_nul: bool, max_msg: int, lrecl: int | None, straddle: bool, seq_order: str,
              source_encoding: str, output_format: str, width: int, output: str | None,
              force: bool) -> int:
    """Build the messages SAS puts on a queue for an application message with attachments:
    the header (MsgType 100000), the application message, then per attachment its sequenced
    messages and the count message (MsgType 100001), written as a queue dump that
    `mqtool reassemble attachment` (or your own consumer) reads.

    Every set gets new CorrelIds (see --correlid and --seed). A request given with --from
    is checked as a whole: every bad field is reported, one line each with its path, exit
    status 1; nothing is written then, nor when building fails halfway.

    \b
      mqtool build-request sas-attachment --message 'Hello' \\
          --attach 'binary:mytext.txt=d:\\mytext.txt' --description 'Text file...' -o set.qmsg
    """
    from mqtool import api
    from mqtool.errors import MqtoolError
    from mqtool.io.inputs import read_bytes

    env = get_env()
    sender = api.sas_sender(profile, byte_order, int(long_size) if long_size else None, codepage,
                            float_format, nul, record_nul)
    r = api.SasSetRequest(request_file, attach, description, message_text,
                          read_bytes(message_file) if message_file else None, lrecl,
                          source_encoding, sender, correlid, seed, max_msg, straddle, seq_order)
    try:
        api.build_sas_set(r, output_format, output, force=force, width=width, stdout=env.stdout)
    except MqtoolError as e:  # a request's bad fields, one line each
        for line in str(e).split("\n"):
            env.error(line)
        return e.status
    return ExitStatus.OK
