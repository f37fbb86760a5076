"""``extract mq-stats``: accounting and statistics messages of queue dumps and captures as
rows (Parquet, CSV, JSON lines), written whole or not at all, with a summary; and one exit
status for "no messages" across the commands that read dumps."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from mqtool.errors import ExitStatus
from mqtool.formats.mq import stats
from mqtool.formats.mq.dumps.read import QueueDump
from mqtool.io.outputs import TEMP_SUFFIX
from mqtool.testing import mq_capture as mc
from tests.formats.mq.producers import amqsbcg_listing
from tests.helpers import TESTDATA, mq

EVENTS = TESTDATA / "mq" / "events.qmsg"  # four events, then queue statistics (message 5)
ROWS = [  # the values testdata/mq/captures/generate.py packed into message 5
    {"message": 5, "kind": "statistics", "record": "STATISTICS_Q", "object": "queue",
     "qmgr": "QM1", "name": "PAY.IN", "q_type": "MQQT_LOCAL",
     "definition_type": "MQQDT_PREDEFINED", "command_level": 940,
     "puts_nonpersistent": 4100, "puts_persistent": 900, "gets_nonpersistent": 100,
     "gets_persistent": 0, "q_max_depth": 5000, "puts_failed": 1},
    {"message": 5, "kind": "statistics", "record": "STATISTICS_Q", "object": "queue",
     "qmgr": "QM1", "name": "PAY.REPLY", "q_type": "MQQT_LOCAL",
     "definition_type": "MQQDT_PREDEFINED", "command_level": 940,
     "puts_nonpersistent": 0, "puts_persistent": 90, "gets_nonpersistent": 0,
     "gets_persistent": 90, "q_max_depth": 3, "puts_failed": 0},
]


def _same(rows: list[dict[str, object]]) -> None:
    assert [{k: r[k] for k in ROWS[0]} for r in rows] == ROWS
    for r in rows:
        assert str(r["interval_start"]).replace("T", " ") == "2026-11-26 10:00:00"
        assert str(r["interval_end"]).replace("T", " ") == "2026-11-26 10:30:00"


def test_parquet_rows_and_summary(tmp_path: Path) -> None:
    out = tmp_path / "stats.parquet"
    r = mq("extract", "mq-stats", EVENTS, "-o", out, "--summary", tmp_path / "s.json")
    assert r.status == ExitStatus.OK, r.stderr
    table = pq.read_table(out)
    assert table.cast(stats.schema()).schema == stats.schema()  # Parquet keeps ms, not s
    _same(table.to_pylist())
    assert r.text.splitlines() == [f"2 rows from 1 of 5 messages, written to {out}",
                                   "  statistics STATISTICS_Q: 1 messages"]
    summary = json.loads((tmp_path / "s.json").read_text())
    custody = summary.pop("custody")  # the chain of custody every summary carries
    assert [i["path"] for i in custody["inputs"]] == [str(EVENTS)]
    assert summary == {"inputs": [str(EVENTS)], "messages": 5, "stats_messages": 1,
                       "records": {"statistics STATISTICS_Q": 1}, "rows": 2, "errors": 0,
                       "first_error": None, "output": str(out), "format": "parquet"}


def test_csv_and_json_lines(tmp_path: Path) -> None:
    r = mq("extract", "mq-stats", EVENTS, "-o", tmp_path / "s.csv")
    assert r.status == ExitStatus.OK, r.stderr
    with (tmp_path / "s.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == stats.schema().names
    assert [(x["name"], x["puts_nonpersistent"], x["source"]) for x in rows] == \
        [("PAY.IN", "4100", f"{EVENTS}:{_line(5)}"), ("PAY.REPLY", "0", f"{EVENTS}:{_line(5)}")]
    r = mq("extract", "mq-stats", EVENTS)  # JSON lines on stdout
    assert r.status == ExitStatus.OK, r.stderr
    _same([json.loads(line) for line in r.text.splitlines()])
    r = mq("extract", "mq-stats", EVENTS, "--to", "csv")
    assert r.text.splitlines()[0].startswith('"message","source","kind","record"')


def _line(position: int) -> int:
    """The line where message ``position`` of EVENTS starts (its A VER line)."""
    lines = EVENTS.read_text().splitlines()
    return [n for n, line in enumerate(lines, 1) if line == "A VER 2"][position - 1]


def test_from_a_capture(tmp_path: Path) -> None:
    """The statistics messages a consumer got off SYSTEM.ADMIN.STATISTICS.QUEUE, captured."""
    conv = mc.Conversation()
    conv.mqopen("SYSTEM.ADMIN.STATISTICS.QUEUE", 4)
    for m in QueueDump(str(EVENTS)):
        conv.mqget(4, "SYSTEM.ADMIN.STATISTICS.QUEUE", m.body,
                   **{k: m.mqmd[k] for k in ("format", "putdate", "puttime")})
    cap = tmp_path / "stats.pcap"
    cap.write_bytes(mc.capture(mc.ip_frames(mc.tcp_packets(conv), mc.Endpoints())))
    r = mq("extract", "mq-stats", cap)
    assert r.status == ExitStatus.OK, r.stderr
    rows = [json.loads(line) for line in r.text.splitlines()]
    _same(rows)
    assert rows[0]["source"].startswith("stats.pcap: frame") and \
        rows[0]["source"].endswith("MQGET from SYSTEM.ADMIN.STATISTICS.QUEUE")


def test_output_rules(tmp_path: Path) -> None:
    r = mq("extract", "mq-stats", EVENTS, "-o", tmp_path / "s.txt")
    assert r.status == ExitStatus.USAGE and "'.txt' names no output format" in r.stderr
    r = mq("extract", "mq-stats", EVENTS, "--to", "parquet")
    assert r.status == ExitStatus.USAGE and "Parquet needs a file" in r.stderr
    (tmp_path / "s.csv").write_text("old")
    r = mq("extract", "mq-stats", EVENTS, "-o", tmp_path / "s.csv")
    assert r.status == ExitStatus.USAGE and "exists" in r.stderr
    assert (tmp_path / "s.csv").read_text() == "old"
    assert mq("extract", "mq-stats", EVENTS, "-o", tmp_path / "s.csv", "--force").status == 0
    r = mq("extract", "mq-stats", EVENTS, "-o", tmp_path / "no" / "s.csv")
    assert r.status == ExitStatus.ENVIRONMENT and r.stderr.count("\n") == 1


def test_a_failed_run_leaves_no_output(tmp_path: Path) -> None:
    out = tmp_path / "s.parquet"
    r = mq("extract", "mq-stats", EVENTS, tmp_path / "missing.qmsg", "-o", out)
    assert r.status == ExitStatus.USAGE and "missing.qmsg: no such file" in r.stderr
    assert list(tmp_path.iterdir()) == []  # neither the output nor a temporary file


def test_unreadable_messages_and_empty_dumps_exit_2_and_rows_are_kept(tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text(amqsbcg_listing([]))
    out = tmp_path / "s.csv"
    r = mq("extract", "mq-stats", EVENTS, empty, "-o", out)
    assert r.status == ExitStatus.DECODE
    assert r.stderr == (f"mqtool: queue-dump: {empty}: no messages in this amqsbcg dump, "
                        "offset X'0000' (0)\n")
    assert len(out.read_text().splitlines()) == 3  # the heading and both rows
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(TEMP_SUFFIX)]


# --------------------------------------------------------------------------- no messages


NO_MESSAGES = ("messages", "decode auto", "decode sas-attachment",
               "reassemble attachment --list", "decode mq", "decode urb", "extract mq-stats")


@pytest.mark.parametrize("kind", ["browse", "comments", "capture"])
@pytest.mark.parametrize("command", NO_MESSAGES)
def test_no_messages_is_one_status_everywhere(tmp_path: Path, command: str, kind: str) -> None:
    """An empty browse (amqsbcg's "No more messages"), a dmpmqmsg file of comments only and
    a capture without MQ traffic: exit status 2 and one line, from every command."""
    if kind == "browse":
        path, words = tmp_path / "browse.txt", "no messages in this amqsbcg dump"
        path.write_text(amqsbcg_listing([]))
        assert "No more messages" in path.read_text()
    elif kind == "comments":
        path, words = tmp_path / "c.qmsg", "no messages in this dmpmqmsg dump"
        path.write_bytes(b"* QLOAD Version:8.0 Created:x\n* Qmgr  = QM1\n* Queue = Q\n\n")
    else:
        path, words = tmp_path / "web.pcap", "no messages in this pcap dump: no IBM MQ traffic"
        conv = mc.Conversation(tshm=False)
        conv.sends.append(("c2s", b"GET / HTTP/1.1\r\n\r\n"))
        path.write_bytes(mc.capture(mc.ip_frames(mc.tcp_packets(conv),
                                                 mc.Endpoints(sport=80))))
    r = mq(*command.split(), path)
    assert r.status == ExitStatus.DECODE, (command, r.stderr)
    assert r.stderr.splitlines() == [f"mqtool: queue-dump: {path}: {words}, offset X'0000' (0)"] or \
        (kind == "capture" and r.stderr.startswith(f"mqtool: queue-dump: {path}: {words}")), \
        r.stderr
