"""Typed change tables: the ``changes`` rows of ``extract urb`` (one per record image, the
image as bytes) to one table per (database, file) with the Adabas fields as columns.

One row per record (URBR): its change type (URBRTYP: I insert, U update, D delete, R
initial state), ISN, transaction and times, and the decoded images as two structs,
``before`` (URBDTYP B) and ``after`` (A), each with one field per Adabas field (the long
name, the short name where none is known). Structs rather than ``before_``/``after_``
prefixed columns: the field names stay exactly the Adabas names (no prefix can collide with
one), "no image" is one null struct rather than a row of null columns, and ``after`` is the
row of the current-state table as it is (``apply``). DuckDB, Spark and pyarrow read them as
``after.NAME``; ``SELECT after.*`` flattens them. A before image of the primary key (K) is
kept as bytes (``key_image``): it has a layout of its own.

How an image's values are encoded (``encoding_of``; Event Replicator URBT): the
architecture key URBTARC when set (1 low-order byte first, 2 EBCDIC, 4 VAX floating point,
8 IEEE floating point, else IBM System/370 hexadecimal), else the database's native form,
told by the message: an EBCDIC message comes from z/OS (high-order byte first, IBM
hexadecimal floating point, EBCDIC zoned signs), an ASCII message from an open system (the
message's byte order, IEEE floating point). A fields: URBTACOD's code page when set, else the
message's. W fields: URBTWCOD's encoding when set (UTF-16 in the image's byte order), else
UTF-16 big-endian on EBCDIC streams and UTF-8 on ASCII ones (inferred: Adabas's default W
encoding; ``wide_codec`` overrides).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mqtool.codepages import is_ebcdic
from mqtool.formats.urb.layout import layouts as urb_layouts
from mqtool.formats.urb.meanings import ecs_codec
from mqtool.formats.urb.tables import ERRORS_SCHEMA, TS
from mqtool.formats.urb.typed.images import decode_images
from mqtool.formats.urb.typed.layout import RecordLayout
from mqtool.formats.urb.typed.sources import Key, Layouts
from mqtool.formats.urb.typed.values import Encoding

ARC_SWAPPED, ARC_EBCDIC, ARC_VAX, ARC_IEEE = 1, 2, 4, 8  # the OP command's architecture key
IMAGE_SIDES = {"B": "before", "A": "after"}
KEY_IMAGE = "K"

RECORD_COLUMNS = [
    ("file", pa.string()), ("offset", pa.int64()), ("msg", pa.int64()), ("dump_message", pa.int64()),
    ("transaction", pa.int64()), ("subscription", pa.string()), ("dbid", pa.int64()),
    ("file_number", pa.int64()), ("isn", pa.int64()), ("record_type", pa.string()),
    ("record_type_meaning", pa.string()), ("transaction_number", pa.int64()),
    ("initial_state", pa.string()), ("transaction_time", TS), ("record_time", TS),
    ("record_number", pa.int64()), ("layout", pa.string())]


def encoding_of(arc: int | None, acod: int | None, wcod: int | None, message_codepage: str,
                message_big: bool, keep_blanks: bool = False, wide_codec: str | None = None) -> Encoding:
    """How one image's values are encoded (the rule in the module docstring)."""
    msg_ebcdic = is_ebcdic(message_codepage)
    if arc:
        big, ebcdic = not arc & ARC_SWAPPED, bool(arc & ARC_EBCDIC)
        floats = "ieee" if arc & ARC_IEEE else "vax" if arc & ARC_VAX else "ibm"
    else:
        ebcdic = msg_ebcdic
        big = True if msg_ebcdic else message_big
        floats = "ibm" if msg_ebcdic else "ieee"
    acodec = ecs_codec(acod or 0) or (message_codepage if msg_ebcdic == ebcdic
                                      else "cp037" if ebcdic else "latin-1")
    wide = ecs_codec(wcod or 0)
    if wide == "utf-16":
        wide = "utf-16-be" if big else "utf-16-le"
    wcodec = wide_codec or wide or ("utf-16-be" if ebcdic else "utf-8")
    return Encoding(big, floats, ebcdic, acodec, wcodec, keep_blanks)


@dataclass
class TypedChanges:
    """One table per (database, file), the values that failed, and what decided the layouts."""

    tables: dict[Key, pa.Table] = field(default_factory=dict)
    errors: pa.Table = field(default_factory=ERRORS_SCHEMA.empty_table)
    report: list[str] = field(default_factory=list)


