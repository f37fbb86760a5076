"""Bulk URB decoding: many messages to columns, one pyarrow table per element type.

The fast path next to ``urb.decode`` (which builds spans for listings, annotation and JSON):
the same ``dsect`` declarations give the numpy dtypes (``Layout.fields``: offset, size,
struct code, byte order); every field of every element becomes a column, and every field
with a meaning table gets a ``<field>_meaning`` column, evaluated once per distinct value.
Character fields are dictionary-encoded (decoded once per distinct value), STCK fields are
UTC timestamps (null when zero) with all 64 bits in ``<field>_raw``, opaque bytes are
fixed-size binary, record images / urbsdata binary. ``msg`` is the message's index in the
stream, ``offset`` the element's byte offset (a field's offset is ``offset`` plus its
static offset in the layout).

How: message headers are walked in Python (URBHLENT); the elements of all messages are then
walked together, one element per message per round, with numpy. Only regular messages take
this path: a message with anything the span decoder would report (unknown eyecatcher,
inconsistent lengths, truncation, bad URBHBORD, URBI data that needs the ISN-list/selection
judgement, urbsdata, non-zero filler) is decoded by ``urb.decode`` instead and returned
whole in ``Columns.irregular``, errors and problems included. Consistency warnings about
record counts (``urbtrcnt``, ``urbrdcnt``) are the span decoder's only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mqtool.formats.urb.decode import _message
from mqtool.formats.urb.layout import (
    ASCII_URBH,
    CODEPAGES,
    EBCDIC_URBH,
    ELEMENT_HEAD,
    ELEMENT_LEN_AT,
    ELEMENTS,
    EYE_LEN,
    HEADER_PEEK,
    HEADER_PREFIXES,
    URBHLENT_AT,
    WORD,
    layouts,
)
from mqtool.layout import FieldInfo, Layout
from mqtool.model import EYE, HEX, RESERVED, STCK, TEXT, Decoded
from mqtool.tod import UNIX_OFFSET_US

NUMPY = {"b": "i1", "B": "u1", "h": "i2", "H": "u2", "l": "i4", "L": "u4", "q": "i8", "Q": "u8"}
EYES = (EBCDIC_URBH, ASCII_URBH)
# element types the columnar walk takes: those without a repeat needing per-message judgement
TYPES = tuple(t for t, r in ELEMENTS.items() if r.repeat is None or not r.repeat.count)
HSIZE = layouts().URBH.size or 0
HEADERS = {v: k for k, v in HEADER_PREFIXES.items()}  # (charset, big) -> regular prefix


@dataclass
class Columns:
    """One table per element type, the table of (regular) messages, and irregular messages."""

    tables: dict[str, pa.Table] = field(default_factory=dict)
    messages: pa.Table | None = None
    irregular: list[Decoded] = field(default_factory=list)


def decode_columns(data: bytes, byte_order: str | None = None) -> Columns:
    """Every field and meaning of every element of every message in ``data``.

    ``byte_order`` (``big`` / ``little``) forces the byte order like ``urb.decode``; messages
    whose URBHBORD disagrees are irregular (decoded by ``urb.decode``, with its problem).
    """
    data = bytes(data)
    out = Columns()
    offs, lens, bigs, css, ks = _headers(data, byte_order, out)
    if not offs:
        out.messages = pa.table({"msg": pa.array([], pa.int64()), "offset": pa.array([], pa.int64()),
                                 "length": pa.array([], pa.int64()),
                                 "codepage": pa.array([], pa.string()).dictionary_encode(),
                                 "byte_order": pa.array([], pa.string()).dictionary_encode()})
        return out
    m_off = np.asarray(offs, dtype=np.int64)
    m_big = np.asarray(bigs, dtype=bool)
    m_cs = np.asarray(css, dtype=np.int8)
    buf = np.frombuffer(data, dtype=np.uint8)
    walk = _walk_elements(buf, data, m_off, m_off + np.asarray(lens, dtype=np.int64), m_big, m_cs)
    bad = walk.pop("bad")
    m_idx = np.asarray(ks, dtype=np.int64)
    for i in np.nonzero(bad)[0]:  # irregular at element level: the span decoder tells why
        unit, _ = _message(data, int(m_off[i]), None, byte_order, "auto")
        unit.attrs["msg"] = int(m_idx[i])
        out.irregular.append(unit)
    out.irregular.sort(key=lambda u: u.offset)
    keep = ~bad[walk["msg"]]
    el = {name: arr[keep] for name, arr in walk.items()}
    heads = np.nonzero(~bad)[0]
    _group(out, buf, data, "URBH", heads, m_off[heads], m_big[heads], m_cs[heads], m_idx[heads], None, None)
    for t, etype in enumerate(TYPES):
        sel = el["type"] == t
        if not sel.any():
            continue
        msg = el["msg"][sel]
        _group(out, buf, data, etype, msg, el["pos"][sel], m_big[msg], m_cs[msg], m_idx[msg],
               el["len"][sel], (el["dstart"][sel], el["dlen"][sel]))
    orders = np.where(m_big[heads], "big", "little")
    out.messages = pa.table({
        "msg": pa.array(m_idx[heads]), "offset": pa.array(m_off[heads]),
        "length": pa.array(np.asarray(lens, dtype=np.int64)[heads]),
        "codepage": pa.array(np.asarray(CODEPAGES)[m_cs[heads]]).dictionary_encode(),
        "byte_order": pa.array(orders).dictionary_encode()})
    return out


def _chain(data: bytes, forced: bool | None) -> tuple[list[int], list[int], list[bool], list[int]]:
    """The longest run of regular message headers from offset 0, found with numpy: every
    URBH eyecatcher in the input is a candidate, each points to the next by its URBHLENT, and
    the chain from offset 0 is followed by pointer doubling."""
    buf = np.frombuffer(data, dtype=np.uint8)
    n = len(buf)
    if n < HSIZE:
        return [], [], [], []
    padded = np.concatenate([buf, np.zeros(HEADER_PEEK, np.uint8)])
    first = np.nonzero((buf == EBCDIC_URBH[0]) | (buf == ASCII_URBH[0]))[0]
    eye = _rows(padded, first, EYE_LEN).view(">u4").ravel()
    cand = first[(eye == int.from_bytes(EBCDIC_URBH, "big")) | (eye == int.from_bytes(ASCII_URBH, "big"))]
    if not cand.size or cand[0] != 0:
        return [], [], [], []
    rows = _rows(padded, cand, HEADER_PEEK)
    cs = np.where(rows[:, 0] == EBCDIC_URBH[0], 0, 1)
    prefix = rows[:, :URBHLENT_AT]
    big = np.zeros(len(cand), bool)
    regular = np.zeros(len(cand), bool)
    for (c, b), want in HEADERS.items():  # eyecatcher, URBHLEN, URBHVERS, URBHBORD as declared
        same = (cs == c) & (prefix == np.frombuffer(want, np.uint8)).all(axis=1)
        regular |= same
        big |= same & b
    lent = np.where(big, _word(rows, URBHLENT_AT, ">u4"), _word(rows, URBHLENT_AT, "<u4")).astype(np.int64)
    valid = regular & (lent >= HSIZE) & (cand + lent <= n)
    if forced is not None:
        valid &= big == forced
    nxt_pos = cand + lent
    j = np.minimum(np.searchsorted(cand, nxt_pos), len(cand) - 1)
    nxt = np.where(valid & (cand[j] == nxt_pos), j, len(cand))  # len(cand): the chain ends
    jump = np.append(nxt, len(cand))
    on = np.zeros(len(cand) + 1, dtype=bool)
    on[0] = True
    reach = 1
    while reach < len(cand):
        on[jump[np.nonzero(on)[0]]] = True
        jump = jump[jump]
        reach *= 2
    idx = np.nonzero(on[:-1])[0]  # the path; only its last node can be invalid
    if idx.size and not valid[idx[-1]]:
        idx = idx[:-1]
    return cand[idx].tolist(), lent[idx].tolist(), big[idx].tolist(), cs[idx].tolist()


def _rows(buf: np.ndarray, starts: np.ndarray, width: int) -> np.ndarray:
    """``width`` bytes at each of ``starts`` as a contiguous (n, width) array: rows of a
    sliding-window view, without an (n, width) index matrix."""
    if not len(starts):
        return np.zeros((0, width), np.uint8)
    return np.ascontiguousarray(np.lib.stride_tricks.sliding_window_view(buf, width)[starts])


def _word(rows: np.ndarray, at: int, dtype: str) -> np.ndarray:
    """The fullword at column ``at`` of gathered rows, read as ``dtype``."""
    return np.ascontiguousarray(rows[:, at:at + WORD]).view(dtype).ravel()


def _headers(data: bytes, byte_order: str | None, out: Columns):  # type: ignore[no-untyped-def]
    """Walk message headers by URBHLENT (a regular prefix with numpy, then one by one);
    irregular headers go to the span decoder."""
    forced = {"big": True, "little": False}.get(byte_order or "")
    offs, lens, bigs, css = _chain(data, forced)
    ks = list(range(len(offs)))
    n = len(data)
    k = len(offs)
    off = offs[-1] + lens[-1] if offs else 0
    prefixes = {v: k for k, v in HEADERS.items()}
    while off < n:
        h = data[off:off + HEADER_PEEK]
        cs, big = prefixes.get(h[:URBHLENT_AT], (-1, None))
        lent = int.from_bytes(h[URBHLENT_AT:], "big" if big else "little") if big is not None else 0
        if (cs >= 0 and big is not None and (forced is None or forced == big)
                and lent >= HSIZE and off + lent <= n):
            offs.append(off)
            lens.append(lent)
            bigs.append(big)
            css.append(cs)
            ks.append(k)
            off += lent
        else:
            unit, nxt = _message(data, off, None, byte_order, "auto")
            unit.attrs["msg"] = k
            out.irregular.append(unit)
            if nxt is None or nxt <= off:
                break
            off = nxt
        k += 1
    return offs, lens, bigs, css, ks


def _eye_codes() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted eyecatcher codes (4 bytes read big-endian) -> element type index and charset."""
    rows = sorted((int.from_bytes(t.encode(cp), "big"), ti, cs)
                  for cs, cp in enumerate(CODEPAGES) for ti, t in enumerate(TYPES))
    codes, types, sets = zip(*rows, strict=True)
    return np.asarray(codes, np.uint32), np.asarray(types, np.int8), np.asarray(sets, np.int8)


