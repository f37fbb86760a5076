"""``mqtool decode urb`` and ``mqtool build-request urb``: Event Replicator URB messages."""

from __future__ import annotations

import contextlib
import shutil
import sys
import tempfile
from collections.abc import Iterator

import click

from mqtool.cli import BUILD, DECODE
from mqtool.cli._common import color_option, decoder_options, emit_units, get_env, read_sources
from mqtool.errors import DecodeError, ExitStatus
from mqtool.formats.mq.dumps.read import label_unit


def _codepage(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    from mqtool.codepages import single_byte_codec

    try:
        return single_byte_codec(value)
    except LookupError as e:
        raise click.BadParameter(str(e).strip("'\"")) from None


@click.command(short_help=DECODE["urb"][1])
@decoder_options
@click.option("--codepage", metavar="CP", callback=_codepage,
              help="Decode character fields with CP (037, 500, 1047, ..., ascii) instead of the "
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
def decode_urb(file: str, hex_text: bool, json_out: bool, raw: bool, annotate: bool, tz,  # type: ignore[no-untyped-def]
               codepage: str | None, byte_order: str, urbi_data: str, leap_seconds: int) -> int:
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
    from mqtool.formats.urb import decode as urb_decode
    from mqtool.formats.urb import layout as urb_layout

    env = get_env()

    # a stream with nothing forced: JSON or the listing straight from the declarations
    plain = (not raw and codepage is None and byte_order == "auto" and urbi_data == "auto"
             and not leap_seconds)
    fast = plain and json_out
    fast_list = plain and not json_out and not annotate

    def units():  # type: ignore[no-untyped-def]
        for src in read_sources(file, hex_text):
            data = src.data
            if not data and src.message is None:
                raise DecodeError(urb_layout.FORMAT, "", 0, "empty input: no message to decode")
            if fast and src.message is None:
                from mqtool.formats.urb.fastjson import units as fast_units

                decoded = fast_units(data)
            elif fast_list and src.message is None:
                from mqtool.formats.urb.fastlist import units as listed_units

                decoded = listed_units(data, tz)
            else:
                decoded = urb_decode.decode(data, codepage=codepage, byte_order=byte_order,
                                            urbi_data=urbi_data, leap_seconds=leap_seconds)
            for u in decoded:
                if src.message is not None:
                    label_unit(u, src.message)
                yield u, data[u.offset:u.offset + u.length]

    if fast:
        return _emit_json(env, units())
    if fast_list:
        return _emit_listing(env, units(), tz)
    return emit_units(env, units(), json_out=json_out, raw=raw, annotate=annotate, tz=tz)


def _emit_listing(env, units, tz) -> int:  # type: ignore[no-untyped-def]
    """The listing as ``emit_units`` prints it; ``fastlist.Listed`` units carry their lines."""
    from mqtool.formats.urb.fastlist import Listed
    from mqtool.render.listing import unit_lines

    status = ExitStatus.OK
    out = env.stdout
    first = True
    for unit, _data in units:
        if not first:
            out.write(b"\n")
        first = False
        lines = unit.lines if isinstance(unit, Listed) else unit_lines(unit, tz)
        out.write(("\n".join(lines) + "\n").encode("utf-8"))
        where = (f"message {unit.attrs['message']} ({unit.attrs.get('source', '')}): "
                 if "message" in unit.attrs else "")
        for p in unit.errors:
            env.error(f"{unit.format}: {where}{p.describe()}")
        if unit.errors:
            status = ExitStatus.DECODE
    out.flush()
    return status


def _emit_json(env, units) -> int:  # type: ignore[no-untyped-def]
    """JSON lines as ``emit_units`` writes them, encoded by orjson (a dependency; json when absent)
    (the same bytes, about five times faster), then the errors."""
    import json

    try:
        import orjson

        def dumps(obj: object) -> bytes:
            try:
                return orjson.dumps(obj)
            except (TypeError, orjson.JSONEncodeError):  # integers past 64 bits
                return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()
    except ImportError:
        def dumps(obj: object) -> bytes:
            return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()

    status = ExitStatus.OK
    write = env.stdout.write
    for unit, _data in units:
        write(dumps(unit.to_json()) + b"\n")
        where = (f"message {unit.attrs['message']} ({unit.attrs.get('source', '')}): "
                 if "message" in unit.attrs else "")
        for p in unit.errors:
            env.error(f"{unit.format}: {where}{p.describe()}")
        if unit.errors:
            status = ExitStatus.DECODE
    env.stdout.flush()
    return status


TYPES = ("open", "close", "inst", "tran", "stat", "reply", "data")
# per-URBI options a status reply (URBS) or a data message (URBT) takes, and their fields
REPLY_FIELDS = {"token": "urbsrtok", "snam": "urbssnam", "dnam": "urbsdnam", "inam": "urbsinam",
                "dbid": "urbsdbid", "fnr": "urbsfnr", "tsnr": "urbstsnr"}
DATA_FIELDS = {"token": "urbtrtok", "snam": "urbtsnam", "dbid": "urbtdbid", "tsnr": "urbttsnr"}
PER_URBI = ("token", "rnam", "dnam", "snam", "inam", "dbid", "fnr", "tsnr", "selection",
            "selection_hex", "arc", "acode", "wcode")


def _per_urbi(name: str, metavar: str, text: str):  # type: ignore[no-untyped-def]
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
@click.option("--encoding", type=click.Choice(["ebcdic", "ascii"]),
              help="Character set of the message (default ebcdic).")
@click.option("--codepage", metavar="CP", help="EBCDIC code page (default 037; 500, 1047, ...).")
@click.option("--byte-order", type=click.Choice(["big", "little"]),
              help="Byte order of binary fields (default big).")
@click.option("--align", type=click.IntRange(1, 4096), metavar="N",
              help="Pad selection data with zeros to a multiple of N bytes (default 4; 1 for "
                   "none); URBILEN counts the filler.")
@click.option("--status", metavar="CODE",
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
@click.option("-o", "--output", metavar="FILE", type=click.Path(), help="Write the message to FILE.")
@click.option("--dump", "as_dump", is_flag=True,
              help="Print a hex dump of what was built instead of the bytes.")
@click.option("--force", is_flag=True, help="Overwrite an existing output file.")
@color_option
def build_urb(rtype: str | None, from_file: str | None, isn: tuple[str, ...], sender: str | None,
              msnr: str | None, stck: str | None, encoding: str | None, codepage: str | None,
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
      reply         a status message (URBS): --status, --answers, --token, --snam,
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
    from mqtool.formats.urb import build as urb_build

    env = get_env()
    if not rtype and not from_file:
        raise click.UsageError("give a request type (open, close, inst, tran, stat), reply, data "
                               "or --from FILE")
    server = {"status": status, "answers": answers, "rsp": rsp, "subcode": subcode,
              "--image": images, "--before": befores, "record_type": record_type,
              "initial_state": initial_state}
    if rtype and rtype.lower() in ("reply", "data"):
        if from_file:
            raise click.UsageError(f"{rtype.lower()} builds from options; --from takes any message as is")
        msg = _server_message(rtype.lower(), per_urbi, isn, server,
                              {"urbhname": sender, "urbhmsnr": msnr, "urbhtime": stck},
                              {"encoding": encoding, "codepage": codepage, "byte_order": byte_order,
                               "align": align})
        return _write_built(env, [(msg, urb_build.build_message(msg))], output, force, as_dump)
    given = [f"--{k.replace('_', '-')}" for k, v in server.items() if v and not k.startswith("--")]
    given += [k for k, v in server.items() if v and k.startswith("--")]
    if given:
        raise click.UsageError(f"{', '.join(given)}: for reply and data messages only")
    if from_file:
        from mqtool.io.inputs import read_text

        requests: list = list(urb_build.load_requests(read_text(from_file)))
    else:
        requests = [None]
    built = []
    header = {"sender": sender, "msnr": msnr, "stck": stck}
    message = {"encoding": encoding, "codepage": codepage, "byte_order": byte_order, "align": align}
    kind = urb_build.REQUEST_TYPES[rtype.lower()] if rtype else None
    for req in requests:
        if isinstance(req, urb_build.Message):  # a status or data message (decode --json)
            m = urb_build.apply_message_options(req, kind, per_urbi, header, message, isn)
            built.append((m, urb_build.build_message(m)))
            continue
        r = urb_build.apply_options(req, kind, per_urbi, header, message, isn)
        for w in urb_build.validate(r):
            env.error(f"warning: {w}")
        built.append((r, urb_build.build_request(r)))
    return _write_built(env, built, output, force, as_dump)


def _write_built(env, built: list, output: str | None, force: bool,  # type: ignore[no-untyped-def]
                 as_dump: bool = False) -> int:
    if not as_dump:
        from mqtool.cli._common import write_binary

        write_binary(env, b"".join(b for _, b in built), output, force)
        return ExitStatus.OK
    from mqtool.render.hexdump import dump_bytes

    text = "\n".join(dump_bytes(b, codepage=r.cp) for r, b in built)
    if output and output != "-":
        from mqtool.io.outputs import write_file

        write_file(output, text.encode("utf-8"), force)
    else:
        env.write(text)
        env.stdout.flush()
    return ExitStatus.OK


# --------------------------------------------------------------------------- extract urb

EXTRACT_MODE_HELP = ("Undecodable input: PERMISSIVE (an errors row each, resynchronise at the next "
                     "message, exit 2 at the end), FAILFAST (stop at the first, write nothing, exit 2).")


@click.command(short_help="Event Replicator messages to change tables (Parquet, JSON lines, CSV).")
@click.argument("inputs", nargs=-1, required=True, metavar="INPUT...", type=click.Path(allow_dash=True))
@click.option("-o", "--output", "outdir", required=True, metavar="OUTDIR", type=click.Path(),
              help="Output directory: messages, transactions, records, images, status, errors "
                   "and changes, one file each.")
@click.option("--to", "fmt", type=click.Choice(["parquet", "jsonl", "csv"]), default="parquet",
              show_default=True, help="Format of the table files.")
@click.option("--mode", type=click.Choice(["PERMISSIVE", "FAILFAST"], case_sensitive=False),
              default="PERMISSIVE", show_default=True, help=EXTRACT_MODE_HELP)
@click.option("--summary", is_flag=True,
              help="Print the summary (rows per table, errors by reason) on stdout; it is also "
                   "written to OUTDIR/_summary.json.")
@click.option("--leap-seconds", type=click.IntRange(0, 60), default=0, show_default=True, metavar="N",
              help="Timestamps N seconds earlier (a TOD clock steered to include leap seconds; 27 "
                   "since 2017); the <field>_raw columns are unchanged.")
@click.option("--force", is_flag=True, help="Overwrite existing table files in OUTDIR.")
def extract_urb(inputs: tuple[str, ...], outdir: str, fmt: str, mode: str, summary: bool,
                leap_seconds: int, force: bool) -> int:
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
    """
    import os

    from mqtool.formats.urb.extract import extract

    env = get_env()
    with _stdin_spooled(inputs) as paths:
        total = _refuse_empty(paths)
        with _extract_progress(env, total) as advance:
            result = extract(list(paths), outdir, fmt=fmt, mode=mode.upper(), force=force,
                             progress=advance, leap_seconds=leap_seconds)
    info = result.to_json()
    import json

    summary_path = os.path.join(outdir, "_summary.json")
    from mqtool.io.outputs import write_file

    write_file(summary_path, (json.dumps(info, indent=2) + "\n").encode("utf-8"), force=True)
    if summary:
        for name, n in info["rows"].items():
            env.line(f"{name:<13} {n:>9,} rows")
        for reason, n in info["errors_by_reason"].items():
            env.line(f"  {reason}: {n:,}")
    if result.errors:
        env.error(f"urb: {result.errors} error{'s' if result.errors > 1 else ''}; first: "
                  f"{result.first_error}")
        return ExitStatus.DECODE
    return ExitStatus.OK


class _extract_progress:  # noqa: N801 (a context manager used like a function)
    """A rich progress bar on stderr, only when stderr is a terminal and the input is large."""

    def __init__(self, env, total: int) -> None:  # type: ignore[no-untyped-def]
        self.env, self.total = env, total
        self.bar = None

    def __enter__(self):  # type: ignore[no-untyped-def]
        if not self.env.stderr_isatty or self.total < (8 << 20):
            return None
        from rich.console import Console
        from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn

        self.bar = Progress("extract urb", BarColumn(), DownloadColumn(), TimeRemainingColumn(),
                            console=Console(file=self.env.stderr), transient=True)
        self.bar.start()
        task = self.bar.add_task("extract", total=self.total)
        return lambda done: self.bar.update(task, completed=done)  # type: ignore[union-attr]

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


def _server_message(kind: str, per_urbi: dict, isn: tuple[str, ...], server: dict, header: dict,
                    message: dict):  # type: ignore[no-untyped-def]
    """The compose.Message of ``reply`` or ``data`` from the options; refusals at once."""
    from mqtool.formats.urb import build as urb_build
    from mqtool.formats.urb.compose import Refusals, data_message, status_reply

    bad = Refusals()
    table = REPLY_FIELDS if kind == "reply" else {**DATA_FIELDS, "fnr": "urbrfnr"}
    fields: dict = {}
    for key, values in per_urbi.items():
        if not values:
            continue
        if key not in table:
            bad.add(f"--{key.replace('_', '-')}", f"not an option of a {kind} message")
        elif len(values) > 1:
            bad.add(f"--{key}", f"given {len(values)} times; a {kind} message takes one")
        else:
            value = values[0]
            if table[key] not in ("urbsrtok", "urbssnam", "urbsdnam", "urbsinam", "urbtrtok", "urbtsnam"):
                try:
                    value = urb_build.parse_int(value)
                except ValueError as e:
                    bad.add(f"--{key}", str(e))
            fields[table[key]] = value
    if isn:
        bad.add("--isn", f"not an option of a {kind} message")
    if message.get("align") is not None:
        bad.add("--align", f"not an option of a {kind} message")
    hdr = {k: v for k, v in header.items() if v is not None}
    if "urbhmsnr" in hdr:
        try:
            hdr["urbhmsnr"] = urb_build.parse_int(hdr["urbhmsnr"])
        except ValueError as e:
            bad.add("--msnr", str(e))
    if kind == "reply":
        wrong = [k for k in ("--image", "--before", "record_type", "initial_state") if server[k]]
        bad.items += [(w if w.startswith("--") else f"--{w.replace('_', '-')}", "for data messages only")
                      for w in wrong]
        if not server["status"]:
            bad.add("urbs.urbsst (--status)", "a reply needs a status")
        if server["answers"]:
            answered = server["answers"]
            fields["urbsrt"] = urb_build.REQUEST_TYPES.get(answered.lower(), answered.upper())
        for opt, name in (("rsp", "urbsrsp"), ("subcode", "urbssubc")):
            if server[opt] is not None:
                try:
                    fields[name] = urb_build.parse_int(server[opt])
                except ValueError as e:
                    bad.add(f"--{opt}", str(e))
        if "urbhtime" in hdr:
            fields["urbstime"] = hdr["urbhtime"]
        bad.raise_any()
        msg = status_reply(server["status"], fields, hdr)
    else:
        wrong = [k for k in ("status", "answers", "rsp", "subcode") if server[k]]
        bad.items += [(f"--{w}", "for status replies only") for w in wrong]
        fnr = fields.pop("urbrfnr", 0)
        rtyp = (server["record_type"] or ("R" if server["initial_state"] else "U")).upper()
        records: dict[int, tuple[dict, list]] = {}  # in --image order, before images first
        for opt, kind_of, items in (("--image", "A", server["--image"]),
                                    ("--before", "B", server["--before"])):
            for item in items:
                isn_text, sep, text = item.partition("=")
                try:
                    isn_no = urb_build.parse_int(isn_text)
                except ValueError as e:
                    bad.add(opt, str(e))
                    continue
                if not sep:
                    bad.add(opt, f"{item!r} is not ISN=TEXT")
                    continue
                records.setdefault(isn_no, ({"urbrisn": isn_no, "urbrfnr": fnr, "urbrtyp": rtyp}, []))
                imgs = records[isn_no][1]
                imgs.insert(sum(1 for k, _ in imgs if k == "B") if kind_of == "B" else len(imgs),
                            (kind_of, text))
        if not records:
            bad.add("--image", "a data message needs at least one record image")
        if server["initial_state"]:
            fields["urbtinst"] = "Y"
        if "urbhtime" in hdr:
            fields["urbtttim"] = fields["urbtptim"] = hdr["urbhtime"]
        bad.raise_any()
        msg = data_message(fields, [(r, imgs) for r, imgs in records.values()], hdr)
        msg.encoding, msg.codepage = message.get("encoding"), message.get("codepage")
        cp = msg.cp
        for part in msg.elements:
            if part.type == "URBD":
                text = part.data  # type: ignore[assignment]
                try:
                    part.data = (bytes.fromhex(text[4:]) if str(text).upper().startswith("HEX:")
                                 else str(text).encode(cp))
                except (ValueError, UnicodeEncodeError) as e:
                    bad.add("--image", f"{text!r}: {e}")
        bad.raise_any()
    msg.encoding, msg.codepage = message.get("encoding"), message.get("codepage")
    msg.byte_order = message.get("byte_order") or "big"
    return msg


# --------------------------------------------------------------------------- spark-extract urb


@contextlib.contextmanager
def _stdin_spooled(inputs: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    """``-`` (stdin, once) copied piece by piece to a temporary file the reader can seek in;
    removed afterwards."""
    if "-" not in inputs:
        yield inputs
        return
    if inputs.count("-") > 1:
        raise click.UsageError("stdin (-) can be read once")
    with tempfile.NamedTemporaryFile(prefix="mqtool-stdin-", suffix=".bin") as tmp:
        shutil.copyfileobj(sys.stdin.buffer, tmp, 1 << 20)
        tmp.flush()
        yield tuple(tmp.name if p == "-" else p for p in inputs)


def _refuse_empty(inputs: tuple[str, ...]) -> int:
    """The bytes of the input files; every input an empty file is "empty input" (exit 2),
    as in every command, before any output is made."""
    import os

    sizes = [os.path.getsize(p) for p in inputs if os.path.isfile(p)]
    if len(sizes) == len(inputs) and not any(sizes):
        from mqtool.errors import EmptyInputError

        raise EmptyInputError("urb", ", ".join(inputs))
    return sum(sizes)


@click.command(short_help="Event Replicator messages to change tables with PySpark (Parquet).")
@click.argument("inputs", nargs=-1, required=True, metavar="INPUT...", type=click.Path())
@click.option("-o", "--output", "outdir", required=True, metavar="OUTDIR", type=click.Path(),
              help="Output directory: one Parquet folder per table (messages, transactions, records, "
                   "images, status, errors, changes) and _summary.json.")
@click.option("--master", default="local[*]", show_default=True, metavar="URL",
              help="Spark master: local[N], spark://HOST:PORT, yarn, k8s://...")
@click.option("--conf", "confs", multiple=True, metavar="K=V", help="Spark configuration; repeatable.")
@click.option("--mode", type=click.Choice(["PERMISSIVE", "FAILFAST"], case_sensitive=False),
              default="PERMISSIVE", show_default=True, help=EXTRACT_MODE_HELP)
@click.option("--leap-seconds", type=click.IntRange(0, 60), default=0, show_default=True, metavar="N",
              help="Timestamps N seconds earlier (a TOD clock steered to include leap seconds).")
@click.option("--force", is_flag=True, help="Replace existing table folders in OUTDIR.")
def spark_extract_urb(inputs: tuple[str, ...], outdir: str, master: str, confs: tuple[str, ...],
                      mode: str, leap_seconds: int, force: bool) -> int:
    """The tables of 'extract urb' from Spark: the DataSource mqtool.urb decodes each input
    file in an executor task with the same library function as the local command, and
    Spark writes OUTDIR/<table>/ as Parquet. Java 17+ and pyspark are needed; mqtool is
    shipped to the executors. Transaction, record and image numbers count per file here
    (the local command counts over the run); (file, transaction) names a transaction in
    both. Exit status 2 when the errors table has rows.
    """
    from mqtool.errors import InputError
    from mqtool.spark import job
    from mqtool.spark import urb as spark_urb

    env = get_env()
    if "-" in inputs:
        raise InputError("spark-extract urb: stdin (-) cannot be read by executors; give files")
    _refuse_empty(inputs)
    job.check_output(outdir, force)  # what can be checked before the JVM starts
    job.check_master(master)
    job.pyspark_check()
    job.java_check()
    conf = {}
    for kv in confs:
        k, sep, v = kv.partition("=")
        if not sep or not k:
            raise click.BadParameter(f"{kv!r} is not K=V", param_hint="--conf")
        conf[k.strip()] = v
    spark = job.session(master, conf, app="mqtool spark-extract urb")
    try:
        info = spark_urb.run(spark, list(inputs), outdir, mode=mode.upper(), force=force,
                             leap_seconds=leap_seconds)
    finally:
        spark.stop()
    for name, n in info["rows"].items():
        env.line(f"{name:<13} {n:>9,} rows")
    if info["rows"].get("errors"):
        env.error(f"urb: {info['rows']['errors']} errors; see {outdir}/errors")
        return ExitStatus.DECODE
    return ExitStatus.OK
