"""``mqtool messages DUMP...``: list the messages of queue dumps; filter; convert."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import click

from mqtool import registry
from mqtool.cli._common import (
    CORRELID,
    Env,
    color_option,
    column_lines,
    get_env,
    select_options,
    selection,
)
from mqtool.errors import ExitStatus

FORMATS = ["auto", *registry.queue_dumps()]
_ROW = "{:>5}  {:<17}  {:<8}  {:<22}  {:<48}  {:>9}  {:<24}  {:<8}  {}"


def _checked(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A filter value the library reads (``api.message_filters``), refused by its option."""
    from mqtool import api

    if value is not None:
        try:
            api.message_filters(**{str(param.name): value})
        except ValueError as e:
            raise click.BadParameter(str(e)) from None
    return value


@click.command(short_help="List the messages of queue dumps; filter; convert.")
@click.argument("dumps", nargs=-1, required=True, metavar="DUMP...",
                type=click.Path(allow_dash=True))
@click.option("--input-format", type=click.Choice(FORMATS), default="auto", show_default=True,
              help="Kind of every DUMP (auto: recognised from its content).")
@click.option("--json", "json_out", is_flag=True,
              help="One JSON object per message: message, source, mqmd, properties, headers, "
                   "payload, body_length, body_sha256, truncated, problems.")
@click.option("--msgtype", callback=_checked, metavar="N|NAME",
              help="Only messages of this MsgType (a number, or request, reply, report, "
                   "datagram).")
@click.option("--format", "fmt", metavar="NAME",
              help="Only messages whose MQMD Format (or payload format) is NAME (MQSTR, ...).")
@click.option("--correlid", type=CORRELID, metavar="HEX",
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
@select_options
@color_option
def messages(dumps: tuple[str, ...], input_format: str, json_out: bool, msgtype: str | None,
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
    from mqtool import api

    env = get_env()
    if to == "dmpmqmsg" and not output:
        raise click.UsageError("--to dmpmqmsg needs -o FILE")
    filters = api.message_filters(msgtype, fmt, correlid, grep)
    opened = [api.messages(d, input_format) for d in dumps]
    state: dict[str, Any] = {"status": ExitStatus.OK}
    sel = selection()  # --where over each message's JSON; --fields: its columns
    show = None if output else column_lines() if sel.columns else _json_line if json_out \
        else _Table()

    def selected() -> Iterator[Any]:
        for dump in opened:
            for msg in dump:
                s = api.summarize(msg)
                if filters.match(s) and (not sel or sel.match(api.message_record(s)) is not None):
                    if show is not None:
                        (env.cells_line if sel.columns else env.line)(show(s))
                    yield msg
            _report(env, dump, state)

    if output:
        n = api.write_messages(selected(), output, to, force=force, stdout=env.stdout,
                               inputs=dumps)
        if output != "-" or to != "dmpmqmsg":
            env.error(f"{n} message(s) written to {output}")
    else:
        for _ in selected():
            pass
    env.stdout.flush()
    sel.check()
    return int(state["status"])


def _json_line(s: Any) -> str:
    from mqtool.render.terminal import json_text

    return json_text(s.to_json())


class _Table:
    """Table rows, the heading before the first."""

    def __init__(self) -> None:
        self.headed = False

    def __call__(self, s: Any) -> str:
        row = _ROW.format(*s.row()).rstrip()
        if self.headed:
            return row
        self.headed = True
        return _ROW.format(*s.COLUMNS).rstrip() + "\n" + row


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


