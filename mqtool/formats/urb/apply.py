"""A replica of Adabas files from typed change tables: the current state of each file, one
row per ISN, after the inserts, updates and deletes of the changes in commit order.

Event Replicator record types (URBRTYP): I insert, U update, R initial state (the record
as it is), D delete. The after image of I, U and R is the record from then on; D removes
the ISN. Changes are applied in commit order: transaction time (URBTTTIM), then the order
of the inputs, of the transactions in them and of the records in a transaction. For each
ISN only its last change counts, so applying the same changes twice gives the same state
(idempotent); a change older than the state's own for that ISN (an earlier batch applied
late) is skipped and counted, never applied over a newer one.

Output: Parquet, one file per database file (``state_<dbid>_<fnr>.parquet``): ``isn``, every
field of the after image as a column, and ``_change``, ``_transaction_number``,
``_transaction_time``, ``_record_time``, ``_subscription`` of the change that wrote the row.
Each file is written under a temporary name and renamed into place (a failed run leaves the
previous state). Parquet rather than Delta Lake or Iceberg: the state is small enough to be
rewritten whole, which gives atomicity and idempotence without a transaction log; ``deltalake``
would add a large native dependency and ``pyiceberg`` a catalog, for no gain here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from mqtool.errors import DecodeError, EmptyInputError, InputError
from mqtool.formats.urb.tables import TS
from mqtool.io.inputs import missing_input
from mqtool.io.outputs import AtomicFile, OutputDir

Key = tuple[int, int]
APPLIED = ("I", "U", "R")  # record types whose after image is the record from then on
DELETE = "D"
META = [("_change", pa.string()), ("_transaction_number", pa.int64()), ("_transaction_time", TS),
        ("_record_time", TS), ("_subscription", pa.string())]
QUOTED = 120  # characters of a reader's complaint quoted
NEEDED = ("isn", "record_type", "after", "dbid", "file_number")


@dataclass
class FileResult:
    """What applying did to one file."""

    rows_before: int = 0
    rows_after: int = 0
    changes: int = 0
    applied: dict[str, int] = field(default_factory=dict)  # by record type
    older: int = 0  # skipped: the state has a newer change for the ISN
    no_image: int = 0  # skipped: an insert/update without a decoded after image
    inserted: int = 0  # rows of the state: ISNs it did not have
    updated: int = 0  # rows written by another change than before
    deleted: int = 0  # ISNs it had and has no more
    path: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"rows_before": self.rows_before, "rows_after": self.rows_after, "changes": self.changes,
                "inserted": self.inserted, "updated": self.updated, "deleted": self.deleted,
                "applied": dict(sorted(self.applied.items())), "skipped_older": self.older,
                "skipped_no_after_image": self.no_image, "path": self.path}


def state_name(key: Key) -> str:
    return f"state_{key[0]}_{key[1]}.parquet"


def change_files(paths: Iterable[str]) -> list[str]:
    """Typed change tables: the files given, the ``changes_*.parquet`` of directories."""
    out: list[str] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            found = sorted(str(f) for f in path.glob("changes_*.parquet"))
            if not found:
                raise InputError(f"{p}: no typed change tables (changes_<dbid>_<fnr>.parquet) in it")
            out += found
        elif path.is_file():
            out.append(str(path))
        elif path.exists():
            raise InputError(f"{p}: not a regular file (a FIFO or device is not read)")
        else:
            raise missing_input(p)
    return out


def _read(path: str) -> pa.Table:
    """A typed change table; an empty file or one that is no Parquet is bad input (2)."""
    if Path(path).stat().st_size == 0:
        raise EmptyInputError("changes", path)
    try:
        t = pq.read_table(path)
    except (OSError, pa.ArrowInvalid) as e:
        raise DecodeError("changes", "", 0, f"{path}: not a Parquet table "
                                            f"({str(e).splitlines()[0][:QUOTED]})") from None
    missing = [c for c in NEEDED if c not in t.column_names]
    if missing:
        raise InputError(f"{path}: not a typed change table (no {', '.join(missing)} column)")
    return t


def apply_paths(paths: Iterable[str], to: str, fresh: bool = False) -> dict[Key, FileResult]:
    """Apply the typed change tables in ``paths`` (in that order) to the state in ``to``
    (``fresh``: to an empty state, replacing the files there)."""
    batches = [_read(p) for p in change_files(paths)]
    return apply(batches, to, fresh)


def apply(batches: list[pa.Table], to: str, fresh: bool = False) -> dict[Key, FileResult]:
    """Apply typed change tables (one or more per file, in input order) to ``to``."""
    by_file: dict[Key, list[pa.Table]] = {}
    for k, t in enumerate(batches):
        t = t.append_column("__batch", pa.array(np.full(t.num_rows, k, np.int64)))
        keys = t.select(["dbid", "file_number"]).group_by(["dbid", "file_number"],
                                                          use_threads=False).aggregate([])
        for d, f in zip(keys.column("dbid").to_pylist(), keys.column("file_number").to_pylist(), strict=True):
            mask = pc.and_(pc.equal(t.column("dbid"), d), pc.equal(t.column("file_number"), f))
            by_file.setdefault((int(d or 0), int(f or 0)), []).append(t.filter(mask))
    out = OutputDir(to, force=True)
    results = {}
    for key, parts in sorted(by_file.items()):
        results[key] = _apply_file(key, parts, out, fresh)
    return results


def _after_type(tables: list[pa.Table]) -> pa.StructType:
    seen: dict[str, pa.Field] = {}
    for t in tables:
        for f in t.schema.field("after").type:
            seen.setdefault(f.name, f)
    return pa.struct(list(seen.values()))


def _conform(t: pa.Table, typ: pa.StructType) -> pa.Array:
    after = t.column("after").combine_chunks()
    names = {f.name: i for i, f in enumerate(after.type)}
    kids = [after.field(names[f.name]).cast(f.type) if f.name in names else pa.nulls(len(after), f.type)
            for f in typ]
    return pa.StructArray.from_arrays(kids, fields=list(typ), mask=after.is_null())


def _col(t: pa.Table, name: str, typ: pa.DataType) -> pa.Array:
    if name not in t.column_names:
        return pa.nulls(t.num_rows, typ)
    return t.column(name).combine_chunks().cast(typ)


def _changes(parts: list[pa.Table], typ: pa.StructType) -> pa.Table:
    """The changes of one file, in commit order."""
    rows = []
    for t in parts:
        rows.append(pa.table({
            "isn": _col(t, "isn", pa.int64()), "record_type": _col(t, "record_type", pa.string()),
            "after": _conform(t, typ), "_transaction_number": _col(t, "transaction_number", pa.int64()),
            "_transaction_time": _col(t, "transaction_time", TS), "_record_time": _col(t, "record_time", TS),
            "_subscription": _col(t, "subscription", pa.string()), "__batch": _col(t, "__batch", pa.int64()),
            "__tx": _col(t, "transaction", pa.int64()), "__rec": _col(t, "record_number", pa.int64())}))
    table = pa.concat_tables(rows)
    order = np.lexsort((_fill(table, "__rec"), _fill(table, "__tx"), _fill(table, "__batch"),
                        _fill(table, "_transaction_time")))
    return table.take(pa.array(order))


def _fill(t: pa.Table, name: str) -> np.ndarray:
    col = t.column(name).combine_chunks()
    if pa.types.is_timestamp(col.type):
        col = col.cast(pa.int64())
    out: np.ndarray = col.fill_null(np.iinfo(np.int64).min).to_numpy()
    return out


def _last_per_isn(changes: pa.Table) -> pa.Table:
    """Each ISN's last change (``changes`` in commit order)."""
    isn = changes.column("isn").combine_chunks().fill_null(-1).to_numpy()
    n = len(isn)
    order = np.lexsort((np.arange(n), isn))
    last = np.ones(n, bool)
    last[:-1] = isn[order][1:] != isn[order][:-1]
    keep = order[last]
    keep = keep[isn[keep] >= 0]
    return changes.take(pa.array(np.sort(keep)))