def _rule_arrays() -> dict[str, np.ndarray]:
    """Per element type (index into TYPES), from ``ELEMENTS``: the accepted lengths of fixed
    types (up to two generations), the minimum of the others, where the data's start and
    length fields are (-1: no trailing data), and whether the data is read from the fixed
    part's end (URBS)."""
    lay = layouts()
    out: dict[str, list] = {k: [] for k in ("size1", "size2", "minimum", "start_at", "length_at",
                                            "tolerant", "data")}
    for t in TYPES:
        r = ELEMENTS[t]
        sizes = r.sizes(lay)
        layout = r.layout(lay)
        out["size1"].append(sizes[0] if r.fixed else 0)
        out["size2"].append(sizes[-1] if r.fixed else 0)
        out["minimum"].append(min(sizes) if not r.fixed else ELEMENT_HEAD)
        tr = r.trailing
        out["start_at"].append(layout.offset_of(tr.start) if tr else -1)
        out["length_at"].append(layout.offset_of(tr.length) if tr else -1)
        out["tolerant"].append(bool(tr and tr.tolerated))
        # data the columns carry (URBD images); URBI data and urbsdata need the span decoder
        out["data"].append(bool(tr and r.repeat is None and not tr.tolerated))
    return {k: np.asarray(v) for k, v in out.items()}


