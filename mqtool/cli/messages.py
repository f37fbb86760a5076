"""``mqtool messages DUMP...``: list the messages of queue dumps and captures; filter; convert."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import tzinfo
from typing import Any

import click

from mqtool import registry
from mqtool.cli._common import (
    CORRELID,
    Env,
    color_option,
    column_lines,
    get_env,
    port_option,
    select_options,
    selection,
    tz_option,
)
from mqtool.errors import ExitStatus, NoMessagesError

FORMATS = ["auto", *registry.queue_dumps()]


def _checked(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A filter value the library reads (``api.message_filters``), refused by its option."""
    from mqtool import api

    if value is not None:
        try:
            api.message_filters(**{str(param.name): value})
        except ValueError as e:
            raise click.BadParameter(str(e)) from None
    return value


def _filter(name: str, metavar: str, text: str) -> Callable[[Callable[..., Any]],
                                                            Callable[..., Any]]:
    return click.option(f"--{name}", name, callback=_checked, metavar=metavar, help=text)


@click.command(short_help="List the messages of queue dumps and captures; filter; convert.")
@click.argument("dumps", nargs=-1, required=True, metavar="DUMP...",
                type=click.Path(allow_dash=True))
@click.option("--input-format", type=click.Choice(FORMATS), default="auto", show_default=True,
              help="Kind of every DUMP (auto: recognised from its content).")
@click.option("--json", "json_out", is_flag=True,
              help="One JSON object per message: message, source, mqmd, put_time, properties, "
                   "headers, payload (with its text and hex: what 'build-request mq --from -' "
                   "rebuilds the body from), body_length, body_sha256, truncated, problems; "
                   "capture, event and dead_letter where the message has them.")
@click.option("--wide", is_flag=True,
              help="Every column whole (MsgId, CorrelId, where the message came from), however "
                   "wide; the default table fits 120 columns.")
@tz_option
@click.option("--msgtype", callback=_checked, metavar="N|NAME",
              help="Only messages of this MsgType (a number, or request, reply, report, "
                   "datagram).")
@click.option("--format", "fmt", metavar="NAME",
              help="Only messages whose MQMD Format (or payload format) is NAME (MQSTR, ...).")
@_filter("msgid", "HEX", "Only messages whose MsgId (mqmd.msgid) starts with these hex digits.")
@click.option("--correlid", type=CORRELID, metavar="HEX",
              help="Only messages whose CorrelId (mqmd.correlid) starts with these hex digits.")
@_filter("appl", "NAME", "Only messages put by this application (mqmd.putapplname; * matches "
                         "any characters; case ignored).")
@_filter("user", "NAME", "Only messages put by this user (mqmd.useridentifier; * matches any "
                         "characters; case ignored).")
@_filter("since", "TIME", "Only messages put at or after TIME (mqmd.putdate and puttime; "
                          "ISO-8601, UTC unless it has a zone).")
@_filter("until", "TIME", "Only messages put before TIME.")
@_filter("event", "TYPE", "Only event messages of this type: queue-manager (qmgr), channel, "
                          "performance, configuration, command, logger.")
@_filter("reason", "MQRC_NAME|N", "Only event messages with this reason, and dead-lettered "
                                  "messages whose MQDLH gives it (MQRC_Q_FULL, 2053, ...).")
@click.option("--grep", metavar="TEXT",
              help="Only messages whose body holds TEXT (UTF-8, or EBCDIC / the MQMD's code "
                   "page).")
@click.option("-o", "--output", metavar="DIR|FILE", type=click.Path(allow_dash=True),
              help="Write the selected messages: an mqtool directory (index.jsonl + bodies), "
                   "or with --to dmpmqmsg a dmpmqmsg file (- for stdout).")
@click.option("--to", "to", type=click.Choice(["mqtool-dir", "dmpmqmsg"]), default="mqtool-dir",
              show_default=True, help="What -o writes.")
@click.option("--force", is_flag=True, help="Overwrite existing output.")
@port_option
@select_options
@color_option
def messages(dumps: tuple[str, ...], input_format: str, json_out: bool, wide: bool,
             tz: tzinfo | None, msgtype: str | None, fmt: str | None, msgid: str | None,
             correlid: str | None, appl: str | None, user: str | None, since: str | None,
             until: str | None, event: str | None, reason: str | None, grep: str | None,
             output: str | None, to: str, force: bool) -> int:
    """List the messages of queue dumps (dmpmqmsg and qload files in every display mode,
    amqsbcg listings, RFHUtil files, MQMD-prefixed binaries, mqtool directories) and of
    network captures (pcap, pcapng) of IBM MQ TCP traffic.

    A table by default, 120 columns wide: number, put time (in --tz), MsgType, Format,
    body length, put application, user, and a summary: the event an event message reports,
    the MQ header chain and payload format, the verb and queue of a captured message, the
    problems. --wide adds MsgId, CorrelId and where each message came from (dump line;
    capture file, frames and endpoints). --json prints one object per message.

    Filters select messages (all given must hold); -o writes the selected messages as an
    mqtool directory, or with --to dmpmqmsg as a file the dmpmqmsg/qload loader accepts:
    a capture converted to a queue dump.

    Exit status 2 when a message is truncated or unreadable, a capture holds a gap or a
    TLS-protected channel, or a dump holds no message (everything readable is still listed).
    """
    from mqtool import api
    from mqtool.render.terminal import escape as printable

    env = get_env()
    if to == "dmpmqmsg" and not output:
        raise click.UsageError("--to dmpmqmsg needs -o FILE")
    filters = api.message_filters(msgtype, fmt, correlid, grep, msgid=msgid, appl=appl,
                                  user=user, since=since, until=until, event=event,
                                  reason=reason)
    opened = [api.messages(d, input_format) for d in dumps]
    state: dict[str, Any] = {"status": ExitStatus.OK}
    sel = selection()  # --where over each message's JSON; --fields: its columns
    table = (None if output or json_out or sel.columns
             else api.message_table(wide, tz, printable))
    show = None if output or table is not None else column_lines() if sel.columns \
        else _json_line

    def selected() -> Iterator[Any]:
        for dump in opened:
            for msg in dump:
                s = api.summarize(msg)
                if filters.match(s) and (not sel or sel.match(api.message_record(s)) is not None):
                    if table is not None:
                        _lines(env, table.feed(s))
                    elif show is not None:
                        (env.cells_line if sel.columns else env.line)(show(s))
                    yield msg
            if table is not None:
                _lines(env, table.flush())
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


def _lines(env: Env, lines: list[str]) -> None:
    for line in lines:
        env.line(line)


def _json_line(s: Any) -> str:
    from mqtool.render.terminal import json_text

    return json_text(s.to_json())


def _report(env: Env, dump: Any, state: dict[str, Any]) -> None:
    """After a dump: what a capture reader skipped (notes), unusable messages and lost data
    (errors), a dump with no message (one line): stderr; errors and no message exit 2."""
    for p in dump.notes[:50]:
        env.error(f"note: {p.path}: {p.reason}")
    try:
        bad = dump.report(env.error)
    except NoMessagesError as e:
        env.error(str(e))
        bad = 1
    if bad or dump.truncated:
        state["status"] = ExitStatus.DECODE
