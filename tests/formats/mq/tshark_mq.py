"""What tshark (Wireshark's MQ dissector) shows of the messages in a capture: the MQMD of
every message and its data, one row per frame, for comparison with the capture reader."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

TSHARK = shutil.which("tshark")
REQUIRE = os.environ.get("MQTOOL_REQUIRE_TSHARK") == "1"  # CI: a missing tshark fails

# tshark field -> mqtool MQMD field
MD_FIELDS = {
    "report": "report", "msgtype": "msgtype", "expiry": "expiry", "feedback": "feedback",
    "encoding": "encoding", "ccsid": "codedcharsetid", "format": "format",
    "priority": "priority", "persistence": "persistence", "msgid": "msgid",
    "correlid": "correlid", "backount": "backoutcount", "replytoq": "replytoq",
    "replytoqmgr": "replytoqmgr", "userid": "useridentifier", "acttoken": "accountingtoken",
    "appldata": "applidentitydata", "appltype": "putappltype", "applname": "putapplname",
    "date": "putdate", "time": "puttime", "origdata": "applorigindata", "groupid": "groupid",
    "msgseqnumber": "msgseqnumber", "offset": "offset", "msgflags": "msgflags",
    "origlength": "originallength",
}
OTHER = ["frame.number", "mq.tsh.type", "mq.tsh.tcf.last", "mq.put.length", "data.data",
         "mq.head.length", "mq.dlh.structid", "mq.msgasy.totmsglen", "mq.xqh.remoteq"]
MESSAGE_TYPES = {0x86, 0x87, 0x8C, 0x95, 0x0D, 0x04}  # PUT, PUT1, SPI, GET_REPLY, ASYNC, DATA
AGG = "\x1f"


def need_tshark() -> str:
    """tshark's path; a skip outside CI, a failure in CI (``.ci/run`` installs it)."""
    if TSHARK is None:
        if REQUIRE:
            pytest.fail("tshark is not installed but MQTOOL_REQUIRE_TSHARK=1 demands it "
                        "(.ci/run installs Debian's tshark)")
        pytest.skip("tshark not installed (.ci/run installs it: apt-get install tshark)")
    return TSHARK


@dataclass
class Row:
    frame: int
    fields: dict[str, list[str]]

    def last(self, name: str) -> str:
        v = self.fields.get(name) or []
        return v[-1] if v else ""

    def types(self) -> list[int]:
        return [int(t, 16) for t in self.fields.get("mq.tsh.type", []) if t]


def rows(path: Path, port: int = 1414) -> dict[int, Row]:
    """Every MQ frame of the capture with the fields above (all occurrences)."""
    names = OTHER + [f"mq.md.{k}" for k in MD_FIELDS]
    args = [need_tshark(), "-r", str(path), "-n", "-o", "tcp.reassemble_out_of_order:TRUE",
            "--disable-protocol", "mqpcf", "-Y", "mq", "-T", "fields", "-E", "occurrence=a",
            "-E", f"aggregator={AGG}", "-E", "separator=\t"]
    if port != 1414:
        args += ["-d", f"tcp.port=={port},mq"]
    for n in names:
        args += ["-e", n]
    out = subprocess.run(args, capture_output=True, check=True, text=True).stdout
    result = {}
    for line in out.splitlines():
        cells = line.split("\t")
        fields = {n: (c.split(AGG) if c else []) for n, c in zip(names, cells, strict=True)}
        frame = int(fields["frame.number"][0])
        result[frame] = Row(frame, fields)
    return result


def message_frames(table: dict[int, Row]) -> list[int]:
    """The frames in which tshark shows a whole message with its data: a message type,
    the last segment of its transmission, data after the headers."""
    out = []
    for frame, row in table.items():
        types = row.types()
        if not types or types[-1] not in MESSAGE_TYPES:
            continue
        if "1" not in row.fields.get("mq.tsh.tcf.last", []) and types[-1] != 0x04:
            continue
        if row.fields.get("data.data"):
            out.append(frame)
    return out


def md_of(row: Row) -> dict[str, Any]:
    """The last MQMD tshark shows in a frame, by mqtool's field names, as mqtool types."""
    out: dict[str, Any] = {}
    for short, ours in MD_FIELDS.items():
        raw = row.last(f"mq.md.{short}")
        if raw == "":
            continue
        if short in ("msgid", "correlid", "acttoken", "groupid"):
            out[ours] = bytes.fromhex(raw)
        elif short == "msgflags":
            out[ours] = int(raw, 16)
        elif short in ("format", "replytoq", "replytoqmgr", "userid", "appldata", "applname",
                       "date", "time", "origdata"):
            out[ours] = raw.rstrip(" ")
        else:
            out[ours] = int(raw)
    return out


def headers_length(row: Row) -> int:
    """Bytes of the MQ headers tshark dissected before the data (MQDLH 172, the others by
    their StrucLength)."""
    return sum(int(x) for x in row.fields.get("mq.head.length", [])) + \
        172 * len(row.fields.get("mq.dlh.structid", []))
