"""Bulk path for CSQ1LOGP records: framed records -> Arrow record batches, vectorised.

Nothing here repeats the layout: the numpy structured dtype of the fixed part (offsets,
sizes, integer byte order) and the Arrow schema are derived from the ``FieldInfo`` table of
``csq1logp.layouts(codepage).logd``. Text goes through 256-entry tables built from the code
page; STCK becomes ``timestamp[us, UTC]``; ``csrecorddate`` stays text and gains a naive
``csrecorddate_ts``. ``unit_row`` flattens a forensic ``Decoded`` record into the same row,
and a test proves both paths give identical values.

Rows carry provenance (``file``, ``offset``, ``rec_no``, ``rec_len``, ``log_date``); a bad
span is one row with ``_error``, ``_error_detail`` and ``_raw_hex`` (first 256 bytes) and
null decoded columns; field-level problems fill ``_corrupt_fields``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime
from functools import lru_cache
from typing import Any

import numpy as np
import pyarrow as pa

from mqtool.codepages import byte_chars, codec_name
from mqtool.formats.csq1logp import layout as csq_layout
from mqtool.formats.csq1logp.framing import Frame
from mqtool.layout import Layout, arrow_type, fixed_dtype
from mqtool.model import HEX, INT, STCK, TEXT, Decoded
from mqtool.tod import tod_array_to_unix_micros

MODES = ("PERMISSIVE", "DROPMALFORMED", "FAILFAST")
PROVENANCE = [
    pa.field("file", pa.string()),
    pa.field("offset", pa.int64()),
    pa.field("rec_no", pa.int64()),
    pa.field("rec_len", pa.int32()),
    pa.field("log_date", pa.date32()),
]
TAIL = [
    pa.field("fixed_len", pa.int32()),
    pa.field("csbora", pa.string()),
    pa.field("csvardata", pa.binary()),
    pa.field("_corrupt_fields", pa.list_(pa.string())),
    pa.field("_error", pa.string()),
    pa.field("_error_detail", pa.string()),
    pa.field("_raw_hex", pa.string()),
]
TS_UTC = pa.timestamp("us", tz="UTC")
TS_LOCAL = pa.timestamp("us")
_US_PER_DAY = 86_400_000_000


class MalformedError(Exception):
    """FAILFAST met a bad span: the frame says where and why."""

    def __init__(self, file: str, frame: Frame) -> None:
        self.file, self.frame = file, frame
        super().__init__(f"csq1logp: {frame.error}: {frame.detail} at {frame.path or 'record'}, "
                         f"offset X'{frame.offset:04X}' ({frame.offset}) in {file} "
                         "(mode FAILFAST)")


# --------------------------------------------------------------------------- derived


def _column_fields(layout: Layout) -> list[pa.Field]:
    out = []
    for f in layout.fields:
        if f.name in csq_layout.ROW_BLANK_INT:
            out.append(pa.field(f.name, pa.int32()))
        elif f.kind == TEXT:
            out.append(pa.field(f.name, pa.string()))
            if f.name in csq_layout.ROW_TEXT_AND_DATE:
                out.append(pa.field(f"{f.name}_ts", TS_LOCAL))
            if f.name in csq_layout.ROW_TEXT_AND_HEX:
                out.append(pa.field(f"{f.name}_hex", pa.string()))
        elif f.kind == HEX:
            out.append(pa.field(f.name, pa.string()))
        elif f.kind == STCK:
            out.append(pa.field(f.name, TS_UTC))
        elif f.kind == INT:
            out.append(pa.field(f.name, arrow_type(f)))
        else:
            raise TypeError(f"no column type for {f.name} ({f.kind})")
    return out


@lru_cache(maxsize=1)
def record_schema() -> pa.Schema:
    """Columns of a record row (the same for every code page)."""
    return pa.schema([*PROVENANCE, *_column_fields(csq_layout.layouts().logd), *TAIL])


# --------------------------------------------------------------------------- tables


class _Text:
    """Vectorised decoding of code-page bytes to Arrow strings (UTF-8)."""

    def __init__(self, codepage: str) -> None:
        chars = byte_chars(codepage)
        enc = [ch.encode("utf-8") for ch in chars]
        self.width = np.array([len(e) for e in enc], np.int64)
        self.parts = np.zeros((4, 256), np.uint8)
        for i, e in enumerate(enc):
            self.parts[: len(e), i] = list(e)
        self.blank = np.array([ch == " " for ch in chars])
        self.digit = np.full(256, 255, np.int64)
        for d in range(10):
            self.digit[str(d).encode(codec_name(codepage))[0]] = d
        hexes = b"".join(f"{i:02X}".encode() for i in range(256))
        self.hex = np.frombuffer(hexes, np.uint8).reshape(256, 2)

    def strings(self, mat: np.ndarray, valid: np.ndarray | None = None) -> pa.Array:
        """Rows of ``mat`` (N, n) decoded and right-trimmed of blanks."""
        n_rows, n = mat.shape
        nonblank = ~self.blank[mat]
        last = np.where(nonblank.any(axis=1), n - np.argmax(nonblank[:, ::-1], axis=1), 0)
        keep = np.arange(n) < last[:, None]
        flat = mat[keep]
        w = self.width[flat]
        if not len(flat) or w.max() == 1:
            data = self.parts[0][flat]
            lens = last
        else:
            lens = (self.width[mat] * keep).sum(axis=1)
            at = np.cumsum(w) - w
            data = np.empty(int(w.sum()), np.uint8)
            data[at] = self.parts[0][flat]
            for k in (1, 2, 3):
                sel = w > k
                data[at[sel] + k] = self.parts[k][flat[sel]]
        return _strings(n_rows, lens, data, valid)

    def hexes(self, mat: np.ndarray, valid: np.ndarray | None = None) -> pa.Array:
        n_rows, n = mat.shape
        data = self.hex[mat].reshape(-1)
        return _strings(n_rows, np.full(n_rows, 2 * n), data, valid)


def _strings(n_rows: int, lens: np.ndarray, data: np.ndarray, valid: np.ndarray | None) -> pa.Array:
    offsets = np.zeros(n_rows + 1, np.int32)
    np.cumsum(lens, out=offsets[1:])
    bitmap, nulls = _bitmap(valid)
    return pa.StringArray.from_buffers(n_rows, pa.py_buffer(offsets), pa.py_buffer(data), bitmap,
                                       nulls)


def numeric(values: np.ndarray, valid: np.ndarray | None = None) -> pa.Array:
    """A numpy array (native byte order) as an Arrow array, zero-copy; ``pa.array`` on numpy
    would import pandas (a second of start-up)."""
    values = np.ascontiguousarray(values)
    if values.dtype == bool:
        bits = pa.py_buffer(np.packbits(values, bitorder="little"))
        bitmap, nulls = _bitmap(valid)
        return pa.Array.from_buffers(pa.bool_(), len(values), [bitmap, bits], nulls)
    bitmap, nulls = _bitmap(valid)
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values),
                                 [bitmap, pa.py_buffer(values)], nulls)


def _bitmap(valid: np.ndarray | None) -> tuple[pa.Buffer | None, int]:
    if valid is None or valid.all():
        return None, 0
    return pa.py_buffer(np.packbits(valid, bitorder="little")), int((~valid).sum())


def _encoded(value: str, n: int, codepage: str) -> int:
    raw = value.encode(codepage).ljust(n, " ".encode(codepage)) if value != csq_layout.NULLS8 else bytes(n)
    return int.from_bytes(raw, "big")


@lru_cache(maxsize=16)
def _tables(codepage: str) -> tuple[_Text, np.dtype, dict[str, np.ndarray]]:
    cp = codec_name(codepage)
    lay = csq_layout.layouts(cp).logd
    enums = {}
    for name, table in csq_layout.ENUMS.items():
        n = lay.field(name).size or 0
        enums[name] = np.array([_encoded(v, n, cp) for v in table], np.uint64)
    return _Text(cp), fixed_dtype(lay), enums


def _as_int(mat: np.ndarray) -> np.ndarray:
    """Big-endian integer of each row's bytes (rows of at most 8 bytes)."""
    out = np.zeros(mat.shape[0], np.uint64)
    for i in range(mat.shape[1]):
        out = (out << np.uint64(8)) | mat[:, i].astype(np.uint64)
    return out