EYE_CODES, EYE_TYPES, EYE_SETS = _eye_codes()
RULES = _rule_arrays()
DATA_NAME = {t: ELEMENTS[t].trailing.name for t in TYPES if ELEMENTS[t].trailing}  # type: ignore[union-attr]


def _int32(padded: np.ndarray, at: np.ndarray, big: np.ndarray) -> np.ndarray:
    """Signed fullwords at absolute offsets ``at``, each in its message's byte order."""
    word = _rows(padded, at, WORD)
    be = word.view(">i4").ravel().astype(np.int64)
    le = word.view("<i4").ravel().astype(np.int64)
    return np.where(big, be, le)


def _walk_elements(buf: np.ndarray, data: bytes, start: np.ndarray, end: np.ndarray, big: np.ndarray,
                   cs: np.ndarray) -> dict[str, np.ndarray]:
    """All messages' elements, one per message per round; flags irregular messages."""
    bad = np.zeros(len(start), dtype=bool)
    pos = start + HSIZE
    active = np.nonzero(pos < end)[0]
    found: dict[str, list[np.ndarray]] = {k: [] for k in ("msg", "pos", "type", "len", "dstart", "dlen")}
    reach = int(max(RULES["start_at"].max(), RULES["length_at"].max())) + WORD
    padded = np.concatenate([buf, np.zeros(reach, np.uint8)])
    size1, size2, minimum = RULES["size1"], RULES["size2"], RULES["minimum"]
    while active.size:
        p, e, b = pos[active], end[active], big[active]
        room = e - p
        code = _rows(padded, p, EYE_LEN).view(">u4").ravel()
        at = np.minimum(np.searchsorted(EYE_CODES, code), len(EYE_CODES) - 1)
        known = (EYE_CODES[at] == code) & (EYE_SETS[at] == cs[active]) & (room >= ELEMENT_HEAD)
        t = EYE_TYPES[at].astype(np.int64)
        length = _int32(padded, p + ELEMENT_LEN_AT, b)
        fixed = size1[t] > 0
        invalid = ~known | (length < minimum[t]) | (p + length > e)
        invalid |= fixed & (length != size1[t]) & (length != size2[t])
        # data after the fixed part, located by the element's own fields (ELEMENTS)
        trailing = RULES["start_at"][t] >= 0
        lenh = np.where(trailing, _int32(padded, p + np.maximum(RULES["start_at"][t], 0), b), 0)
        lend = np.where(trailing, _int32(padded, p + np.maximum(RULES["length_at"][t], 0), b), 0)
        tolerant = RULES["tolerant"][t]
        invalid |= tolerant & (lenh != 0) & (lenh != minimum[t])
        lenh = np.where(tolerant, minimum[t], lenh)
        invalid |= trailing & ((lenh < minimum[t]) | (lend < 0) | (lenh + lend > length))
        invalid |= trailing & ~RULES["data"][t] & (lend != 0)
        filler = trailing & ~invalid & (length > lenh + lend)
        for j in np.nonzero(filler)[0]:  # rare: check the filler bytes are zero
            if any(data[p[j] + lenh[j] + lend[j]:p[j] + length[j]]):
                invalid[j] = True
        bad[active[invalid]] = True
        ok = ~invalid
        good = active[ok]
        carries = RULES["data"][t[ok]]
        found["msg"].append(good)
        found["pos"].append(p[ok])
        found["type"].append(t[ok])
        found["len"].append(length[ok])
        found["dstart"].append(np.where(carries, p[ok] + lenh[ok], 0))
        found["dlen"].append(np.where(carries, lend[ok], 0))
        pos[good] += length[ok]
        active = good[pos[good] < end[good]]
    walked = {k: np.concatenate(v) if v else np.zeros(0, np.int64) for k, v in found.items()}
    walked["bad"] = bad
    return walked