def _apply_file(key: Key, parts: list[pa.Table], out: OutputDir, fresh: bool = False) -> FileResult:
    res = FileResult()
    path = out.path(state_name(key))
    old = pq.read_table(path) if path.exists() and not fresh else None
    typ = _after_type(parts)
    if old is not None:
        kept = {f.name: f for f in old.schema if f.name != "isn" and not f.name.startswith("_")}
        typ = pa.struct(list({**kept, **{f.name: f for f in typ}}.values()))
    changes = _changes(parts, typ)
    res.changes, res.rows_before = changes.num_rows, old.num_rows if old is not None else 0
    last = _last_per_isn(changes)
    kinds = last.column("record_type").combine_chunks().fill_null("").to_numpy(zero_copy_only=False)
    has_after = np.asarray(last.column("after").combine_chunks().is_valid())
    isns = last.column("isn").combine_chunks().to_numpy()
    times = _fill(last, "_transaction_time")
    old_isn = old.column("isn").to_numpy() if old is not None else np.zeros(0, np.int64)
    old_time = _fill(old, "_transaction_time") if old is not None else np.zeros(0, np.int64)
    older = np.zeros(len(isns), bool)
    if len(old_isn):
        at = np.minimum(np.searchsorted(old_isn, isns), len(old_isn) - 1)
        older = (old_isn[at] == isns) & (old_time[at] > times)
    writes = np.isin(kinds, APPLIED) & has_after & ~older
    deletes = (kinds == DELETE) & ~older
    res.older = int(older.sum())
    res.no_image = int((np.isin(kinds, APPLIED) & ~has_after & ~older).sum())
    for k in (*APPLIED, DELETE):
        n = int(((kinds == k) & (writes | deletes)).sum())
        if n:
            res.applied[k] = n
    new = _state_rows(last.filter(pa.array(writes)), typ)
    _count_rows(res, old, new, isns[deletes])
    touched = isns[writes | deletes]
    keep_old = old.filter(pa.array(~np.isin(old_isn, touched))) if old is not None else None
    state = pa.concat_tables([_conform_state(keep_old, new.schema), new]) if keep_old is not None else new
    state = state.sort_by("isn")
    res.rows_after = state.num_rows
    with AtomicFile(path, force=True) as f:
        pq.write_table(state, f)
    res.path = str(path)
    return res


