"""``mqtool decode auto`` and ``mqtool identify``: recognise what a blob is (every codec's
own detector, plus queue dumps and hex dump text), then decode it or say so."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import click

from mqtool.cli._common import decoder_options, emit_units, get_env, open_queue_dump, report_dump
from mqtool.errors import DecodeError, EmptyInputError, ExitStatus, InputError, MqtoolError

HEAD = 1 << 20  # identify judges this much of a larger input: memory stays bounded
TEXT_HEAD = 256 << 10  # of larger dump text: some 60 KB of bytes once read back


def read_head(file: str, limit: int = HEAD) -> tuple[bytes, int]:
    """The first ``limit`` bytes of FILE (or stdin) and its whole size. Text is cut after
    its last complete line, so dump text stays readable."""
    from mqtool.io.inputs import open_regular

    if file == "-":
        from mqtool.cli._common import _isatty

        if _isatty(sys.stdin):
            raise InputError("no input: give a FILE or pipe data into stdin")
        f = sys.stdin.buffer
        head = f.read(limit)
        size = len(head)
        while chunk := f.read(1 << 20):  # drain to know the size; nothing kept
            size += len(chunk)
    else:
        with open_regular(file) as f:
            head = f.read(limit)
            size = os.fstat(f.fileno()).st_size
    if size > len(head) and _texty(head[:4096]):  # dump text: 4 characters a byte or more
        head = head[:TEXT_HEAD]
        if (nl := head.rfind(b"\n")) > 0:
            head = head[:nl + 1]
    return head, size


def _texty(data: bytes) -> bool:
    return all(b >= 0x20 or b in (9, 10, 13) for b in data)


def _read(file: str, hex_text: bool) -> bytes:
    from mqtool.cli._common import _isatty
    from mqtool.io.inputs import read_input

    if file == "-" and _isatty(sys.stdin):
        raise InputError("no input: give a FILE or pipe data into stdin")
    return read_input(file, hex_text)


@click.command(short_help="Recognise the format, then decode with it.")
@decoder_options
@click.option("--strict", is_flag=True, help="Exit with status 2 when problems were found.")
def decode_auto(file: str, hex_text: bool, json_out: bool, raw: bool, annotate: bool, tz,  # type: ignore[no-untyped-def]
                strict: bool) -> int:
    """Recognise which format FILE holds — each codec judges the bytes itself (eyecatchers,
    lengths that add up, record shapes); hex dump text is read back and its bytes judged —
    then decode it with the most confident codec. The listing's first line names the
    codec chosen, its confidence and the evidence; in JSON each unit's "format" does.
    'mqtool identify' shows every candidate.
    """
    from mqtool import registry

    env = get_env()
    dump, stdin_data = (None, None) if hex_text else open_queue_dump(file)
    if dump is not None:  # each message with the codec its MsgType names or its body suggests
        def units():  # type: ignore[no-untyped-def]
            for k, unit in enumerate(registry.decode_messages(dump)):
                if k == 0 and not json_out:  # said once there is a message (not for an empty dir)
                    env.line("format queue dump: each message decoded with the codec its "
                             "MsgType or its bytes point to")
                yield unit

        status = emit_units(env, units(), json_out=json_out, raw=raw, annotate=annotate, tz=tz,
                            strict_problems=strict)
        return ExitStatus.DECODE if report_dump(env, dump, file) else status
    if stdin_data is None and not hex_text and _large_file(file):
        streamed = _stream_large(env, file, json_out, raw, annotate, tz, strict)
        if streamed is not None:
            return streamed
    data = stdin_data if stdin_data is not None else _read(file, hex_text)
    if not data:
        raise EmptyInputError("auto", file)
    found = registry.identify(data)
    choice = registry.best_codec(found)
    if choice is None:
        raise DecodeError("auto", "", 0, _why_not(file, data, found))
    options = dict(choice.options)
    if options.pop("hex", False) and not hex_text:
        from mqtool.io.undump import undump

        data = undump(data.decode("utf-8"))
    units = registry.decode_blob(choice.format, data, **options)
    if not json_out:
        env.line(f"format {choice.format} ({choice.confidence:.2f}): {choice.reason}")
    return emit_units(env, units,
                      json_out=json_out, raw=raw, annotate=annotate, tz=tz,
                      strict_problems=strict) or ExitStatus.OK


STREAM_FROM = 64 << 20  # larger files a streaming codec decodes piece by piece


def _large_file(file: str) -> bool:
    return file != "-" and os.path.isfile(file) and os.path.getsize(file) > STREAM_FROM


def _stream_large(env: Any, file: str, json_out: bool, raw: bool, annotate: bool, tz: Any,
                  strict: bool) -> int | None:
    """A large CSQ1LOGP extract decoded as ``decode csq1logp`` does, piece by piece (bounded
    memory, first line at once); None when the file's head names another codec."""
    from mqtool import registry
    from mqtool.formats.csq1logp.decode import decode_stream
    from mqtool.formats.csq1logp.framing import SNIFF, read_chunks

    head = b"".join(read_chunks(file, 0, SNIFF, SNIFF))
    choice = registry.best_codec(registry.identify(head))
    if choice is None or choice.format != "csq1logp" or choice.options.get("hex"):
        return None
    framing = str(choice.options.get("framing", "auto"))
    units = decode_stream(read_chunks(file), head, framing, "cp037", final=False)
    if not json_out:
        env.line(f"format {choice.format} ({choice.confidence:.2f}): {choice.reason}")
    return emit_units(env, units, json_out=json_out, raw=raw, annotate=annotate, tz=tz,
                      strict_problems=strict) or ExitStatus.OK


def _why_not(file: str, data: bytes, found: list) -> str:  # type: ignore[type-arg]
    if not data:
        return f"{file}: empty input"
    if found and found[0].confidence > 0:
        d = found[0]
        return (f"{file}: {d.reason} ({d.format}); no codec decodes it as a whole "
                "(decode its messages with the codec's own command)")
    return f"{file}: no codec recognises these {len(data)} bytes (mqtool identify lists candidates)"


@click.command(short_help="Say which format each input file holds.")
@click.argument("files", nargs=-1, required=True, metavar="FILE...", type=click.Path(allow_dash=True))
@click.option("--json", "json_out", is_flag=True,
              help='JSON lines: {"file", "format", "confidence", "reason", "candidates"}.')
@click.option("--all", "show_all", is_flag=True, help="Also list the other candidates.")
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
            data, size = read_head(file)
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
            env.line(json.dumps({"file": file, "format": fmt, "confidence": conf, "reason": reason,
                                 "candidates": [d.to_json() for d in found]},
                                ensure_ascii=False, separators=(",", ":")))
            continue
        env.line(f"{file}: {fmt or 'unknown'} ({conf:.2f}) {reason}")
        if show_all:
            for d in found[1:]:
                env.line(f"  also {d.format} ({d.confidence:.2f}) {d.reason}")
    env.stdout.flush()
    return status
