"""What ``mqtool messages`` says of each message: one JSON object, the fields filters and
columns see, one table row, and the filters themselves.

The MQ header chain (MQDLH, MQRFH2, MQXMIT, ...) is walked by ``formats.mq.chain``; the
payload is what follows it, in the Format the last header names. An event message (PCF,
Format ``MQEVENT``) is summed up in one line (``formats.mq.events``); put dates and times
(MQMD, MQDLH) are timestamps (``formats.mq.times``); a message read from a network capture
says where it was seen (``formats.mq.capture``: frames, endpoints, verb and queue).
"""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from typing import Any

from mqtool.codepages import ccsid_codec
from mqtool.formats.mq.chain import Chain, walk
from mqtool.formats.mq.decode import FORMAT, MqMessage
from mqtool.formats.mq.dumps.dmpmqmsg import property_json
from mqtool.formats.mq.dumps.message import Message, problem_json
from mqtool.formats.mq.events import EventSummary, event_type, reason_code
from mqtool.formats.mq.events import summarize as summarize_event
from mqtool.formats.mq.meanings import MQMT
from mqtool.formats.mq.mqmd import FIELD_NAMES
from mqtool.formats.mq.times import iso, listed, put_timestamp

_SOURCE = re.compile(r"^(.*) line (\d+)$")
# MQMT_REQUEST -> request, ...: the words --msgtype takes and the table shows
MSGTYPE_NAMES = {name.removeprefix("MQMT_").lower(): code for code, name in MQMT.items()}
_TYPE_WORDS = {v: k for k, v in MSGTYPE_NAMES.items()}
WIDTH = 120  # the default table fits this many columns


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
    event: EventSummary | None = None
    put: datetime | None = None  # MQMD PutDate + PutTime, UTC
    dead_letter: dict[str, Any] | None = None
    pcf: str = ""  # a PCF message's command and type: "MQCMD_INQUIRE_Q command"
    chain: Chain | None = None  # the walked chain: the payload's text and bytes

    def payload_json(self) -> dict[str, Any]:
        """The payload as ``decode mq --json --raw`` gives it -- Format, offset, length,
        Encoding, CCSID, ``text`` in its CCSID where it is text, and ``hex``, its bytes --
        so that ``build-request mq --from`` rebuilds the body (IBM MQ, the application
        data after the header chain)."""
        if self.chain is None:
            return self.payload
        body = self.msg.body  # the unit of decode mq, without the elements listed in headers
        unit = MqMessage(FORMAT, 0, len(body), [], {}, [], [], chain=self.chain, body=body)
        payload: dict[str, Any] = unit.to_json(raw=True)["payload"]  # type: ignore[assignment]
        return payload

    @property
    def provenance(self) -> Any:
        """Where a message read from a capture was seen (``capture.read.Provenance``)."""
        return getattr(self.msg, "provenance", None)

    def to_json(self) -> dict[str, Any]:
        """The object ``messages --json`` prints; ``capture``, ``event`` and ``dead_letter``
        only where the message has them."""
        m = self.msg
        out: dict[str, Any] = {
            "message": m.position,
            "source": source_text(m),
            "mqmd": mqmd_json(m.mqmd),
            "put_time": iso(self.put),
            "properties": {k: property_json(v) for k, v in self.properties.items()},
            "headers": self.headers,
            "payload": self.payload_json(),
            "body_length": len(m.body),
            "body_sha256": hashlib.sha256(m.body).hexdigest(),
            "truncated": m.truncated,
            "problems": self.problems,
        }
        if self.provenance is not None:
            out["capture"] = self.provenance.to_json()
        if self.event is not None:
            out["event"] = self.event.to_json()
        if self.dead_letter is not None:
            out["dead_letter"] = self.dead_letter
        return out

    def record(self) -> dict[str, Any]:
        """The fields filters and ``--fields`` see, by the dotted names of decoded units:
        ``mqmd.putapplname``, ``mqdlh.reason``, ``mqrfh2.format``, ``event.reason_name``,
        ``capture.queue``, ``put_time``, ``payload.format``, ``body_length``, ..."""
        out = self.to_json()
        del out["headers"]
        for h in self.headers:  # the first of each type, as its fields' paths name it
            out.setdefault(str(h.get("type", "")).lower(), dict(h.get("fields", {})))
        return out

    def what(self) -> str:
        """What the message is, in words: truncated, the event or the header chain, the
        capture verb and queue, the problems."""
        m = self.msg
        parts = ["TRUNCATED"] if m.truncated else []
        if self.event is not None:  # the Format (MQEVENT) says it is one
            parts.append(self.event.text)
        elif self.headers:
            chain = "+".join(_header_text(h) for h in self.headers)
            parts.append(f"{chain} → {self.pcf or self.payload.get('format') or '(no Format)'}")
        elif self.pcf:
            parts.append(self.pcf)
        if self.provenance is not None:
            parts.append(self.provenance.action())
        parts += [str(p["reason"]) for p in self.problems]
        return "; ".join(parts) or "-"

    def cells(self, tz: tzinfo | None = None) -> dict[str, str]:
        """Every table column's text, by ``COLUMNS`` key."""
        m, md = self.msg, self.msg.mqmd
        prov = self.provenance
        return {
            "#": str(m.position),
            "put": listed(self.put, tz) or _raw_put(md) or "-",
            "type": msgtype_word(m.msgtype),
            "format": _text(md.get("format")) or "-",
            "length": str(len(m.body)),
            "appl": _text(md.get("putapplname")) or "-",
            "user": _text(md.get("useridentifier")) or "-",
            "msgid": _id(md.get("msgid")),
            "correlid": _id(md.get("correlid")),
            "source": f"{prov.file}: {prov.where()}" if prov is not None else source_text(m),
            "summary": self.what(),
        }


