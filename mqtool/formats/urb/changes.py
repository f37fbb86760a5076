"""The ``changes`` table: each record image joined with its record and transaction, and
continued transactions (URBTCONT = Y, then URBC) stitched across messages."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mqtool.formats.urb.meanings import SINGLE_BYTE, ecs_codec
from mqtool.formats.urb.tables import CHANGES_SCHEMA, TS

# --------------------------------------------------------------------------- stitching


@dataclass
class Stitch:
    """Transactions and records across messages: how many, and the continued ones still
    open. A transaction, record and image is named by the offset of its URBT, URBR and
    URBD (``transaction``, ``record_number``, ``image_number``): the same in every run,
    whatever byte range or task reads it; ``file`` and the name identify it."""

    transactions: int = 0
    records: int = 0
    images: int = 0
    open_tx: dict[tuple[str, int], tuple[int, dict[str, Any]]] = field(default_factory=dict)
    last_records: dict[tuple[int, int], tuple[int, dict[str, Any]]] = field(default_factory=dict)


def changes(tables: dict[str, pa.Table], state: Stitch) -> tuple[pa.Table, pa.Array, pa.Array]:
    """The change rows of one part's element tables (sorted by offset), the transaction id
    of every URBT row and of every URBR row. Without continuations (no URBC) the joins are
    vectorised; continued transactions are stitched element by element, across parts by
    ``state``."""
    c = tables.get("URBC")
    if c is not None and c.num_rows:
        return _changes_stitched(tables, state)
    return _changes_columnar(tables, state)


def _np(table: pa.Table | None, name: str) -> np.ndarray:
    if table is None:
        return np.zeros(0, np.int64)
    values: np.ndarray = table.column(name).to_numpy().astype(np.int64)
    return values


def _last_before(keys: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Index of the last ``keys`` value below each ``at`` (-1: none); ``keys`` sorted."""
    return np.searchsorted(keys, at) - 1


def _changes_columnar(tables: dict[str, pa.Table], state: Stitch) -> tuple[pa.Table, pa.Array, pa.Array]:
    t, r, d, e = (tables.get(k) for k in ("URBT", "URBR", "URBD", "URBE"))
    t_off, t_msg = _np(t, "offset"), _np(t, "msg")
    r_off, r_msg = _np(r, "offset"), _np(r, "msg")
    d_off, d_msg = _np(d, "offset"), _np(d, "msg")
    e_off = _np(e, "offset")
    tx_ids, rec_ids = t_off, r_off  # named by offset (``Stitch``)
    state.transactions += len(t_off)
    state.records += len(r_off)

    def owner(child_off: np.ndarray, child_msg: np.ndarray, par_off: np.ndarray, par_msg: np.ndarray,
              breakers: list[np.ndarray]) -> np.ndarray:
        """The parent of each child: the last one before it in its message, with no
        breaking element between them (-1: none)."""
        k = _last_before(par_off, child_off)
        ok = k >= 0
        kk = np.maximum(k, 0)
        if len(par_off):
            ok &= par_msg[kk] == child_msg
            for b in breakers:
                j = _last_before(b, child_off)
                ok &= ~((j >= 0) & (b[np.maximum(j, 0)] > par_off[kk])) if len(b) else True
        return np.where(ok, k, -1)

    r_tx = owner(r_off, r_msg, t_off, t_msg, [e_off])
    d_rec = owner(d_off, d_msg, r_off, r_msg, [t_off, e_off])
    d_own = owner(d_off, d_msg, t_off, t_msg, [e_off])  # an image without its record: its transaction
    d_tx = np.where(d_rec >= 0, r_tx[np.maximum(d_rec, 0)] if len(r_tx) else -1, d_own)
    if t is not None:  # continued transactions stay open for the URBC of a later part
        cont = np.nonzero(np.asarray(t.column("urbtcont").to_pylist(), object) == "Y")[0]
        for k in cont.tolist():
            row = t.slice(k, 1).to_pylist()[0]
            state.open_tx[(row["urbtsnam"], row["urbttsnr"])] = (int(tx_ids[k]), row)
            for j in np.nonzero(r_tx == k)[0].tolist():
                rrow = r.slice(j, 1).to_pylist()[0]  # type: ignore[union-attr]
                state.last_records[(int(tx_ids[k]), rrow["urbrrsnr"])] = (int(rec_ids[j]), rrow)
    img_ids = d_off
    state.images += len(d_off)

    def take(table: pa.Table | None, idx: np.ndarray, name: str, typ: pa.DataType) -> pa.Array:
        if table is None or not len(idx):
            return pa.nulls(len(idx), typ)
        ind = pa.array(np.maximum(idx, 0), mask=idx < 0)
        return table.column(name).take(ind).cast(typ)

    def ids(values: np.ndarray, idx: np.ndarray) -> pa.Array:
        if not len(idx):
            return pa.array([], pa.int64())
        return pa.array(values[np.maximum(idx, 0)] if len(values) else np.zeros(len(idx), np.int64),
                        mask=idx < 0, type=pa.int64())

    codecs_, texts = _image_texts(take(t, d_tx, "urbtacod", pa.int64()), d)
    cols = {
        "file": d.column("file") if d is not None else pa.array([], pa.string()),
        "offset": d.column("offset") if d is not None else pa.array([], pa.int64()),
        "msg": d.column("msg") if d is not None else pa.array([], pa.int64()),
        "dump_message": d.column("dump_message") if d is not None else pa.array([], pa.int64()),
        "transaction": ids(tx_ids, d_tx),
        "subscription": take(t, d_tx, "urbtsnam", pa.string()),
        "dbid": take(t, d_tx, "urbtdbid", pa.int64()),
        "file_number": take(r, d_rec, "urbrfnr", pa.int64()),
        "isn": take(r, d_rec, "urbrisn", pa.int64()),
        "record_type": take(r, d_rec, "urbrtyp", pa.string()),
        "record_type_meaning": take(r, d_rec, "urbrtyp_meaning", pa.string()),
        "image_type": d.column("urbdtyp") if d is not None else pa.array([], pa.string()),
        "image_type_meaning": d.column("urbdtyp_meaning") if d is not None else pa.array([], pa.string()),
        "transaction_number": take(t, d_tx, "urbttsnr", pa.int64()),
        "initial_state": take(t, d_tx, "urbtinst", pa.string()),
        "transaction_time": take(t, d_tx, "urbtttim", TS),
        "record_time": take(r, d_rec, "urbrtime", TS),
        "record_number": ids(rec_ids, d_rec),
        "image_number": pa.array(img_ids, pa.int64()),
        "image": d.column("urbddata") if d is not None else pa.array([], pa.binary()),
        "image_text": pa.array(texts, pa.string()),
        "image_codepage": pa.array(codecs_, pa.string()),
    }
    table = pa.table({f.name: cols[f.name].cast(f.type) for f in CHANGES_SCHEMA}, schema=CHANGES_SCHEMA)
    return table, ids(tx_ids, np.arange(len(t_off))), ids(tx_ids, r_tx)


