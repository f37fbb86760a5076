"""z/Architecture TOD clock (STCK) values: 8 bytes, bit 51 = 1 microsecond, epoch 1900-01-01 UTC
(IBM z/Architecture Principles of Operation, "Time-of-Day Clock").

The one home of the clock arithmetic: the shift of bit 51 to microseconds, the 1900 epoch,
the Unix offset, for scalars (``Tod``, ``tod_micros``, ``tod_to_unix_micros``) and numpy
arrays (``tod_array_to_unix_micros``, the bulk paths). Clocks of the same unit with another
origin (the IBM i MI time-of-day) subclass ``Tod`` and set ``ORIGIN`` / ``ORIGIN_RAW``.

No leap-second correction unless asked (the seeds' printed times match a conversion without
them). 0 means "not set".
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, tzinfo
from typing import TYPE_CHECKING, ClassVar, Self

if TYPE_CHECKING:
    import numpy as np

EPOCH = datetime(1900, 1, 1, tzinfo=UTC)
_DateTime = datetime  # the class below has a method of that name
UNIT_SHIFT = 12  # bit 51 is one microsecond: the 12 bits below it are finer
UNIX_OFFSET_US = 2_208_988_800_000_000  # microseconds from 1900-01-01 to 1970-01-01
MAX_RAW = (1 << 64) - 1
_HEX16 = re.compile(r"^(?:X')?([0-9A-Fa-f]{16})'?$")


class Tod(int):
    """One STCK value: the raw 64-bit integer (so rebuilding is byte-exact) that knows how to
    be a time. An ``int`` subclass: created at C speed on the decoding hot path.

    ``ORIGIN`` is the instant of raw value ``ORIGIN_RAW`` (the STCK epoch: 1900-01-01 at 0);
    ``RANGE`` names the years the clock covers, for error messages."""

    __slots__ = ()
    ORIGIN: ClassVar[_DateTime] = EPOCH
    ORIGIN_RAW: ClassVar[int] = 0
    RANGE: ClassVar[str] = "TOD clock range (1900-2042)"

    def __new__(cls, raw: int) -> Self:
        return int.__new__(cls, raw)

    def __repr__(self) -> str:
        return f"Tod(0x{int(self):016X})"

    @property
    def raw(self) -> int:
        return int(self)

    @property
    def is_set(self) -> bool:
        return self.raw != 0

    @property
    def micros(self) -> int:
        """Microseconds since ``ORIGIN`` (bits 0-51; negative before it)."""
        return (self.raw - self.ORIGIN_RAW) >> UNIT_SHIFT

    @property
    def submicro(self) -> int:
        """The 12 low-order bits (sub-microsecond / uniqueness bits)."""
        return self.raw & ((1 << UNIT_SHIFT) - 1)

    def datetime(self, leap_seconds: int = 0) -> datetime | None:
        """Aware UTC datetime, or None when not set."""
        if not self.is_set:
            return None
        return self.ORIGIN + timedelta(microseconds=self.micros - leap_seconds * 1_000_000)

    def iso(self, leap_seconds: int = 0) -> str | None:
        """ISO-8601 UTC with microseconds and ``Z`` (the JSON form), or None when not set."""
        dt = self.datetime(leap_seconds)
        return None if dt is None else dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    def render(self, tz: tzinfo | None = None, leap_seconds: int = 0) -> str:
        """Listing form: ``2004-06-22 12:22:34.789927 CEST``; empty when not set."""
        dt = self.datetime(leap_seconds)
        if dt is None:
            return ""
        local = dt.astimezone(tz or UTC)
        return f"{local:%Y-%m-%d %H:%M:%S.%f} {local.tzname() or local.strftime('%z')}"

    def hex(self) -> str:
        return f"{self.raw:016X}"

    @classmethod
    def from_datetime(cls, dt: _DateTime) -> Self:
        """The clock value of an aware (or UTC-naive) datetime; low 12 bits zero."""
        raw = cls.ORIGIN_RAW + (micros_since(dt, cls.ORIGIN) << UNIT_SHIFT)
        if not 0 <= raw <= MAX_RAW:
            raise ValueError(f"{dt.isoformat()} is outside the {cls.RANGE}")
        return cls(raw)

    @classmethod
    def parse(cls, text: str) -> Self:
        """16 hex digits (raw TOD), ``now``, or ISO-8601 (UTC unless it carries a zone)."""
        text = text.strip()
        if m := _HEX16.match(text):
            return cls(int(m.group(1), 16))
        if text.lower() == "now":
            return cls.from_datetime(datetime.now(UTC))
        try:
            dt = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            raise ValueError(
                f"{text!r} is neither 16 hex digits, an ISO-8601 time, nor 'now'"
            ) from None
        return cls.from_datetime(dt)

    @classmethod
    def coerce(cls, value: object, raw_hex: str | None = None) -> Self:
        """Accept a Tod, an int, a datetime, None (= not set) or text (see ``parse``).

        ``raw_hex`` is the ``<field>_hex`` companion from ``--json`` output: it wins when it
        agrees with ``value`` to the microsecond, so sub-microsecond bits survive a round trip.
        """
        tod: Self
        if isinstance(value, cls):
            tod = value
        elif value is None:
            tod = cls(0)
        elif isinstance(value, bool):
            raise ValueError("a STCK value cannot be a boolean")
        elif isinstance(value, int):
            if not 0 <= value <= MAX_RAW:
                raise ValueError(f"{value} does not fit 8 bytes")
            tod = cls(value)
        elif isinstance(value, datetime):
            tod = cls.from_datetime(value)
        elif isinstance(value, str):
            tod = cls(0) if value == "" else cls.parse(value)
        else:
            raise ValueError(f"cannot make a STCK value of {type(value).__name__}")
        if raw_hex:
            exact = cls.parse(raw_hex)
            if exact.micros == tod.micros:
                return exact
        return tod


def micros_since(dt: datetime, epoch: datetime) -> int:
    """Whole microseconds from ``epoch`` to ``dt`` (naive ``dt`` is taken as UTC)."""
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    delta = dt - epoch
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def tod_micros(raw: int) -> int:
    """Microseconds since 1900-01-01 of a raw STCK value (the fast paths' scalar form)."""
    return raw >> UNIT_SHIFT


def tod_to_unix_micros(raw: int) -> int:
    """Unix epoch microseconds of a raw STCK value."""
    return (raw >> UNIT_SHIFT) - UNIX_OFFSET_US


def tod_array_to_unix_micros(raw: np.ndarray) -> np.ndarray:
    """Unix epoch microseconds (int64) of an array of raw STCK values in any byte order:
    the bulk paths' ``timestamp[us]`` columns. 0 ("not set") gives the 1900 epoch; callers
    mask it (``raw != 0``)."""
    import numpy as np

    return (raw >> np.uint64(UNIT_SHIFT)).astype(np.int64) - UNIX_OFFSET_US
