"""Event Replicator output to change tables: ``extract urb``.

Inputs are raw streams of back-to-back URB messages, queue dumps of every kind (each
message body one or more URB messages) and directories of either. Messages go through the
columnar walker (``bulk.decode_columns``); the messages it leaves to the span decoder are
turned into the same rows (``span_tables``), so both paths give one table per element type
with the columns the declarations give (``schema``). From those come the output tables:

* ``messages``     one row per URBH, with provenance (file, offset, dump message, MsgType, CorrelId)
* ``transactions`` URBT; ``records`` URBR; ``images`` URBD (bytes and text); ``status`` URBS
* ``errors``       file, offset, path, reason, first bytes of what could not be decoded
* ``changes``      one row per record image joined with its record and transaction

Transactions continued over several messages (URBTCONT = Y, then a URBC naming the
subscription, transaction and record) are stitched: records and images after a URBC belong
to the transaction (and record) it names.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mqtool.codepages import codec_name
from mqtool.errors import DecodeError, EnvError, InputError, MqtoolError
from mqtool.formats.urb.bulk import HEADERS, HSIZE, _chain, decode_columns
from mqtool.formats.urb.layout import (
    ASCII_URBH,
    EBCDIC_URBH,
    ELEMENTS,
    FORMAT,
    HEADER_PEEK,
    URBHLENT_AT,
    layouts,
)
from mqtool.formats.urb.meanings import SINGLE_BYTE, ecs_codec
from mqtool.layout import Layout
from mqtool.model import EYE, HEX, RESERVED, STCK, TEXT, Decoded
from mqtool.tod import UNIX_OFFSET_US

TABLES = ("messages", "transactions", "records", "images", "status", "errors", "changes")
OUTPUTS = ("parquet", "jsonl", "csv")
MODES = ("PERMISSIVE", "FAILFAST")
BLOCK = 32 << 20  # raw streams are read in blocks of about this size
BATCH = 8 << 20  # queue-dump bodies are decoded together up to this size
FIRST_BYTES = 32  # bytes of undecodable input kept in an error row
ELEMENT_TABLES = {"URBH": "messages", "URBT": "transactions", "URBR": "records", "URBD": "images",
                  "URBS": "status"}
TS = pa.timestamp("us", tz="UTC")
PROVENANCE = [("file", pa.string()), ("offset", pa.int64()), ("msg", pa.int64()),
              ("dump_message", pa.int64())]


# --------------------------------------------------------------------------- schemas


class Provenance(NamedTuple):
    """Which queue-dump message a row came from (all None for raw streams)."""

    message: int | None = None
    msgtype: int | None = None
    correlid: str | None = None



def _field_columns(layout: Layout) -> list[tuple[str, pa.DataType, str, str | None]]:
    """(column, type, kind, field) of every field of a layout but eyecatchers and fillers;
    STCK fields give a timestamp and ``<name>_raw``, fields with a meaning ``<name>_meaning``."""
    out: list[tuple[str, pa.DataType, str, str | None]] = []
    for f in layout.fields:
        if f.kind in (RESERVED, EYE):
            continue
        if f.kind == STCK:
            out += [(f.name, TS, STCK, f.name), (f"{f.name}_raw", pa.uint64(), "raw", f.name)]
            continue
        typ = pa.string() if f.kind == TEXT else pa.binary() if f.kind == HEX else pa.int64()
        out.append((f.name, typ, f.kind, f.name))
        if f.meaning is not None:
            out.append((f"{f.name}_meaning", pa.string(), "meaning", f.name))
    return out


def element_layout(etype: str) -> Layout:
    """The declaration a table of ``etype`` is made from (the newest generation)."""
    rule = ELEMENTS.get(etype)
    lay = layouts()
    return getattr(lay, rule.layouts[-1]) if rule else lay.URBH


def element_schema(etype: str) -> pa.Schema:
    cols = [pa.field(n, t) for n, t, _k, _f in _field_columns(element_layout(etype))]
    extra = []
    if etype == "URBH":
        extra = [pa.field("length", pa.int64()), pa.field("codepage", pa.string()),
                 pa.field("byte_order", pa.string()), pa.field("msgtype", pa.int64()),
                 pa.field("correlid", pa.string()), pa.field("error", pa.string())]
    if etype == "URBD":
        extra = [pa.field("urbddata", pa.binary())]
    return pa.schema([pa.field(n, t) for n, t in PROVENANCE] + cols + extra)


ERRORS_SCHEMA = pa.schema([pa.field(n, t) for n, t in PROVENANCE]
                          + [pa.field("path", pa.string()), pa.field("reason", pa.string()),
                             pa.field("first_bytes", pa.string())])
CHANGES_SCHEMA = pa.schema([
    ("file", pa.string()), ("offset", pa.int64()), ("msg", pa.int64()), ("dump_message", pa.int64()),
    ("transaction", pa.int64()), ("subscription", pa.string()), ("dbid", pa.int64()),
    ("file_number", pa.int64()), ("isn", pa.int64()), ("record_type", pa.string()),
    ("record_type_meaning", pa.string()), ("image_type", pa.string()),
    ("image_type_meaning", pa.string()), ("transaction_number", pa.int64()),
    ("initial_state", pa.string()), ("transaction_time", TS), ("record_time", TS),
    ("record_number", pa.int64()), ("image_number", pa.int64()), ("image", pa.binary()),
    ("image_text", pa.string()), ("image_codepage", pa.string())])


def schema(table: str) -> pa.Schema:
    """The schema of one output table."""
    if table == "errors":
        return ERRORS_SCHEMA
    if table == "changes":
        return CHANGES_SCHEMA
    etype = next(e for e, t in ELEMENT_TABLES.items() if t == table)
    sch = element_schema(etype)
    if table in ("transactions", "records"):  # the stitched transaction (changes.transaction)
        sch = sch.append(pa.field("transaction", pa.int64()))
    return sch


# --------------------------------------------------------------------------- element tables


def _micros(raw: int) -> int | None:
    return None if raw == 0 else (raw >> 12) - UNIX_OFFSET_US


def column_tables(data: bytes, file: str, base: int = 0, msg_base: int = 0,
                  dump: Callable[[int], Provenance] | None = None,
                  ) -> tuple[dict[str, pa.Table], list[Decoded]]:
    """Element tables of ``data`` from the columnar walker (``TYPES`` it takes), and the
    messages it left to the span decoder. ``base``: file offset of ``data``; ``dump(offset)``
    gives (dump message, MsgType, CorrelId) of the body an offset lies in."""
    cols = decode_columns(data)
    out: dict[str, pa.Table] = {}
    heads = cols.tables.get("URBH")
    for etype, table in cols.tables.items():
        if etype not in ELEMENT_TABLES and etype not in ("URBC", "URBE"):
            continue
        sch = element_schema(etype)
        n = table.num_rows
        offs = table.column("offset")
        arrays: dict[str, pa.Array] = {
            "file": pa.array([file] * n, pa.string()),
            "offset": pa.compute.add(offs.cast(pa.int64()), base),
            "msg": pa.compute.add(table.column("msg").cast(pa.int64()), msg_base),
        }
        provenance = [dump(o) for o in offs.to_pylist()] if dump else None
        arrays["dump_message"] = pa.array([p.message for p in provenance] if provenance else [None] * n,
                                          pa.int64())
        for f in sch:
            if f.name in arrays:
                continue
            if f.name in table.column_names:
                arrays[f.name] = table.column(f.name).cast(f.type)
            elif etype == "URBH" and f.name in ("length", "codepage", "byte_order"):
                m = cols.messages
                arrays[f.name] = m.column(f.name).cast(f.type)  # type: ignore[union-attr]
            elif etype == "URBH" and f.name in ("msgtype", "correlid") and provenance:
                arrays[f.name] = pa.array([getattr(p, f.name) for p in provenance],
                                          f.type)
            else:
                arrays[f.name] = pa.nulls(n, f.type)
        out[etype] = pa.table(arrays, schema=sch)
    del heads
    return out, cols.irregular


def span_tables(units: Iterable[Decoded], file: str, base: int = 0, msg_base: int = 0,
                dump: Callable[[int], Provenance] | None = None,
                ) -> dict[str, pa.Table]:
    """The same element tables from span-decoded units (complete elements only; a message
    with errors keeps its complete elements, its URBH row says what went wrong)."""
    rows: dict[str, list[dict[str, Any]]] = {}
    for k, unit in enumerate(units):
        msg = unit.attrs.get("msg", k)
        prov = dump(unit.offset) if dump else Provenance()
        for el in unit.elements:
            if el.type not in ELEMENT_TABLES and el.type not in ("URBC", "URBE"):
                continue
            layout = element_layout(el.type)
            spans = {s.name: s for s in el.spans}
            if any(f.name not in spans for f in layout.fields if f.kind != RESERVED):
                continue  # a partial element: its message's error row says why
            row: dict[str, Any] = {"file": file, "offset": el.offset + base, "msg": msg + msg_base,
                                   "dump_message": prov.message}
            for name, _t, kind, fname in _field_columns(layout):
                s = spans[fname]  # type: ignore[index]
                if kind == STCK:
                    row[name] = _micros(s.value.raw)  # type: ignore[attr-defined]
                elif kind == "raw":
                    row[name] = s.value.raw  # type: ignore[attr-defined]
                elif kind == "meaning":
                    row[name] = s.meaning
                else:
                    row[name] = s.value
            if el.type == "URBH":
                row.update(length=unit.length, codepage=unit.attrs.get("codepage"),
                           byte_order=unit.attrs.get("byte_order"), msgtype=prov.msgtype,
                           correlid=prov.correlid,
                           error=unit.errors[0].describe() if unit.errors else None)
            if el.type == "URBD":
                row["urbddata"] = el.data if el.data is not None else b""
            rows.setdefault(el.type, []).append(row)
    out = {}
    for etype, rs in rows.items():
        sch = element_schema(etype)
        for r in rs:
            for f in sch:
                if f.type == TS and r.get(f.name) is not None:
                    r[f.name] = pa.scalar(r[f.name], pa.int64()).cast(TS)
        out[etype] = pa.Table.from_pylist(rs, schema=sch)
    return out


# --------------------------------------------------------------------------- stitching


@dataclass
class Stitch:
    """Transactions and records across messages: ids, and the continued ones still open."""

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
    return table.column(name).to_numpy().astype(np.int64)


def _last_before(keys: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Index of the last ``keys`` value below each ``at`` (-1: none); ``keys`` sorted."""
    return np.searchsorted(keys, at) - 1


