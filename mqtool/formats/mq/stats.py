"""IBM MQ accounting and statistics messages (MQCFH Type ``MQCFT_STATISTICS`` /
``MQCFT_ACCOUNTING``) as rows: one row per queue or channel per interval, one row per
interval for the MQI records, with a fixed Arrow schema for Parquet and CSV; ``extract``
writes them as they come (``extract mq-stats``).

A statistics or accounting message carries the interval (``MQCAMO_START_DATE`` /
``_TIME``, ``MQCAMO_END_DATE`` / ``_TIME``), the queue manager and, for accounting, the
application and connection; then one ``MQCFGR`` per queue (``MQGACF_Q_STATISTICS_DATA``,
``MQGACF_Q_ACCOUNTING_DATA``) or channel (``MQGACF_CHL_STATISTICS_DATA``). Counts that
IBM keeps per persistence (puts, gets, browses and their bytes, time on queue: arrays of
two, non-persistent first) become ``<name>_nonpersistent`` and ``<name>_persistent``;
other arrays (by object type) are summed, the array itself kept in ``extra``, where every
parameter the schema has no column for is kept too (JSON): no value is lost.

Source: IBM MQ documentation, "Accounting and statistics message format", "MQI accounting
message data", "Queue accounting message data", "MQI statistics message data", "Queue
statistics message data", "Channel statistics message data".
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO, Any

import pyarrow as pa

from mqtool.formats.mq.pcf import Pcf
from mqtool.formats.mq.pcf_names import VALUES, value_meaning

MQCFT_STATISTICS, MQCFT_ACCOUNTING = 21, 22
KINDS = {MQCFT_STATISTICS: "statistics", MQCFT_ACCOUNTING: "accounting"}
GROUPS = {"MQGACF_Q_STATISTICS_DATA": "queue", "MQGACF_Q_ACCOUNTING_DATA": "queue",
          "MQGACF_CHL_STATISTICS_DATA": "channel"}

# Identifying columns: column -> (PCF parameter, Arrow type)
IDENTITY: dict[str, tuple[str, pa.DataType]] = {
    "qmgr": ("MQCA_Q_MGR_NAME", pa.string()),
    "appl_name": ("MQCACF_APPL_NAME", pa.string()),
    "user": ("MQCACF_USER_IDENTIFIER", pa.string()),
    "connection_id": ("MQBACF_CONNECTION_ID", pa.string()),
    "process_id": ("MQIACF_PROCESS_ID", pa.int64()),
    "thread_id": ("MQIACF_THREAD_ID", pa.int64()),
    "sequence_number": ("MQIACF_SEQUENCE_NUMBER", pa.int64()),
    "command_level": ("MQIA_COMMAND_LEVEL", pa.int64()),
    "name": ("", pa.string()),  # MQCA_Q_NAME or MQCACH_CHANNEL_NAME
    "q_type": ("MQIA_Q_TYPE", pa.string()),
    "definition_type": ("MQIA_DEFINITION_TYPE", pa.string()),
    "channel_type": ("MQIACH_CHANNEL_TYPE", pa.string()),
    "connection_name": ("MQCACH_CONNECTION_NAME", pa.string()),
    "remote_qmgr": ("MQCA_REMOTE_Q_MGR_NAME", pa.string()),
}
NAMES = ("MQCA_Q_NAME", "MQCACH_CHANNEL_NAME")
# Date / time pairs -> one timestamp column
TIMES = {"interval_start": ("MQCAMO_START_DATE", "MQCAMO_START_TIME"),
         "interval_end": ("MQCAMO_END_DATE", "MQCAMO_END_TIME"),
         "conn_time": ("MQCAMO_CONN_DATE", "MQCAMO_CONN_TIME"),
         "disc_time": ("MQCAMO_DISC_DATE", "MQCAMO_DISC_TIME"),
         "open_time": ("MQCAMO_OPEN_DATE", "MQCAMO_OPEN_TIME"),
         "close_time": ("MQCAMO_CLOSE_DATE", "MQCAMO_CLOSE_TIME")}
# Counts kept per persistence: arrays of two, non-persistent first
PAIRS = ("MQIAMO_PUTS", "MQIAMO_PUT1S", "MQIAMO64_PUT_BYTES", "MQIAMO_GETS",
         "MQIAMO64_GET_BYTES", "MQIAMO_BROWSES", "MQIAMO64_BROWSE_BYTES", "MQIAMO_AVG_Q_TIME",
         "MQIAMO_Q_TIME_AVG", "MQIAMO_Q_TIME_MIN", "MQIAMO_Q_TIME_MAX")
# Other counts and measures
COUNTS = ("MQIAMO_PUTS_FAILED", "MQIAMO_PUT1S_FAILED", "MQIAMO_GETS_FAILED",
          "MQIAMO_BROWSES_FAILED", "MQIAMO_Q_MIN_DEPTH", "MQIAMO_Q_MAX_DEPTH",
          "MQIAMO_MSGS_NOT_QUEUED", "MQIAMO_MSGS_EXPIRED", "MQIAMO_MSGS_PURGED",
          "MQIAMO_OPENS", "MQIAMO_OPENS_FAILED", "MQIAMO_CLOSES", "MQIAMO_CLOSES_FAILED",
          "MQIAMO_INQS", "MQIAMO_INQS_FAILED", "MQIAMO_SETS", "MQIAMO_SETS_FAILED",
          "MQIAMO_CONNS", "MQIAMO_CONNS_FAILED", "MQIAMO_CONNS_MAX", "MQIAMO_DISCS",
          "MQIAMO_COMMITS", "MQIAMO_COMMITS_FAILED", "MQIAMO_BACKOUTS", "MQIAMO_CBS",
          "MQIAMO_CBS_FAILED", "MQIAMO_CTLS", "MQIAMO_CTLS_FAILED", "MQIAMO_STATS",
          "MQIAMO_STATS_FAILED", "MQIAMO_MSGS", "MQIAMO64_BYTES", "MQIAMO_FULL_BATCHES",
          "MQIAMO_INCOMPLETE_BATCHES", "MQIAMO_AVG_BATCH_SIZE", "MQIAMO_PUT_RETRIES",
          "MQIAMO_NET_TIME_MIN", "MQIAMO_NET_TIME_AVG", "MQIAMO_NET_TIME_MAX",
          "MQIAMO_EXIT_TIME_MIN", "MQIAMO_EXIT_TIME_AVG", "MQIAMO_EXIT_TIME_MAX",
          "MQIAMO_DISC_TYPE")


def _column(parameter: str) -> str:
    return parameter.lower().removeprefix("mqiamo64_").removeprefix("mqiamo_")


def schema() -> pa.Schema:
    """The Arrow schema of every row, whatever the record."""
    fields = [pa.field("message", pa.int64()), pa.field("source", pa.string()),
              pa.field("kind", pa.string()), pa.field("record", pa.string()),
              pa.field("object", pa.string())]
    fields += [pa.field(c, t) for c, (_p, t) in IDENTITY.items()]
    fields += [pa.field(c, pa.timestamp("s")) for c in TIMES]
    for p in PAIRS:
        fields += [pa.field(f"{_column(p)}_nonpersistent", pa.int64()),
                   pa.field(f"{_column(p)}_persistent", pa.int64())]
    fields += [pa.field(_column(p), pa.int64()) for p in COUNTS]
    fields.append(pa.field("extra", pa.string()))
    return pa.schema(fields)


def _timestamp(date: Any, time: Any) -> datetime | None:
    """``2026-11-26`` + ``10.15.00`` (the queue manager's local time, as IBM writes it)."""
    if not date or not time:
        return None
    try:
        return datetime.strptime(f"{date} {str(time).replace(':', '.')}", "%Y-%m-%d %H.%M.%S")
    except ValueError:
        return None


def _values(params: list[dict[str, Any]]) -> dict[str, tuple[int, Any]]:
    return {p["name"]: (p["parameter"], p.get("value")) for p in params
            if "parameters" not in p and p.get("name")}


def rows(pcf: Pcf, message: int = 0, source: str = "") -> Iterator[dict[str, Any]]:
    """The rows of one accounting or statistics message (none for any other PCF)."""
    head = pcf.elements[0].fields if pcf.elements else {}
    type_, command = head.get("type"), head.get("command")
    kind = KINDS.get(type_) if isinstance(type_, int) else None
    if kind is None:
        return
    record = VALUES["MQCMD"].get(command, "") if isinstance(command, int) else ""
    record = record.removeprefix("MQCMD_")
    base = _values(pcf.parameters)
    groups = [p for p in pcf.parameters if p.get("name") in GROUPS and "parameters" in p]
    if not groups:
        yield _row(kind, record, "mqi", base, {}, message, source)
        return
    for g in groups:
        yield _row(kind, record, GROUPS[g["name"]], base, _values(g["parameters"]), message,
                   source)


def _row(kind: str, record: str, obj: str, base: Mapping[str, tuple[int, Any]],
         group: Mapping[str, tuple[int, Any]], message: int, source: str) -> dict[str, Any]:
    values = {**base, **group}
    used: set[str] = set()
    row: dict[str, Any] = {"message": message, "source": source, "kind": kind,
                           "record": record, "object": obj}
    for col, (param, _t) in IDENTITY.items():
        names = NAMES if col == "name" else (param,)
        row[col] = None
        for name in names:
            if name in values:
                row[col] = _identity(*values[name])
                used.add(name)
                break
    for col, (d, t) in TIMES.items():
        row[col] = _timestamp(values.get(d, (0, None))[1], values.get(t, (0, None))[1])
        used.update(n for n in (d, t) if n in values)
    extra: dict[str, Any] = {}
    for p in PAIRS:
        c = _column(p)
        v = values.get(p, (0, None))[1]
        pair = v if isinstance(v, list) and len(v) == 2 else [None, None]
        row[f"{c}_nonpersistent"], row[f"{c}_persistent"] = pair
        if p in values:
            used.add(p)
            if pair == [None, None]:
                extra[p] = v
    for p in COUNTS:
        v = values.get(p, (0, None))[1]
        if isinstance(v, list):
            extra[p] = v
            v = sum(x for x in v if isinstance(x, int))
        row[_column(p)] = v if isinstance(v, int) else None
        used.update({p} & set(values))
    extra.update({n: v for n, (_pid, v) in values.items() if n not in used})
    row["extra"] = json.dumps(extra, default=str, sort_keys=True) if extra else None
    return row


def _identity(pid: int, value: Any) -> Any:
    """Enumerated values by their IBM names (``MQQT_LOCAL``), the rest as they are."""
    if isinstance(value, int):
        return value_meaning(pid, value) or value
    return value


def table(all_rows: list[dict[str, Any]]) -> pa.Table:
    """Rows as an Arrow table of ``schema()`` (what ``extract mq-stats`` writes)."""
    s = schema()
    fixed = [{k: (str(v) if s.field(k).type == pa.string() and v is not None and
                  not isinstance(v, str) else v) for k, v in r.items()} for r in all_rows]
    return pa.Table.from_pylist(fixed, schema=s)


def message_rows(body: bytes, mqmd: Mapping[str, Any], message: int = 0,
                 source: str = "") -> Iterator[dict[str, Any]]:
    """The rows of a queue-dump message whose Format is ``MQADMIN`` (statistics and
    accounting messages are PCF in that format); none for any other message."""
    from mqtool.formats.mq.chain import walk

    chain = walk(body, mqmd)
    if chain.pcf is not None:
        yield from rows(chain.pcf, message, source)


# --------------------------------------------------------------------------- extract mq-stats

OUTPUTS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".jsonl": "jsonl",
           ".json": "jsonl", ".ndjson": "jsonl"}  # an output's extension -> what is written
