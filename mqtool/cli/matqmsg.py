"""``mqtool decode matqmsg`` and ``mqtool build-request matqmsg``: IBM i MATQMSG templates
(seed 004)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from mqtool.cli._common import (
    CodepageParam,
    Env,
    decoder_options,
    emit_units,
    get_env,
    read_unit_input,
    refuse_other_format,
    write_binary,
)
from mqtool.errors import BuildError, ExitStatus


def _template_bytes(path: str) -> bytes:
    """A selection template file: binary, or hex dump text (any style mqtool reads)."""
    from mqtool.cli._common import _is_dump_text
    from mqtool.io.inputs import read_bytes
    from mqtool.io.undump import undump

    data = read_bytes(path)
    if _is_dump_text(data):
        return undump(data.decode("utf-8"))
    return data


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
@click.option("--selection", "selection_file", metavar="FILE", type=click.Path(allow_dash=True),
              help="Receiver: take K and T from this selection template (binary or dump text).")
@click.option("--key-size", type=click.IntRange(0), metavar="N",
              help="Selection: the queue's key size (0: not keyed); the key is N bytes.")
@click.option("--codepage", default="037", show_default=True, metavar="CP",
              type=CodepageParam("binary"),
              help="Code page of keys and message text (037, 1047, 500, ascii, ...), or "
                   "binary for hex.")
@click.option("--strict", is_flag=True,
              help="Exit with status 2 when problems (template violations) were found.")
def decode_matqmsg(file: str, hex_text: bool, json_out: bool, raw: bool, annotate: bool, tz,  # type: ignore[no-untyped-def]
                   part: str, key_bytes: int | None, text_bytes: int | None,
                   selection_file: str | None, key_size: int | None, codepage: str,
                   strict: bool) -> int:
    """Decode a MATQMSG (Materialize Queue Messages) receiver template — bytes provided and
    available, message counts, maximum message size, key size, and each message entry
    (enqueue time from the MI time-of-day, shown in UTC; message length; key; text) — or a
    message selection template (type, key relationship, K and T, blocked or concurrent
    mode, key).

    The entry layout of a receiver needs the K and T of the selection template used:
    --key-bytes/--text-bytes or --selection FILE; without them they are inferred from
    bytes available when that is unambiguous, and the output says so. A receiver that
    was too small (bytes available > bytes provided) is reported with the number of
    messages cut; text longer than T is flagged truncated-text.

    Template values the machine would refuse (lengths not multiples of 16, K > 256,
    T > 65,536, keyed selection without a key or on a non-keyed queue, reserved bits on,
    bytes provided < 8) are listed as problems with the MI exception code; the exit status
    stays 0 unless --strict. Bytes that are neither template (with --part auto) are refused
    with what 'mqtool identify' thinks they are, exit status 2.
    """
    from mqtool import api

    env = get_env()
    data = read_unit_input(file, hex_text)
    if part == "auto":
        refuse_other_format("matqmsg", data, file,
                            " (neither a selection template nor a receiver whose header adds "
                            "up; --part receiver or --part selection decodes it anyway)")
    selection = _template_bytes(selection_file) if selection_file else None
    if selection is not None and (key_bytes is not None or text_bytes is not None):
        raise click.UsageError("give --selection or --key-bytes/--text-bytes, not both")
    units = api.decode("matqmsg", data, part=part, key_bytes=key_bytes, text_bytes=text_bytes,
                       selection=selection, key_size=key_size, codepage=codepage)
    return emit_units(env, ((u, data[u.offset:u.offset + u.length]) for u in units),
                      json_out=json_out, raw=raw, annotate=annotate, tz=tz,
                      strict_problems=strict) or ExitStatus.OK


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
@click.option("--mode", type=click.Choice(["blocked", "concurrent"]),
              help="Blocked (default): other queue activity waits; concurrent: ENQ/DEQ go on.")
@click.option("--codepage", default="037", show_default=True, metavar="CP", type=CodepageParam(),
              help="Code page of --key (037, 1047, 500, ascii, ...).")
@click.option("--from", "from_file", metavar="FILE", type=click.Path(allow_dash=True),
              help="Start from a template description: the --json output of 'decode matqmsg' "
                   "or an object of its field names; options override it.")
@click.option("--dump", "as_dump", is_flag=True, help="Print a hex dump instead of the bytes.")
@click.option("-o", "--output", metavar="FILE", type=click.Path(), help="Write the template to FILE.")
@click.option("--force", is_flag=True, help="Overwrite an existing output file.")
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
          --key-size 8 --key-bytes 16 --text-bytes 32 --mode concurrent --dump
    """
    from mqtool.formats.matqmsg import build as mq_build

    env = get_env()
    args: dict[str, object] = {}
    refused: list[BuildError] = []  # every unusable value, reported at once
    if from_file:
        loaded, refused = _from(from_file)
        args.update(loaded)
    given = {"selection_type": selection_type, "key_relationship": relation, "key_bytes": key_bytes,
             "text_bytes": text_bytes, "mode": mode}
    args.update({k: v for k, v in given.items() if v is not None})
    if key is not None and key_hex is not None:
        raise click.UsageError("give --key or --key-hex, not both")
    if key is not None:
        args["key"] = key
    if key_hex is not None:
        try:
            args["key"] = bytes.fromhex(key_hex)
        except ValueError:
            raise click.BadParameter(f"{key_hex!r} is not hex", param_hint="--key-hex") from None
    refused += _value_refusals(args)
    if refused:
        for e in refused:
            env.error(str(e))
        return ExitStatus.USAGE
    if "selection_type" not in args:
        raise click.UsageError("give --type (all, first, last, keyed) or --from FILE")
    try:
        data = mq_build.build_selection(**args, queue_key_size=key_size, codepage=codepage)  # type: ignore[arg-type]
    except mq_build.SelectionRefusedError as e:
        for v in e.violations:
            env.error(f"matqmsg: refused: {v.path.removeprefix('selection.')}: {v.describe()}")
        return ExitStatus.USAGE
    return _write(env, data, as_dump, output, force)