# --------------------------------------------------------------------------- batches


def batches(file: str, frames: Iterable[Frame], codepage: str = "cp037",
            mode: str = "PERMISSIVE") -> Iterator[pa.RecordBatch]:
    """Record batches of a stream of frames (one batch per buffer of the framer)."""
    group: list[Frame] = []
    bad: list[Frame] = []
    cur: bytes | None = None
    for fr in frames:
        if fr.error:
            if mode == "FAILFAST":
                if group:
                    yield decode_batch(file, group, bad, codepage)
                raise MalformedError(file, fr)
            if mode == "PERMISSIVE":
                bad.append(fr)
            continue
        if fr.buf is not cur and (group or bad):
            yield decode_batch(file, group, bad, codepage)
            group, bad = [], []
        cur = fr.buf
        group.append(fr)
    if group or bad:
        yield decode_batch(file, group, bad, codepage)


def decode_batch(file: str, records: list[Frame], bad: list[Frame] = (),  # type: ignore[assignment]
                 codepage: str = "cp037") -> pa.RecordBatch:
    """One Arrow batch: the records (all in one buffer) and the bad spans, in file order."""
    schema = record_schema()
    parts = []
    if records:
        parts.append(_records(file, records, codepage, schema))
    if bad:
        parts.append(_errors(file, bad, schema))
    if len(parts) == 1:
        return parts[0]
    table = pa.Table.from_batches(parts).combine_chunks()
    order = np.argsort(table.column("offset").to_numpy(), kind="stable")
    return table.take(order).to_batches()[0]