BATCH = 1024  # rows held before they are written


def output_format(output: str | None, to: str | None) -> str:
    """``parquet``, ``csv`` or ``jsonl``: ``to``, else the output's extension (JSON lines on
    stdout); an extension that names no format is refused."""
    from mqtool.errors import InputError

    if to:
        return to
    if output and output != "-":
        suffix = Path(output).suffix.lower()
        if suffix not in OUTPUTS:
            raise InputError(f"{output}: the extension {suffix or '(none)'!r} names no output "
                             f"format ({', '.join(OUTPUTS)}; or name one with --to)")
        return OUTPUTS[suffix]
    return "jsonl"


@dataclass
class Extracted:
    """What an ``extract mq-stats`` run read and wrote (its summary)."""

    inputs: list[str] = field(default_factory=list)
    messages: int = 0  # messages read
    records: dict[str, int] = field(default_factory=dict)  # "statistics STATISTICS_Q" -> messages
    rows: int = 0
    errors: list[str] = field(default_factory=list)  # unreadable messages, dumps without any
    output: str = "-"
    format: str = "jsonl"

    def to_json(self) -> dict[str, Any]:
        return {"inputs": self.inputs, "messages": self.messages,
                "stats_messages": sum(self.records.values()), "records": dict(self.records),
                "rows": self.rows, "errors": len(self.errors),
                "first_error": self.errors[0] if self.errors else None,
                "output": self.output, "format": self.format}


