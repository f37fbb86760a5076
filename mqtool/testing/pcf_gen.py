"""PCF messages for tests: event, statistics and accounting messages packed with ``struct``
from the structure layouts IBM documents (MQCFH 36 bytes; MQCFIN 16; MQCFST 20 + string
padded to 4; MQCFIL 16 + 4 per value; MQCFIN64 24; MQCFIL64 16 + 8 per value; MQCFGR 16 +
its members), independent of mqtool's declarations, with the parameter ids of cmqcfc.h
given by the caller."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any

MQCFT_COMMAND, MQCFT_EVENT, MQCFT_STATISTICS, MQCFT_ACCOUNTING = 1, 7, 21, 22
MQCFT_INTEGER, MQCFT_STRING, MQCFT_INTEGER_LIST, MQCFT_BYTE_STRING = 3, 4, 5, 9
MQCFT_GROUP, MQCFT_INTEGER64, MQCFT_INTEGER64_LIST = 20, 23, 25


@dataclass
class Group:
    """An MQCFGR: its parameter id and members."""

    parameter: int
    members: list[tuple[int, Any]] = field(default_factory=list)


def parameter(pid: int, value: Any, big: bool = False, ccsid: int = 819) -> bytes:
    """One parameter structure, its type chosen by the value: int (MQCFIN, MQCFIN64 when it
    does not fit 32 bits), str (MQCFST), bytes (MQCFBS), list of ints (MQCFIL / MQCFIL64),
    ``Group`` (MQCFGR and its members)."""
    e = ">" if big else "<"
    if isinstance(value, Group):
        head = struct.pack(e + "iiii", MQCFT_GROUP, 16, value.parameter, len(value.members))
        return head + b"".join(parameter(p, v, big, ccsid) for p, v in value.members)
    if isinstance(value, bool) or not isinstance(value, int | str | bytes | list):
        raise TypeError(f"no PCF structure for {value!r}")
    if isinstance(value, int):
        if -(1 << 31) <= value < 1 << 31:
            return struct.pack(e + "iiii", MQCFT_INTEGER, 16, pid, value)
        return struct.pack(e + "iiiiq", MQCFT_INTEGER64, 24, pid, 0, value)
    if isinstance(value, str):
        raw = value.encode("cp500" if ccsid == 500 else "latin-1")
        pad = b" " * (-len(raw) % 4)
        return struct.pack(e + "iiiii", MQCFT_STRING, 20 + len(raw) + len(pad), pid, ccsid,
                           len(raw)) + raw + pad
    if isinstance(value, bytes):
        pad = bytes(-len(value) % 4)
        return struct.pack(e + "iiii", MQCFT_BYTE_STRING, 16 + len(value) + len(pad), pid,
                           len(value)) + value + pad
    if all(-(1 << 31) <= v < 1 << 31 for v in value):
        return struct.pack(e + "iiii", MQCFT_INTEGER_LIST, 16 + 4 * len(value), pid,
                           len(value)) + struct.pack(e + f"{len(value)}i", *value)
    return struct.pack(e + "iiii", MQCFT_INTEGER64_LIST, 16 + 8 * len(value), pid,
                       len(value)) + struct.pack(e + f"{len(value)}q", *value)


def message(type_: int, command: int, params: list[tuple[int, Any]], *, reason: int = 0,
            compcode: int = 0, big: bool = False, ccsid: int = 819, control: int = 1) -> bytes:
    """An MQCFH (version 2, as event messages carry) and its parameters."""
    e = ">" if big else "<"
    head = struct.pack(e + "iiiiiiiii", type_, 36, 2, command, 1, control, compcode, reason,
                       len(params))
    return head + b"".join(parameter(p, v, big, ccsid) for p, v in params)


# ------------------------------------------------------------------------------ documentation


def doc_messages(c: dict[str, int]) -> list[tuple[dict[str, Any], bytes]]:
    """The event and statistics messages docs/events.md reads (``testdata/mq/events.qmsg``),
    each with its MQMD fields, packed with the constants ``c`` (IBM's names -> values): an
    authority event, a queue-full and a queue-depth-high event, a channel-stopped event, then
    queue and channel statistics for one interval."""
    def event(command: str, reason: str, params: list[tuple[str, Any]], time: str
              ) -> tuple[dict[str, Any], bytes]:
        body = message(MQCFT_EVENT, c[command], [(c[n], v) for n, v in params],
                       reason=c[reason], compcode=2)
        return _md("MQEVENT", time), body

    def stats(command: str, params: list[tuple[str, Any]], time: str
              ) -> tuple[dict[str, Any], bytes]:
        body = message(MQCFT_STATISTICS, c[command], [(c[n], v) for n, v in params])
        return _md("MQADMIN", time), body

    interval = [("MQCA_Q_MGR_NAME", "QM1"), ("MQCAMO_START_DATE", "2026-11-26"),
                ("MQCAMO_START_TIME", "10.00.00"), ("MQCAMO_END_DATE", "2026-11-26"),
                ("MQCAMO_END_TIME", "10.30.00"), ("MQIA_COMMAND_LEVEL", 940)]

    def queue(name: str, puts: list[int], gets: list[int], depth: int) -> Group:
        return Group(c["MQGACF_Q_STATISTICS_DATA"], [
            (c["MQCA_Q_NAME"], name), (c["MQIA_Q_TYPE"], c["MQQT_LOCAL"]),
            (c["MQIA_DEFINITION_TYPE"], c["MQQDT_PREDEFINED"]),
            (c["MQIAMO_Q_MAX_DEPTH"], depth), (c["MQIAMO_PUTS"], puts),
            (c["MQIAMO_GETS"], gets), (c["MQIAMO_PUTS_FAILED"], 1 if depth >= 5000 else 0)])

    return [
        event("MQCMD_Q_MGR_EVENT", "MQRC_NOT_AUTHORIZED", [
            ("MQCA_Q_MGR_NAME", "QM1"),
            ("MQIACF_REASON_QUALIFIER", c["MQRQ_OPEN_NOT_AUTHORIZED"]),
            ("MQIACF_OPEN_OPTIONS", c["MQOO_OUTPUT"] | c["MQOO_FAIL_IF_QUIESCING"]),
            ("MQCACF_USER_IDENTIFIER", "app2"), ("MQIA_APPL_TYPE", c["MQAT_UNIX"]),
            ("MQCACF_APPL_NAME", "amqsput"), ("MQCA_Q_NAME", "PAY.IN")], "10101200"),
        event("MQCMD_PERFM_EVENT", "MQRC_Q_DEPTH_HIGH", [
            ("MQCA_Q_MGR_NAME", "QM1"), ("MQCA_BASE_OBJECT_NAME", "PAY.IN"),
            ("MQIA_TIME_SINCE_RESET", 600), ("MQIA_HIGH_Q_DEPTH", 4000),
            ("MQIA_MSG_ENQ_COUNT", 4100), ("MQIA_MSG_DEQ_COUNT", 100)], "10200000"),
        event("MQCMD_PERFM_EVENT", "MQRC_Q_FULL", [
            ("MQCA_Q_MGR_NAME", "QM1"), ("MQCA_BASE_OBJECT_NAME", "PAY.IN"),
            ("MQIA_TIME_SINCE_RESET", 120), ("MQIA_HIGH_Q_DEPTH", 5000),
            ("MQIA_MSG_ENQ_COUNT", 1000), ("MQIA_MSG_DEQ_COUNT", 0)], "10220000"),
        event("MQCMD_CHANNEL_EVENT", "MQRC_CHANNEL_STOPPED", [
            ("MQCA_Q_MGR_NAME", "QM1"), ("MQCACH_CHANNEL_NAME", "QM1.TO.QM2"),
            ("MQIACF_REASON_QUALIFIER", c["MQRQ_CHANNEL_STOPPED_ERROR"]),
            ("MQIACF_ERROR_IDENTIFIER", 9510), ("MQCACH_XMIT_Q_NAME", "QM2.XMIT"),
            ("MQCACH_CONNECTION_NAME", "10.0.0.9(1414)")], "10250000"),
        stats("MQCMD_STATISTICS_Q", [
            *interval, ("MQGACF_Q_STATISTICS_DATA", queue("PAY.IN", [4100, 900], [100, 0], 5000)),
            ("MQGACF_Q_STATISTICS_DATA", queue("PAY.REPLY", [0, 90], [0, 90], 3))], "10300000"),
    ]


def _md(fmt: str, time: str) -> dict[str, Any]:
    """The MQMD of a message the queue manager put (little-endian, CCSID 819)."""
    return {"format": fmt, "msgtype": 8, "encoding": 546, "codedcharsetid": 819,
            "putapplname": "QM1", "putappltype": 7, "useridentifier": "mqm",
            "putdate": "20261126", "puttime": time}