def _changes_columnar(tables: dict[str, pa.Table], state: Stitch) -> tuple[pa.Table, pa.Array, pa.Array]:
    t, r, d, e = (tables.get(k) for k in ("URBT", "URBR", "URBD", "URBE"))
    t_off, t_msg = _np(t, "offset"), _np(t, "msg")
    r_off, r_msg = _np(r, "offset"), _np(r, "msg")
    d_off, d_msg = _np(d, "offset"), _np(d, "msg")
    e_off = _np(e, "offset")
    tx_ids = state.transactions + 1 + np.arange(len(t_off))
    state.transactions += len(t_off)
    rec_ids = state.records + 1 + np.arange(len(r_off))
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
    d_tx = np.where(d_rec >= 0, r_tx[np.maximum(d_rec, 0)] if len(r_tx) else -1, -1)
    if t is not None:  # continued transactions stay open for the URBC of a later part
        cont = np.nonzero(np.asarray(t.column("urbtcont").to_pylist(), object) == "Y")[0]
        for k in cont.tolist():
            row = t.slice(k, 1).to_pylist()[0]
            state.open_tx[(row["urbtsnam"], row["urbttsnr"])] = (int(tx_ids[k]), row)
            for j in np.nonzero(r_tx == k)[0].tolist():
                rrow = r.slice(j, 1).to_pylist()[0]  # type: ignore[union-attr]
                state.last_records[(int(tx_ids[k]), rrow["urbrrsnr"])] = (int(rec_ids[j]), rrow)
    n = len(d_off)
    img_ids = state.images + 1 + np.arange(n)
    state.images += n

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


