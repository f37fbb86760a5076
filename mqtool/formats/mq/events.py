"""IBM MQ event messages in one line, as an administrator reads them.

An event message is a PCF message (MQCFH Type ``MQCFT_EVENT``) whose Command says the kind
of event and whose Reason says which event it is; its parameters name the objects. The
summary is the event's name (from its reason code: ``MQRC_Q_DEPTH_HIGH`` reads "queue depth
high"; ``MQRC_NOT_AUTHORIZED`` "not authorized (type N)", N from its reason qualifier as
the IBM documentation numbers them) and the parameters that say who and what, in a fixed
order: "not authorized (type 1): user app1, application amqsput, queue PAY.IN, queue
manager QM1".

Source: IBM MQ documentation, "Event types" and "Event message reference" (the MQCFH of
event messages, the reason codes of queue manager, channel, performance, configuration,
command and logger events, and each event's parameters); the constants of cmqcfc.h.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from mqtool.formats.mq.meanings import reason_name
from mqtool.formats.mq.pcf import Pcf
from mqtool.formats.mq.pcf_names import VALUES, value_meaning
from mqtool.formats.mq.reason_codes import MQFB, MQRC

MQCFT_EVENT = 7
# MQCFH.Command of event messages -> the event type
EVENT_TYPES: dict[str, str] = {
    "MQCMD_Q_MGR_EVENT": "queue-manager", "MQCMD_CHANNEL_EVENT": "channel",
    "MQCMD_PERFM_EVENT": "performance", "MQCMD_CONFIG_EVENT": "configuration",
    "MQCMD_COMMAND_EVENT": "command", "MQCMD_LOGGER_EVENT": "logger",
}
_BY_COMMAND = {code: EVENT_TYPES[name] for code, name in VALUES["MQCMD"].items()
               if name in EVENT_TYPES}

# "Not authorized (type N)": the documentation's type of each reason qualifier
AUTHORITY_TYPES = {"MQRQ_CONN_NOT_AUTHORIZED": 1, "MQRQ_OPEN_NOT_AUTHORIZED": 2,
                   "MQRQ_CLOSE_NOT_AUTHORIZED": 3, "MQRQ_CMD_NOT_AUTHORIZED": 4,
                   "MQRQ_SUB_NOT_AUTHORIZED": 5, "MQRQ_SUB_DEST_NOT_AUTHORIZED": 6}

# The parameters a summary names, in this order, and the word before each value
DETAILS: tuple[tuple[str, str], ...] = (
    ("MQCACF_USER_IDENTIFIER", "user"),
    ("MQCACF_EVENT_USER_ID", "user"),
    ("MQCACF_APPL_NAME", "application"),
    ("MQCACF_EVENT_APPL_NAME", "application"),
    ("MQIACF_COMMAND", "command"),
    ("MQIACF_OBJECT_TYPE", "object type"),
    ("MQCACF_OBJECT_NAME", "object"),
    ("MQCA_Q_NAME", "queue"),
    ("MQCA_BASE_OBJECT_NAME", "object"),
    ("MQCA_XMIT_Q_NAME", "transmission queue"),
    ("MQCACH_XMIT_Q_NAME", "transmission queue"),
    ("MQCACH_CHANNEL_NAME", "channel"),
    ("MQCACH_CONNECTION_NAME", "connection"),
    ("MQIACF_REASON_QUALIFIER", "qualifier"),
    ("MQIACF_ERROR_ID", "error"),
    ("MQIA_HIGH_Q_DEPTH", "high depth"),
    ("MQIA_MSG_ENQ_COUNT", "enqueued"),
    ("MQIA_MSG_DEQ_COUNT", "dequeued"),
    ("MQIA_TIME_SINCE_RESET", "seconds since reset"),
    ("MQIACF_EVENT_ORIGIN", "origin"),
    ("MQCACF_EVENT_Q_MGR", "from queue manager"),
    ("MQCA_Q_MGR_NAME", "queue manager"),
)
_WORDS = {"Q": "queue", "MGR": "manager", "QMGR": "queue manager", "XMIT": "transmission",
          "CHL": "channel", "SSL": "SSL", "TLS": "TLS", "MQSC": "MQSC", "PCF": "PCF",
          "OK": "OK", "DEF": "definition", "AUTO": "auto", "ID": "id"}


@dataclass
class EventSummary:
    """One event message: its type, reason and the line that says what happened."""

    type: str  # "queue-manager", "channel", "performance", "configuration", "command", "logger"
    reason: int
    reason_name: str  # "MQRC_NOT_AUTHORIZED"
    text: str  # "not authorized (type 1): user app1, application amqsput, ..."
    parameters: dict[str, Any] = field(default_factory=dict)  # name -> value, top level

    def matches(self, event: str | None = None, reason: str | int | None = None) -> bool:
        """``event``: an event type (or its first letters); ``reason``: an ``MQRC_*`` name
        or number. What ``messages --event`` / ``--reason`` keep."""
        if event and not self.type.startswith(event.lower().replace("qmgr", "queue-manager")):
            return False
        if reason is None:
            return True
        if isinstance(reason, int) or str(reason).isdigit():
            return self.reason == int(reason)
        return self.reason_name == str(reason).upper()

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "reason": self.reason, "reason_name": self.reason_name,
                "summary": self.text}


def event_type(text: str) -> str:
    """The event type ``--event`` names: a type of ``EVENT_TYPES`` or its first letters
    (``qmgr`` is ``queue-manager``); ``ValueError`` lists the types."""
    want = text.strip().lower().replace("qmgr", "queue-manager").replace("_", "-")
    found = sorted({t for t in EVENT_TYPES.values() if want and t.startswith(want)})
    if len(found) != 1:
        kinds = ", ".join(EVENT_TYPES.values())
        what = "names several" if found else "is no event type"
        raise ValueError(f"{text!r} {what} ({kinds})")
    return found[0]


@cache
def _reason_codes() -> dict[str, int]:
    codes = {f"MQFB_{name}": code for code, name in MQFB.items()}
    codes.update({f"MQRC_{name}": code for code, name in MQRC.items()})
    return codes


def reason_code(text: str) -> int:
    """The reason code ``--reason`` names: a number, an ``MQRC_*`` or ``MQFB_*`` name (the
    prefix may be left out: ``Q_FULL``); ``ValueError`` names close names."""
    v = text.strip().upper()
    if v.isdigit() and len(v) <= 10:
        return int(v)
    codes = _reason_codes()
    for name in (v, f"MQRC_{v}", f"MQFB_{v}"):
        if name in codes:
            return codes[name]
    close = difflib.get_close_matches(v if v.startswith("MQ") else f"MQRC_{v}", codes, n=4)
    hint = f"; close names: {', '.join(close)}" if close else ""
    raise ValueError(f"{text!r} is no reason code (a number, or an MQRC_ / MQFB_ name of "
                     f"cmqc.h){hint}")


def event_name(reason: int, qualifier: Any = None) -> str:
    """The event a reason code reports, in words: ``2224`` -> ``queue depth high``,
    ``(2035, 1)`` -> ``not authorized (type 1)``."""
    name = reason_name(reason)
    if not name.startswith("MQRC_"):
        return f"reason {reason}"
    words = " ".join(_WORDS.get(w, w.lower()) for w in name[len("MQRC_"):].split("_"))
    if name == "MQRC_NOT_AUTHORIZED" and isinstance(qualifier, int):
        kind = AUTHORITY_TYPES.get(VALUES["MQRQ"].get(qualifier, ""))
        if kind:
            words += f" (type {kind})"
    return words


def _show(pid: int, value: Any) -> str:
    meaning = value_meaning(pid, value) if isinstance(value, int) else ""
    if meaning:
        return meaning
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def summarize(pcf: Pcf) -> EventSummary | None:
    """The one-line summary of an event message's PCF, None when it is no event."""
    head = pcf.elements[0].fields if pcf.elements else {}
    if head.get("type") != MQCFT_EVENT:
        return None
    command = head.get("command")
    kind = _BY_COMMAND.get(command) if isinstance(command, int) else None
    if kind is None:
        return None
    got = head.get("reason")
    reason = got if isinstance(got, int) else 0
    params: dict[str, Any] = {}
    ids: dict[str, int] = {}
    for p in [*pcf.parameters, *(m for g in pcf.parameters for m in g.get("parameters", []))]:
        if "parameters" not in p:  # a group's members count when the top level lacks them
            params.setdefault(p["name"] or str(p["parameter"]), p.get("value"))
            ids.setdefault(p["name"], p["parameter"])
    text = event_name(reason, params.get("MQIACF_REASON_QUALIFIER"))
    shown = _details(params, ids, reason)
    if shown:
        text += ": " + ", ".join(shown)
    return EventSummary(kind, reason, reason_name(reason), text, params)


def _details(params: Mapping[str, Any], ids: Mapping[str, int], reason: int) -> list[str]:
    out, seen = [], set()
    for name, word in DETAILS:
        value = params.get(name)
        if value in (None, "", []) or word in seen:
            continue
        if name == "MQIACF_REASON_QUALIFIER" and reason_name(reason) == "MQRC_NOT_AUTHORIZED":
            continue  # already the "(type N)"
        seen.add(word)
        out.append(f"{word} {_show(ids.get(name, 0), value)}")
    return out


def summarize_message(body: bytes, mqmd: Mapping[str, Any]) -> EventSummary | None:
    """The summary of a message whose MQMD Format is ``MQEVENT`` (or another PCF format),
    None for any other message."""
    from mqtool.formats.mq.chain import walk

    chain = walk(body, mqmd)
    return summarize(chain.pcf) if chain.pcf is not None else None

