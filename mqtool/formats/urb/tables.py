"""The tables of ``extract urb``: their schemas (from the declarations) and the element
tables of both walkers — ``column_tables`` (the columnar walker) and ``span_tables``
(span-decoded units) give the same rows."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, cast

import pyarrow as pa

from mqtool.formats.urb.bulk import decode_columns
from mqtool.formats.urb.layout import (
    ELEMENTS,
    layouts,
)
from mqtool.layout import Layout
from mqtool.model import EYE, HEX, RESERVED, STCK, TEXT, Decoded, Problem
from mqtool.tod import tod_to_unix_micros

TABLES = ("messages", "transactions", "records", "images", "status", "errors", "changes")
ELEMENT_TABLES = {"URBH": "messages", "URBT": "transactions", "URBR": "records", "URBD": "images",
                  "URBS": "status"}
TS = pa.timestamp("us", tz="UTC")
# offset: in the input read as one stream of URB messages (a raw file; a queue dump's bodies
# back to back in dump order); msg: the URB message's number in the input, from 0;
# dump_message: the queue-dump message (1-based) the row's bytes lie in, None for raw input
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
    return None if raw == 0 else tod_to_unix_micros(raw)


def column_tables(data: bytes, file: str, base: int = 0, msg_base: int = 0,
                  dump: Callable[[int], Provenance] | None = None,
                  ) -> tuple[dict[str, pa.Table], list[Decoded]]:
    """Element tables of ``data`` from the columnar walker (``TYPES`` it takes), and the
    messages it left to the span decoder. ``base``: stream offset of ``data``; ``dump(offset)``
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
        msg = cast(int, unit.attrs.get("msg", k))  # its number in the input (bulk paths)
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
                           error=_described(unit.errors[0], base) if unit.errors else None)
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


def _described(problem: Problem, base: int) -> str:
    """A problem in words, its offset in the input (``base``: where the decoded bytes start)."""
    return Problem(problem.path, problem.offset + base, problem.reason).describe()
