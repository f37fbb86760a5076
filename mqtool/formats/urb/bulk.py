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
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mqtool.compose import counted
from mqtool.compose.columns import Columnar, rows
from mqtool.formats.urb.decode import _message
from mqtool.formats.urb.layout import (
    ASCII_URBH,
    CODEPAGES,
    EBCDIC_URBH,
    ELEMENTS,
    EYE_LEN,
    HEADER_PEEK,
    HEADER_PREFIXES,
    URBHLENT_AT,
    WORD,
    layouts,
    plan,
)
from mqtool.layout import FieldInfo, Layout, numpy_dtype
from mqtool.model import EYE, HEX, RESERVED, STCK, TEXT, Decoded
from mqtool.tod import tod_array_to_unix_micros

EYES = (EBCDIC_URBH, ASCII_URBH)
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
    walk = COLUMNS.walk(buf, data, m_off + HSIZE, m_off + np.asarray(lens, dtype=np.int64), m_big, m_cs,
                        KEY_AT, LEN_AT)
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
    eye = rows(padded, first, EYE_LEN).view(">u4").ravel()
    cand = first[(eye == int.from_bytes(EBCDIC_URBH, "big")) | (eye == int.from_bytes(ASCII_URBH, "big"))]
    if not cand.size or cand[0] != 0:
        return [], [], [], []
    heads = rows(padded, cand, HEADER_PEEK)
    cs = np.where(heads[:, 0] == EBCDIC_URBH[0], 0, 1)
    prefix = heads[:, :URBHLENT_AT]
    big = np.zeros(len(cand), bool)
    regular = np.zeros(len(cand), bool)
    for (c, b), want in HEADERS.items():  # eyecatcher, URBHLEN, URBHVERS, URBHBORD as declared
        same = (cs == c) & (prefix == np.frombuffer(want, np.uint8)).all(axis=1)
        regular |= same
        big |= same & b
    lent = np.where(big, _word(heads, URBHLENT_AT, ">u4"), _word(heads, URBHLENT_AT, "<u4")).astype(np.int64)
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


def _types() -> tuple[str, ...]:
    """The element types the columnar walk takes: those whose data is plain bytes or needs
    no counted repeat (a URBF's URBGs are the span decoder's)."""
    return tuple(t for t, r in ELEMENTS.items() if counted(r) is None)


TYPES = _types()
COLUMNS = Columnar.of([plan(True, cp) for cp in CODEPAGES], TYPES)
DATA_NAME = {t: tr.name for t in TYPES if (tr := ELEMENTS[t].trailing) is not None}
KEY_AT, LEN_AT = plan().key_at, plan().len_at


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
                splits = [(sel & (length == size), rule.layout(lay.layout, size))
                          for size in rule.sizes(lay.layout)]
            for s, layout in splits:
                if s.any():
                    data_cols = None
                    if trailing is not None and COLUMNS.carries[TYPES.index(etype)]:
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
    block_rows = rows(buf, offsets, size)
    cols: dict[str, pa.Array] = {"msg": pa.array(msgs), "offset": pa.array(offsets)}
    values: dict[str, np.ndarray] = {}
    n = len(offsets)
    for f in layout.fields:
        if f.kind == RESERVED:
            continue
        block = np.ascontiguousarray(block_rows[:, f.static_slice])
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
        native = block.view(numpy_dtype(f)).ravel()
        native = native.astype(native.dtype.newbyteorder("="))
        values[f.name] = native
        if f.kind == STCK:
            micros = tod_array_to_unix_micros(native)
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


def _meanings(f: FieldInfo, indices: pa.Array, combos: Sequence[tuple[Any, ...]]) -> pa.Array:
    """A dictionary-encoded meaning column, one meaning per distinct value (combination)."""
    table = f.meaning
    depends = getattr(table, "depends", ())
    texts = []
    for combo in combos:
        fields = dict(zip(depends, combo[1:], strict=True))
        texts.append(table(combo[0], fields) if callable(table) else table.get(combo[0], ""))  # type: ignore[union-attr]
    return pa.DictionaryArray.from_arrays(indices, pa.array(texts, pa.string()))