def _group(out: Columns, buf: np.ndarray, data: bytes, etype: str, msg: np.ndarray, pos: np.ndarray,
           big: np.ndarray, cs: np.ndarray, msg_index: np.ndarray, length: np.ndarray | None,
           trailing: tuple[np.ndarray, np.ndarray] | None) -> None:
    """The table of one element type: a part per variant (and URBT generation), in stream order."""
    parts = []
    for b in (True, False):
        for c in (0, 1):
            sel = (big == b) & (cs == c)
            if not sel.any():
                continue
            lay = layouts(b, CODEPAGES[c])
            rule = ELEMENTS.get(etype)
            if rule is None or length is None or len(rule.layouts) == 1:
                splits = [(sel, getattr(lay, etype))]
            else:  # one part per generation (URBT 112 / 128)
                splits = [(sel & (length == size), rule.layout(lay, size)) for size in rule.sizes(lay)]
            for s, layout in splits:
                if s.any():
                    data_cols = None
                    if trailing is not None and RULES["data"][TYPES.index(etype)]:
                        data_cols = (trailing[0][s], trailing[1][s])
                    parts.append(_table(buf, data, layout, CODEPAGES[c], pos[s], msg_index[s], data_cols))
    if not parts:
        return
    table = parts[0] if len(parts) == 1 else pa.concat_tables(parts, promote_options="permissive")
    order = pc.sort_indices(table, sort_keys=[("offset", "ascending")])
    out.tables[etype] = table.take(order)


