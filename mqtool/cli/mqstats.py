"""``mqtool extract mq-stats INPUT...``: IBM MQ accounting and statistics messages as rows."""

from __future__ import annotations

import click

from mqtool import registry
from mqtool.cli._common import Env, get_env, port_option, summary_option, write_summary
from mqtool.errors import ExitStatus

FORMATS = ["auto", *registry.queue_dumps()]


@click.command(short_help="IBM MQ accounting and statistics messages as rows (Parquet, CSV, "
                          "JSON lines).")
@click.argument("inputs", nargs=-1, required=True, metavar="INPUT...",
                type=click.Path(allow_dash=True))
@click.option("-o", "--output", metavar="OUT", type=click.Path(allow_dash=True),
              help="Output file; its extension picks the format (.parquet, .csv, .jsonl). "
                   "Default: JSON lines on stdout.")
@click.option("--to", type=click.Choice(["parquet", "csv", "jsonl"]), default=None,
              help="Output format, whatever the extension.")
@click.option("--input-format", type=click.Choice(FORMATS), default="auto", show_default=True,
              help="Kind of every INPUT (auto: recognised from its content).")
@summary_option
@click.option("--force", is_flag=True, help="Overwrite an existing output file.")
@port_option
def extract_mq_stats(inputs: tuple[str, ...], output: str | None, to: str | None,
                     input_format: str, summary_path: str | None, force: bool) -> int:
    """Turn the accounting and statistics messages IBM MQ writes (MQCFT_STATISTICS on
    SYSTEM.ADMIN.STATISTICS.QUEUE, MQCFT_ACCOUNTING on SYSTEM.ADMIN.ACCOUNTING.QUEUE; PCF in
    Format MQADMIN) into rows: one per queue or channel per interval (queue and channel
    statistics, queue accounting), one per interval for the MQI records.

    INPUT is a queue dump of any kind (dmpmqmsg, amqsbcg, RFHUtil, MQMD-prefixed binaries,
    mqtool directories), a pcap / pcapng capture of IBM MQ traffic, or - for stdin; other
    messages are skipped. Columns: message and source, kind and record, object (queue,
    channel, mqi), the queue manager, application, user and connection, the queue or
    channel and its type, the interval (interval_start, interval_end: the queue manager's
    local time), counts kept per persistence as <count>_nonpersistent and
    <count>_persistent, the other counts, and extra (JSON) with every parameter no column
    holds. The output is written whole or not at all.

    Exit status 2 when a message could not be read or an input holds no message (the
    rows found are still written).
    """
    from mqtool import api

    env = get_env()
    info = api.extract_mq_stats(inputs, output, to=to, force=force,
                                input_format=None if input_format == "auto" else input_format,
                                stdout=env.stdout, say=env.error, summary_path=summary_path)
    if summary_path:
        write_summary(env, summary_path, info)
    if output and output != "-" and summary_path != "-":
        _print_rows(env, info)
    return ExitStatus.DECODE if info["errors"] else ExitStatus.OK


def _print_rows(env: Env, info: dict[str, object]) -> None:
    """Rows written, and how many messages of each record gave them."""
    records = info["records"]
    assert isinstance(records, dict)
    env.line(f"{info['rows']:,} rows from {info['stats_messages']:,} of {info['messages']:,} "
             f"messages, written to {info['output']}")
    for record, n in records.items():
        env.line(f"  {record}: {n:,} messages")
