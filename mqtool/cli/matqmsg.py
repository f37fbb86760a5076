"""``mqtool decode matqmsg`` and ``mqtool build-request matqmsg``: IBM i MATQMSG templates
(IBM i Machine Interface, MATQMSG instruction)."""

from __future__ import annotations

from datetime import tzinfo
from typing import Any

import click

from mqtool.cli._common import (
    build_output_options,
    codepage_option,
    decode_sources,
    decoder_options,
    emit_units,
    get_env,
    refuse_other_format,
    write_built,
)
from mqtool.errors import BuildError, ExitStatus


@click.command(short_help="IBM i MATQMSG receiver or message selection template.")
@decoder_options
@click.option("--part", type=click.Choice(["auto", "receiver", "selection"]), default="auto",
              show_default=True,
              help="Receiver (materialization) template or message selection template; auto "
                   "tells them apart by byte 0 and size.")
@click.option("--key-bytes", type=int, metavar="K",
              help="Receiver: key bytes materialized per message (the selection's K).")
@click.option("--text-bytes", type=int, metavar="T",
              help="Receiver: message text bytes materialized per message (the selection's T).")
@click.option("--selection-template", "selection_file", metavar="FILE",
              type=click.Path(allow_dash=True),
              help="Receiver: take K and T from this message selection template (binary or dump "
                   "text).")
@click.option("--key-size", type=click.IntRange(0), metavar="N",
              help="Selection: the queue's key size (0: not keyed); the key is N bytes.")
@codepage_option("Code page of keys and message text (037, 1047, 500, ascii, ...), or binary "
                 "for hex.", "037", "binary")
def decode_matqmsg(file: str, hex_text: bool, json_out: bool, raw: bool, annotate: bool,
                   tz: tzinfo | None,
                   part: str, key_bytes: int | None, text_bytes: int | None,
                   selection_file: str | None, key_size: int | None, codepage: str,
                   strict: bool) -> int:
    """Decode a MATQMSG (Materialize Queue Messages) receiver template — bytes provided and
    available, message counts, maximum message size, key size, and each message entry
    (enqueue time from the MI time-of-day, shown in UTC; message length; key; text) — or a
    message selection template (type, key relationship, K and T, blocked or concurrent
    mode, key).

    The entry layout of a receiver needs the K and T of the selection template used:
    --key-bytes/--text-bytes or --selection-template FILE; without them they are inferred from
    bytes available when that is unambiguous, and the output says so. A receiver that
    was too small (bytes available > bytes provided) is reported with the number of
    messages cut; text longer than T is flagged truncated-text.

    Template values the machine would refuse (lengths not multiples of 16, K > 256,
    T > 65,536, keyed selection without a key or on a non-keyed queue, reserved bits on,
    bytes provided < 8) are listed as problems with the MI exception code; the exit status
    stays 0 unless --strict (then each is said on stderr). Bytes that are neither template
    (with --part auto) are refused with what 'mqtool identify' thinks they are, exit status
    2.
    """
    from mqtool import api

    env = get_env()
    from mqtool.io.inputs import read_binary_or_dump

    selection = read_binary_or_dump(selection_file) if selection_file else None
    if selection is not None and (key_bytes is not None or text_bytes is not None):
        raise click.UsageError("give --selection-template or --key-bytes/--text-bytes, not both")

    def one(data: bytes) -> list[Any]:
        if part == "auto":
            refuse_other_format("matqmsg", data, file,
                                " (neither a selection template nor a receiver whose header "
                                "adds up; --part receiver or --part selection decodes it "
                                "anyway)")
        return api.decode("matqmsg", data, part=part, key_bytes=key_bytes,
                          text_bytes=text_bytes, selection=selection, key_size=key_size,
                          codepage=codepage)

    return emit_units(env, decode_sources(file, hex_text, one), json_out=json_out, raw=raw,
                      annotate=annotate, tz=tz, strict_problems=strict) or ExitStatus.OK


@click.command(short_help="IBM i MATQMSG message selection template.")
@click.option("--type", "selection_type", type=click.Choice(["all", "first", "last", "keyed"]),
              help="Which messages: all, first, last, or keyed (by --key and --relation).")
@click.option("--relation", metavar="REL",
              help="Keyed: key relationship >, <, !=, =, >=, <= (or gt, lt, ne, eq, ge, le).")
@click.option("--key", metavar="TEXT", help="Keyed: the key comparand, encoded in --codepage.")
@click.option("--key-hex", metavar="HEX", help="Keyed: the key comparand as hex bytes.")
@click.option("--key-size", type=click.IntRange(0), metavar="N",
              help="The queue's key size: the key is padded to it; 0 refuses keyed selection.")
@click.option("--key-bytes", type=int, metavar="K",
              help="Key bytes to materialize per message (0 or a multiple of 16, <= 256).")
@click.option("--text-bytes", type=int, metavar="T",
              help="Text bytes to materialize per message (0 or a multiple of 16, <= 65536).")
@click.option("--enq-deq-mode", "mode", type=click.Choice(["blocked", "concurrent"]),
              help="The enqueue and dequeue mode: blocked (default) makes other queue activity "
                   "wait; concurrent lets ENQ and DEQ go on.")
@codepage_option("Code page of --key (037, 1047, 500, ascii, ...).", "037")
@click.option("--from", "from_file", metavar="FILE", type=click.Path(allow_dash=True),
              help="Start from a template description: the --json output of 'decode matqmsg' "
                   "or an object of its field names; options override it.")
@build_output_options
def build_matqmsg(selection_type: str | None, relation: str | None, key: str | None,
                  key_hex: str | None, key_size: int | None, key_bytes: int | None,
                  text_bytes: int | None, mode: str | None, codepage: str, from_file: str | None,
                  as_dump: bool, output: str | None, force: bool) -> int:
    """Build a MATQMSG message selection template (16 bytes, then the key padded to a
    multiple of 16), validated the way the machine validates it: K and T 0 or multiples
    of 16, K <= 256, T <= 65,536, keyed selection only with a key and a relationship (and
    not on a queue with key size 0), a key no longer than the queue's key size. Every
    refusal is explained on its own line, exit status 1.

    \b
      mqtool build-request matqmsg --type keyed --relation = --key CUST0001 \\
          --key-size 8 --key-bytes 16 --text-bytes 32 --enq-deq-mode concurrent --dump
    """
    from mqtool import api
    from mqtool.io.inputs import read_text

    env = get_env()
    if key is not None and key_hex is not None:
        raise click.UsageError("give --key or --key-hex, not both")
    given: dict[str, object] = {"selection_type": selection_type, "key_relationship": relation,
                                "key_bytes": key_bytes, "text_bytes": text_bytes, "mode": mode,
                                "key": key}
    if key_hex is not None:
        try:
            given["key"] = bytes.fromhex(key_hex)
        except ValueError:
            raise click.BadParameter(f"{key_hex!r} is not hex", param_hint="--key-hex") from None
    try:
        data = api.build("matqmsg", read_text(from_file) if from_file else "", overrides=given,
                         source=from_file or "", queue_key_size=key_size, codepage=codepage)
    except BuildError as e:  # every refusal, one line each
        for line in str(e).split("\n"):
            env.error(line)
        return ExitStatus.USAGE
    return write_built(env, data, output, force, as_dump)