def _image_texts(acod: pa.Array, d: pa.Table | None) -> tuple[pa.Array, pa.Array]:
    """The code page of every image (URBTACOD's when single-byte, else its message's) and
    its text: one decode per code page over all its images joined, then cut."""
    if d is None or not d.num_rows:
        return pa.array([], pa.string()), pa.array([], pa.string())
    cps = (d.column("_codepage").fill_null("cp037") if "_codepage" in d.column_names
           else pa.array(["cp037"] * d.num_rows))
    known = {a: ecs_codec(a) for a in pc.unique(acod.fill_null(0)).to_pylist()}
    by_acod = pa.array([known[a] if known[a] in SINGLE_BYTE else None for a in acod.fill_null(0).to_pylist()]
                       if len(known) > 1 or next(iter(known.values())) in SINGLE_BYTE
                       else [None] * d.num_rows, pa.string())
    codecs_ = pc.coalesce(by_acod, cps.combine_chunks() if isinstance(cps, pa.ChunkedArray) else cps)
    images = d.column("urbddata").combine_chunks()
    texts: list[str | None] = [None] * len(images)
    for codec in pc.unique(codecs_).to_pylist():
        idx = np.nonzero(pc.equal(codecs_, codec).to_numpy(zero_copy_only=False))[0]
        part = images.take(pa.array(idx))
        _valid, offsets, values = part.buffers()
        offs = np.frombuffer(offsets, np.int32)[part.offset:part.offset + len(part) + 1].astype(np.int64)
        base = int(offs[0])
        joined = values.to_pybytes()[base:int(offs[-1])] if values is not None else b""
        text = joined.decode(codec, "replace")  # single-byte: one character per byte
        starts, ends = (offs[:-1] - base).tolist(), (offs[1:] - base).tolist()
        for k, a, b in zip(idx.tolist(), starts, ends, strict=True):
            texts[k] = text[a:b]
    return codecs_, pa.array(texts, pa.string())


def _in_stream_order(tables: dict[str, pa.Table]) -> list[tuple[int, int, str, dict[str, Any]]]:
    """The rows of every element table as (offset, row index, type, row), in stream order
    (by file, then offset)."""
    seq: list[tuple[int, int, str, dict[str, Any]]] = []
    for etype in ("URBT", "URBR", "URBD", "URBC", "URBE"):
        t = tables.get(etype)
        if t is None:
            continue
        for i, row in enumerate(t.to_pylist()):
            seq.append((row["offset"], i, etype, row))
    seq.sort(key=lambda item: (item[-1]["file"], item[0]))
    return seq