def table_name(key: Key) -> str:
    """The output name of a file's typed change table."""
    return f"changes_{key[0]}_{key[1]}"


def _col(t: pa.Table | None, name: str, typ: pa.DataType) -> pa.Array:
    if t is None or name not in t.column_names:
        return pa.nulls(0 if t is None else t.num_rows, typ)
    c = t.column(name)
    return (c.combine_chunks() if isinstance(c, pa.ChunkedArray) else c).cast(typ)


def _keys(t: pa.Table, keys: list[str], files: list[str]) -> np.ndarray:
    """One int64 per row for ``keys`` (``file`` by its index in ``files``)."""
    out = np.zeros(t.num_rows, np.int64)
    for k in keys:
        if k == "file":
            col = pc.index_in(_col(t, "file", pa.string()), value_set=pa.array(files, pa.string()))
            out = out * (1 << 20) + col.fill_null(-1).to_numpy()
        else:
            out = out * (1 << 40) + _col(t, k, pa.int64()).fill_null(-1).to_numpy()
    return out


def _joined(changes: pa.Table, other: pa.Table | None, keys: list[str],
            cols: list[str]) -> dict[str, pa.Array]:
    """Columns of ``other`` for each change row, looked up by ``keys`` (nulls when absent)."""
    n = changes.num_rows
    if other is None or not all(k in other.column_names for k in keys) or not n:
        return {c: pa.nulls(n, pa.int64()) for c in cols}
    files = sorted(set(_col(changes, "file", pa.string()).drop_null().to_pylist())) if "file" in keys else []
    at = pc.index_in(pa.array(_keys(changes, keys, files)), value_set=pa.array(_keys(other, keys, files)))
    out = {}
    for c in cols:
        if c in other.column_names:
            col = other.column(c).combine_chunks()
            if pa.types.is_dictionary(col.type):
                col = col.cast(col.type.value_type)
            out[c] = col.take(at)
        else:
            out[c] = pa.nulls(n, pa.int64())
    return out


def encodings(changes: pa.Table, transactions: pa.Table | None = None, messages: pa.Table | None = None,
              keep_blanks: bool = False, wide_codec: str | None = None) -> tuple[list[Encoding], np.ndarray]:
    """The distinct encodings of the images of ``changes`` and each row's index into them."""
    n = changes.num_rows
    if not n:
        return [], np.zeros(0, np.int64)
    tx = _joined(changes, transactions, ["transaction"], ["urbtarc", "urbtacod", "urbtwcod"])
    msg = _joined(changes, messages, ["file", "msg"], ["byte_order", "codepage"])
    cps = pc.coalesce(msg["codepage"].cast(pa.string()),
                      _col(changes, "image_codepage", pa.string())).fill_null("cp037").dictionary_encode()
    orders = msg["byte_order"].cast(pa.string()).fill_null("big").dictionary_encode()
    columns = [tx[c].cast(pa.int64()).fill_null(0).to_numpy() for c in ("urbtarc", "urbtacod", "urbtwcod")]
    columns += [cps.indices.to_numpy().astype(np.int64), orders.indices.to_numpy().astype(np.int64)]
    key = np.zeros(n, np.int64)
    levels = []
    for col in columns:  # each column's distinct values, then one mixed-radix key a row
        values, inverse = np.unique(col, return_inverse=True)
        levels.append(values)
        key = key * len(values) + inverse.ravel()
    distinct, ids = np.unique(key, return_inverse=True)
    cp_names, order_names = cps.dictionary.to_pylist(), orders.dictionary.to_pylist()
    found = []
    for k in distinct.tolist():
        picked = []
        for values in reversed(levels):
            k, r = divmod(k, len(values))
            picked.append(int(values[r]))
        arc, acod, wcod, cp, o = reversed(picked)
        found.append(encoding_of(arc, acod, wcod, cp_names[cp], order_names[o] == "big", keep_blanks,
                                 wide_codec))
    return found, ids.ravel()


