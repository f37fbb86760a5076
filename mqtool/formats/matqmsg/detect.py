"""Is this blob a MATQMSG template? Structure first (reserved zeros, sane lengths), then the
machine's rules; a receiver by its header arithmetic."""

from __future__ import annotations

from mqtool.formats.matqmsg.layout import (
    ATTR_LEN,
    FORMAT,
    HEADER_LEN,
    MAX_KEY_BYTES,
    MAX_TEXT_BYTES,
    MIN_PROVIDED,
    RECEIVER,
    RELATIONS,
    SELECTION,
    SELECTION_LEN,
    TYPE_SHIFT,
    TYPES,
    field_slice,
    field_value,
)
from mqtool.formats.matqmsg.rules import check_selection
from mqtool.model import Detection


def detect(data: bytes) -> Detection | None:
    """A selection template (valid type, lengths and reserved bits) or a receiver (header
    arithmetic: bytes available = 32 + n × entry size)."""
    n = len(data)
    if SELECTION_LEN <= n <= SELECTION_LEN + MAX_KEY_BYTES + 15:
        found = _selection(data)
        if found is not None:
            return found
    if MIN_PROVIDED <= n < HEADER_LEN:
        return _short_receiver(data)
    if n >= HEADER_LEN:
        return _receiver(data)
    return None


def _selection(data: bytes) -> Detection | None:
    """Structure first (reserved zeros, sane lengths), then the machine's rules."""
    v = SELECTION.values(data)
    sel, opts, k, t = v["selection"], v["options"], int(v["key_bytes"]), int(v["text_bytes"])
    reserved_01 = data[field_slice(SELECTION, "reserved_01")]
    reserved_0b = data[field_slice(SELECTION, "reserved_0b")]
    if not (sel >> TYPE_SHIFT in TYPES and not any(reserved_01) and not any(reserved_0b)
            and not opts & 0x7F and 0 <= k <= 1 << 12 and 0 <= t <= 1 << 20):
        return None
    bad = check_selection(sel, k, t, opts, reserved_01, reserved_0b, data[SELECTION_LEN:])
    kind = TYPES[sel >> TYPE_SHIFT]
    rel = f" {RELATIONS.get(sel & 0xF, '?')}" if kind == "keyed" else ""
    why = f"MATQMSG selection template: type {kind}{rel}, key_bytes {k}, text_bytes {t}"
    if bad:
        why += f"; {len(bad)} rule(s) broken ({bad[0].reason})"
    return Detection(FORMAT, 0.5 if bad else 0.7, why, {"part": "selection"})


def _short_receiver(data: bytes) -> Detection | None:
    """A receiver cut to the bytes provided (fewer than its header)."""
    provided = field_value(data, RECEIVER, "bytes_provided")
    avail = field_value(data, RECEIVER, "bytes_available")
    if avail >= HEADER_LEN and (avail - HEADER_LEN) % 16 == 0 and (
            0 <= provided < MIN_PROVIDED or len(data) == min(provided, avail)):
        why = (f"bytes_provided < {MIN_PROVIDED} (MI exception 3803)" if provided < MIN_PROVIDED
               else f"cut to the {provided} bytes provided")
        return Detection(FORMAT, 0.4, f"MATQMSG receiver, {why}; bytes_available {avail}",
                         {"part": "receiver"})
    return None


def _receiver(data: bytes) -> Detection | None:
    """A whole receiver: sane header, and bytes available = header + count × entry size."""
    h = RECEIVER.values(data)
    count, avail = h["messages_available"], h["bytes_available"]
    ok = (h["bytes_provided"] >= MIN_PROVIDED and avail >= HEADER_LEN and count >= 0
          and h["messages_on_queue"] >= count and h["max_message_size"] >= 0
          and 0 <= h["key_size"] <= MAX_KEY_BYTES
          and not any(data[field_slice(RECEIVER, "reserved")]))
    if ok and count == 0 and avail == HEADER_LEN:
        return Detection(FORMAT, 0.5, "MATQMSG receiver with no messages available",
                         {"part": "receiver"})
    if ok and count > 0:
        size, rem = divmod(avail - HEADER_LEN, count)
        if not rem and size >= ATTR_LEN and size % 16 == 0 and size - ATTR_LEN <= \
                MAX_KEY_BYTES + MAX_TEXT_BYTES:
            return Detection(FORMAT, 0.75, f"MATQMSG receiver: {count} message(s) available, "
                                           f"bytes_available {avail} = {HEADER_LEN} + {count} "
                                           f"× {size}", {"part": "receiver"})
    return None