def _changes_stitched(tables: dict[str, pa.Table], state: Stitch) -> tuple[pa.Table, pa.Array, pa.Array]:
    seq: list[tuple[int, int, str, dict[str, Any]]] = []
    for etype in ("URBT", "URBR", "URBD", "URBC", "URBE"):
        t = tables.get(etype)
        if t is None:
            continue
        for i, row in enumerate(t.to_pylist()):
            seq.append((row["offset"], i, etype, row))
    seq.sort(key=lambda item: (item[-1]["file"], item[0]))
    tx_of_t = [0] * (tables["URBT"].num_rows if "URBT" in tables else 0)
    tx_of_r = [0] * (tables["URBR"].num_rows if "URBR" in tables else 0)
    out: list[dict[str, Any]] = []
    tx: tuple[int, dict[str, Any]] | None = None
    rec: tuple[int, dict[str, Any]] | None = None
    msg = None
    for _off, i, etype, row in seq:
        if row["msg"] != msg:  # a new message: nothing carries over but by a URBC
            msg, tx, rec = row["msg"], None, None
        if etype == "URBT":
            state.transactions += 1
            tx, rec = (state.transactions, row), None
            tx_of_t[i] = state.transactions
            if row.get("urbtcont") == "Y":
                state.open_tx[(row["urbtsnam"], row["urbttsnr"])] = tx
        elif etype == "URBC":
            key = (row["urbcsnam"], row["urbctsnr"])
            tx = state.open_tx.get(key)
            rec = state.last_records.get((tx[0], row["urbcrsnr"])) if tx else None
            if tx is not None and row.get("urbccont") != "Y":
                state.open_tx.pop(key, None)
        elif etype == "URBE":
            if tx is not None:
                state.open_tx.pop((tx[1]["urbtsnam"], tx[1]["urbttsnr"]), None)
            tx, rec = None, None
        elif etype == "URBR":
            state.records += 1
            rec = (state.records, row)
            tx_of_r[i] = tx[0] if tx else 0
            if tx is not None:
                state.last_records[(tx[0], row["urbrrsnr"])] = rec
        elif etype == "URBD":
            state.images += 1
            out.append(_change(row, tx, rec, state.images))
    keep = {k for k, _ in state.open_tx.values()}
    state.last_records = {k: v for k, v in state.last_records.items() if k[0] in keep}
    return (pa.Table.from_pylist(out, schema=CHANGES_SCHEMA),
            pa.array([t or None for t in tx_of_t], pa.int64()),
            pa.array([t or None for t in tx_of_r], pa.int64()))


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