def _text(v: Any) -> str:
    return str(v).strip() if v is not None else ""


def _hex(v: Any) -> str:
    return v.hex().upper() if isinstance(v, bytes) else "-"


def _id(v: Any) -> str:
    """A MsgId or CorrelId in hex; ``-`` for none (absent, or all zero: MQMI_NONE)."""
    return v.hex().upper() if isinstance(v, bytes) and any(v) else "-"


def _raw_put(mqmd: dict[str, Any]) -> str:
    """A put date and time that is no timestamp, as given."""
    return f"{_text(mqmd.get('putdate'))} {_text(mqmd.get('puttime'))}".strip()


def _header_text(h: dict[str, Any]) -> str:
    """A header's type; a dead-letter header with its reason: ``MQDLH(2051 MQRC_PUT_INHIBITED)``."""
    reason = h.get("fields", {}).get("reason")
    if h.get("type") == "MQDLH" and reason is not None:
        return f"MQDLH({reason} {h.get('meanings', {}).get('reason', '')})".replace(" )", ")")
    return str(h.get("type", "?"))


def summarize(msg: Message) -> Summary:
    """The facts of one message: its header chain walked once, the event it reports, its
    put time and, dead-lettered, its MQDLH's reason, destination and put time."""
    properties = dict(msg.properties)
    problems = [problem_json(p) for p in msg.problems]
    chain = walk(msg.body, msg.mqmd)
    headers = chain.headers_json()
    for k, v in chain.properties.items():
        properties.setdefault(k, v)
    payload = {"format": chain.payload_format.strip(), "offset": chain.payload_offset,
               "length": max(0, len(msg.body) - chain.payload_offset)}
    problems += [{"reason": p.reason, "offset": p.offset} for p in chain.problems + chain.errors]
    event = summarize_event(chain.pcf) if chain.pcf is not None else None
    put = put_timestamp(msg.mqmd.get("putdate"), msg.mqmd.get("puttime"))
    return Summary(msg, headers, properties, payload, problems, event, put,
                   _dead_letter(headers), _pcf_text(chain.pcf), chain)


def _pcf_text(pcf: Any) -> str:
    """A PCF message's MQCFH Command and Type by name: ``MQCMD_INQUIRE_Q response``,
    ``MQCMD_STATISTICS_Q statistics``."""
    if pcf is None or not pcf.elements:
        return ""
    meanings = {s.name: s.meaning for s in pcf.elements[0].spans}
    kind = meanings.get("type", "").removeprefix("MQCFT_").lower().replace("_", " ")
    return " ".join(m for m in (meanings.get("command"), kind) if m)