class RowWriter:
    """Rows of ``schema()`` to Parquet, CSV or JSON lines, ``BATCH`` rows at a time, on an
    open binary file (the caller makes it whole-or-nothing: ``io.outputs``)."""

    def __init__(self, out: IO[bytes] | str, fmt: str) -> None:
        self.out, self.fmt = out, fmt
        self.pending: list[dict[str, Any]] = []
        self._writer: Any = None

    def add(self, row: dict[str, Any]) -> None:
        self.pending.append(row)
        if len(self.pending) >= BATCH:
            self.flush()

    def flush(self) -> None:
        rows, self.pending = self.pending, []
        if self.fmt == "jsonl":
            assert not isinstance(self.out, str)
            for r in rows:
                self.out.write(json.dumps(_json_row(r), ensure_ascii=False).encode() + b"\n")
            return
        if not rows and self._writer is not None:
            return
        batch = table(rows)  # no row at all: the schema alone
        if self._writer is None:
            if self.fmt == "parquet":
                import pyarrow.parquet as pq

                self._writer = pq.ParquetWriter(self.out, batch.schema)
            else:
                import pyarrow.csv as pacsv

                self._writer = pacsv.CSVWriter(self.out, batch.schema)
        self._writer.write_table(batch)

    def close(self) -> None:
        self.flush()
        if self._writer is not None:
            self._writer.close()


def _json_row(row: dict[str, Any]) -> dict[str, Any]:
    """A row for JSON: timestamps as ISO-8601 (the queue manager's local time, no zone)."""
    return {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in row.items()}


def extract(dumps: Iterable[Any], writer: RowWriter, done: Extracted,
            say: Callable[[str], None]) -> None:
    """The rows of every accounting and statistics message of ``dumps`` (each a
    ``dumps.read.QueueDump``), written as they come; unreadable messages and dumps without
    any message are said (``say``) and counted in ``done.errors``."""
    from mqtool.errors import NoMessagesError
    from mqtool.formats.mq.dumps.summary import source_text

    for dump in dumps:
        for msg in dump:
            done.messages += 1
            found = 0
            for row in message_rows(msg.body, msg.mqmd, msg.position, source_text(msg)):
                writer.add(row)
                found += 1
                if found == 1:
                    key = f"{row['kind']} {row['record']}"
                    done.records[key] = done.records.get(key, 0) + 1
            done.rows += found
        try:
            dump.report(say)
        except NoMessagesError as e:
            say(str(e))
            done.errors.append(str(e))
        done.errors += [f"{p.path}: {p.reason}" for p in dump.errors]
