"""IBM MQ put dates and times as timestamps: the MQMD's PutDate and PutTime (when the message
was put) and the MQDLH's (when it was put on the dead-letter queue).

IBM MQ documentation, MQMD structure, "PutDate" (``YYYYMMDD``) and "PutTime" (``HHMMSSTH``:
hours, minutes, seconds, tenths and hundredths of a second), both in Greenwich Mean Time
when the queue manager generates them; MQDLH structure, "PutDate" and "PutTime", the same
formats. A value that is not in that form (blank, or set by an application) is no timestamp.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, tzinfo

_DATE = re.compile(r"\d{8}")
_STAMP = re.compile(r"(?P<seconds>\d{14})(?P<hundredths>\d{0,2})")  # YYYYMMDDHHMMSS[TH]


def put_timestamp(date: object, time: object) -> datetime | None:
    """``("20261123", "18001234")`` -> 2026-11-23 18:00:12.34 UTC; None when either is
    not a valid ``YYYYMMDD`` / ``HHMMSSTH``."""
    d, t = str(date or "").strip(), str(time or "").strip()
    m = _STAMP.fullmatch(d + t) if _DATE.fullmatch(d) else None
    if m is None:
        return None
    try:
        at = datetime.strptime(m["seconds"], "%Y%m%d%H%M%S")
    except ValueError:
        return None
    return at.replace(microsecond=int(m["hundredths"].ljust(2, "0")) * 10_000, tzinfo=UTC)


def iso(ts: datetime | None) -> str | None:
    """The JSON form: ISO-8601 UTC with microseconds and ``Z`` (as every mqtool time)."""
    return None if ts is None else ts.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def listed(ts: datetime | None, tz: tzinfo | None = None) -> str:
    """The listing form, to the hundredth the field holds: ``2026-11-23 18:00:12.34`` in
    ``tz`` (default UTC); empty for no timestamp."""
    if ts is None:
        return ""
    local = ts.astimezone(tz or UTC)
    return f"{local:%Y-%m-%d %H:%M:%S}.{local.microsecond // 10_000:02d}"