def _records(file: str, frs: list[Frame], codepage: str, schema: pa.Schema) -> pa.RecordBatch:
    text, dtype, enums = _tables(codepage)
    lay = csq_layout.layouts(codepage).logd
    buf = frs[0].buf
    n = len(frs)
    meta = np.array([(f.pos, f.length, f.hdr, f.offset, f.rec_no) for f in frs], np.int64)
    pos, rec_len, hdr, offset, rec_no = meta.T
    start = pos + hdr
    u8 = np.frombuffer(buf, np.uint8)
    raw = u8[start[:, None] + np.arange(dtype.itemsize)]  # the layout's size
    rec = raw.view(dtype).reshape(n)
    cols: dict[str, Any] = {}
    problems: list[tuple[str, str, np.ndarray]] = []
    ld = rec["ldatalen"].astype(np.int64)
    seg = rec["lsegment"].astype(np.int64)
    dtodout_us = None
    for f in lay.fields:
        v = rec[f.name]
        if f.name in csq_layout.ROW_BLANK_INT:
            cols[f.name], bad = _blank_int(text, v)
            problems.append((f.name, csq_layout.BAD_DELTA, bad))
        elif f.kind == TEXT:
            cols[f.name] = text.strings(v)
            if f.name in csq_layout.ROW_TEXT_AND_DATE:
                cols[f"{f.name}_ts"], bad = _recorddate(text, v)
                problems.append((f.name, csq_layout.BAD_DATE, bad))
            if f.name in csq_layout.ROW_TEXT_AND_HEX:
                cols[f"{f.name}_hex"] = text.hexes(v)
            if f.name in enums:
                problems.append((f.name, csq_layout.BAD_ENUM, ~np.isin(_as_int(v), enums[f.name])))
        elif f.kind == HEX:
            valid = ~text.blank[v].all(axis=1) if f.name in csq_layout.ROW_BLANK_KEY else None
            cols[f.name] = text.hexes(v, valid)
        elif f.kind == STCK:
            us = tod_array_to_unix_micros(v)
            set_ = v != 0
            cols[f.name] = pa.Array.from_buffers(TS_UTC, n, [_bitmap(set_)[0], pa.py_buffer(us)])
            if f.name == "dtodout":
                dtodout_us = (us, set_)
        else:
            cols[f.name] = numeric(v.astype(v.dtype.newbyteorder("=")))
            if f.name == "ldatalen":
                problems.append((f.name, csq_layout.NEG_LEN, ld < 0))
    problems.append(("lsegment", csq_layout.BAD_SEGMENT, seg < 1))
    # variable part: the 199/200 decision and the data slice, per record (``fixed_size``, ``data_take``)
    avail = rec_len - hdr
    fixed = csq_layout.fixed_size(avail, ld)
    take = csq_layout.data_take(avail, fixed, ld)
    has_bora = fixed == csq_layout.FIXED_BORA
    bora_raw = u8[np.minimum(start + csq_layout.FIXED, len(u8) - 1)][:, None]
    bora = text.strings(bora_raw, has_bora)
    alter = _as_int(rec["csverb"]) == np.uint64(_encoded("ALTER", 8, codec_name(codepage)))
    bora_ok = np.isin(bora_raw[:, 0], [_ord(ch, codepage) for ch in csq_layout.BORA])
    problems.append(("csbora", csq_layout.BAD_ENUM, has_bora & alter & ~bora_ok))
    problems.append(("csvardata", csq_layout.TRAILING, (ld >= 0) & (avail - fixed > ld)))
    data_at = start + fixed
    mv = memoryview(buf)
    data = b"".join([mv[s:s + t] for s, t in zip(data_at.tolist(), take.tolist(), strict=True)])
    doff = np.zeros(n + 1, np.int32)
    np.cumsum(take, out=doff[1:])
    assert dtodout_us is not None
    us, set_ = dtodout_us
    days = np.floor_divide(us, _US_PER_DAY).astype(np.int32)
    arrays = {
        "file": _repeat(file, n),
        "offset": numeric(offset),
        "rec_no": numeric(rec_no, rec_no >= 0),  # -1: unknown (a byte range's reader)
        "rec_len": numeric(rec_len.astype(np.int32)),
        "log_date": pa.Array.from_buffers(pa.date32(), n, [_bitmap(set_)[0], pa.py_buffer(days)]),
        **cols,
        "fixed_len": numeric(fixed.astype(np.int32)),
        "csbora": bora,
        "csvardata": pa.BinaryArray.from_buffers(pa.binary(), n, [None, pa.py_buffer(doff),
                                                                 pa.py_buffer(data)]),
        "_corrupt_fields": _corrupt(n, problems),
        "_error": pa.nulls(n, pa.string()),
        "_error_detail": pa.nulls(n, pa.string()),
        "_raw_hex": pa.nulls(n, pa.string()),
    }
    return pa.RecordBatch.from_arrays([arrays[f.name] for f in schema], schema=schema)