# --------------------------------------------------------------------------- inputs


@dataclass
class Part:
    """Bytes decoded as one stream: a block of a raw file, or queue-dump bodies."""

    file: str
    data: bytes
    base: int = 0  # file offset of data[0] (raw files)
    bodies: list[tuple[int, int, int | None, str | None]] = field(default_factory=list)
    # (start in data, dump message number, MsgType, CorrelId hex) of each dump body

    def dump(self) -> Callable[[int], Provenance] | None:
        if not self.bodies:
            return None
        import bisect

        starts = [b[0] for b in self.bodies]

        def where(offset: int) -> Provenance:
            _start, *where = self.bodies[bisect.bisect_right(starts, offset) - 1]
            return Provenance(*where)

        return where


def _natural(name: str) -> list[object]:
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", name)]


def input_files(paths: Iterable[str]) -> Iterator[str]:
    """Files and directories (walked in natural order; an mqtool queue-dump directory is
    one input)."""
    for path in paths:
        p = Path(path)
        if not p.exists():
            raise InputError(f"{path}: no such file or directory")
        if p.is_dir():
            if (p / "index.jsonl").is_file():
                yield path
                continue
            inner = sorted((c for c in p.iterdir() if not c.name.startswith(".")),
                           key=lambda c: _natural(c.name))
            yield from input_files(str(c) for c in inner if c.is_dir() or c.is_file())
        elif p.is_file():
            yield path
        else:
            raise InputError(f"{path}: not a regular file (a FIFO or device is not read)")


def _kind(path: str) -> str:
    """``raw`` (URB messages) or the queue-dump kind."""
    from mqtool.formats.mq.dumps.read import sniff

    if Path(path).is_dir():
        return "mqtool-dir"
    with open(path, "rb") as f:
        head = f.read(65536)
    if head[:len(EBCDIC_URBH)] in (EBCDIC_URBH, ASCII_URBH):
        return "raw"
    kind = sniff(head)
    if kind is None and _is_dump_text(head):
        return "dump-text"
    return kind or "raw"


def _is_dump_text(head: bytes) -> bool:
    """Hex dump text (the documents' style, xxd, hexdump -C, plain hex) of URB messages."""
    from mqtool.io.undump import undump

    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        return False
    try:
        data = undump(text)
    except MqtoolError:
        return False
    return data[:len(EBCDIC_URBH)] in (EBCDIC_URBH, ASCII_URBH)


