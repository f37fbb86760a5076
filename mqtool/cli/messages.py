"""``mqtool messages DUMP...``: list the messages of queue dumps; filter; convert."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any

import click

from mqtool.cli._common import Env, color_option, get_env
from mqtool.errors import ExitStatus

FORMATS = ["auto", "dmpmqmsg", "amqsbcg", "rfhutil", "mqmd-binary", "mqtool-dir"]
_ROW = "{:>5}  {:<17}  {:<8}  {:<22}  {:<48}  {:>9}  {:<24}  {:<8}  {}"


def _msgtype(ctx: click.Context, param: click.Parameter, value: str | None) -> int | None:
    from mqtool.formats.mq.dumps.summary import parse_msgtype

    if value is None:
        return None
    try:
        return parse_msgtype(value)
    except ValueError as e:
        raise click.BadParameter(str(e)) from None


def _correlid(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    from mqtool.formats.mq.dumps.summary import parse_correlid

    if value is None:
        return None
    try:
        return parse_correlid(value)
    except ValueError as e:
        raise click.BadParameter(str(e)) from None


@click.command(short_help="List the messages of queue dumps; filter; convert.")
@click.argument("dumps", nargs=-1, required=True, metavar="DUMP...",
                type=click.Path(allow_dash=True))
@click.option("--input-format", type=click.Choice(FORMATS), default="auto", show_default=True,
              help="Kind of every DUMP (auto: recognised from its content).")
@click.option("--json", "json_out", is_flag=True,
              help="One JSON object per message: message, source, mqmd, properties, headers, "
                   "payload, body_length, body_sha256, truncated, problems.")
@click.option("--msgtype", callback=_msgtype, metavar="N|NAME",
              help="Only messages of this MsgType (a number, or request, reply, report, "
                   "datagram).")
@click.option("--format", "fmt", metavar="NAME",
              help="Only messages whose MQMD Format (or payload format) is NAME (MQSTR, ...).")
@click.option("--correlid", callback=_correlid, metavar="HEX",
              help="Only messages whose CorrelId starts with these hex digits.")
@click.option("--grep", metavar="TEXT",
              help="Only messages whose body holds TEXT (UTF-8, or EBCDIC / the MQMD's code "
                   "page).")
@click.option("-o", "--output", metavar="DIR|FILE", type=click.Path(allow_dash=True),
              help="Write the selected messages: an mqtool directory (index.jsonl + bodies), "
                   "or with --to dmpmqmsg a dmpmqmsg file (- for stdout).")
@click.option("--to", "to", type=click.Choice(["mqtool-dir", "dmpmqmsg"]), default="mqtool-dir",
              show_default=True, help="What -o writes.")
@click.option("--force", is_flag=True, help="Overwrite existing output.")
@color_option
def messages(dumps: tuple[str, ...], input_format: str, json_out: bool, msgtype: int | None,
             fmt: str | None, correlid: str | None, grep: str | None, output: str | None,
             to: str, force: bool) -> int:
    """List the messages of queue dumps (dmpmqmsg and qload files in every display mode,
    amqsbcg listings, RFHUtil files, MQMD-prefixed binaries, mqtool directories).

    A table by default: number, MsgType, Format, put date and time, CorrelId, body length,
    MQ header chain, payload format, problems. --json prints one object per message.
    Filters select messages; -o writes the selected messages as an mqtool directory, or
    with --to dmpmqmsg as a file the dmpmqmsg/qload loader accepts.

    Exit status 2 when a message is truncated or unreadable, or a dump holds no message
    (everything readable is still listed).
    """
    from mqtool.api import messages as read_dump
    from mqtool.formats.mq.dumps.summary import Filters

    env = get_env()
    if to == "dmpmqmsg" and not output:
        raise click.UsageError("--to dmpmqmsg needs -o FILE")
    filters = Filters(msgtype, fmt, correlid, grep)
    opened = [read_dump(d, input_format) for d in dumps]
    status = ExitStatus.OK
    state: dict[str, Any] = {"status": ExitStatus.OK}

    def selected() -> Iterator[Any]:
        from mqtool.formats.mq.dumps.summary import summarize

        table = not json_out and not output
        headed = False
        for dump in opened:
            for msg in dump:
                s = summarize(msg)
                if filters.match(s):
                    if json_out:
                        env.line(json.dumps(s.to_json(), ensure_ascii=False))
                    elif table:
                        if not headed:
                            env.line(_HEADER)
                            headed = True
                        env.line(_row(s))
                    yield msg
            _report(env, dump, state)

    if output == "-" and to == "dmpmqmsg":
        from mqtool.formats.mq.dumps.write import write_dmpmqmsg

        write_dmpmqmsg(selected(), env.stdout)
        env.stdout.flush()
    elif output:
        if to == "dmpmqmsg":
            n = _write_dmpmqmsg(selected(), output, force)
        else:
            from mqtool.formats.mq.dumps.read import write_mqtool_dir
            from mqtool.io.outputs import OutputDir

            chosen = selected()
            first = next(chosen, None)  # nothing readable: no directory is made
            n = 0 if first is None else write_mqtool_dir(itertools.chain([first], chosen),
                                                         OutputDir(output, force))
        env.stderr.write(f"mqtool: {n} message(s) written to {output}\n")
    else:
        for _ in selected():
            pass
    status = state["status"]
    return int(status)


_HEADER = _ROW.format("#", "MsgType", "Format", "Put", "CorrelId", "Length", "Headers",
                      "Payload", "Problems").rstrip()


def _report(env: Env, dump: Any, state: dict[str, Any]) -> None:
    """Problems outside messages, unusable messages and empty dumps: stderr, exit 2."""
    bad = [p for p in dump.errors]
    for p in bad[:50]:
        env.error(f"{p.path}: {p.reason}")
    if len(bad) > 50:
        env.error(f"{dump.path}: ... and {len(bad) - 50} more problems")
    if bad or dump.truncated:
        state["status"] = ExitStatus.DECODE
    if dump.count == 0:
        env.error(f"{dump.path}: no messages in this {dump.format or 'queue'} dump")
        state["status"] = ExitStatus.DECODE


def _row(s: Any) -> str:
    from mqtool.formats.mq.dumps.summary import msgtype_text, put_text

    m = s.msg
    cid = m.correlid.hex().upper() if m.correlid is not None else "-"
    heads = "+".join(_header_text(h) for h in s.headers) or "-"
    probs = "; ".join(p["reason"] for p in s.problems)
    flag = "TRUNCATED " if m.truncated else ""
    return _ROW.format(m.position, msgtype_text(m.msgtype),
                       str(m.mqmd.get("format", "")).strip() or "-",
                       put_text(m.mqmd) or "-", cid, len(m.body), heads,
                       s.payload.get("format") or "-", flag + probs).rstrip()


def _header_text(h: dict[str, Any]) -> str:
    """A header's type; a dead-letter header with its reason: ``MQDLH(2051 MQRC_PUT_INHIBITED)``."""
    reason = h.get("fields", {}).get("reason")
    if h.get("type") == "MQDLH" and reason is not None:
        return f"MQDLH({reason} {h.get('meanings', {}).get('reason', '')})".replace(" )", ")")
    return str(h.get("type", "?"))


def _write_dmpmqmsg(msgs: Iterator[Any], output: str, force: bool) -> int:
    """Write to a temporary file beside OUTPUT, renamed when complete (no half file)."""
    from mqtool.formats.mq.dumps.write import write_dmpmqmsg
    from mqtool.io.outputs import atomic_output

    with atomic_output(output, force) as f:
        n = write_dmpmqmsg(msgs, f)
    return n
