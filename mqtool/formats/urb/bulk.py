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
    BORD_BIG,
    BORD_LITTLE,
    DEFAULT_ASCII,
    DEFAULT_EBCDIC,
    EBCDIC_URBH,
    URBHL,
    URBTL,
    URBTL_112,
    layouts,
)
from mqtool.formats.urb.layout import URBHBORD_AT as BORD
from mqtool.formats.urb.layout import URBHLEN_AT as HLEN
from mqtool.formats.urb.layout import URBHLENT_AT as LENT
from mqtool.formats.urb.layout import URBHVERS_AT as VERS
from mqtool.layout import FieldInfo, Layout
from mqtool.model import EYE, HEX, RESERVED, STCK, TEXT, Decoded
from mqtool.tod import UNIX_OFFSET_US

NUMPY = {"b": "i1", "B": "u1", "h": "i2", "H": "u2", "l": "i4", "L": "u4", "q": "i8", "Q": "u8"}
CODEPAGES = (DEFAULT_EBCDIC, DEFAULT_ASCII)  # charset index 0 / 1
TYPES = ("URBI", "URBS", "URBT", "URBR", "URBD", "URBE", "URBC", "URBU")
FIXED = {"URBR": 64, "URBE": 32, "URBC": 48, "URBU": 80}
MINIMUM = {"URBI": 96, "URBS": 128, "URBD": 32}
DATA_NAME = {"URBD": "urbddata", "URBS": "urbsdata"}
HEADERS = {(cs, big): (cp_eye, "01".encode(cp), URBHL.to_bytes(4, "big" if big else "little"),
                       BORD_BIG if big else BORD_LITTLE)
           for cs, (cp, cp_eye) in enumerate(((DEFAULT_EBCDIC, EBCDIC_URBH), (DEFAULT_ASCII, ASCII_URBH)))
           for big in (True, False)}


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
    if n < URBHL:
        return [], [], [], []
    padded = np.concatenate([buf, np.zeros(16, np.uint8)])
    first = np.nonzero((buf == EBCDIC_URBH[0]) | (buf == ASCII_URBH[0]))[0]
    eye = np.ascontiguousarray(padded[first[:, None] + np.arange(4)]).view(">u4").ravel()
    cand = first[(eye == int.from_bytes(EBCDIC_URBH, "big")) | (eye == int.from_bytes(ASCII_URBH, "big"))]
    if not cand.size or cand[0] != 0:
        return [], [], [], []
    rows = padded[cand[:, None] + np.arange(16)]
    cs = np.where(rows[:, 0] == EBCDIC_URBH[0], 0, 1)
    bord = rows[:, BORD].astype(np.int32) << 8 | rows[:, BORD + 1]
    big = bord == 1
    lent = np.where(big, np.ascontiguousarray(rows[:, LENT:LENT + 4]).view(">u4").ravel(),
                    np.ascontiguousarray(rows[:, LENT:LENT + 4]).view("<u4").ravel()).astype(np.int64)
    hlen = np.where(big, np.ascontiguousarray(rows[:, HLEN:HLEN + 4]).view(">i4").ravel(),
                    np.ascontiguousarray(rows[:, HLEN:HLEN + 4]).view("<i4").ravel())
    vers = rows[:, VERS].astype(np.int32) << 8 | rows[:, VERS + 1]
    valid = ((bord == 1) | (bord == 0x100)) & (hlen == URBHL) & (lent >= URBHL) & (cand + lent <= n)
    valid &= np.where(cs == 0, vers == 0xF0F1, vers == 0x3031)
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


def _headers(data: bytes, byte_order: str | None, out: Columns):  # type: ignore[no-untyped-def]
    """Walk message headers by URBHLENT (a regular prefix with numpy, then one by one);
    irregular headers go to the span decoder."""
    forced = {"big": True, "little": False}.get(byte_order or "")
    offs, lens, bigs, css = _chain(data, forced)
    ks = list(range(len(offs)))
    n = len(data)
    k = len(offs)
    off = offs[-1] + lens[-1] if offs else 0
    while off < n:
        h = data[off:off + 16]
        eye, bord = h[:4], h[BORD:BORD + 2]
        cs = 0 if eye == EBCDIC_URBH else 1 if eye == ASCII_URBH else -1
        big = True if bord == BORD_BIG else False if bord == BORD_LITTLE else None
        lent = int.from_bytes(h[LENT:LENT + 4], "big" if big else "little") if big is not None else 0
        if (cs >= 0 and big is not None and (forced is None or forced == big)
                and h[HLEN:BORD] == HEADERS[(cs, big)][2] + HEADERS[(cs, big)][1]
                and lent >= URBHL and off + lent <= n):
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