def _continued(row: dict[str, Any], state: Stitch) -> tuple[tuple[int, dict[str, Any]] | None,
                                                             tuple[int, dict[str, Any]] | None]:
    """A URBC: the open transaction it continues and its last record of that sequence number
    (None, None when none is open); the transaction is closed unless URBCCONT says more follows."""
    key = (row["urbcsnam"], row["urbctsnr"])
    tx = state.open_tx.get(key)
    rec = state.last_records.get((tx[0], row["urbcrsnr"])) if tx else None
    if tx is not None and row.get("urbccont") != "Y":
        state.open_tx.pop(key, None)
    return tx, rec


def _changes_stitched(tables: dict[str, pa.Table], state: Stitch) -> tuple[pa.Table, pa.Array, pa.Array]:
    """``changes`` element by element in stream order, a URBC resuming its open transaction."""
    seq = _in_stream_order(tables)
    tx_of_t: list[int | None] = [None] * (tables["URBT"].num_rows if "URBT" in tables else 0)
    tx_of_r: list[int | None] = [None] * (tables["URBR"].num_rows if "URBR" in tables else 0)
    out: list[dict[str, Any]] = []
    tx: tuple[int, dict[str, Any]] | None = None
    rec: tuple[int, dict[str, Any]] | None = None
    msg = None
    for _off, i, etype, row in seq:
        if row["msg"] != msg:  # a new message: nothing carries over but by a URBC
            msg, tx, rec = row["msg"], None, None
        if etype == "URBT":
            state.transactions += 1
            tx, rec = (row["offset"], row), None
            tx_of_t[i] = row["offset"]
            if row.get("urbtcont") == "Y":
                state.open_tx[(row["urbtsnam"], row["urbttsnr"])] = tx
        elif etype == "URBC":
            tx, rec = _continued(row, state)
        elif etype == "URBE":
            if tx is not None:
                state.open_tx.pop((tx[1]["urbtsnam"], tx[1]["urbttsnr"]), None)
            tx, rec = None, None
        elif etype == "URBR":
            state.records += 1
            rec = (row["offset"], row)
            tx_of_r[i] = tx[0] if tx else None
            if tx is not None:
                state.last_records[(tx[0], row["urbrrsnr"])] = rec
        elif etype == "URBD":
            state.images += 1
            out.append(_change(row, tx, rec, row["offset"]))
    keep = {k for k, _ in state.open_tx.values()}
    state.last_records = {k: v for k, v in state.last_records.items() if k[0] in keep}
    return (pa.Table.from_pylist(out, schema=CHANGES_SCHEMA),
            pa.array(tx_of_t, pa.int64()), pa.array(tx_of_r, pa.int64()))


def _change(img: dict[str, Any], tx: tuple[int, dict[str, Any]] | None,
            rec: tuple[int, dict[str, Any]] | None, number: int) -> dict[str, Any]:
    t = tx[1] if tx else {}
    r = rec[1] if rec else {}
    data = img.get("urbddata") or b""
    acodec = ecs_codec(t.get("urbtacod") or 0)
    cp = acodec if acodec in SINGLE_BYTE else img.get("_codepage") or "cp037"
    return {
        "file": img["file"], "offset": img["offset"], "msg": img["msg"],
        "dump_message": img["dump_message"], "transaction": tx[0] if tx else None,
        "subscription": t.get("urbtsnam"), "dbid": t.get("urbtdbid"),
        "file_number": r.get("urbrfnr"), "isn": r.get("urbrisn"), "record_type": r.get("urbrtyp"),
        "record_type_meaning": r.get("urbrtyp_meaning"), "image_type": img.get("urbdtyp"),
        "image_type_meaning": img.get("urbdtyp_meaning"), "transaction_number": t.get("urbttsnr"),
        "initial_state": t.get("urbtinst"), "transaction_time": t.get("urbtttim"),
        "record_time": r.get("urbrtime"), "record_number": rec[0] if rec else None,
        "image_number": number, "image": data, "image_text": data.decode(cp, "replace"),
        "image_codepage": cp,
    }



def _with_codepage(images: pa.Table, heads: pa.Table) -> pa.Table:
    """Each image's message code page (for the image text when URBTACOD names none)."""
    msgs = heads.column("msg").to_numpy()
    order = np.argsort(msgs, kind="stable")
    at = np.searchsorted(msgs[order], images.column("msg").to_numpy())
    at = np.minimum(at, len(msgs) - 1)
    found = msgs[order][at] == images.column("msg").to_numpy()
    cps = heads.column("codepage").take(pa.array(order[at], mask=~found))
    return images.append_column("_codepage", cps)