def _table(buf: np.ndarray, data: bytes, layout: Layout, cp: str, offsets: np.ndarray, msgs: np.ndarray,
           trailing: tuple[np.ndarray, np.ndarray] | None) -> pa.Table:
    size = layout.size or 0
    rows = _rows(buf, offsets, size)
    cols: dict[str, pa.Array] = {"msg": pa.array(msgs), "offset": pa.array(offsets)}
    values: dict[str, np.ndarray] = {}
    n = len(offsets)
    for f in layout.fields:
        if f.kind == RESERVED:
            continue
        block = np.ascontiguousarray(rows[:, f.start:f.start + f.size])
        if f.kind in (TEXT, EYE, HEX):
            raw = pa.FixedSizeBinaryArray.from_buffers(pa.binary(f.size), n, [None, pa.py_buffer(block)])
            if f.kind == HEX:
                cols[f.name] = raw
                continue
            enc = raw.dictionary_encode()
            words = pa.array([f.convert(v) for v in enc.dictionary.to_pylist()], pa.string())
            cols[f.name] = pa.DictionaryArray.from_arrays(enc.indices, words)
            if f.meaning is not None:
                cols[f"{f.name}_meaning"] = _meanings(f, enc.indices, [(w,) for w in words.to_pylist()])
            continue
        native = block.view(np.dtype(f.endian + NUMPY[f.fmt])).ravel()
        native = native.astype(native.dtype.newbyteorder("="))
        values[f.name] = native
        if f.kind == STCK:
            micros = (native >> np.uint64(12)).astype(np.int64) - UNIX_OFFSET_US
            cols[f.name] = pa.array(micros.astype("datetime64[us]"), pa.timestamp("us", tz="UTC"),
                                    mask=native == 0)
            cols[f"{f.name}_raw"] = pa.array(native)
            continue
        cols[f.name] = pa.array(native)
        if f.meaning is not None:
            depends = getattr(f.meaning, "depends", ())
            key = native.astype(np.uint64)
            for d in depends:  # pairs (value, field it depends on): both fullwords at most
                key = (key << np.uint64(32)) | values[d].astype(np.uint64)
            enc = pa.array(key).dictionary_encode()
            combos = []
            for k in enc.dictionary.to_pylist():
                if not depends:
                    combos.append((k,))
                    continue
                words = []
                for _ in range(len(depends) + 1):
                    words.append(k & 0xFFFFFFFF)
                    k >>= 32
                combos.append(tuple(reversed(words)))
            cols[f"{f.name}_meaning"] = _meanings(f, enc.indices, combos)
    if trailing is not None:
        starts, lens = trailing
        cols[DATA_NAME[layout.name]] = pa.array([data[s:s + ln] for s, ln in
                                                 zip(starts.tolist(), lens.tolist(), strict=True)],
                                                pa.binary())
    return pa.table(cols)


def _meanings(f: FieldInfo, indices: pa.Array, combos: Sequence[tuple]) -> pa.Array:
    """A dictionary-encoded meaning column, one meaning per distinct value (combination)."""
    table = f.meaning
    depends = getattr(table, "depends", ())
    texts = []
    for combo in combos:
        fields = dict(zip(depends, combo[1:], strict=True))
        texts.append(table(combo[0], fields) if callable(table) else table.get(combo[0], ""))  # type: ignore[union-attr]
    return pa.DictionaryArray.from_arrays(indices, pa.array(texts, pa.string()))
