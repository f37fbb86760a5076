"""One message of a queue dump (MQMD fields, properties, body), and how it is labelled.

Every reader yields ``Message`` objects; problems name the dump file and line
(``dump.txt line 57``) or the body offset, and say whether the body is still usable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from mqtool.model import Decoded, Problem

_LINE = re.compile(r" line (\d+)$")


@dataclass
class Message:
    """One message of a queue dump: what the dump said of its MQMD, and its body."""

    position: int  # 1-based, in dump order (amqsbcg's "message number")
    body: bytes
    mqmd: dict[str, Any] = field(default_factory=dict)  # lower-cased MQMD names
    source: str = ""  # where it came from: "dump.txt line 57", "dir/000003.bin"
    problems: list[Problem] = field(default_factory=list)
    usable: bool = True  # False: body lossy (T lines), truncated, or damaged
    properties: dict[str, Any] = field(default_factory=dict)  # message properties, name -> value
    truncated: bool = False  # the dump holds fewer bytes than the message had

    def label(self, unit: Decoded, role: str = "") -> Decoded:
        """``unit``, saying it came from this message (``label_unit``)."""
        return label_unit(unit, self, role)

    @property
    def msgtype(self) -> int | None:
        v = self.mqmd.get("msgtype")
        return v if isinstance(v, int) else None

    @property
    def correlid(self) -> bytes | None:
        v = self.mqmd.get("correlid")
        return v if isinstance(v, bytes) else None

    @property
    def encoding(self) -> int | None:
        v = self.mqmd.get("encoding")
        return v if isinstance(v, int) else None

    @property
    def ccsid(self) -> int | None:
        v = self.mqmd.get("codedcharsetid")
        return v if isinstance(v, int) else None

    def missing_fields(self) -> list[str]:
        """The MQMD fields reassembly needs that this dump did not carry."""
        return [name for name, v in (("MsgType", self.msgtype), ("CorrelId", self.correlid))
                if v is None]

    def problem(self, reason: str, offset: int = 0, path: str = "", usable: bool = True) -> None:
        self.problems.append(Problem(path or self.source, offset, reason))
        self.usable = self.usable and usable

    def cut(self, reason: str, offset: int = 0, path: str = "") -> None:
        """The dump ends inside this message (or shows only part of it)."""
        self.truncated = True
        self.problem(reason, offset, path, usable=False)


def problem_json(p: Problem) -> dict[str, Any]:
    """``{"reason", "line"}`` for a problem located by a dump line, else ``{"reason",
    "offset"}`` (a byte offset in the body)."""
    m = _LINE.search(p.path)
    if m:
        return {"reason": p.reason, "line": int(m.group(1))}
    return {"reason": p.reason, "offset": p.offset}


def label_unit(unit: Decoded, msg: Message, role: str = "") -> Decoded:
    """Say which queue-dump message a decoded unit came from (title and JSON attributes
    ``message``, ``source``, ``msgtype``, ``correlid``); the reader's problems with the
    message join the unit's, as errors when the body is unusable."""
    for p in msg.problems:
        (unit.problems if msg.usable else unit.errors).append(p)
    cid = msg.correlid
    cid_hex = cid.hex().upper() if cid else None
    what = f": {role}" if role else (f": {unit.title}" if unit.title else "")
    mqmd = (f"MsgType {msg.msgtype}, CorrelId {cid_hex or 'none'}" if msg.mqmd else
            "a body without MQMD")
    unit.title = f"message {msg.position} ({msg.source}): {mqmd}{what}"
    unit.attrs = {"message": msg.position, "source": msg.source, "msgtype": msg.msgtype,
                  "correlid": cid_hex, **({"role": role} if role else {}), **unit.attrs}
    return unit