def _from(path: str) -> tuple[dict[str, object], list[BuildError]]:
    """The builder arguments of a request file, or (when a value is unusable) every
    unusable value: each field is tried on its own."""
    import json

    from mqtool.formats.matqmsg import build as mq_build
    from mqtool.io.inputs import read_text

    text = read_text(path)
    try:
        return mq_build.selection_request(text, path), []
    except BuildError as first:
        obj = json.loads(text.strip().splitlines()[0])  # selection_request parsed it
        fields: Any = obj
        def wrap(f: dict[str, Any]) -> Any:
            return f
        elements = obj.get("elements")
        for i, el in enumerate(elements if isinstance(elements, list) else ()):
            if isinstance(el, dict) and el.get("type") == "SELECTION":
                fields = el.get("fields")
                def wrap(f: dict[str, Any], i: int = i) -> Any:
                    return {"elements": [*[{}] * i, {"type": "SELECTION", "fields": f}]}
                break
        if not isinstance(fields, dict):
            return {}, [first]
        args: dict[str, object] = {}
        errors: list[BuildError] = []
        for name, value in fields.items():
            try:
                args.update(mq_build.selection_from_json(wrap({name: value})))
            except BuildError as e:
                errors.append(e)
        return args, errors or [first]


def _value_refusals(args: dict[str, object]) -> list[BuildError]:
    """Selection type, relationship and mode values the builder cannot use (each tried on
    its own, so that all of them are reported; the machine's rules are checked after)."""
    from mqtool.formats.matqmsg import build as mq_build

    probes: dict[str, Callable[[Any], object]] = {
        "selection_type": lambda v: mq_build.build_selection(selection_type=v),
        "key_relationship": mq_build.normalise_relation,
        "mode": lambda v: mq_build.build_selection(mode=v),
    }
    errors = []
    for name, probe in probes.items():
        if name in args:
            try:
                probe(args[name])
            except mq_build.SelectionRefusedError:
                pass  # a rule, not a value: reported with the others when building
            except BuildError as e:
                errors.append(e)
    return errors


def _write(env: Env, data: bytes, as_dump: bool, output: str | None, force: bool) -> int:
    if as_dump:
        from mqtool.render.hexdump import dump_bytes

        text = dump_bytes(data)
        if output and output != "-":
            from mqtool.io.outputs import write_file

            write_file(output, text.encode("utf-8"), force)
        else:
            env.write(text)
        return ExitStatus.OK
    write_binary(env, data, output, force)
    return ExitStatus.OK