def _ord(ch: str, codepage: str) -> int:
    return ch.encode(codec_name(codepage))[0]


def _repeat(text: str, n: int) -> pa.Array:
    b = text.encode("utf-8")
    offsets = np.arange(n + 1, dtype=np.int64) * len(b)
    if offsets[-1] < 2**31:
        return pa.StringArray.from_buffers(n, pa.py_buffer(offsets.astype(np.int32)),
                                           pa.py_buffer(b * n))
    return pa.array([text] * n, pa.string())


def _blank_int(text: _Text, mat: np.ndarray) -> tuple[pa.Array, np.ndarray]:
    """Right-justified, blank-padded digits -> int32; blank -> null; anything else -> null
    and flagged (``parse_timedelta`` is the scalar twin)."""
    d = text.digit[mat]
    isdig = d != 255
    isblank = text.blank[mat]
    any_dig = isdig.any(axis=1)
    n = mat.shape[1]
    first = np.argmax(isdig, axis=1)
    last = n - 1 - np.argmax(isdig[:, ::-1], axis=1)
    contiguous = isdig.sum(axis=1) == (last - first + 1)
    tail_blank = np.where(np.arange(n) > last[:, None], isblank, True).all(axis=1)
    head_blank = np.where(np.arange(n) < first[:, None], isblank, True).all(axis=1)
    ok = any_dig & contiguous & head_blank & tail_blank
    blank_row = isblank.all(axis=1)
    bad = ~ok & ~blank_row
    value = np.zeros(mat.shape[0], np.int64)
    for i in range(n):
        value = np.where(isdig[:, i], value * 10 + d[:, i], value)
    return numeric(value.astype(np.int32), ok), bad


def _recorddate(text: _Text, mat: np.ndarray) -> tuple[pa.Array, np.ndarray]:
    """``yyyy.ddd hh:mm:ss.thm`` -> naive timestamp (``parse_recorddate`` is the scalar twin)."""
    d = text.digit[mat]
    digits = [0, 1, 2, 3, 5, 6, 7, 9, 10, 12, 13, 15, 16, 18, 19, 20]
    shape_ok = (d[:, digits] != 255).all(axis=1)
    seps = {4: ".", 8: " ", 11: ":", 14: ":", 17: "."}
    for at, ch in seps.items():
        shape_ok &= np.isin(mat[:, at], _codes(text, ch))
    dd = np.where(d == 255, 0, d)

    def num(*idx: int) -> np.ndarray:
        out = np.zeros(mat.shape[0], np.int64)
        for i in idx:
            out = out * 10 + dd[:, i]
        return out

    y, ddd, hh, mi, ss, ms = num(0, 1, 2, 3), num(5, 6, 7), num(9, 10), num(12, 13), num(15, 16), \
        num(18, 19, 20)
    leap = (y % 4 == 0) & ((y % 100 != 0) | (y % 400 == 0))
    ok = shape_ok & (y >= 1) & (ddd >= 1) & (ddd <= np.where(leap, 366, 365)) & (hh < 24) \
        & (mi < 60) & (ss < 60)
    ys = np.where(ok, y, 1970)
    jan1 = (ys - 1970).astype("datetime64[Y]").astype("datetime64[D]").astype(np.int64)
    days = jan1 + np.where(ok, ddd - 1, 0)
    us = days * _US_PER_DAY + ((hh * 60 + mi) * 60 + ss) * 1_000_000 + ms * 1000
    bitmap, _ = _bitmap(ok)
    return pa.Array.from_buffers(TS_LOCAL, mat.shape[0], [bitmap, pa.py_buffer(us)]), ~ok