def _dead_letter(headers: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The first MQDLH: why, where to, who put it there and when (a timestamp)."""
    dlh = next((h for h in headers if h.get("type") == "MQDLH"), None)
    if dlh is None:
        return None
    f, meanings = dlh.get("fields", {}), dlh.get("meanings", {})
    return {"reason": f.get("reason"), "reason_name": meanings.get("reason", ""),
            "destqname": _text(f.get("destqname")), "destqmgrname": _text(f.get("destqmgrname")),
            "putapplname": _text(f.get("putapplname")),
            "put_time": iso(put_timestamp(f.get("putdate"), f.get("puttime")))}


def msgtype_word(v: Any) -> str:
    """``datagram``, ``request``, ``reply``, ``report``, or the number."""
    if not isinstance(v, int):
        return "-"
    return _TYPE_WORDS.get(v, str(v))


# --------------------------------------------------------------------------- the table


@dataclass(frozen=True)
class Column:
    """One column of the ``messages`` table: its heading, the widest it gets in the
    ``WIDTH``-column table, and which end of a longer value it keeps there."""

    key: str
    heading: str
    most: int = 0  # 0: no limit (the summary takes the rest of the line)
    right: bool = False
    keep_end: bool = False  # an application name: its end is the program's name


COLUMNS = tuple(Column(*c) for c in (  # in the order they are shown
    ("#", "#", 6, True), ("put", "Put", 25), ("type", "Type", 8), ("format", "Format", 8),
    ("length", "Length", 10, True), ("appl", "PutAppl", 14, False, True), ("user", "User", 12),
    ("correlid", "CorrelId", 48), ("msgid", "MsgId", 48), ("summary", "Summary"),
    ("source", "Source")))
CORE = ("#", "type", "format", "length", "summary")  # always in the table
OPTIONAL = ("put", "appl", "user", "correlid", "msgid")  # while they fit, in this order
WIDE = tuple(c.key for c in COLUMNS)
SUMMARY_LEAST = 30  # the summary keeps this much room, if it is that long
BUFFER = 200  # rows looked at before the table's columns are chosen
_GAP = "  "
_BY_KEY = {c.key: c for c in COLUMNS}


@dataclass
class Table:
    """The ``messages`` table, as ``column -t`` would lay it out: the columns and their
    widths chosen from the first ``BUFFER`` rows (then kept). In ``WIDTH`` columns: the
    core columns, then the others that have values while they fit (put time, application,
    user, CorrelId, MsgId), longer values cut with ``…``; ``wide``: every column whole.
    Put times in ``tz``; ``clean`` makes a value safe for a terminal."""

    wide: bool = False
    tz: tzinfo | None = None
    clean: Callable[[str], str] = str
    pending: list[dict[str, str]] = field(default_factory=list)
    columns: list[Column] | None = None
    widths: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        zone = getattr(self.tz, "key", None) or (self.tz.tzname(None) if self.tz else None)
        self.headings = {c.key: c.heading for c in COLUMNS}
        self.headings["put"] = f"Put ({zone or 'UTC'})"

    def feed(self, s: Summary) -> list[str]:
        """The lines to print now for one more row (none while the layout is not chosen)."""
        cells = {k: self.clean(v) for k, v in s.cells(self.tz).items()}
        if self.columns is not None:
            return [self._line(cells)]
        self.pending.append(cells)
        return self.flush() if len(self.pending) >= BUFFER else []

    def flush(self) -> list[str]:
        """The rows held (after the heading, when this chooses the layout)."""
        if not self.pending:
            return []
        lines = []
        if self.columns is None:
            self._layout(self.pending)
            lines.append(self._line(self.headings))
        lines += [self._line(cells) for cells in self.pending]
        self.pending = []
        return lines

    def _layout(self, rows: list[dict[str, str]]) -> None:
        need = {k: max(len(self.headings[k]), *(len(r[k]) for r in rows)) for k in WIDE}
        if self.wide:
            self.columns, self.widths = list(COLUMNS), need
            return
        self.widths = {k: min(need[k], _BY_KEY[k].most or need[k]) for k in WIDE}
        keys = [k for k in CORE if k != "summary"]
        least = min(SUMMARY_LEAST, need["summary"])
        for k in OPTIONAL:
            used = sum(self.widths[x] + len(_GAP) for x in [*keys, k])
            if any(r[k] != "-" for r in rows) and used + least <= WIDTH:
                keys.append(k)
        self.widths["summary"] = WIDTH - sum(self.widths[x] + len(_GAP) for x in keys)
        self.columns = [c for c in COLUMNS if c.key in (*keys, "summary")]

    def _line(self, cells: dict[str, str]) -> str:
        assert self.columns is not None
        out = []
        last = len(self.columns) - 1
        for i, c in enumerate(self.columns):
            text, width = cells[c.key], self.widths[c.key]
            if not self.wide and len(text) > width:
                text = _cut(text, width, c.keep_end)
            if i == last:
                out.append(text)
            else:
                out.append(text.rjust(width) if c.right else text.ljust(width))
        return _GAP.join(out).rstrip()


def _cut(text: str, width: int, keep_end: bool) -> str:
    if keep_end:
        return "…" + text[-(width - 1):]
    return text[:width - 1] + "…"


# --------------------------------------------------------------------------- filters


@dataclass(frozen=True)
class Filters:
    """What ``messages`` keeps (every filter given must hold; none given: all). Hex ids
    match as prefixes, names (``appl``, ``user``) whole or by ``*`` wildcards, ignoring
    case and trailing blanks; ``since`` / ``until`` bound the put time; ``event`` and
    ``reason`` keep event messages of a type and reason, ``reason`` also dead-lettered
    messages whose MQDLH gives it."""

    msgtype: int | None = None
    format: str | None = None
    correlid: str | None = None  # hex prefix
    grep: str | None = None
    msgid: str | None = None  # hex prefix
    appl: str | None = None  # PutApplName, * wildcards
    user: str | None = None  # UserIdentifier, * wildcards
    since: datetime | None = None
    until: datetime | None = None
    event: str | None = None  # an event type
    reason: int | None = None

    def match(self, s: Summary) -> bool:
        return all(test(s) for test in self._tests())

    def _tests(self) -> Iterator[Callable[[Summary], bool]]:
        if self.msgtype is not None:
            yield lambda s: s.msg.msgtype == self.msgtype
        if self.format is not None:
            yield self._format
        if self.correlid is not None:
            yield lambda s: _hex(s.msg.correlid).startswith(str(self.correlid).upper())
        if self.msgid is not None:
            yield lambda s: _hex(s.msg.mqmd.get("msgid")).startswith(str(self.msgid).upper())
        if self.appl is not None:
            yield lambda s: _named(s.msg.mqmd.get("putapplname"), str(self.appl))
        if self.user is not None:
            yield lambda s: _named(s.msg.mqmd.get("useridentifier"), str(self.user))
        if self.since is not None or self.until is not None:
            yield self._when
        if self.event is not None or self.reason is not None:
            yield self._reason
        if self.grep:
            yield lambda s: any(n in s.msg.body for n in _needles(str(self.grep), s.msg.ccsid))

    def _format(self, s: Summary) -> bool:
        want = str(self.format).strip().upper()
        return want in {str(s.msg.mqmd.get("format", "")).strip().upper(),
                        str(s.payload.get("format", "")).strip().upper()}

    def _when(self, s: Summary) -> bool:
        if s.put is None:
            return False
        return (self.since is None or s.put >= self.since) and \
            (self.until is None or s.put < self.until)

    def _reason(self, s: Summary) -> bool:
        if s.event is not None and s.event.matches(self.event, self.reason):
            return True
        dl = s.dead_letter
        return self.event is None and dl is not None and dl.get("reason") == self.reason


def _named(value: Any, pattern: str) -> bool:
    return fnmatch.fnmatchcase(_text(value).upper(), pattern.strip().upper())


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
            grep: str | None = None, *, msgid: str | None = None, appl: str | None = None,
            user: str | None = None, since: str | None = None, until: str | None = None,
            event: str | None = None, reason: str | None = None) -> Filters:
    """``Filters`` from text; ``ValueError`` names what is wrong."""
    return Filters(None if msgtype is None else parse_msgtype(msgtype), fmt,
                   None if correlid is None else parse_hex_id(correlid, "CorrelId"), grep,
                   None if msgid is None else parse_hex_id(msgid, "MsgId"), appl, user,
                   None if since is None else parse_time(since),
                   None if until is None else parse_time(until),
                   None if event is None else event_type(event),
                   None if reason is None else reason_code(reason))


def parse_msgtype(value: str) -> int:
    """``8``, ``datagram``, ``100000``: the MsgType a ``--msgtype`` names."""
    v = value.strip().lower()
    if v in MSGTYPE_NAMES:
        return MSGTYPE_NAMES[v]
    if re.fullmatch(r"\d{1,10}", v):
        return int(v)
    raise ValueError(f"{value!r} is not a MsgType (a number, or request, reply, report, "
                     "datagram)")


def parse_hex_id(value: str, name: str = "CorrelId") -> str:
    """A MsgId or CorrelId prefix in hex (``X'..'`` as the documents write it too)."""
    v = value.strip()
    if v.upper().startswith("X'") and v.endswith("'"):
        v = v[2:-1]
    if not re.fullmatch(r"[0-9A-Fa-f]{1,48}", v):
        raise ValueError(f"{value!r} is not a {name} in hex (up to 48 digits; a prefix "
                         "matches)")
    return v


def parse_correlid(value: str) -> str:
    return parse_hex_id(value, "CorrelId")


def parse_time(value: str) -> datetime:
    """An ISO-8601 date or time, UTC unless it carries a zone (as ``--since`` / ``--until``
    take everywhere)."""
    text = value.strip()
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise ValueError(f"{value!r} is not an ISO-8601 time (2026-11-23, 2026-11-23T18:00, "
                         "2026-11-23T19:00+01:00)") from None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)
