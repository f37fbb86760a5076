"""``mqtool decode urb`` and ``mqtool build-request urb``: Event Replicator URB messages."""

from __future__ import annotations

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
def decode_urb(file: str, hex_text: bool, json_out: bool, raw: bool, annotate: bool, tz,  # type: ignore[no-untyped-def]
               codepage: str | None, byte_order: str, urbi_data: str) -> int:
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

    def units():  # type: ignore[no-untyped-def]
        for src in read_sources(file, hex_text):
            data = src.data
            if not data and src.message is None:
                raise DecodeError(urb_layout.FORMAT, "", 0, "empty input: no message to decode")
            for u in urb_decode.decode(data, codepage=codepage, byte_order=byte_order, urbi_data=urbi_data):
                if src.message is not None:
                    label_unit(u, src.message)
                yield u, data[u.offset:u.offset + u.length]

    return emit_units(env, units(), json_out=json_out, raw=raw, annotate=annotate, tz=tz)


TYPES = ("open", "close", "inst", "tran", "stat")
PER_URBI = ("token", "rnam", "dnam", "snam", "inam", "dbid", "fnr", "tsnr", "selection",
            "selection_hex", "arc", "acode", "wcode")


def _per_urbi(name: str, metavar: str, text: str):  # type: ignore[no-untyped-def]
    return click.option(f"--{name.replace('_', '-')}", name, multiple=True, metavar=metavar,
                        help=text)


@click.command(short_help=BUILD["urb"][1])
@click.argument("rtype", required=False, metavar="[open|close|inst|tran|stat]",
                type=click.Choice(TYPES, case_sensitive=False))
@click.option("--from", "from_file", metavar="FILE|-",
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
@click.option("-o", "--output", metavar="FILE", help="Write the message to FILE.")
@click.option("--force", is_flag=True, help="Overwrite an existing output file.")
@color_option
def build_urb(rtype: str | None, from_file: str | None, isn: tuple[str, ...], sender: str | None,
              msnr: str | None, stck: str | None, encoding: str | None, codepage: str | None,
              byte_order: str | None, align: int | None, output: str | None, force: bool,
              **per_urbi: tuple[str, ...]) -> int:
    """Build an Event Replicator input request: a URBH and one or more URBIs.

    \b
      open / close  --dnam (repeat: one URBI per destination), --rnam, --token
      inst          --inam --dbid --fnr --rnam (repeat --fnr/--dbid: one URBI per file),
                    --isn or --selection/--selection-hex, --acode --wcode --arc
      tran          --snam --dnam --tsnr, --rnam, --token
      stat          --snam and/or --dnam, --rnam, --token

    Per-URBI options may be repeated: given once they apply to every URBI, given N times
    they describe N URBIs in order. Several URBIs with different data (an ISN list per
    file) come from a --from file. Everything is checked before building: request-type
    rules, ISN-list rules, field sizes. The message goes to -o FILE or a pipe; on a
    terminal its dump is shown instead.
    """
    from mqtool.formats.urb import build as urb_build

    env = get_env()
    if not rtype and not from_file:
        raise click.UsageError("give a request type (open, close, inst, tran, stat) or --from FILE")
    if from_file:
        from mqtool.io.inputs import read_text

        requests: list[urb_build.Request | None] = list(urb_build.load_requests(read_text(from_file)))
    else:
        requests = [None]
    built = []
    for req in requests:
        r = urb_build.apply_options(req, urb_build.REQUEST_TYPES[rtype.lower()] if rtype else None, per_urbi,
                             {"sender": sender, "msnr": msnr, "stck": stck},
                             {"encoding": encoding, "codepage": codepage, "byte_order": byte_order,
                              "align": align}, isn)
        for w in urb_build.validate(r):
            env.error(f"warning: {w}")
        built.append((r, urb_build.build_request(r)))
    data = b"".join(b for _, b in built)
    if output or not env.stdout_isatty:
        from mqtool.cli._common import write_binary

        write_binary(env, data, output, force)
        return ExitStatus.OK
    from mqtool.render.hexdump import dump_bytes

    for k, (r, b) in enumerate(built):
        if k:
            env.line()
        env.write(dump_bytes(b, codepage=r.cp))
    env.stdout.flush()
    return ExitStatus.OK
