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