def _chain_end(data: bytes, off: int, stop: int) -> int:
    """How far regular headers chain from ``off`` (by URBHLENT) without passing ``stop``."""
    while off < stop:
        h = data[off:off + HEADER_PEEK]
        cs_big = _PREFIXES.get(h[:URBHLENT_AT])
        if cs_big is None:
            return off
        lent = int.from_bytes(h[URBHLENT_AT:], "big" if cs_big[1] else "little")
        if lent < HSIZE or off + lent > stop:
            return off
        off += lent
    return off


_PREFIXES = {v: k for k, v in HEADERS.items()}


def resync(data: bytes, start: int) -> int:
    """The next offset after ``start`` where a regular URBH chains to the next one (or to
    the end of ``data``); ``len(data)`` when there is none."""
    n = len(data)
    pos = start + 1
    while pos < n:
        hits = [i for i in (data.find(EBCDIC_URBH, pos), data.find(ASCII_URBH, pos)) if i >= 0]
        if not hits:
            return n
        cand = min(hits)
        nxt = _chain_end(data, cand, n)
        if nxt > cand and (nxt == n or _chain_end(data, nxt, n) > nxt):
            return cand
        pos = cand + 1
    return n


def raw_parts(path: str, block: int = BLOCK) -> Iterator[tuple[Part, int]]:
    """A raw stream in blocks cut at message boundaries (bytes read so far with each); a
    damaged stretch is cut off at the next regular header (``resync``). One block ahead is
    read, so a file that fits a block is never walked twice."""
    with open(path, "rb") as f:
        carry, base = b"", 0
        chunk = f.read(block)
        done = len(chunk)
        while True:
            ahead = f.read(block)
            data = carry + chunk
            if not ahead:  # the end: the rest, however it ends
                if data:
                    yield Part(path, data, base), done
                return
            done += len(ahead)
            offs, lens, _big, _cs = _chain(data, None)  # regular messages from the start
            cut = offs[-1] + lens[-1] if offs else 0
            if cut == 0:  # damage (or a message longer than a block) at the start
                cut = resync(data, 0)
                if cut >= len(data):
                    cut = max(1, len(data) - HEADER_PEEK)
            yield Part(path, data[:cut], base), done
            base += cut
            carry, chunk = data[cut:], ahead


def dump_parts(path: str, progress: Callable[[int], None] | None = None,
               batch: int = BATCH) -> Iterator[tuple[Part, list[Any]]]:
    """Queue-dump bodies, batched; with each batch the dump's unusable-message problems."""
    from mqtool.formats.mq.dumps.read import QueueDump

    dump = QueueDump(path, progress=progress)
    part = Part(path, b"")
    chunks: list[bytes] = []
    size = 0
    seen = 0
    for msg in dump:
        body = msg.body
        cid = msg.correlid.hex().upper() if msg.correlid else None
        part.bodies.append((size, msg.position, msg.msgtype, cid))
        chunks.append(body)
        size += len(body)
        if size >= batch:
            part.data = b"".join(chunks)
            yield part, dump.errors[seen:]
            seen = len(dump.errors)
            part, chunks, size = Part(path, b""), [], 0
    if chunks or not part.bodies:
        part.data = b"".join(chunks)
        yield part, dump.errors[seen:]


# --------------------------------------------------------------------------- the run


@dataclass
class Summary:
    """What an extraction read and wrote (``_summary.json``)."""

    mode: str = "PERMISSIVE"
    files: list[str] = field(default_factory=list)
    bytes: int = 0
    rows: Counter[str] = field(default_factory=Counter)
    errors_by_reason: Counter[str] = field(default_factory=Counter)
    first_error: str = ""
    output: str = ""
    format: str = "parquet"

    @property
    def errors(self) -> int:
        return self.rows["errors"]

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"mode": self.mode, "files": self.files, "bytes": self.bytes,
                             "rows": {t: self.rows[t] for t in TABLES},
                             "errors_by_reason": dict(sorted(self.errors_by_reason.items())),
                             "output": self.output, "format": self.format}
        if self.first_error:
            d["first_error"] = self.first_error
        return d


