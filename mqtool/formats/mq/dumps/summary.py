"""What ``mqtool messages`` says of each message: one JSON object, one table row, filters.

The MQ header chain (MQDLH, MQRFH2, MQXMIT, ...) is walked by ``formats.mq.chain``; the
payload is what follows it, in the Format the last header names.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
from dataclasses import dataclass
from typing import Any, ClassVar

from mqtool.codepages import ccsid_codec
from mqtool.formats.mq.chain import walk
from mqtool.formats.mq.dumps.dmpmqmsg import property_json
from mqtool.formats.mq.dumps.message import Message, problem_json
from mqtool.formats.mq.mqmd import FIELD_NAMES, MSGTYPES

_SOURCE = re.compile(r"^(.*) line (\d+)$")
MSGTYPE_NAMES = {"request": 1, "reply": 2, "report": 4, "datagram": 8}


def source_text(msg: Message) -> str:
    """``file:line`` for a message located by a line, else where it came from."""
    m = _SOURCE.match(msg.source)
    return f"{m.group(1)}:{m.group(2)}" if m else msg.source


def mqmd_json(mqmd: dict[str, Any]) -> dict[str, Any]:
    return {k: (v.hex().upper() if isinstance(v, bytes) else v)
            for k, v in sorted(mqmd.items(), key=lambda kv: _ORDER.get(kv[0], 99))
            if k != "strucid"}


_ORDER = {name: i for i, name in enumerate(FIELD_NAMES)}


@dataclass
class Summary:
    """A message with its header chain walked (once)."""

    msg: Message
    headers: list[dict[str, Any]]
    properties: dict[str, Any]
    payload: dict[str, Any]
    problems: list[dict[str, Any]]

    COLUMNS: ClassVar[tuple[str, ...]] = ("#", "MsgType", "Format", "Put", "CorrelId", "Length",
                                          "Headers", "Payload", "Problems")

    def to_json(self) -> dict[str, Any]:
        m = self.msg
        return {
            "message": m.position,
            "source": source_text(m),
            "mqmd": mqmd_json(m.mqmd),
            "properties": {k: property_json(v) for k, v in self.properties.items()},
            "headers": self.headers,
            "payload": self.payload,
            "body_length": len(m.body),
            "body_sha256": hashlib.sha256(m.body).hexdigest(),
            "truncated": m.truncated,
            "problems": self.problems,
        }


    def row(self) -> tuple[str, ...]:
        """The table row (``COLUMNS``): number, MsgType, Format, put date and time,
        CorrelId, body length, header chain, payload format, problems."""
        m = self.msg
        cid = m.correlid.hex().upper() if m.correlid is not None else "-"
        heads = "+".join(_header_text(h) for h in self.headers) or "-"
        probs = "; ".join(p["reason"] for p in self.problems)
        flag = "TRUNCATED " if m.truncated else ""
        return (str(m.position), msgtype_text(m.msgtype),
                str(m.mqmd.get("format", "")).strip() or "-", put_text(m.mqmd) or "-", cid,
                str(len(m.body)), heads, self.payload.get("format") or "-", flag + probs)


def _header_text(h: dict[str, Any]) -> str:
    """A header's type; a dead-letter header with its reason: ``MQDLH(2051 MQRC_PUT_INHIBITED)``."""
    reason = h.get("fields", {}).get("reason")
    if h.get("type") == "MQDLH" and reason is not None:
        return f"MQDLH({reason} {h.get('meanings', {}).get('reason', '')})".replace(" )", ")")
    return str(h.get("type", "?"))


def summarize(msg: Message) -> Summary:
    """The JSON facts of one message (header chain walked when the helper exists)."""
    fmt = str(msg.mqmd.get("format", "")).strip()
    headers: list[dict[str, Any]] = []
    properties = dict(msg.properties)
    payload = {"format": fmt, "offset": 0, "length": len(msg.body)}
    problems = [problem_json(p) for p in msg.problems]
    chain = walk(msg.body, msg.mqmd)
    headers = chain.headers_json()
    for k, v in chain.properties.items():
        properties.setdefault(k, v)
    payload = {"format": chain.payload_format.strip(), "offset": chain.payload_offset,
               "length": max(0, len(msg.body) - chain.payload_offset)}
    problems += [{"reason": p.reason, "offset": p.offset} for p in chain.problems + chain.errors]
    return Summary(msg, headers, properties, payload, problems)


def put_text(mqmd: dict[str, Any]) -> str:
    """``PutDate`` and ``PutTime`` as ``2026-11-22 10:00:00.00`` (as given when not digits)."""
    d, t = str(mqmd.get("putdate", "")).strip(), str(mqmd.get("puttime", "")).strip()
    if len(d) == 8 and d.isdigit() and len(t) == 8 and t.isdigit():
        return f"{d[:4]}-{d[4:6]}-{d[6:]} {t[:2]}:{t[2:4]}:{t[4:6]}.{t[6:]}"
    return f"{d} {t}".strip()


def msgtype_text(v: Any) -> str:
    if not isinstance(v, int):
        return "-"
    name = MSGTYPES.get(v)
    return f"{v} ({name})" if name and v < 100 else str(v)


@dataclass(frozen=True)
class Filters:
    """``--msgtype``, ``--format``, ``--correlid`` and ``--grep``; empty matches all."""

    msgtype: int | None = None
    format: str | None = None
    correlid: str | None = None  # hex prefix
    grep: str | None = None

    def match(self, s: Summary) -> bool:
        m = s.msg
        if self.msgtype is not None and m.msgtype != self.msgtype:
            return False
        if self.format is not None:
            want = self.format.strip().upper()
            have = {str(m.mqmd.get("format", "")).strip().upper(),
                    str(s.payload.get("format", "")).strip().upper()}
            if want not in have:
                return False
        if self.correlid is not None:
            cid = m.correlid
            if cid is None or not cid.hex().upper().startswith(self.correlid.upper()):
                return False
        if self.grep:
            return any(n in m.body for n in _needles(self.grep, m.ccsid))
        return True


def _needles(text: str, ccsid: int | None) -> set[bytes]:
    out = {text.encode("utf-8")}
    codecs = {"cp037", "cp500"}
    codec = ccsid_codec(ccsid)
    if codec:
        codecs.add(codec)
    for c in codecs:
        with contextlib.suppress(UnicodeError, LookupError):
            out.add(text.encode(c))
    return {n for n in out if n}


def filters(msgtype: str | None = None, fmt: str | None = None, correlid: str | None = None,
            grep: str | None = None) -> Filters:
    """``Filters`` from text; ``ValueError`` names what is wrong."""
    return Filters(None if msgtype is None else parse_msgtype(msgtype), fmt,
                   None if correlid is None else parse_correlid(correlid), grep)


def parse_msgtype(value: str) -> int:
    """``8``, ``datagram``, ``100000``: the MsgType a ``--msgtype`` names."""
    v = value.strip().lower()
    if v in MSGTYPE_NAMES:
        return MSGTYPE_NAMES[v]
    if re.fullmatch(r"\d{1,10}", v):
        return int(v)
    raise ValueError(f"{value!r} is not a MsgType (a number, or request, reply, report, "
                     "datagram)")


def parse_correlid(value: str) -> str:
    v = value.strip()
    if v.upper().startswith("X'") and v.endswith("'"):
        v = v[2:-1]
    if not re.fullmatch(r"[0-9A-Fa-f]{1,48}", v):
        raise ValueError(f"{value!r} is not a CorrelId in hex (up to 48 digits; a prefix "
                         "matches)")
    return v
