"""``messages`` for people: put time as a timestamp in --tz, PutAppl, User, MsgId and
CorrelId columns, a table that fits 120 columns (--wide for the rest), filters on each
column, dead-letter put times as timestamps, event and dead-letter reasons."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqtool.errors import ExitStatus
from tests.formats.mq.producers import Msg, qload_file
from tests.helpers import TESTDATA, mq

ID = "414D5120514D312020202020202020206A1B2C3D000000"  # "AMQ QM1" + a time stamp, 23 bytes
LONG_APPL = "C:\\Program Files\\IBM\\MQ\\bin64\\amqsput.exe"[-28:]  # MQ keeps the last 28
PEOPLE = [
    Msg(b"first", {"msgid": bytes.fromhex(ID + "01"), "putapplname": "amqsput",
                   "useridentifier": "app1", "putdate": "20261123", "puttime": "18001234",
                   "correlid": b"\x01" * 24}),
    Msg(b"second", {"msgid": bytes.fromhex(ID + "02"), "putapplname": LONG_APPL,
                    "useridentifier": "sasprod", "putdate": "20261123", "puttime": "23594599"}),
    Msg(b"third", {"msgid": bytes.fromhex(ID + "03"), "putapplname": "payroll-loader",
                   "useridentifier": "APP1", "putdate": "20261124", "puttime": "00000001"}),
    Msg(b"fourth", {"msgid": b"\xff" * 24, "putapplname": "", "useridentifier": "",
                    "putdate": "", "puttime": ""}),
]
DLQ = TESTDATA / "mq" / "dlq.dmpmqmsg"
EVENTS = TESTDATA / "mq" / "events.qmsg"


@pytest.fixture()
def dump(tmp_path: Path) -> Path:
    path = tmp_path / "people.qmsg"
    path.write_bytes(qload_file(PEOPLE))
    return path


def _positions(*args: object) -> list[int]:
    r = mq("messages", "--json", *args)
    assert r.status == ExitStatus.OK, r.stderr
    return [json.loads(line)["message"] for line in r.text.splitlines()]


def _rows(*args: object) -> list[str]:
    r = mq("messages", *args)
    assert r.status == ExitStatus.OK, r.stderr
    return r.text.splitlines()


def test_the_table_fits_120_columns(dump: Path) -> None:
    rows = _rows(dump)
    assert all(len(line) <= 120 for line in rows), [len(x) for x in rows]
    assert rows[0].split() == ["#", "Put", "(UTC)", "Type", "Format", "Length", "PutAppl",
                               "User", "Summary"]
    assert rows[1].split() == ["1", "2026-11-23", "18:00:12.34", "datagram", "MQSTR", "5",
                               "amqsput", "app1", "-"]
    # a long application name keeps its end: the program's name
    assert rows[2].split()[6] == "…" + LONG_APPL[-13:]  # 14 columns at most
    assert rows[4].split()[1:3] == ["-", "datagram"]  # no put date and time


def test_wide_shows_msgid_correlid_and_where_each_came_from(dump: Path) -> None:
    rows = _rows("--wide", dump)
    assert rows[0].split() == ["#", "Put", "(UTC)", "Type", "Format", "Length", "PutAppl",
                               "User", "CorrelId", "MsgId", "Summary", "Source"]
    first = rows[1].split()
    assert first[8:10] == ["01" * 24, ID + "01"]
    assert rows[4].split()[1:9] == ["-", "datagram", "MQSTR", "6", "-", "-", "-", "FF" * 24]
    text = dump.read_bytes().split(b"\n")
    assert first[-1] == f"{dump}:{text.index(b'A VER 2') + 1}"
    assert rows[2].split()[6] == LONG_APPL.split()[-1] and LONG_APPL in rows[2]
    assert max(len(x) for x in rows) > 120


def test_put_times_in_a_time_zone(dump: Path) -> None:
    berlin = _rows("--tz", "Europe/Berlin", dump)
    assert berlin[0].split()[1:3] == ["Put", "(Europe/Berlin)"]
    assert [r.split()[1:3] for r in berlin[1:4]] == [
        ["2026-11-23", "19:00:12.34"], ["2026-11-24", "00:59:45.99"],
        ["2026-11-24", "01:00:00.01"]]  # CET, UTC+1, in November
    york = _rows("--tz", "America/New_York", dump)
    assert york[1].split()[1:3] == ["2026-11-23", "13:00:12.34"]  # EST, UTC-5
    got = json.loads(mq("messages", "--json", "--tz", "Europe/Berlin", dump).text.split("\n")[0])
    assert got["put_time"] == "2026-11-23T18:00:12.340000Z"  # JSON is UTC always


def test_filters_on_each_column(dump: Path) -> None:
    assert _positions("--msgid", ID, dump) == [1, 2, 3]
    assert _positions("--msgid", f"X'{ID}02'", dump) == [2]
    assert _positions("--correlid", "0101", dump) == [1]
    assert _positions("--appl", "amqs*", dump) == [1]
    assert _positions("--appl", "*AMQSPUT.EXE", dump) == [2]
    assert _positions("--appl", "payroll-loader", dump) == [3]
    assert _positions("--user", "app1", dump) == [1, 3]  # case ignored
    assert _positions("--user", "sas*", dump) == [2]
    assert _positions("--since", "2026-11-23T23:00", dump) == [2, 3]  # no put time: out
    assert _positions("--until", "2026-11-24", dump) == [1, 2]
    assert _positions("--until", "2026-11-24T00:00:00.01Z", dump) == [1, 2]  # before, not at
    assert _positions("--since", "2026-11-24T00:00:00.01Z", dump) == [3]  # at or after
    assert _positions("--since", "2026-11-24T01:00+01:00", dump) == [3]
    assert _positions("--format", "MQSTR", "--user", "app1", "--since", "2026-11-24", dump) == [3]
    assert _positions("--user", "nobody", dump) == []


@pytest.mark.parametrize(("option", "value", "words"), [
    ("--since", "yesterday", "'yesterday' is not an ISO-8601 time"),
    ("--until", "2026-13-01", "'2026-13-01' is not an ISO-8601 time"),
    ("--msgid", "XYZ", "'XYZ' is not a MsgId in hex"),
    ("--msgid", "0" * 49, "is not a MsgId in hex (up to 48 digits"),
    ("--event", "weather", "'weather' is no event type (queue-manager, channel, performance, "
                           "configuration, command, logger)"),
    ("--event", "c", "'c' names several"),
    ("--reason", "MQRC_Q_FUL", "close names: MQRC_Q_FULL"),
    ("--reason", "-5", "'-5' is no reason code"),
])
def test_bad_filter_values_are_one_usage_line(dump: Path, option: str, value: str,
                                              words: str) -> None:
    r = mq("messages", option, value, dump)
    assert r.status == ExitStatus.USAGE
    assert f"Invalid value for '{option}'" in r.stderr and words in r.stderr, r.stderr
    assert r.stdout == b""


def test_dead_letter_put_time_is_a_timestamp() -> None:
    got = [json.loads(line) for line in mq("messages", "--json", DLQ).text.splitlines()]
    assert [o["dead_letter"] for o in got] == [
        {"reason": 2053, "reason_name": "MQRC_Q_FULL", "destqname": "PAYROLL.IN",
         "destqmgrname": "QM1", "putapplname": "payroll-loader",
         "put_time": "2026-11-23T18:00:12.340000Z"},  # the MQDLH's 20261123 18001234
        {"reason": 2035, "reason_name": "MQRC_NOT_AUTHORIZED", "destqname": "PAYROLL.IN",
         "destqmgrname": "QM1", "putapplname": "payroll-loader",
         "put_time": "2026-11-23T18:00:12.340000Z"}]
    assert _positions("--reason", "MQRC_Q_FULL", DLQ) == [1]
    assert _positions("--reason", "2035", DLQ) == [2]
    assert _positions("--reason", "not_authorized", DLQ) == [2]
    assert _positions("--event", "qmgr", DLQ) == []  # dead letters are no events
    rows = _rows(DLQ)
    assert rows[1].endswith("MQDLH(2053 MQRC_Q_FULL) → MQSTR")


EVENT_LINES = [
    ("queue-manager", 2035, "MQRC_NOT_AUTHORIZED",
     "not authorized (type 2): user app2, application amqsput, queue PAY.IN, queue manager QM1"),
    ("performance", 2224, "MQRC_Q_DEPTH_HIGH",
     "queue depth high: object PAY.IN, high depth 4000, enqueued 4100, dequeued 100, seconds "
     "since reset 600, queue manager QM1"),
    ("performance", 2053, "MQRC_Q_FULL",
     "queue full: object PAY.IN, high depth 5000, enqueued 1000, dequeued 0, seconds since "
     "reset 120, queue manager QM1"),
    ("channel", 2283, "MQRC_CHANNEL_STOPPED",
     "channel stopped: transmission queue QM2.XMIT, channel QM1.TO.QM2, connection "
     "10.0.0.9(1414), qualifier MQRQ_CHANNEL_STOPPED_ERROR, error 9510, queue manager QM1"),
]


def test_event_messages_in_one_line_and_their_filters() -> None:
    got = [json.loads(line) for line in mq("messages", "--json", EVENTS).text.splitlines()]
    assert [(o["event"]["type"], o["event"]["reason"], o["event"]["reason_name"],
             o["event"]["summary"]) for o in got[:4]] == EVENT_LINES
    assert "event" not in got[4]  # the statistics message
    assert _positions("--event", "performance", EVENTS) == [2, 3]
    assert _positions("--event", "perf", "--reason", "MQRC_Q_FULL", EVENTS) == [3]
    assert _positions("--event", "qmgr", EVENTS) == [1]
    assert _positions("--event", "queue-manager", EVENTS) == [1]
    assert _positions("--event", "channel", EVENTS) == [4]
    assert _positions("--reason", "2035", EVENTS) == [1]
    rows = _rows(EVENTS)
    at = rows[0].index("Summary")
    assert [r[at:] for r in rows[1:]] == [
        "not authorized (type 2): user app2, application am…",
        "queue depth high: object PAY.IN, high depth 4000, …",
        "queue full: object PAY.IN, high depth 5000, enqueu…",
        "channel stopped: transmission queue QM2.XMIT, chan…",
        "MQCMD_STATISTICS_Q statistics"]
    assert max(len(r) for r in rows) == 120
    wide = _rows("--wide", EVENTS)
    assert [line for line in wide if "MQEVENT" in line and EVENT_LINES[0][3] in line]


def test_decode_listings_say_the_event_in_one_line() -> None:
    r = mq("decode", "mq", EVENTS)
    assert r.status == ExitStatus.OK, r.stderr
    titles = [line for line in r.text.splitlines() if line.startswith("message ")]
    assert [t.split("; ", 2)[-1] for t in titles[:4]] == [
        f"{kind} event: {text}" for kind, _r, _n, text in EVENT_LINES]
    auto = mq("decode", "auto", "--json", EVENTS)
    events = [json.loads(line).get("event") for line in auto.text.splitlines()]
    assert [(e["type"], e["summary"]) for e in events[:4]] == \
        [(kind, text) for kind, _r, _n, text in EVENT_LINES]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(option=st.sampled_from(["--event", "--reason", "--since", "--until", "--msgid",
                               "--appl", "--user"]),
       value=st.text(max_size=12))
def test_any_filter_value_keeps_the_error_contract(option: str, value: str) -> None:
    r = mq("messages", option, value, EVENTS)
    assert r.status in (ExitStatus.OK, ExitStatus.USAGE), r.stderr
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    if r.status == ExitStatus.USAGE:
        assert f"Invalid value for '{option}'" in r.stderr


def test_records_carry_the_names_of_decoded_units() -> None:
    """What filters and columns see: the dotted paths decoded units use."""
    from mqtool import api
    from mqtool.formats.mq.dumps.read import QueueDump

    first = api.summarize(next(iter(QueueDump(str(DLQ))))).record()
    assert first["mqdlh"]["reason"] == 2053 and first["mqdlh"]["destqname"] == "PAYROLL.IN"
    assert first["mqmd"]["putapplname"] == "amqzlaa0" and "headers" not in first
    assert first["dead_letter"]["put_time"] == "2026-11-23T18:00:12.340000Z"
    one: dict[str, Any] = api.summarize(next(iter(QueueDump(str(EVENTS))))).record()
    assert one["event"]["reason_name"] == "MQRC_NOT_AUTHORIZED"
    assert one["put_time"] == "2026-11-26T10:10:12.000000Z"
