"""``mqtool decode auto`` and ``mqtool identify``: recognise what a blob is (every codec's
own detector, plus queue dumps and hex dump text), then decode it or say so."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import tzinfo

import click

from mqtool.cli._common import (
    Env,
    decoder_options,
    emit_units,
    get_env,
    port_option,
    selection,
    window,
    window_options,
)
from mqtool.errors import ExitStatus, MqtoolError
from mqtool.model import Decoded

HEAD = 1 << 20  # identify judges this much of a larger input: memory stays bounded
TEXT_HEAD = 256 << 10  # of larger dump text: some 60 KB of bytes once read back


@click.command(short_help="Recognise the format, then decode with it.")
@decoder_options
@port_option
def decode_auto(file: str, hex_text: bool, json_out: bool, raw: bool, annotate: bool,
                tz: tzinfo | None, strict: bool) -> int:
    """Recognise which format FILE holds — each codec judges the bytes itself (eyecatchers,
    lengths that add up, record shapes); hex dump text is read back and its bytes judged —
    then decode it with the most confident codec. The listing's first line names the
    codec chosen, its confidence and the evidence; in JSON each unit's "format" does.
    'mqtool identify' shows every candidate. The JSON of an MQ message carries its
    payload's bytes (as 'decode mq --json' does): 'build-request mq --from -' rebuilds it.
    """
    from mqtool import api

    env = get_env()
    decoding = api.decode_auto(file, hex_text, env.error, window())
    units = decoding.units
    if not (json_out or selection().columns):
        units = _headed(env, decoding.heading, units, eager=not decoding.dump)
    return emit_units(env, units, json_out=json_out, raw=raw, annotate=annotate, tz=tz,
                      strict_problems=strict) or ExitStatus.OK


def _headed(env: Env, heading: str, units: Iterator[tuple[Decoded, bytes]],
            eager: bool) -> Iterator[tuple[Decoded, bytes]]:
    """The units, the heading said first (``eager``: before anything is decoded, else once
    there is a unit: an empty directory says nothing)."""
    if eager:
        env.line(heading)
    for k, unit in enumerate(units):
        if k == 0 and not eager:
            env.line(heading)
        yield unit


@click.command(short_help="Say which format each input file holds.")
@click.argument("files", nargs=-1, required=True, metavar="FILE...", type=click.Path(allow_dash=True))
@click.option("--json", "json_out", is_flag=True,
              help='JSON lines: {"file", "format", "confidence", "reason", "candidates"}.')
@click.option("--all", "show_all", is_flag=True, help="Also list the other candidates.")
@window_options
def identify(files: tuple[str, ...], json_out: bool, show_all: bool) -> int:
    """Say which format each FILE holds, one line each:

    \b
      FILE: FORMAT (confidence) reason

    Every codec judges the bytes itself; hex dump text is read back and its bytes judged
    (the reason says so); queue dumps are recognised by their layout. Of a file larger
    than 1 MiB only the first MiB is read (256 KiB of dump text; the reason says so). A
    file nothing
    recognises prints 'unknown (0.00)' and makes the exit status 2; a file that cannot
    be read is reported on stderr (status 1), and the other files are still identified.
    """
    from mqtool import registry

    env = get_env()
    status = ExitStatus.OK
    for file in files:
        try:
            data, size = _head(file)
        except MqtoolError as e:
            env.error(str(e))
            status = max(status, e.status)
            continue
        found = registry.identify(data)
        best = found[0] if found and found[0].confidence > 0 else None
        if best is None:
            status = max(status, ExitStatus.DECODE)
            fmt, conf = None, 0.0
            reason = "empty file" if not size else f"no codec recognises these {size} bytes"
        else:
            fmt, conf, reason = best.format, best.confidence, best.reason
        if size > len(data):
            reason += f" (judged on the first {len(data):,} of {size:,} bytes)"
        if json_out:
            env.json_line({"file": file, "format": fmt, "confidence": conf, "reason": reason,
                           "candidates": [d.to_json() for d in found]})
            continue
        env.line(f"{file}: {fmt or 'unknown'} ({conf:.2f}) {reason}")
        if show_all:
            for d in found[1:]:
                env.line(f"  also {d.format} ({d.confidence:.2f}) {d.reason}")
    env.stdout.flush()
    return status


def _head(file: str) -> tuple[bytes, int]:
    """What ``identify`` judges of a file (its head, or that of its ``--offset`` /
    ``--length`` window) and the size of what was asked for."""
    from mqtool import api
    from mqtool.io.inputs import read_head

    req = window()
    if not req:
        return read_head(file, HEAD, TEXT_HEAD)
    data = api.window_bytes(file, False, "identify", req, HEAD)
    w = req.window
    return data, (w.length if w is not None and w.length >= 0 else len(data))