def _count_rows(res: FileResult, old: pa.Table | None, new: pa.Table, deleted: np.ndarray) -> None:
    """Rows inserted, updated (written by a change other than the one that wrote them
    before: applying the same changes again updates nothing) and deleted."""
    new_isn = new.column("isn").to_numpy()
    if old is None or not old.num_rows:
        res.inserted = len(new_isn)
        return
    old_isn = old.column("isn").to_numpy()
    res.deleted = int(np.isin(deleted, old_isn).sum())
    had = np.isin(new_isn, old_isn)
    res.inserted = int((~had).sum())
    at = np.searchsorted(old_isn, new_isn[had])  # the state is sorted by ISN
    same = np.ones(len(at), bool)
    for name, _ in META:
        if name in old.column_names:
            before = old.column(name).combine_chunks().take(pa.array(at))
            after = new.column(name).combine_chunks().filter(pa.array(had)).cast(before.type)
            same &= np.asarray(pc.coalesce(pc.equal(before, after),
                                           pc.and_(before.is_null(), after.is_null())))
    res.updated = int((~same).sum())


def _state_rows(t: pa.Table, typ: pa.StructType) -> pa.Table:
    after = t.column("after").combine_chunks()
    cols: dict[str, pa.Array] = {"isn": t.column("isn").combine_chunks()}
    for i, f in enumerate(typ):
        cols[f.name] = after.field(i)
    cols["_change"] = t.column("record_type").combine_chunks()
    for name, typ_ in META[1:]:
        cols[name] = t.column(name).combine_chunks().cast(typ_)
    return pa.table(cols)


def _conform_state(t: pa.Table, schema: pa.Schema) -> pa.Table:
    cols = [t.column(f.name).cast(f.type) if f.name in t.column_names else pa.nulls(t.num_rows, f.type)
            for f in schema]
    return pa.table(cols, schema=schema)