class _Writers:
    """One output file per table, written under a temporary name and renamed at the end."""

    def __init__(self, outdir: Path, fmt: str, force: bool) -> None:
        self.outdir, self.fmt = outdir, fmt
        self.final = {t: outdir / f"{t}.{fmt}" for t in TABLES}
        if not force:
            there = [str(p) for p in self.final.values() if p.exists()]
            if there:
                from mqtool.io.outputs import OutputExistsError

                raise OutputExistsError(f"{there[0]} exists (use --force to overwrite)")
        self.tmp = {t: outdir / f".{t}.{fmt}.partial" for t in TABLES}
        self.open: dict[str, Any] = {}

    def write(self, name: str, table: pa.Table) -> None:
        table = table.cast(schema(name))
        w = self.open.get(name)
        path = self.tmp[name]
        try:
            if self.fmt == "parquet":
                import pyarrow.parquet as pq

                if w is None:
                    w = self.open[name] = pq.ParquetWriter(path, table.schema)
                w.write_table(table)
            elif self.fmt == "csv":
                import pyarrow.csv as pcsv

                if w is None:
                    w = self.open[name] = pcsv.CSVWriter(str(path), _csv_schema(table.schema))
                w.write_table(_csv_table(table))
            else:
                if w is None:
                    w = self.open[name] = open(path, "w", encoding="utf-8")  # noqa: SIM115
                for row in table.to_pylist():
                    w.write(json.dumps(_json_row(row), ensure_ascii=False))
                    w.write("\n")
        except OSError as e:
            raise EnvError(f"{path}: {e.strerror}") from None

    def commit(self) -> None:
        for name in TABLES:
            if name not in self.open:
                self.write(name, schema(name).empty_table())
        self._close()
        for name in TABLES:
            os.replace(self.tmp[name], self.final[name])

    def abort(self) -> None:
        self._close()
        for p in self.tmp.values():
            if p.exists():
                p.unlink()

    def _close(self) -> None:
        for w in self.open.values():
            w.close()
        self.open.clear()


def _csv_schema(sch: pa.Schema) -> pa.Schema:
    return pa.schema([pa.field(f.name, pa.string() if pa.types.is_binary(f.type) else f.type)
                      for f in sch])


def _csv_table(table: pa.Table) -> pa.Table:
    cols = []
    for f, col in zip(table.schema, table.columns, strict=True):
        if pa.types.is_binary(f.type):
            col = pa.array([None if v is None else v.hex().upper() for v in col.to_pylist()],
                           pa.string())
        cols.append(col)
    return pa.table(cols, schema=_csv_schema(table.schema))