def typed_changes(changes: pa.Table, layouts: Layouts, transactions: pa.Table | None = None,
                  messages: pa.Table | None = None, files: list[str] | None = None,
                  keep_blanks: bool = False, wide_codec: str | None = None) -> TypedChanges:
    """Typed change tables from the ``changes`` table (and, for the encodings, the
    ``transactions`` and ``messages`` tables of the same extraction).

    ``files``: the input files in reading order (a GFFT applies to the images after it,
    also in later files); by default the order they first appear in ``changes``."""
    out = TypedChanges()
    if not changes.num_rows:
        out.report = layouts.report()
        return out
    changes = changes.combine_chunks()
    found, enc_ids = encodings(changes, transactions, messages, keep_blanks, wide_codec)
    names = _col(changes, "file", pa.string())
    order = list(dict.fromkeys((files or []) + pc.unique(names.drop_null()).to_pylist()))
    file_index = pc.index_in(names, value_set=pa.array(order, pa.string())).fill_null(0)
    file_index = file_index.to_numpy().astype(np.int64)
    offsets = _col(changes, "offset", pa.int64()).fill_null(0).to_numpy()
    dbid = _col(changes, "dbid", pa.int64()).fill_null(0).to_numpy()
    fnr = _col(changes, "file_number", pa.int64()).fill_null(0).to_numpy()
    errors: list[pa.Table] = []
    for both in np.unique(dbid * (1 << 32) + fnr).tolist():
        key = (both >> 32, both & 0xFFFFFFFF)
        rows = np.nonzero((dbid == key[0]) & (fnr == key[1]))[0]
        chosen = layouts.assign(key, file_index[rows], offsets[rows])
        typed, errs = _file_table(changes, rows, chosen, found, enc_ids, layouts, key)
        if typed is not None:
            out.tables[key] = typed
        errors += errs
    out.errors = pa.concat_tables(errors) if errors else ERRORS_SCHEMA.empty_table()
    out.report = layouts.report()
    return out


def _file_table(changes: pa.Table, rows: np.ndarray, chosen: list[RecordLayout | None], found: list[Encoding],
                enc_ids: np.ndarray, layouts: Layouts, key: Key) -> tuple[pa.Table | None, list[pa.Table]]:
    """The typed table of one file's change rows ``rows``."""
    sub = changes.take(pa.array(rows))
    kinds = _col(sub, "image_type", pa.string()).fill_null("").to_numpy(zero_copy_only=False)
    if all(c is None for c in chosen):  # one error row for the file, at its first image
        return None, [_error_rows(sub, np.zeros(1, np.int64), np.zeros(1, np.int64), ["image"],
                                  [f"no layout for database {key[0]} file {key[1]}: {len(rows)} images "
                                   f"kept as bytes (give --format-buffer {key[0]}:{key[1]}=... or an FDT)"],
                                  [""], urbd=False)]
    ids = {id(c): c for c in chosen if c is not None}
    layout_of_row = np.array([id(c) if c is not None else 0 for c in chosen], np.int64)
    structs: dict[int, pa.StructType] = {i: c.struct_type() for i, c in ids.items()}
    unified = _unify(list(structs.values()))
    parts: list[tuple[np.ndarray, pa.Array]] = []
    errors: list[pa.Table] = []
    images = _col(sub, "image", pa.binary())
    sided = np.isin(kinds, list(IMAGE_SIDES))
    for lid, layout in ids.items():
        for e in np.unique(enc_ids[rows]).tolist():
            sel = np.nonzero((layout_of_row == lid) & (enc_ids[rows] == e) & sided)[0]
            if not len(sel):
                continue
            arr, fails = decode_images(layout, images.take(pa.array(sel)), found[e])
            layouts.count(layout, len(sel))
            parts.append((sel, _conform(arr, unified)))
            if fails:
                idx = np.array([sel[f.image] for f in fails], np.int64)
                side = [IMAGE_SIDES.get(str(kinds[i]), "image") for i in idx]
                errors.append(_error_rows(sub, idx, np.array([f.offset for f in fails], np.int64),
                                          [f"{s}.{f.path}" for s, f in zip(side, fails, strict=True)],
                                          [f.reason for f in fails], [f.first_bytes for f in fails]))
    missing = np.nonzero(layout_of_row == 0)[0]
    if len(missing):  # images before the file's first table, with no format buffer
        errors.append(_error_rows(sub, missing[:1], np.zeros(1, np.int64), ["image"],
                                  [f"no layout for {len(missing)} images of database {key[0]} file {key[1]} "
                                   f"(before its first GFFT; kept as bytes)"], [""], urbd=False))
    values = _scatter(parts, len(rows), unified)
    return _records(sub, kinds, values, unified, chosen), errors


