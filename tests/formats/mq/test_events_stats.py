"""Event messages in one line and accounting / statistics messages as rows. The messages
are packed by ``mqtool.testing.pcf_gen`` with the parameter ids of IBM's constants (read
from testdata/mq/ibm), each event with the parameters IBM's "Event message reference"
lists for it; then decoded with mqtool's PCF decoder and summarised."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.formats.mq import events, stats
from mqtool.formats.mq.chain import walk
from mqtool.testing import pcf_gen as g
from tests.formats.mq import ibm_constants

C = ibm_constants.by_name()
EVENT_MD = {"format": "MQEVENT", "encoding": 546, "codedcharsetid": 819}
ADMIN_MD = {"format": "MQADMIN", "encoding": 546, "codedcharsetid": 819}


def _event(command: str, reason: str, params: list[tuple[str, Any]]) -> bytes:
    return g.message(g.MQCFT_EVENT, C[command], [(C[n], v) for n, v in params],
                     reason=C[reason], compcode=2 if reason != "MQRC_NONE" else 0)


AUTHORITY = _event("MQCMD_Q_MGR_EVENT", "MQRC_NOT_AUTHORIZED", [
    ("MQCA_Q_MGR_NAME", "QM1"), ("MQIACF_REASON_QUALIFIER", C["MQRQ_OPEN_NOT_AUTHORIZED"]),
    ("MQIACF_OPEN_OPTIONS", C["MQOO_OUTPUT"] | C["MQOO_FAIL_IF_QUIESCING"]),
    ("MQCACF_USER_IDENTIFIER", "app1"), ("MQIA_APPL_TYPE", C["MQAT_UNIX"]),
    ("MQCACF_APPL_NAME", "amqsput"), ("MQCA_Q_NAME", "PAY.IN")])

CASES = {
    "authority": (AUTHORITY, "queue-manager", "not authorized (type 2): user app1, "
                  "application amqsput, queue PAY.IN, queue manager QM1"),
    "connect": (_event("MQCMD_Q_MGR_EVENT", "MQRC_NOT_AUTHORIZED", [
        ("MQCA_Q_MGR_NAME", "QM1"), ("MQIACF_REASON_QUALIFIER", C["MQRQ_CONN_NOT_AUTHORIZED"]),
        ("MQCACF_USER_IDENTIFIER", "app1"), ("MQIA_APPL_TYPE", C["MQAT_JAVA"]),
        ("MQCACF_APPL_NAME", "amqsput")]), "queue-manager",
        "not authorized (type 1): user app1, application amqsput, queue manager QM1"),
    "depth": (_event("MQCMD_PERFM_EVENT", "MQRC_Q_DEPTH_HIGH", [
        ("MQCA_Q_MGR_NAME", "QM1"), ("MQCA_BASE_OBJECT_NAME", "PAY.IN"),
        ("MQIA_TIME_SINCE_RESET", 60), ("MQIA_HIGH_Q_DEPTH", 5000),
        ("MQIA_MSG_ENQ_COUNT", 4000), ("MQIA_MSG_DEQ_COUNT", 10)]), "performance",
        "queue depth high: object PAY.IN, high depth 5000, enqueued 4000, dequeued 10, "
        "seconds since reset 60, queue manager QM1"),
    "channel": (_event("MQCMD_CHANNEL_EVENT", "MQRC_CHANNEL_STOPPED", [
        ("MQCA_Q_MGR_NAME", "QM1"), ("MQCACH_CHANNEL_NAME", "QM1.TO.QM2"),
        ("MQIACF_REASON_QUALIFIER", C["MQRQ_CHANNEL_STOPPED_ERROR"]),
        ("MQIACF_ERROR_IDENTIFIER", 9510), ("MQCACH_XMIT_Q_NAME", "QM2.XMIT"),
        ("MQCACH_CONNECTION_NAME", "10.0.0.9(1414)")]), "channel",
        "channel stopped: transmission queue QM2.XMIT, channel QM1.TO.QM2, connection "
        "10.0.0.9(1414), qualifier MQRQ_CHANNEL_STOPPED_ERROR, error 9510, queue manager QM1"),
    "config": (_event("MQCMD_CONFIG_EVENT", "MQRC_CONFIG_CREATE_OBJECT", [
        ("MQCACF_EVENT_USER_ID", "mqm"), ("MQIACF_EVENT_ORIGIN", C["MQEVO_CONSOLE"]),
        ("MQCACF_EVENT_Q_MGR", "QM1"), ("MQIACF_OBJECT_TYPE", C["MQOT_Q"]),
        ("MQCA_Q_NAME", "NEW.Q"), ("MQIA_Q_TYPE", C["MQQT_LOCAL"])]), "configuration",
        "config create object: user mqm, object type MQOT_Q, queue NEW.Q, origin "
        "MQEVO_CONSOLE, from queue manager QM1"),
    "command": (_event("MQCMD_COMMAND_EVENT", "MQRC_COMMAND_PCF", [
        ("MQGACF_COMMAND_CONTEXT", g.Group(C["MQGACF_COMMAND_CONTEXT"], [
            (C["MQCACF_EVENT_USER_ID"], "admin"), (C["MQCACF_EVENT_APPL_NAME"], "runmqsc"),
            (C["MQCACF_EVENT_Q_MGR"], "QM1")])),
        ("MQGACF_COMMAND_DATA", g.Group(C["MQGACF_COMMAND_DATA"], [
            (C["MQIACF_COMMAND"], C["MQCMD_DELETE_Q"]), (C["MQCA_Q_NAME"], "OLD.Q")]))]),
        "command", "command PCF: user admin, application runmqsc, command MQCMD_DELETE_Q, "
        "queue OLD.Q, from queue manager QM1"),
    "logger": (_event("MQCMD_LOGGER_EVENT", "MQRC_LOGGER_STATUS", [
        ("MQCA_Q_MGR_NAME", "QM1"), ("MQCACF_CURRENT_LOG_EXTENT_NAME", "S0000123.LOG")]),
        "logger", "logger status: queue manager QM1"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_event_summaries(name: str) -> None:
    body, kind, text = CASES[name]
    summary = events.summarize_message(body, EVENT_MD)
    assert summary is not None
    assert (summary.type, summary.text) == (kind, text)
    assert summary.to_json()["summary"] == text


def test_event_filters() -> None:
    s = events.summarize_message(AUTHORITY, EVENT_MD)
    assert s is not None and s.reason == C["MQRC_NOT_AUTHORIZED"] == 2035
    assert s.matches(event="queue-manager") and s.matches(event="qmgr")
    assert s.matches(reason="MQRC_NOT_AUTHORIZED") and s.matches(reason=2035)
    assert s.matches(reason="mqrc_not_authorized")
    assert not s.matches(event="channel") and not s.matches(reason="MQRC_Q_FULL")


def test_the_authority_event_names_its_values_in_the_pcf() -> None:
    pcf = walk(AUTHORITY, EVENT_MD).pcf
    assert pcf is not None
    by = {p["name"]: p.get("meaning") for p in pcf.parameters}
    assert by["MQIACF_REASON_QUALIFIER"] == "MQRQ_OPEN_NOT_AUTHORIZED"
    assert by["MQIACF_OPEN_OPTIONS"] == "MQOO_OUTPUT + MQOO_FAIL_IF_QUIESCING"
    assert by["MQIA_APPL_TYPE"] == "MQAT_AIX"  # MQAT_UNIX: the first name IBM gives 6


def test_no_summary_for_other_messages() -> None:
    assert events.summarize_message(b"plain text", {"format": "MQSTR"}) is None
    stats_msg = g.message(g.MQCFT_STATISTICS, C["MQCMD_STATISTICS_MQI"], [])
    assert events.summarize_message(stats_msg, ADMIN_MD) is None


def test_event_name_of_any_reason() -> None:
    assert events.event_name(C["MQRC_Q_FULL"]) == "queue full"
    assert events.event_name(C["MQRC_Q_MGR_NOT_ACTIVE"]) == "queue manager not active"
    assert events.event_name(C["MQRC_NOT_AUTHORIZED"], C["MQRQ_SUB_DEST_NOT_AUTHORIZED"]) == \
        "not authorized (type 6)"
    assert events.event_name(999_999) == "reason 999999"


# ---------------------------------------------------------------------- statistics


def _q_group(name: str, puts: list[int], gets: list[int], max_depth: int) -> g.Group:
    return g.Group(C["MQGACF_Q_STATISTICS_DATA"], [
        (C["MQCA_Q_NAME"], name), (C["MQIA_Q_TYPE"], C["MQQT_LOCAL"]),
        (C["MQIA_DEFINITION_TYPE"], C["MQQDT_PREDEFINED"]), (C["MQIAMO_Q_MIN_DEPTH"], 0),
        (C["MQIAMO_Q_MAX_DEPTH"], max_depth), (C["MQIAMO64_AVG_Q_TIME"], [1500, 1 << 33]),
        (C["MQIAMO_PUTS"], puts), (C["MQIAMO_PUTS_FAILED"], 1),
        (C["MQIAMO64_PUT_BYTES"], [p * 100 for p in puts]), (C["MQIAMO_GETS"], gets),
        (C["MQIAMO64_GET_BYTES"], [x * 100 for x in gets]), (C["MQIAMO_MSGS_EXPIRED"], 2)])


INTERVAL = [(C["MQCA_Q_MGR_NAME"], "QM1"), (C["MQCAMO_START_DATE"], "2026-11-26"),
            (C["MQCAMO_START_TIME"], "10.00.00"), (C["MQCAMO_END_DATE"], "2026-11-26"),
            (C["MQCAMO_END_TIME"], "10.30.00"), (C["MQIA_COMMAND_LEVEL"], 940)]
Q_STATS = g.message(g.MQCFT_STATISTICS, C["MQCMD_STATISTICS_Q"], [
    *INTERVAL, (C["MQGACF_Q_STATISTICS_DATA"],
                _q_group("PAY.IN", [5, 7], [4, 6], 12)),
    (C["MQGACF_Q_STATISTICS_DATA"], _q_group("PAY.OUT", [0, 1], [0, 1], 1))])
CHL_STATS = g.message(g.MQCFT_STATISTICS, C["MQCMD_STATISTICS_CHANNEL"], [
    *INTERVAL, (C["MQGACF_CHL_STATISTICS_DATA"], g.Group(C["MQGACF_CHL_STATISTICS_DATA"], [
        (C["MQCACH_CHANNEL_NAME"], "QM1.TO.QM2"), (C["MQIACH_CHANNEL_TYPE"], C["MQCHT_SENDER"]),
        (C["MQCACH_CONNECTION_NAME"], "10.0.0.9(1414)"), (C["MQCA_REMOTE_Q_MGR_NAME"], "QM2"),
        (C["MQIAMO_MSGS"], 100), (C["MQIAMO64_BYTES"], 123456),
        (C["MQIAMO_FULL_BATCHES"], 2), (C["MQIAMO_INCOMPLETE_BATCHES"], 3),
        (C["MQIAMO_AVG_BATCH_SIZE"], 20), (C["MQIAMO_NET_TIME_AVG"], [150, 160])]))])
MQI_ACCOUNTING = g.message(g.MQCFT_ACCOUNTING, C["MQCMD_ACCOUNTING_MQI"], [
    (C["MQCA_Q_MGR_NAME"], "QM1"), (C["MQCACF_APPL_NAME"], "amqsput"),
    (C["MQBACF_CONNECTION_ID"], bytes(range(24))), (C["MQIACF_PROCESS_ID"], 4242),
    (C["MQIACF_THREAD_ID"], 7), (C["MQCACF_USER_IDENTIFIER"], "app1"),
    (C["MQCAMO_CONN_DATE"], "2026-11-26"), (C["MQCAMO_CONN_TIME"], "09.59.58"),
    (C["MQCAMO_DISC_DATE"], "2026-11-26"), (C["MQCAMO_DISC_TIME"], "10.00.03"),
    (C["MQIAMO_OPENS"], [1, 0, 0, 0, 0, 2]), (C["MQIAMO_PUTS"], [10, 0]),
    (C["MQIAMO_COMMITS"], 3)])


def _rows(body: bytes) -> list[dict[str, Any]]:
    return list(stats.message_rows(body, ADMIN_MD, 7, "dump line 1"))


def test_queue_statistics_one_row_per_queue() -> None:
    rows = _rows(Q_STATS)
    assert [r["name"] for r in rows] == ["PAY.IN", "PAY.OUT"]
    r = rows[0]
    assert (r["kind"], r["record"], r["object"], r["qmgr"]) == \
        ("statistics", "STATISTICS_Q", "queue", "QM1")
    assert (r["q_type"], r["definition_type"]) == ("MQQT_LOCAL", "MQQDT_PREDEFINED")
    assert str(r["interval_start"]) == "2026-11-26 10:00:00"
    assert str(r["interval_end"]) == "2026-11-26 10:30:00"
    assert (r["puts_nonpersistent"], r["puts_persistent"]) == (5, 7)
    assert (r["gets_nonpersistent"], r["gets_persistent"]) == (4, 6)
    assert (r["put_bytes_nonpersistent"], r["put_bytes_persistent"]) == (500, 700)
    assert (r["avg_q_time_nonpersistent"], r["avg_q_time_persistent"]) == (1500, 1 << 33)
    assert (r["q_max_depth"], r["puts_failed"], r["msgs_expired"]) == (12, 1, 2)
    assert r["command_level"] == 940 and r["extra"] is None
    assert (r["message"], r["source"]) == (7, "dump line 1")


def test_channel_statistics_row() -> None:
    (r,) = _rows(CHL_STATS)
    assert (r["object"], r["name"], r["channel_type"], r["connection_name"],
            r["remote_qmgr"]) == ("channel", "QM1.TO.QM2", "MQCHT_SENDER", "10.0.0.9(1414)",
                                  "QM2")
    assert (r["msgs"], r["bytes"], r["full_batches"], r["incomplete_batches"],
            r["avg_batch_size"]) == (100, 123456, 2, 3, 20)
    assert r["net_time_avg"] == 310 and json.loads(r["extra"]) == {"MQIAMO_NET_TIME_AVG": [150, 160]}


def test_mqi_accounting_one_row() -> None:
    (r,) = _rows(MQI_ACCOUNTING)
    assert (r["kind"], r["record"], r["object"], r["appl_name"], r["user"]) == \
        ("accounting", "ACCOUNTING_MQI", "mqi", "amqsput", "app1")
    assert r["connection_id"] == bytes(range(24)).hex().upper()
    assert (r["process_id"], r["thread_id"], r["commits"], r["opens"]) == (4242, 7, 3, 3)
    assert str(r["conn_time"]) == "2026-11-26 09:59:58"
    assert (r["puts_nonpersistent"], r["puts_persistent"]) == (10, 0)
    assert json.loads(r["extra"]) == {"MQIAMO_OPENS": [1, 0, 0, 0, 0, 2]}


def test_rows_as_parquet_and_csv(tmp_path: Path) -> None:
    rows = _rows(Q_STATS) + _rows(CHL_STATS) + _rows(MQI_ACCOUNTING)
    table = stats.table(rows)
    assert table.schema == stats.schema() and table.num_rows == 4
    pq.write_table(table, tmp_path / "s.parquet")
    back = pq.read_table(tmp_path / "s.parquet").to_pylist()
    assert [r["name"] for r in back] == ["PAY.IN", "PAY.OUT", "QM1.TO.QM2", None]
    assert back[0]["puts_persistent"] == 7
    pacsv.write_csv(table, tmp_path / "s.csv")
    header = (tmp_path / "s.csv").read_text().splitlines()[0]
    assert header.startswith('"message","source","kind","record","object","qmgr"')


def test_no_rows_for_events_or_other_messages() -> None:
    assert _rows(AUTHORITY) == []
    assert list(stats.message_rows(b"text", {"format": "MQSTR"})) == []


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([AUTHORITY, Q_STATS, CHL_STATS, MQI_ACCOUNTING]), st.data())
def test_mutated_pcf_never_raises(body: bytes, data: st.DataObject) -> None:
    buf = bytearray(body)
    for _ in range(data.draw(st.integers(1, 6))):
        buf[data.draw(st.integers(0, len(buf) - 1))] = data.draw(st.integers(0, 255))
    cut = bytes(buf[:data.draw(st.integers(0, len(buf)))])
    events.summarize_message(cut, EVENT_MD)
    stats.table(list(stats.message_rows(cut, ADMIN_MD)))


def test_every_parameter_named_is_the_name_the_pcf_decoder_gives() -> None:
    from mqtool.formats.mq.pcf_names import PARAMETERS

    names = [p for p, _t in stats.IDENTITY.values() if p] + list(stats.NAMES) + \
        [n for pair in stats.TIMES.values() for n in pair] + list(stats.PAIRS) + \
        list(stats.COUNTS) + list(stats.GROUPS) + [p for p, _w in events.DETAILS]
    assert [n for n in names if PARAMETERS.get(C[n]) != n] == []
