"""Finding IBM i MATQMSG templates inside arbitrary bytes (IBM i Machine Interface,
MATQMSG: materialization template and message selection template). Neither carries an
eyecatcher; the machine requires both on 16-byte boundaries, so only aligned rows are
looked at, all at once (numpy): a receiver by its header arithmetic (bytes available = 32 +
messages × entry size, reserved bytes zero), a selection template by its type, reserved
bytes and lengths and the machine's rules; then the template decoder for the proof."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from mqtool.formats.matqmsg.decode import decode
from mqtool.formats.matqmsg.layout import (
    ATTR_LEN,
    FORMAT,
    HEADER_LEN,
    MAX_KEY_BYTES,
    MAX_TEXT_BYTES,
    MIN_PROVIDED,
    RECEIVER,
    SELECTION,
    SELECTION_LEN,
    TYPE_SHIFT,
    TYPES,
    field_slice,
)
from mqtool.formats.matqmsg.rules import check_selection
from mqtool.io.carving import Found, Work
from mqtool.layout import Layout

SIGNATURES: tuple[bytes, ...] = ()
PATTERNS: tuple[bytes, ...] = ()
BEFORE = 0
ALIGN = 16  # MI templates are 16-byte aligned
WORD = RECEIVER.field("bytes_provided").size or 0  # a binary(4) field


def _word(rows: np.ndarray, layout: Layout, name: str) -> np.ndarray:
    sl = field_slice(layout, name)
    b = rows[:, sl.start:sl.stop].astype(np.int64)
    out = np.zeros(len(rows), dtype=np.int64)
    for k in range(sl.stop - sl.start):
        out = (out << 8) | b[:, k]
    signed: np.ndarray = np.where(out >= 1 << 31, out - (1 << 32), out)
    return signed if sl.stop - sl.start == WORD else out


def _mask(layout: Layout, names: tuple[str, ...], row: int = 0) -> np.ndarray:
    """A row's 16 bytes as two native 64-bit words with the bytes of fields ``names`` set
    (those in row ``row`` of the layout): ``(words & mask) == 0`` tests they are zero."""
    m = np.zeros(ALIGN, dtype=np.uint8)
    for name in names:
        sl = field_slice(layout, name)
        for k in range(sl.start, sl.stop):
            if k // ALIGN == row:
                m[k % ALIGN] = 0xFF
    return m.view(np.uint64)


_SEL_ZERO = _mask(SELECTION, ("reserved_01", "reserved_0b"))
_RECV_ROW = field_slice(RECEIVER, "reserved").start // ALIGN  # the row its reserved bytes are in
_RECV_ZERO = _mask(RECEIVER, ("reserved",), _RECV_ROW)


def _zero(words: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The rows whose masked bytes are zero: the first word over every row, the next only
    over the rows left."""
    idx: np.ndarray | None = None
    for k, m in enumerate(mask):
        if not m:
            continue
        idx = np.flatnonzero((words[:, k] & m) == 0) if idx is None else \
            idx[(words[idx, k] & m) == 0]
    return np.arange(len(words)) if idx is None else idx


