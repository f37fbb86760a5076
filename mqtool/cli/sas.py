"""SAS attachments: ``decode sas-attachment``, ``reassemble attachment`` (alias
``reassemble-attachment``) and ``build-request sas-attachment``."""

from __future__ import annotations

import codecs
import io
import sys
from pathlib import Path
from typing import Any

import click

from mqtool.cli._common import Env, color_option, decoder_options, emit_units, get_env
from mqtool.errors import BuildError, ExitStatus, InputError

INPUT_FORMATS = ["auto", "dmpmqmsg", "amqsbcg", "mqmd-binary", "mqtool-dir"]
FLOATS = ["ieee-be", "ieee-le", "ibm-hfp"]


def _codepage(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    from mqtool.codepages import single_byte_codec

    try:
        return single_byte_codec(value)
    except LookupError as e:
        raise click.BadParameter(str(e)) from None


def _encoding(ctx: click.Context, param: click.Parameter, value: str) -> str:
    try:
        return codecs.lookup(value).name
    except LookupError:
        raise click.BadParameter(f"unknown encoding {value!r} (utf-8, latin-1, cp1252, ...)"
                                 ) from None


def sender_options(f: Any) -> Any:
    """--long, --byte-order, --codepage, --float: force what detection would decide."""
    for opt in reversed([
        click.option("--long", "long_size", type=click.Choice(["4", "8"]),
                     help="Size of the sender's C long (default: detected from the header)."),
        click.option("--byte-order", type=click.Choice(["big", "little"]),
                     help="Sender's byte order (default: MQMD Encoding, else detected)."),
        click.option("--codepage", metavar="CP", callback=_codepage,
                     help="Sender's code page: 037, 500, 1047, 1252, latin-1... (default: MQMD "
                          "CodedCharSetId, else detected: cp037 or latin-1)."),
        click.option("--float", "float_format", type=click.Choice(FLOATS),
                     help="Format of SAS numerics (default: MQMD Encoding, else ibm-hfp for "
                          "EBCDIC senders, IEEE in the sender's byte order otherwise)."),
    ]):
        f = opt(f)
    return f


def _hints(long_size: str | None, byte_order: str | None, codepage: str | None,
           float_format: str | None, nul: bool | None = None) -> Any:
    from mqtool.formats.sas.attachment import Hints

    return Hints(byte_order, int(long_size) if long_size else None, codepage, nul, float_format)


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
@sender_options
@click.option("--nul/--no-nul", "nul", default=None,
              help="Strings are (not) followed by a NUL byte (default: detected).")
@click.option("--text", is_flag=True, help="With --part records: the records are text.")
def decode_sas(file: str, hex_text: bool, json_out: bool, raw: bool, annotate: bool, tz: Any,
               part: str, input_format: str, long_size: str | None, byte_order: str | None,
               codepage: str | None, float_format: str | None, nul: bool | None,
               text: bool) -> int:
    """Decode SAS attachment messages: the attachment header (MsgType 100000) or any
    subordinate message (MsgType 100001): application message, count message, external-file
    messages (lrecl and file size; len|record pairs), data set definition, variable
    definitions, observations, indexes.

    FILE (or stdin) is one message body (binary, or dump text with --hex), or a queue dump
    (dmpmqmsg, amqsbcg, MQMD-prefixed binary, mqtool directory): then every message is
    decoded in the role its header gives it. Byte order, long size, code page and NUL terminators are
    detected (the MQMD's Encoding and CodedCharSetId win when the dump has them); the
    options force them.
    """
    env = get_env()
    hints = _hints(long_size, byte_order, codepage, float_format, nul)
    if hex_text or input_format == "message":
        return _decode_body(env, file, hex_text, hints, part, text, json_out, raw, annotate, tz)
    kind = None if input_format == "auto" else input_format
    stream = None
    if kind is None and file == "-":
        data = _stdin()
        from mqtool.formats.mq.dumps.read import sniff

        kind = sniff(data)
        if kind is None:
            return _decode_data(env, data, "stdin", hints, part, text, json_out, raw, annotate,
                                tz)
        stream = io.BytesIO(data)
    elif kind is None:
        kind = _sniff_path(file)
    if kind is None:
        return _decode_body(env, file, False, hints, part, text, json_out, raw, annotate, tz)
    from mqtool.formats.mq.dumps.read import QueueDump
    from mqtool.formats.sas.attachment import decode_messages

    dump = QueueDump(file, None if kind == "directory" else kind, stream=stream)
    status = emit_units(env, decode_messages(iter(dump), hints), json_out=json_out, raw=raw,
                        annotate=annotate, tz=tz)
    if dump.count == 0:
        env.error(f"{file}: no messages in this {dump.format} dump")
    return status


def _stdin() -> bytes:
    if sys.stdin.isatty():
        raise InputError("no input: give a FILE or pipe data into stdin")
    return sys.stdin.buffer.read()


def _sniff_path(file: str) -> str | None:
    if Path(file).is_dir():
        return "directory"
    from mqtool.formats.mq.dumps.read import sniff
    from mqtool.io.inputs import open_regular

    try:
        with open_regular(file) as f:  # FIFOs, devices: refused, not opened
            return sniff(f.read(65536))
    except OSError:
        return None


def _decode_body(env: Env, file: str, hex_text: bool, hints: Any, part: str, text: bool,
                 json_out: bool, raw: bool, annotate: bool, tz: Any) -> int:
    from mqtool.cli._common import read_unit_input

    data = read_unit_input(file, hex_text)
    return _decode_data(env, data, file, hints, part, text, json_out, raw, annotate, tz,
                        checked=True)


def _decode_data(env: Env, data: bytes, name: str, hints: Any, part: str, text: bool,
                 json_out: bool, raw: bool, annotate: bool, tz: Any, checked: bool = False) -> int:
    from mqtool.cli._common import _is_dump_text
    from mqtool.formats.sas.attachment import decode_part

    if not checked and _is_dump_text(data):
        raise InputError(f"{name}: this is hex dump text; add --hex to read it as a dump")
    unit = decode_part(data, part, hints, text=text)
    return emit_units(env, [(unit, data)], json_out=json_out, raw=raw, annotate=annotate, tz=tz)


# --------------------------------------------------------------------------- reassemble


@click.command(short_help="Rebuild SAS attachments (files, data sets) from a queue dump.")
@click.argument("dump", metavar="DUMP")
@click.option("-o", "--output-dir", "outdir", metavar="OUTDIR",
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
@click.option("--encoding", default="utf-8", show_default=True, callback=_encoding,
              help="Encoding of rebuilt text files (type 2).")
@click.option("--newline", type=click.Choice(["lf", "crlf"]), default="lf", show_default=True,
              help="Line end written after every record of a text file.")
@sender_options
@click.option("--obs-layout", type=click.Choice(["definition", "numerics-first"]),
              default="definition", show_default=True,
              help="Order of variables inside an observation.")
@click.option("--no-xpt", is_flag=True, help="Do not write SAS transport (.xpt) files.")
@click.option("--json", "json_out", is_flag=True,
              help="Print each header's manifest as a JSON line, then a summary line.")
@click.option("-q", "--quiet", is_flag=True, help="No table; errors only.")
@color_option
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
    from mqtool.formats.sas.reassemble import reassemble

    formats = ("parquet", "csv") if no_xpt else ("parquet", "csv", "xpt")
    hints = _hints(long_size, byte_order, codepage, float_format)
    with _Progress(env, dump) as progress:
        report = reassemble(dump, outdir, progress=progress, force=force, partial=partial,
                            keep_orphans=keep_orphans, encoding=encoding, newline=newline,
                            hints=hints, obs_layout=obs_layout, formats=formats,
                            input_format=None if input_format == "auto" else input_format)
    if json_out:
        _report_json(env, report)
    elif not quiet:
        _report_table(env, report, outdir)
    _report_errors(env, report)
    return report.status


class _Progress:
    """A rich progress bar on stderr when stderr is a terminal and the size is known."""

    def __init__(self, env: Env, dump: str) -> None:
        from mqtool.formats.mq.dumps.read import _size

        self.total = _size(dump) if env.stderr_isatty else None
        self.bar: Any = None
        self.env = env

    def __enter__(self) -> Any:
        if not self.total:
            return None
        from rich.console import Console
        from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn

        self.bar = Progress("reassembling", BarColumn(), DownloadColumn(), TimeRemainingColumn(),
                            console=Console(file=self.env.stderr), transient=True)
        self.bar.start()
        task = self.bar.add_task("dump", total=self.total)
        return lambda done: self.bar.update(task, completed=done)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


def _status(a: Any) -> str:
    if a.complete:
        return "complete" + (f", {len(a.anomalies)} note{'s' * (len(a.anomalies) != 1)}"
                             if a.anomalies else "")
    from mqtool.formats.sas.reassemble import _ranges

    nums = [m for m in a.missing if isinstance(m, int)]
    what = [_ranges(nums)] if nums else []
    if "count" in a.missing:
        what.append("count")
    text = "incomplete: missing " + ", ".join(what) if what else "incomplete"
    return text + (" (partial output)" if a.output else "")


def _report_table(env: Env, report: Any, outdir: str | None) -> None:
    from rich import box
    from rich.table import Table

    console = env.console()
    for hs in report.headers:
        s = hs.header.settings
        where = f"{outdir.rstrip('/')}/{hs.folder}/" if outdir else hs.folder
        console.print(f"{where}  (header: dump message {hs.position}; {s.describe()})")
        table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
        for col, just in (("#", "right"), ("type", "left"), ("sender's name", "left"),
                          ("output", "left"), ("size", "right"), ("status", "left")):
            table.add_column(col, justify=just)  # type: ignore[arg-type]
        table.add_row("", "application message", "", "message.bin" if outdir else "",
                      str(hs.app_size) if hs.app_position else "",
                      "present" if hs.app_position else "missing")
        for a in hs.attachments:
            size = f"{a.rows} obs" if a.rows is not None else str(a.size)
            table.add_row(str(a.entry.index), a.entry.type_name, a.entry.qualifier2,
                          a.output or ("-" if outdir else ""), size, _status(a))
        console.print(table)
        for a in hs.attachments:
            for note in a.anomalies:
                console.print(f"  attachment {a.entry.index}: {note}")
        for note in hs.anomalies:
            console.print(f"  header: {note}")
        console.print()
    console.print(_summary_line(report))


def _summary_line(report: Any) -> str:
    atts = [a for h in report.headers for a in h.attachments]
    done = sum(1 for a in atts if a.complete)
    parts = [f"{report.messages} message{'s' * (report.messages != 1)}",
             f"{len(report.headers)} header{'s' * (len(report.headers) != 1)}",
             f"{len(atts)} attachment{'s' * (len(atts) != 1)} ({done} complete, "
             f"{len(atts) - done} incomplete)",
             f"{report.orphans} orphan{'s' * (report.orphans != 1)}"
             + (f" (saved in {report.orphan_dir}/)" if report.orphan_dir else "")]
    return ", ".join(parts)


def _report_json(env: Env, report: Any) -> None:
    import json

    from mqtool.formats.sas.reassemble import manifest

    for hs in report.headers:
        env.line(json.dumps(manifest(hs), ensure_ascii=False, separators=(",", ":")))
    atts = [a for h in report.headers for a in h.attachments]
    env.line(json.dumps({"summary": {
        "messages": report.messages, "headers": len(report.headers), "attachments": len(atts),
        "complete": sum(1 for a in atts if a.complete), "orphans": report.orphans,
        "orphan_dir": report.orphan_dir, "unplaceable": report.unplaceable,
        "dump_format": report.dump_format, "status": int(report.status)}},
        separators=(",", ":")))


def _report_errors(env: Env, report: Any) -> None:
    for p in report.errors:
        env.error(p.reason if p.reason.startswith(p.path) else f"{p.path}: {p.reason}")
    for p in report.warnings[:10]:
        env.error(f"warning: {p.path}: {p.reason}")
    if len(report.warnings) > 10:
        env.error(f"warning: {len(report.warnings) - 10} more like these")
    for text in report.bad_headers:
        env.error(text)
    for fields, n in report.unplaceable.items():
        env.error(f"{n} message{'s' * (n != 1)} without {fields} in the dump: "
                  f"{'they' if n != 1 else 'it'} cannot be placed in an attachment (orphans)")
    incomplete = [(h, a) for h in report.headers for a in h.attachments if not a.complete]
    for h, a in incomplete:
        env.error(f"{h.folder} attachment {a.entry.index} ({a.entry.qualifier2}): {_status(a)}")
    for h in report.headers:
        if h.app_position is None:
            env.error(f"{h.folder}: no application message")
    if not report.headers:
        env.error(f"no attachment header (MsgType 100000) among {report.messages} messages")


# --------------------------------------------------------------------------- build


@click.command(short_help="The message set of a SAS attachment, as a queue dump.")
@click.option("-a", "--attach", "attach", multiple=True, metavar="KIND:PATH[=NAME]",
              help="An attachment, in order: binary:FILE[=SENDER-NAME], text:FILE[=SENDER-NAME] "
                   "or dataset:CSV[=LIBRARY.MEMBER]. Repeatable.")
@click.option("--description", multiple=True, metavar="TEXT",
              help="Description of the attachments, in the order of -a. Repeatable.")
@click.option("--message", "message_text", metavar="TEXT",
              help="The application message (encoded in the sender's code page).")
@click.option("--message-file", metavar="FILE", help="The application message, bytes as is.")
@click.option("--from", "request_file", metavar="FILE",
              help="A request in YAML or JSON (all of the above and more; see the README).")
@click.option("--profile", type=click.Choice(["zos", "win", "linux", "unix64", "unix32"]),
              default="zos", show_default=True,
              help="Sender: zos = big-endian EBCDIC (cp037) IBM HFP long 4; win = little-endian "
                   "cp1252 IEEE long 4; linux = little-endian latin-1 IEEE long 8; unix64 / "
                   "unix32 = big-endian latin-1 IEEE long 8 / 4.")
@sender_options
@click.option("--nul/--no-nul", "nul", default=None,
              help="Follow each string with a NUL byte (default: yes).")
@click.option("--record-nul", is_flag=True, help="Follow each file record with a NUL byte.")
@click.option("--max-msg", type=click.IntRange(64, 100 << 20), default=32768, show_default=True,
              help="Largest message body in bytes (SAS: 32K).")
@click.option("--lrecl", type=click.IntRange(1, 1 << 30),
              help="Record length for binary files (default: one record per message).")
@click.option("--straddle", is_flag=True,
              help="Fill every message: records and observations may continue in the next one.")
@click.option("--seq-order", type=click.Choice(["big", "little"]), default="big",
              show_default=True, help="Byte order of sequence numbers inside correlids.")
@click.option("--source-encoding", default="utf-8", show_default=True, callback=_encoding,
              help="Encoding of text files and CSV files given with -a.")
@click.option("--output-format", type=click.Choice(["dmpmqmsg", "mqtool-dir", "amqsbcg",
                                                    "mqmd-binary"]),
              default="dmpmqmsg", show_default=True,
              help="dmpmqmsg text, an mqtool directory, an amqsbcg-style listing, or a "
                   "directory of MQMD-prefixed binaries.")
@click.option("--width", type=click.IntRange(1, 65536), default=32, show_default=True,
              help="dmpmqmsg: bytes per X line.")
@click.option("-o", "--output", metavar="FILE|DIR",
              help="Write here (a directory for mqtool-dir and mqmd-binary); default stdout.")
@click.option("--force", is_flag=True, help="Overwrite existing output.")
def build_sas(attach: tuple[str, ...], description: tuple[str, ...], message_text: str | None,
              message_file: str | None, request_file: str | None, profile: str,
              long_size: str | None, byte_order: str | None, codepage: str | None,
              float_format: str | None, nul: bool | None, record_nul: bool, max_msg: int,
              lrecl: int | None, straddle: bool, seq_order: str, source_encoding: str,
              output_format: str, width: int, output: str | None, force: bool) -> int:
    """Build the messages SAS puts on a queue for an application message with attachments:
    the header (MsgType 100000), the application message, then per attachment its sequenced
    messages and the count message (MsgType 100001), written as a queue dump that
    `mqtool reassemble attachment` (or your own consumer) reads.

    \b
      mqtool build-request sas-attachment --message 'Hello' \\
          -a 'binary:mytext.txt=d:\\mytext.txt' --description 'Text file...' -o set.qmsg
    """
    from dataclasses import replace

    from mqtool.formats.sas.attachment import PROFILES
    from mqtool.formats.sas.message_set import BuildOptions, build_messages

    s = PROFILES[profile]
    if byte_order:
        s = replace(s, big=byte_order == "big")
    if long_size:
        s = replace(s, long=int(long_size))
    if codepage:
        s = replace(s, codepage=codepage)
    if float_format:
        s = replace(s, float_format=float_format)
    if nul is not None:
        s = replace(s, nul=nul)
    s = replace(s, record_nul=record_nul)
    if request_file:
        request, text = _request_from_file(request_file, source_encoding, lrecl)
        if message_text is None and text is not None:
            message_text = text
    else:
        request = _request_from_options(attach, description, lrecl, source_encoding)
    if message_file:
        from mqtool.io.inputs import read_bytes

        request.message = read_bytes(message_file)
    elif message_text is not None:
        try:
            request.message = message_text.encode(s.codepage)
        except UnicodeEncodeError:
            raise BuildError("sas-attachment", "message",
                             f"has characters code page {s.codepage} lacks") from None
    options = BuildOptions(s, max_msg, straddle, seq_order)
    if not request.attachments and not request.message:
        raise click.UsageError("nothing to build: give --message and/or -a attachments")
    _write_dump(get_env(), build_messages(request, options), output_format, output, force, width)
    return ExitStatus.OK


def _split_spec(spec: str) -> tuple[str, str, str]:
    kind, sep, rest = spec.partition(":")
    if not sep or kind not in ("binary", "text", "dataset"):
        raise click.BadParameter(f"{spec!r}: use binary:FILE[=NAME], text:FILE[=NAME] or "
                                 "dataset:CSV[=LIBRARY.MEMBER]", param_hint="--attach")
    path, _, name = rest.partition("=")
    if not path:
        raise click.BadParameter(f"{spec!r}: no file", param_hint="--attach")
    return kind, path, name


def _request_from_options(attach: tuple[str, ...], description: tuple[str, ...],
                          lrecl: int | None, source_encoding: str) -> Any:
    from mqtool.formats.sas.message_set import FileAttachment, Request, dataset_from_csv

    request = Request()
    for i, spec in enumerate(attach):
        kind, path, name = _split_spec(spec)
        p = Path(path)
        if not p.is_file():
            raise InputError(f"{path}: no such file")
        desc = description[i] if i < len(description) else ""
        if kind == "dataset":
            lib, _, member = name.rpartition(".") if name else ("", "", "")
            att: Any = dataset_from_csv(p, encoding=source_encoding, member=member or None,
                                        library=lib or "WORK")
            att.description = desc
        else:
            att = FileAttachment(path=p, name=name or p.name, text=kind == "text",
                                 description=desc, lrecl=lrecl, source_encoding=source_encoding)
        request.attachments.append(att)
    return request


def _hex16(value: Any, where: str) -> bytes | None:
    if value is None:
        return None
    try:
        raw = bytes.fromhex(str(value))
    except ValueError:
        raise BuildError("sas-attachment", where, f"{value!r} is not hex") from None
    if len(raw) not in (16, 20, 24):
        raise BuildError("sas-attachment", where, f"{len(raw)} bytes; give the 16-byte G "
                         "(or the 20/24-byte correlid)")
    return raw[:16]


def _request_from_file(path: str, source_encoding: str, lrecl: int | None) -> tuple[Any, str | None]:
    """A request in YAML/JSON: message, original_msgtype, correlids and attachments; and
    the message text (encoded later, in the sender's code page)."""
    import yaml

    from mqtool.formats.sas.datasets import Variable
    from mqtool.formats.sas.message_set import (
        DatasetAttachment,
        FileAttachment,
        Request,
        dataset_from_csv,
    )
    from mqtool.io.inputs import check_regular

    check_regular(path)  # FIFOs, devices: refused, not opened
    base = Path(path).parent
    try:
        doc = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}") from None
    except yaml.YAMLError as e:
        raise InputError(f"{path}: not YAML/JSON: {e}") from None
    if not isinstance(doc, dict):
        raise InputError(f"{path}: a request is a mapping (message, attachments, ...)")
    request = Request(original_msgtype=int(doc.get("original_msgtype", 1)),
                      header_correlid=_hex16(doc.get("header_correlid"), "header_correlid"),
                      message_correlid=_hex16(doc.get("message_correlid"), "message_correlid"))
    if doc.get("original_correlid"):
        request.original_correlid = bytes.fromhex(str(doc["original_correlid"]))[:24]
    text = None
    if "message_file" in doc:
        try:
            request.message = (base / str(doc["message_file"])).read_bytes()
        except OSError as e:
            raise InputError(f"{doc['message_file']}: {e.strerror}") from None
    elif "message" in doc:
        text = str(doc["message"])
    for i, a in enumerate(doc.get("attachments") or [], 1):
        where = f"attachments[{i}]"
        if not isinstance(a, dict):
            raise BuildError("sas-attachment", where, "each attachment is a mapping")
        kind = a.get("type", "binary")
        version = tuple(a.get("version", (0, 0)))
        g = _hex16(a.get("correlid"), f"{where}.correlid")
        if kind in ("binary", "text"):
            data = a.get("data")
            att: Any = FileAttachment(
                path=base / a["path"] if "path" in a else None,
                data=str(data).encode(source_encoding) if data is not None else None,
                name=str(a.get("name", a.get("path", f"file{i}"))), text=kind == "text",
                spec=str(a.get("spec", "FILENAME")), description=str(a.get("description", "")),
                version=version, lrecl=a.get("lrecl", lrecl), source_encoding=source_encoding,
                correlid=g)  # type: ignore[arg-type]
        elif kind == "dataset":
            if "csv" in a:
                att = dataset_from_csv(base / a["csv"], encoding=source_encoding,
                                       member=a.get("member"), library=a.get("library", "WORK"),
                                       label=a.get("label", ""))
            else:
                try:
                    variables = [Variable(**v) for v in a.get("variables", [])]
                except TypeError as e:
                    raise BuildError("sas-attachment", f"{where}.variables", str(e)) from None
                att = DatasetAttachment(variables, [list(r) for r in a.get("rows", [])],
                                        library=str(a.get("library", "WORK")),
                                        member=str(a.get("member", "DATA")),
                                        label=str(a.get("label", "")))
            att.description = str(a.get("description", ""))
            att.version = version
            att.correlid = g
        else:
            raise BuildError("sas-attachment", f"{where}.type",
                             f"{kind!r}: use binary, text or dataset")
        request.attachments.append(att)
    return request, text


def _write_dump(env: Env, messages: Any, fmt: str, output: str | None, force: bool,
                width: int) -> None:
    from mqtool.formats.mq.dumps.read import write_mqtool_dir
    from mqtool.formats.mq.dumps.write import write_amqsbcg, write_dmpmqmsg, write_mqmd_binaries
    from mqtool.io.outputs import OutputDir, open_new

    if fmt in ("mqtool-dir", "mqmd-binary"):
        if not output or output == "-":
            raise click.UsageError(f"--output-format {fmt} writes a directory: give -o DIR")
        out = OutputDir(output, force)
        (write_mqtool_dir if fmt == "mqtool-dir" else write_mqmd_binaries)(messages, out)
        return
    writer = write_dmpmqmsg if fmt == "dmpmqmsg" else write_amqsbcg
    kwargs = {"width": width} if fmt == "dmpmqmsg" else {}
    if output and output != "-":
        with open_new(output, force) as f:
            writer(messages, f, **kwargs)  # type: ignore[operator]
        return
    writer(messages, env.stdout, **kwargs)  # type: ignore[operator]
    env.stdout.flush()