def _json_row(row: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for k, v in row.items():
        if isinstance(v, bytes):
            v = v.hex().upper()
        elif hasattr(v, "isoformat"):
            v = v.isoformat().replace("+00:00", "Z")
        out[k] = v
    return out


def extract(paths: Iterable[str], outdir: str, fmt: str = "parquet", mode: str = "PERMISSIVE",
            force: bool = False, progress: Callable[[int], None] | None = None,
            codepage: str | None = None, leap_seconds: int = 0) -> Summary:
    """Decode every URB message of ``paths`` into the tables of ``TABLES`` in ``outdir``
    (one file each, ``<table>.<fmt>``). FAILFAST: ``DecodeError`` at the first message that
    does not decode cleanly, and no table is written. ``leap_seconds``: timestamps that
    many seconds earlier (``<field>_raw`` unchanged)."""
    if isinstance(leap_seconds, bool) or not isinstance(leap_seconds, int) or not 0 <= leap_seconds <= 60:
        raise InputError(f"leap seconds: {leap_seconds!r} is not 0..60")
    if fmt not in OUTPUTS:
        raise InputError(f"output format {fmt!r}: give one of {', '.join(OUTPUTS)}")
    mode = mode.upper()
    if mode not in MODES:
        raise InputError(f"mode {mode!r}: give one of {', '.join(MODES)}")
    if codepage is not None:
        codec_name(codepage)
    files = list(input_files(paths))
    if not files:
        raise InputError("no input files")
    out = Path(outdir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise EnvError(f"{outdir}: cannot create output directory: {e.strerror}") from None
    if not os.access(out, os.W_OK):
        raise EnvError(f"{outdir}: output directory is not writable")
    summary = Summary(mode=mode, files=files, output=str(out), format=fmt)
    writers = _Writers(out, fmt, force)
    done_before = 0
    state = Stitch()  # ids run over the whole extraction; continuations stay in their file
    try:
        for path in files:
            size = 0 if Path(path).is_dir() else os.path.getsize(path)

            def advance(n: int, before: int = done_before) -> None:
                if progress:
                    progress(before + n)

            extract_file(path, writers, summary, state, mode, leap_seconds, advance)
            summary.bytes += size
            done_before += size
        writers.commit()
    except BaseException:
        writers.abort()
        raise
    return summary


def extract_file(path: str, writers: Any, summary: Summary, state: Stitch, mode: str = "PERMISSIVE",
                 leap_seconds: int = 0, progress: Callable[[int], None] | None = None) -> None:
    """One input (a raw stream, a queue dump, dump text, an mqtool directory) through the
    tables: ``writers.write(table, rows)`` for each part; ``state`` carries the ids."""
    state.open_tx.clear()  # continuations stay in their file
    state.last_records.clear()
    msg_base = 0
    kind = _kind(path)
    if kind == "dump-text":
        from mqtool.io.undump import undump

        with open(path, encoding="utf-8", errors="replace") as f:
            part = Part(path, undump(f.read()))
        _part(part, state, msg_base, writers, summary, mode, [], leap_seconds)
    elif kind == "raw":
        for part, done in raw_parts(path):
            msg_base = _part(part, state, msg_base, writers, summary, mode, [], leap_seconds)
            if progress:
                progress(done)
    else:
        for part, bad in dump_parts(path, progress):
            msg_base = _part(part, state, msg_base, writers, summary, mode, bad, leap_seconds)


class Collect:
    """A writer that keeps the tables in memory (the Spark reader's, tests')."""

    def __init__(self) -> None:
        self.tables: dict[str, list[pa.Table]] = {}

    def write(self, name: str, table: pa.Table) -> None:
        self.tables.setdefault(name, []).append(table.cast(schema(name)))

    def table(self, name: str) -> pa.Table:
        parts = self.tables.get(name)
        return pa.concat_tables(parts) if parts else schema(name).empty_table()


def extract_tables(path: str, mode: str = "PERMISSIVE", leap_seconds: int = 0,
                   state: Stitch | None = None) -> tuple[Collect, Summary]:
    """The tables of one input, in memory."""
    out, summary = Collect(), Summary(mode=mode, files=[path])
    extract_file(path, out, summary, state or Stitch(), mode, leap_seconds)
    return out, summary


def _part(part: Part, state: Stitch, msg_base: int, writers: _Writers, summary: Summary,
          mode: str, dump_errors: list[Any], leap_seconds: int = 0) -> int:
    """Decode, stitch and write one part; returns the next message number."""
    data, file = part.data, part.file
    dump = part.dump()
    tables: dict[str, list[pa.Table]] = {}
    errors: list[dict[str, Any]] = []
    for p in dump_errors:
        errors.append({"file": file, "offset": p.offset, "msg": None, "dump_message": None,
                       "path": p.path, "reason": p.reason, "first_bytes": None})
    pos, msgs = 0, msg_base
    while pos < len(data):
        view = data[pos:]
        cols, irregular = column_tables(view, file, part.base + pos, msgs, _shift(dump, pos))
        for etype, t in cols.items():
            tables.setdefault(etype, []).append(t)
        stop = len(view)
        if irregular:
            last = irregular[-1]
            regular_end = max(pa.compute.max(cols["URBH"].column("offset")).as_py() - part.base - pos
                              if "URBH" in cols and cols["URBH"].num_rows else -1, -1)
            if last.errors and last.offset > regular_end:  # the walk stopped here: resynchronise
                stop = resync(view, last.offset)
                last.length = stop - last.offset
                if stop < len(view):
                    _resynced(last, part.base + pos + stop)
        spans = span_tables(irregular, file, part.base + pos, msgs, _shift(dump, pos))
        for etype, t in spans.items():
            tables.setdefault(etype, []).append(t)
        for u in irregular:
            for p in u.errors:
                first = view[u.offset:u.offset + min(u.length, FIRST_BYTES)]
                d = dump(pos + u.offset) if dump else Provenance()
                errors.append({"file": file, "offset": part.base + pos + p.offset,
                               "msg": msgs + int(u.attrs.get("msg", 0)), "dump_message": d.message,
                               "path": p.path, "reason": p.reason, "first_bytes": first.hex().upper()})
        n_msgs = (cols["URBH"].num_rows if "URBH" in cols else 0) + len(irregular)
        msgs += n_msgs
        pos += stop
    merged = {e: _concat(ts, e) for e, ts in tables.items()}
    if leap_seconds:
        merged = {e: _earlier(t, leap_seconds) for e, t in merged.items()}
    for e in ("URBT", "URBR", "URBD"):
        if e in merged:
            merged[e] = merged[e].sort_by([("offset", "ascending")])
    if "URBD" in merged and "URBH" in merged:
        merged["URBD"] = _with_codepage(merged["URBD"], merged["URBH"])
    change, tx_t, tx_r = changes(merged, state)
    if errors:
        summary.errors_by_reason.update(_reason_key(e["reason"]) for e in errors)
        if not summary.first_error:
            e = errors[0]
            summary.first_error = (f"{e['reason']} at {e['path']}, offset X'{e['offset']:04X}' "
                                   f"({e['offset']}) in {file}")
        if mode == "FAILFAST":
            e = errors[0]
            raise DecodeError(FORMAT, f"{file}: {e['path']}", e["offset"], f"{e['reason']} (mode FAILFAST)")
    out = {"messages": merged.get("URBH"), "status": merged.get("URBS"),
           "transactions": _add(merged.get("URBT"), "transaction", tx_t),
           "records": _add(merged.get("URBR"), "transaction", tx_r),
           "images": _drop(merged.get("URBD"), "_codepage"), "changes": change,
           "errors": pa.Table.from_pylist(errors, schema=ERRORS_SCHEMA)}
    for name, t in out.items():
        if t is None or t.num_rows == 0:
            continue
        if name in ("messages", "status"):
            t = t.sort_by([("offset", "ascending")])
        writers.write(name, t)
        summary.rows[name] += t.num_rows
    return msgs


def _earlier(table: pa.Table, seconds: int) -> pa.Table:
    """Every timestamp column ``seconds`` earlier (a TOD clock that counts leap seconds)."""
    from datetime import timedelta

    for i, f in enumerate(table.schema):
        if f.type == TS:
            shifted = pc.subtract(table.column(i), pa.scalar(timedelta(seconds=seconds), pa.duration("us")))
            table = table.set_column(i, f, shifted.cast(TS))
    return table


def _resynced(unit: Decoded, nxt: int) -> None:
    """Say where reading went on after a stretch that is no message (its errors' reasons
    spoke of everything after it)."""
    from mqtool.model import Problem

    unit.errors = [Problem(p.path, p.offset,
                           (f"{unit.length} bytes are not a URB message" if p.path == "urbh.urbheye"
                            else p.reason) + f"; reading resumes at the next message, offset {nxt}")
                   for p in unit.errors]


def _shift(dump: Callable[[int], Any] | None, pos: int) -> Callable[[int], Any] | None:
    if dump is None:
        return None
    return lambda off: dump(off + pos)


def _concat(tables: list[pa.Table], etype: str) -> pa.Table:
    return tables[0] if len(tables) == 1 else pa.concat_tables(tables)


def _with_codepage(images: pa.Table, heads: pa.Table) -> pa.Table:
    """Each image's message code page (for the image text when URBTACOD names none)."""
    msgs = heads.column("msg").to_numpy()
    order = np.argsort(msgs, kind="stable")
    at = np.searchsorted(msgs[order], images.column("msg").to_numpy())
    at = np.minimum(at, len(msgs) - 1)
    found = msgs[order][at] == images.column("msg").to_numpy()
    cps = heads.column("codepage").take(pa.array(order[at], mask=~found))
    return images.append_column("_codepage", cps)


def _add(table: pa.Table | None, name: str, values: pa.Array) -> pa.Table | None:
    if table is None:
        return None
    return table.append_column(name, values)


def _drop(table: pa.Table | None, name: str) -> pa.Table | None:
    if table is None or name not in table.column_names:
        return table
    return table.drop_columns([name])


def _reason_key(reason: str) -> str:
    """A key for counting errors by reason: the first clause, values replaced by N."""
    clause = re.split(r"[:;(]", reason, maxsplit=1)[0]
    return re.sub(r"X'[0-9A-Fa-f]*'|'[^']*'|-?\d+", "N", clause).strip() or reason


def check_codepage(name: str) -> str:
    try:
        return codec_name(name)
    except LookupError as e:
        raise MqtoolError(str(e)) from None