def _unify(types: list[pa.StructType]) -> pa.StructType:
    """One struct for a file whose layout changed: every field of every layout, in order."""
    if len(types) == 1:
        return types[0]
    seen: dict[str, pa.Field] = {}
    for t in types:
        for f in t:
            if f.name not in seen:
                seen[f.name] = f
            elif seen[f.name].type != f.type:
                seen[f.name] = pa.field(f.name, pa.unify_schemas(
                    [pa.schema([seen[f.name]]), pa.schema([f])], promote_options="permissive")[0].type)
    return pa.struct(list(seen.values()))


def _conform(arr: pa.StructArray, typ: pa.StructType) -> pa.StructArray:
    if arr.type == typ:
        return arr
    children = []
    names = {f.name: i for i, f in enumerate(arr.type)}
    for f in typ:
        children.append(arr.field(names[f.name]).cast(f.type) if f.name in names
                        else pa.nulls(len(arr), f.type))
    return pa.StructArray.from_arrays(children, fields=list(typ), mask=arr.is_null())


def _scatter(parts: list[tuple[np.ndarray, pa.Array]], n: int, typ: pa.StructType) -> pa.Array:
    """Per-row values from the decoded groups (null for rows no group decoded)."""
    if not parts:
        return pa.nulls(n, typ)
    rows = np.concatenate([p[0] for p in parts])
    joined = pa.concat_arrays([p[1] for p in parts])
    where = np.full(n, -1, np.int64)
    where[rows] = np.arange(len(rows))
    return joined.take(pa.array(np.maximum(where, 0), mask=where < 0))


def _records(sub: pa.Table, kinds: np.ndarray, values: pa.Array, typ: pa.StructType,
             chosen: list[RecordLayout | None]) -> pa.Table:
    """One row per record: its images paired by record number, in stream order."""
    n = sub.num_rows
    rec = _col(sub, "record_number", pa.int64())
    recs = np.where(np.asarray(rec.is_null()), -1 - np.arange(n), rec.fill_null(0).to_numpy())
    offs = _col(sub, "offset", pa.int64()).fill_null(0).to_numpy()
    order = np.lexsort((offs, recs))
    first = np.ones(n, bool)
    first[1:] = recs[order][1:] != recs[order][:-1]
    heads = order[first]  # each record's first image
    group = np.cumsum(first) - 1  # record index of each image (in ``order``)
    heads_sorted = np.argsort(offs[heads], kind="stable")
    rank = np.empty(len(heads), np.int64)
    rank[heads_sorted] = np.arange(len(heads))
    heads = heads[heads_sorted]
    image_record = np.empty(n, np.int64)
    image_record[order] = rank[group]
    cols: dict[str, pa.Array] = {}
    for name, t in RECORD_COLUMNS:
        if name == "layout":
            cols[name] = pa.array([chosen[h].source if chosen[h] is not None else None for h in heads], t)
        else:
            cols[name] = _col(sub, name, t).take(pa.array(heads))
    for kind, side in IMAGE_SIDES.items():
        cols[side] = _pick(values, kinds == kind, image_record, len(heads), typ)
    cols["key_image"] = _pick(_col(sub, "image", pa.binary()), kinds == KEY_IMAGE, image_record, len(heads),
                              pa.binary())
    return pa.table(cols)


def _pick(values: pa.Array, which: np.ndarray, image_record: np.ndarray, n: int,
          typ: pa.DataType) -> pa.Array:
    """For each record, the value of its image of one kind (the last one, null when none)."""
    at = np.full(n, -1, np.int64)
    rows = np.nonzero(which)[0]
    at[image_record[rows]] = rows
    return values.take(pa.array(np.maximum(at, 0), mask=at < 0)).cast(typ)


def _error_rows(sub: pa.Table, rows: np.ndarray, offsets: np.ndarray, paths: list[str], reasons: list[str],
                first: list[str], urbd: bool = True) -> pa.Table:
    """Rows of ``errors``: where in the input (the image starts after its URBD's fixed part)."""
    start = urb_layouts().URBD.size if urbd else 0
    take = pa.array(rows)
    base = _col(sub, "offset", pa.int64()).take(take).fill_null(0).to_numpy()
    return pa.table({
        "file": _col(sub, "file", pa.string()).take(take),
        "offset": pa.array(base + start + offsets, pa.int64()),
        "msg": _col(sub, "msg", pa.int64()).take(take),
        "dump_message": _col(sub, "dump_message", pa.int64()).take(take),
        "path": pa.array([f"urbd.{p}" for p in paths], pa.string()),
        "reason": pa.array(reasons, pa.string()),
        "first_bytes": pa.array([f or None for f in first], pa.string())}, schema=ERRORS_SCHEMA)