def _codes(text: _Text, ch: str) -> list[int]:
    """Byte codes that decode to ``ch`` in the table's code page."""
    want = ch.encode("utf-8")
    return [i for i in range(256) if bytes(text.parts[: text.width[i], i]) == want]


def _corrupt(n: int, problems: list[tuple[str, str, np.ndarray]]) -> pa.Array:
    labels = np.array([f"{name}: {reason}" for name, reason, _ in problems], dtype=object)
    masks = np.stack([m for _, _, m in problems], axis=1)  # (n, k)
    counts = masks.sum(axis=1)
    if not counts.any():
        return pa.nulls(n, pa.list_(pa.string()))
    rows, ks = np.nonzero(masks)
    del rows
    offsets = np.zeros(n + 1, np.int32)
    np.cumsum(counts, out=offsets[1:])
    values = pa.array(labels[ks].tolist(), pa.string())
    return pa.ListArray.from_arrays(numeric(offsets), values, mask=numeric(counts == 0))


def _errors(file: str, bad: list[Frame], schema: pa.Schema) -> pa.RecordBatch:
    n = len(bad)
    cols = {f.name: pa.nulls(n, f.type) for f in schema}
    cols["file"] = _repeat(file, n)
    cols["offset"] = pa.array([f.offset for f in bad], pa.int64())
    cols["rec_no"] = pa.array([f.rec_no if f.rec_no >= 0 else None for f in bad], pa.int64())
    cols["rec_len"] = pa.array([f.length for f in bad], pa.int32())
    cols["_error"] = pa.array([f.error for f in bad], pa.string())
    cols["_error_detail"] = pa.array([f.detail for f in bad], pa.string())
    cols["_raw_hex"] = pa.array([bytes(f.head[:256]).hex().upper() for f in bad], pa.string())
    return pa.RecordBatch.from_arrays([cols[f.name] for f in schema], schema=schema)


# --------------------------------------------------------------------------- forensic twin


def unit_row(unit: Decoded, file: str) -> dict[str, Any]:
    """The row of one forensic ``Decoded`` unit (record or bad span), as ``batches`` gives it."""
    row: dict[str, Any] = dict.fromkeys(record_schema().names)
    row.update(file=file, offset=unit.offset, rec_no=unit.attrs["rec_no"], rec_len=unit.length)
    if unit.errors:
        err = unit.errors[0]
        reason, _, detail = err.reason.partition(": ")
        row.update(_error=reason, _error_detail=detail, _raw_hex=unit.attrs.get("raw_hex"))
        return row
    el = next(e for e in unit.elements if e.type == "CSQ4LOGD")
    for s in el.spans_deep():  # csbora is in the variable part nested under the fixed part
        name, v = s.name, s.value
        if name in csq_layout.ROW_BLANK_INT:
            try:
                row[name] = csq_layout.parse_timedelta(str(v))
            except ValueError:
                row[name] = None
        elif s.kind == TEXT:
            row[name] = v
            if name in csq_layout.ROW_TEXT_AND_DATE:
                try:
                    row[f"{name}_ts"] = csq_layout.parse_recorddate(str(v))
                except ValueError:
                    row[f"{name}_ts"] = None
            if name in csq_layout.ROW_TEXT_AND_HEX:
                row[f"{name}_hex"] = s.raw.hex().upper()
        elif s.kind == HEX:
            blank = " ".encode(unit.attrs["codepage"]) * len(s.raw)  # type: ignore[arg-type]
            row[name] = None if name in csq_layout.ROW_BLANK_KEY and s.raw == blank else s.raw.hex().upper()
        elif s.kind == STCK:
            row[name] = v.datetime() if v.is_set else None  # type: ignore[attr-defined]
        else:
            row[name] = v
    if unit.attrs.get("fixed_len") != csq_layout.FIXED_BORA:
        row["csbora"] = None
    row["fixed_len"] = unit.attrs["fixed_len"]
    row["csvardata"] = next((e.data for e in el.walk() if e.data is not None), None)
    dt = row["dtodout"]
    row["log_date"] = dt.date() if isinstance(dt, datetime) else None
    probs = [f"{p.path}: {p.reason}" for p in unit.problems if p.path in _FIELD_NAMES
             and not p.reason.startswith("reading B")]
    row["_corrupt_fields"] = probs or None
    return row


_FIELD_NAMES = {*csq_layout.layouts().logd.names, "csbora", "csvardata"}