def candidates(view: bytes, lo: int, hi: int, base: int) -> Iterator[int]:
    """Positions in ``view[lo:hi]`` (absolute ``base + pos`` 16-byte aligned) where a
    receiver header or a selection template is plausible: reserved bytes zero first (two
    64-bit words a row, cheap), then every rule on the few rows left."""
    first = lo + (-(base + lo)) % ALIGN
    n = max(0, (min(hi, len(view)) - first) // ALIGN)
    if n == 0:
        return
    rows = np.frombuffer(view, dtype=np.uint8, count=n * ALIGN, offset=first).reshape(n, ALIGN)
    words = rows.view(np.uint64)
    span = HEADER_LEN // ALIGN
    sel = _zero(words, _SEL_ZERO)
    sel = sel[_selections(rows[sel])]
    rec = _zero(words, _RECV_ZERO) - _RECV_ROW
    rec = rec[(rec >= 0) & (rec + span <= n)]
    if len(rec):
        pairs = np.concatenate([rows[rec + k] for k in range(span)], axis=1)
        rec = rec[_receivers(pairs.reshape(len(rec) * span, ALIGN))[::span]]
    for k in np.union1d(sel, rec):
        yield first + int(k) * ALIGN


def _selections(rows: np.ndarray) -> np.ndarray:
    sel = rows[:, field_slice(SELECTION, "selection").start]
    r01 = rows[:, field_slice(SELECTION, "reserved_01")].any(axis=1)
    r0b = rows[:, field_slice(SELECTION, "reserved_0b")].any(axis=1)
    opts = rows[:, field_slice(SELECTION, "options").start]
    k, t = _word(rows, SELECTION, "key_bytes"), _word(rows, SELECTION, "text_bytes")
    types = np.isin(sel >> TYPE_SHIFT, list(TYPES))
    ok: np.ndarray = types & ~r01 & ~r0b & ((opts & 0x7F) == 0) & (k >= 0) & \
        (k <= MAX_KEY_BYTES) & (t > 0) & (t <= MAX_TEXT_BYTES)
    return ok


def _receivers(rows: np.ndarray) -> np.ndarray:
    span = HEADER_LEN // ALIGN  # rows a receiver header covers
    if len(rows) < span:
        return np.zeros(len(rows), dtype=bool)
    windows = np.lib.stride_tricks.sliding_window_view(rows, span, axis=0)
    pair = windows.transpose(0, 2, 1).reshape(len(windows), span * ALIGN)
    provided, avail = _word(pair, RECEIVER, "bytes_provided"), _word(pair, RECEIVER, "bytes_available")
    count, onq = _word(pair, RECEIVER, "messages_available"), _word(pair, RECEIVER, "messages_on_queue")
    key = _word(pair, RECEIVER, "key_size")
    reserved = pair[:, field_slice(RECEIVER, "reserved")].any(axis=1)
    ok = (provided >= MIN_PROVIDED) & (avail > HEADER_LEN) & (count > 0) & (onq >= count) & \
        (key >= 0) & (key <= MAX_KEY_BYTES) & ~reserved & ((avail - HEADER_LEN) % ALIGN == 0)
    size = np.where(count > 0, (avail - HEADER_LEN) // np.maximum(count, 1), 0)
    ok &= (size * count == avail - HEADER_LEN) & (size >= ATTR_LEN) & (size % ALIGN == 0)
    return np.concatenate([ok, np.zeros(span - 1, dtype=bool)])


def confirm(view: bytes, at: int, final: bool, work: Work) -> Found | None:
    """The receiver or selection template at ``at``, decoded."""
    if len(view) - at >= HEADER_LEN and _receivers(_rows(view, at, HEADER_LEN // ALIGN)).any():
        h = RECEIVER.values(view, at)
        data = work.take(view, at, at + min(int(h["bytes_available"]), int(h["bytes_provided"])))
        part = "receiver"
    else:
        if not _selections(_rows(view, at, 1)).any():
            return None
        v = SELECTION.values(view, at)
        k = int(v["key_bytes"])
        # the key a keyed selection carries is the queue's key size long, which the
        # template does not say: key_bytes (what the caller asked for) stands in for it
        keyed = TYPES.get(v["selection"] >> TYPE_SHIFT) == "keyed"
        data = work.take(view, at, at + SELECTION_LEN + (k if keyed else 0))
        bad = check_selection(v["selection"], k, int(v["text_bytes"]), v["options"],
                              data[field_slice(SELECTION, "reserved_01")],
                              data[field_slice(SELECTION, "reserved_0b")],
                              data[SELECTION_LEN:SELECTION_LEN + k])
        if bad:
            return None
        part = "selection"
    unit = next(iter(decode(data, part=part)))
    if unit.errors:
        return None
    conf = 0.6 if part == "receiver" else 0.4
    return Found(0, len(data), FORMAT, f"MATQMSG {part} template", conf, unit.title or part,
                 (FORMAT,), {"part": part}, (), "matqmsg").shifted(at)


def _rows(view: bytes, at: int, n: int) -> np.ndarray:
    raw = bytes(view[at:at + n * ALIGN]).ljust(n * ALIGN, b"\0")
    return np.frombuffer(raw, dtype=np.uint8).reshape(n, ALIGN)