EYE_CODES, EYE_TYPES, EYE_SETS = _eye_codes()
FIXED_LEN = np.asarray([FIXED.get(t, 0) for t in TYPES], np.int64)
MIN_LEN = np.asarray([MINIMUM.get(t, 8) for t in TYPES], np.int64)
T_URBI, T_URBS, T_URBT, T_URBD = (TYPES.index(t) for t in ("URBI", "URBS", "URBT", "URBD"))
GATHER = np.r_[0:16, 0x60:0x68]  # element bytes the walk reads


def _int32(rows: np.ndarray, at: int, big: np.ndarray) -> np.ndarray:
    """Signed fullwords at column ``at`` of gathered rows, each in its message's byte order."""
    word = np.ascontiguousarray(rows[:, at:at + 4])
    be = word.view(">i4").ravel().astype(np.int64)
    le = word.view("<i4").ravel().astype(np.int64)
    return np.where(big, be, le)


def _walk_elements(buf: np.ndarray, data: bytes, start: np.ndarray, end: np.ndarray, big: np.ndarray,
                   cs: np.ndarray) -> dict[str, np.ndarray]:
    """All messages' elements, one per message per round; flags irregular messages."""
    bad = np.zeros(len(start), dtype=bool)
    pos = start + URBHL
    active = np.nonzero(pos < end)[0]
    found: dict[str, list[np.ndarray]] = {k: [] for k in ("msg", "pos", "type", "len", "dstart", "dlen")}
    padded = np.concatenate([buf, np.zeros(0x68, np.uint8)])
    while active.size:
        p, e, b = pos[active], end[active], big[active]
        room = e - p
        rows = padded[p[:, None] + GATHER]  # eye, length, lenh, lend at +0; urbslenh, urbslend at 16
        code = np.ascontiguousarray(rows[:, :4]).view(">u4").ravel()
        at = np.minimum(np.searchsorted(EYE_CODES, code), len(EYE_CODES) - 1)
        known = (EYE_CODES[at] == code) & (EYE_SETS[at] == cs[active]) & (room >= 8)
        t = EYE_TYPES[at].astype(np.int64)
        length = _int32(rows, 4, b)
        fixed = FIXED_LEN[t]
        invalid = ~known | (length < MIN_LEN[t]) | (p + length > e) | ((fixed > 0) & (length != fixed))
        invalid |= (t == T_URBT) & (length != URBTL_112) & (length != URBTL)
        # data after the fixed part: URBD image; URBI data and urbsdata need the span decoder
        urbs = t == T_URBS
        slenh = _int32(rows, 16, b)
        lenh = np.where(urbs, 128, _int32(rows, 8, b))  # urbsdata is read from +128
        lend = np.where(urbs, _int32(rows, 20, b), _int32(rows, 12, b))
        trailing = (t == T_URBD) | (t == T_URBI) | urbs
        invalid |= trailing & ((lenh < MIN_LEN[t]) | (lend < 0) | (lenh + lend > length))
        invalid |= urbs & ((lend != 0) | ((slenh != 0) & (slenh != 128)))
        invalid |= (t == T_URBI) & (lend != 0)
        filler = trailing & ~invalid & (length > lenh + lend)
        for j in np.nonzero(filler)[0]:  # rare: check the filler bytes are zero
            if any(data[p[j] + lenh[j] + lend[j]:p[j] + length[j]]):
                invalid[j] = True
        bad[active[invalid]] = True
        ok = ~invalid
        good = active[ok]
        found["msg"].append(good)
        found["pos"].append(p[ok])
        found["type"].append(t[ok])
        found["len"].append(length[ok])
        found["dstart"].append(np.where(t[ok] == T_URBD, p[ok] + lenh[ok], 0))
        found["dlen"].append(np.where(t[ok] == T_URBD, lend[ok], 0))
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
            splits = [(sel, getattr(lay, etype))] if etype != "URBT" else [
                (sel & (length == URBTL_112), lay.URBT112), (sel & (length == URBTL), lay.URBT)]
            for s, layout in splits:
                if s.any():
                    data_cols = None
                    if trailing is not None and etype in DATA_NAME:
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
    rows = buf[offsets[:, None] + np.arange(size)]
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
