"""``mqtool scan IMAGE...``: find every structure mqtool knows inside any bytes (a disk
image, a core or memory dump, a spool file, a trace) and, with ``--carve DIR``, write each
one out with a manifest that records the run's chain of custody."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import click

from mqtool.cli._common import (
    Env,
    Progress,
    color_option,
    command_line,
    get_env,
    select_options,
    selection,
    window,
    window_options,
)
from mqtool.errors import ExitStatus, InputError


def _formats(ctx: click.Context, param: click.Parameter, value: str | None) -> list[str] | None:
    """``urb,mq``: names ``scan`` looks for, each checked (one line naming the known ones)."""
    if value is None:
        return None
    from mqtool import api

    names = [n.strip().lower() for n in value.split(",") if n.strip()]
    known = api.scan_formats()
    bad = next((n for n in names if n not in known), None) if names else value
    if bad is not None:
        raise InputError(f"--formats: unknown format {bad!r}; scan knows {', '.join(known)}")
    return names


def _confidence(ctx: click.Context, param: click.Parameter, value: str) -> float:
    """``--min-confidence X``: a number from 0 to 1 (one line naming the value otherwise)."""
    import math

    try:
        x = float(value)
    except ValueError:
        x = math.nan
    if not 0 <= x <= 1:
        raise InputError(f"--min-confidence {value!r}: give a number from 0 to 1")
    return x


@click.command(short_help="Find the structures mqtool knows inside any bytes; carve them out.")
@click.argument("images", nargs=-1, required=True, metavar="IMAGE...",
                type=click.Path(allow_dash=True))
@click.option("--json", "json_out", is_flag=True,
              help="JSON lines: one object per hit (image, offset, length, format, kind, "
                   "confidence, summary, chain, options, errors; with --carve its file, size "
                   "and sha256).")
@click.option("--carve", "outdir", metavar="DIR", type=click.Path(file_okay=False),
              help="Write each hit into DIR as a file of its own, and DIR/manifest.json: every "
                   "hit, its file, size and SHA-256, and the run's chain of custody.")
@click.option("--force", is_flag=True, help="With --carve: overwrite files in DIR.")
@click.option("--formats", callback=_formats, metavar="NAME,...",
              help="Look for these formats only (urb, csq1logp, sas-attachment, redolog, "
                   "matqmsg, mq, dump); default every one.")
@click.option("--min-confidence", callback=_confidence, default="0", show_default=True,
              metavar="X", help="Report hits at least this sure (0 to 1).")
@window_options
@select_options
@color_option
def scan(images: tuple[str, ...], json_out: bool, outdir: str | None, force: bool,
         formats: list[str] | None, min_confidence: float) -> int:
    """Find every structure mqtool knows inside IMAGE (any bytes: a disk image, a core or
    memory dump, a spool file, a trace; - is stdin): URB messages in either code page and
    byte order, MQMDs and every MQ header, PCF messages, SAS attachment headers, CSQ1LOGP
    RDW/BDW chains, OSB redolog entries, MATQMSG templates, hex dump text. A signature
    only nominates a place; each hit is confirmed by decoding it there.

    \b
      offset       (decimal)    length format         conf  summary

    One line per hit: where it starts (hex, decimal), how long it is, the format that
    reads it, how sure the scan is (0 to 1) and what it is. A structure inside another
    (a URB message behind an MQRFH2 behind an MQXQH) is one hit with its chain. The input
    streams through in bounded memory; a terminal shows progress on large images.

    --carve DIR writes each hit as its own file (named by order, offset and format),
    which 'decode auto', 'messages' and 'extract' read, and DIR/manifest.json: the hits,
    the files' SHA-256, and the chain of custody (inputs' SHA-256, size and time, mqtool's
    version, the command line, start and end; 'mqtool verify DIR/manifest.json' checks
    it later). Exit status 2 when an image holds no structure (or is empty).
    """
    from mqtool import api
    from mqtool.io.inputs import check_regular, spooled

    env = get_env()
    if selection().columns and json_out:
        raise InputError("--fields prints columns: give it without --json")
    for image in images:
        if image != "-":
            check_regular(image)  # before a custody record or a directory is made
    status = int(ExitStatus.OK)
    with spooled(images) as spool:
        record = api.custody(spool.paths, command_line(), names=spool.names) if outdir else None
        out = api.carve_dir(outdir, force=force, custody=record,
                            names=spool.names) if outdir else None
        printer = _Printer(env, json_out, several=len(images) > 1)
        try:
            for path in spool.paths:
                status = max(status, _image(env, printer, path, spool.names.get(path, path),
                                            out, formats, min_confidence))
            if out is not None and out.written:
                carved = out.finish()
                env.error(f"{len(carved)} hit(s) carved into {outdir} (manifest.json)")
            elif out is not None:
                env.error(f"nothing carved into {outdir}: no hit")
        except BaseException:
            if out is not None:
                out.discard()
            raise
    selection().check()
    return status


def _image(env: Env, printer: _Printer, path: str, name: str, out: Any,
           formats: list[str] | None, min_confidence: float) -> int:
    """Scan one image; print (and carve) its hits. Its exit status."""
    from mqtool import api

    total = api.scan_window(path, window())
    start = window().start
    if total == 0:
        env.error(f"scan: {name}: empty input at offset X'{start:04X}' ({start}): nothing to scan")
        return ExitStatus.DECODE
    seen = 0
    with Progress(env, "scan", total) as advance:
        hits = api.scan(path, window=window(), formats=formats, min_confidence=min_confidence,
                        progress=advance)

        def counted() -> Iterator[Any]:
            nonlocal seen
            for hit in hits:
                seen += 1
                yield hit

        chosen = (hit for hit, _f in selection().kept(counted(), key=lambda h: _record(h, name)))
        if out is not None:
            for carved in out.add(path, chosen):
                printer.hit(carved.hit, name, carved.to_json())
        else:
            for hit in chosen:
                printer.hit(hit, name, None)
    if not seen:
        env.error(f"scan: {name}: no structure found in {total:,} bytes from offset "
                  f"X'{start:04X}' ({start})")
        return ExitStatus.DECODE
    return ExitStatus.OK


def _record(hit: Any, image: str) -> dict[str, Any]:
    """A hit as ``--where`` and ``--fields`` see it: its JSON, with the image's name."""
    return {"image": image, **hit.to_json()}


class _Printer:
    """The table (heading first; with several images each one's name before its hits),
    JSON lines, or the ``--fields`` columns."""

    def __init__(self, env: Env, json_out: bool, several: bool) -> None:
        self.env, self.json_out, self.several = env, json_out, several
        self.headed = False
        self.image = ""

    def hit(self, hit: Any, image: str, carved: dict[str, Any] | None) -> None:
        from mqtool import api
        from mqtool.render.terminal import escape as printable

        sel, env = selection(), self.env
        if sel.columns:
            if carved is not None:  # the carved file's name, size and SHA-256 are fields too
                sel.match({"image": image, **carved})
            heading = None if self.headed else sel.heading()
            self.headed = True
            if heading is not None:
                env.cells_line(heading)
            env.cells_line(sel.row())
        elif self.json_out:
            obj = {"image": image, **(carved if carved is not None else hit.to_json())}
            env.line(json.dumps(obj, ensure_ascii=False, separators=(",", ":")))
        else:
            if self.several and image != self.image:
                env.line(f"{printable(image)}:")
                self.image = image
            if not self.headed:
                env.line(api.scan_heading())
                self.headed = True
            env.line(printable(api.scan_line(hit)))
        env.stdout.flush()
