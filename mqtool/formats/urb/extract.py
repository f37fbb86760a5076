"""Event Replicator output to change tables: ``extract urb``.

Inputs are raw streams of back-to-back URB messages, queue dumps of every kind (each
message body one or more URB messages) and directories of either. Messages go through the
columnar walker (``bulk.decode_columns``); the messages it leaves to the span decoder are
turned into the same rows (``span_tables``), so both paths give one table per element type
with the columns the declarations give (``schema``). From those come the output tables:

* ``messages``     one row per URBH, with provenance (file, offset, dump message, MsgType, CorrelId)

``offset`` (every table) is a byte offset in the input read as one stream of URB messages:
in the file for a raw stream; for a queue dump in its bodies read back to back in dump
order (``dump_message`` names the body), growing across the batches it is read in.
* ``transactions`` URBT; ``records`` URBR; ``images`` URBD (bytes and text); ``status`` URBS
* ``errors``       file, offset, path, reason, first bytes of what could not be decoded
* ``changes``      one row per record image joined with its record and transaction

Transactions continued over several messages (URBTCONT = Y, then a URBC naming the
subscription, transaction and record) are stitched: records and images after a URBC belong
to the transaction (and record) it names.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pyarrow as pa
import pyarrow.compute as pc

from mqtool.errors import DecodeError, EnvError, InputError
from mqtool.formats.urb.changes import Stitch, _with_codepage, changes
from mqtool.formats.urb.layout import FORMAT
from mqtool.formats.urb.stream import Part, _kind, dump_parts, input_files, resync
from mqtool.formats.urb.tables import (
    ERRORS_SCHEMA,
    TABLES,
    TS,
    Provenance,
    column_tables,
    schema,
    span_tables,
)
from mqtool.io.uris import is_uri
from mqtool.model import Decoded

if TYPE_CHECKING:
    from mqtool.formats.urb.typed.run import TypedRun

OUTPUTS = ("parquet", "jsonl", "csv")
MODES = ("PERMISSIVE", "FAILFAST")
FIRST_BYTES = 32  # bytes of undecodable input kept in an error row
NOT_A_MESSAGE = "urbh.urbheye"  # the path of a problem that says the bytes are no message


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
    typed: dict[str, int] = field(default_factory=dict)  # rows of each typed change table
    layouts: list[str] = field(default_factory=list)  # what decided the typed tables' layouts

    @property
    def errors(self) -> int:
        return self.rows["errors"]

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"mode": self.mode, "files": self.files, "bytes": self.bytes,
                             "rows": {t: self.rows[t] for t in TABLES},
                             "errors_by_reason": dict(sorted(self.errors_by_reason.items())),
                             "output": self.output, "format": self.format}
        if self.typed or self.layouts:
            d["rows"].update(self.typed)
            d["layouts"] = self.layouts
        if self.first_error:
            d["first_error"] = self.first_error
        return d


class _Writers:
    """One output file per table, each an ``AtomicPath``: renamed into place at the end."""

    def __init__(self, outdir: str, fmt: str, force: bool, typed: TypedRun | None = None) -> None:
        from mqtool.io.outputs import Atomic

        self.outdir, self.fmt, self.force, self.typed = outdir, fmt, force, typed
        self.open: dict[str, Any] = {}
        self.targets: dict[str, Atomic] = {}
        try:
            for t in TABLES:
                self._target(t)
        except BaseException:
            self.abort()
            raise

    def _target(self, name: str) -> None:
        from mqtool.io.outputs import atomic_path
        from mqtool.io.uris import join

        self.targets[name] = atomic_path(join(self.outdir, f"{name}.{self.fmt}"), self.force)

    def add(self, name: str, table: pa.Table) -> None:
        """A table of its own schema, not one of ``TABLES`` (a typed change table)."""
        try:
            self._target(name)
        except BaseException:
            self.abort()
            raise
        self.write(name, table, cast=False)

    def write(self, name: str, table: pa.Table, cast: bool = True) -> None:
        if cast:
            table = table.cast(schema(name))
        if self.typed is not None:
            self.typed.keep(name, table)
        w = self.open.get(name)
        path = self.targets[name].temp
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
        for target in self.targets.values():
            target.commit()

    def abort(self) -> None:
        try:
            self._close()
        finally:
            for target in self.targets.values():
                target.discard()

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
    return {k: _json_value(v) for k, v in row.items()}


def _json_value(v: Any) -> Any:
    """A value as JSON: bytes in hex, times in ISO-8601, decimals as exact text; the
    structs and lists of typed change tables value by value."""
    from decimal import Decimal

    if isinstance(v, bytes):
        return v.hex().upper()
    if hasattr(v, "isoformat"):
        return v.isoformat().replace("+00:00", "Z")
    if isinstance(v, Decimal):
        return str(v)
    if isinstance(v, dict):
        return _json_row(v)
    if isinstance(v, list):
        return [_json_value(x) for x in v]
    return v


def extract(paths: Iterable[str], outdir: str, fmt: str = "parquet", mode: str = "PERMISSIVE",
            force: bool = False, progress: Callable[[int], None] | None = None,
            leap_seconds: int = 0, names: Mapping[str, str] | None = None,
            typed: TypedRun | None = None, split_size: int | None = None,
            options: Mapping[str, str] | None = None) -> Summary:
    """Decode every URB message of ``paths`` into the tables of ``TABLES`` in ``outdir``
    (one file each, ``<table>.<fmt>``). FAILFAST: ``DecodeError`` at the first message that
    does not decode cleanly, and no table is written (nor the directory, when this run
    made it). ``leap_seconds``: timestamps that many seconds earlier (``<field>_raw``
    unchanged). ``names``: the name rows, the summary and errors give a path (stdin's
    spooled copy is ``-``). ``typed``: also one typed change table per (database, file)
    (``typed.run``; the values that cannot be decoded are rows of ``errors``)."""
    if isinstance(leap_seconds, bool) or not isinstance(leap_seconds, int) or not 0 <= leap_seconds <= 60:
        raise InputError(f"leap seconds: {leap_seconds!r} is not 0..60")
    if fmt not in OUTPUTS:
        raise InputError(f"output format {fmt!r}: give one of {', '.join(OUTPUTS)}")
    if typed is not None and fmt == "csv":
        raise InputError("typed change tables have nested columns (structs, lists): write them "
                         "with --to parquet or jsonl, not csv")
    mode = mode.upper()
    if mode not in MODES:
        raise InputError(f"mode {mode!r}: give one of {', '.join(MODES)}")
    files = list(input_files(paths, options))
    if not files:
        raise InputError("no input files")
    made = _output_dir(outdir)
    names = dict(names or {})
    summary = Summary(mode=mode, files=[names.get(f, f) for f in files],
                      output=outdir.rstrip("/"), format=fmt)
    writers = _Writers(outdir, fmt, force, typed)
    done_before = 0
    state = Stitch()  # ids run over the whole extraction; continuations stay in their file
    try:
        for path in files:
            size = input_size(path, options)

            def advance(n: int, before: int = done_before) -> None:
                if progress:
                    progress(before + n)

            extract_file(path, writers, summary, state, mode, leap_seconds, advance,
                         names.get(path), typed.part if typed is not None else None,
                         split_size, options)
            summary.bytes += size
            done_before += size
        if typed is not None:
            _typed_tables(typed, writers, summary, mode)
        writers.commit()
    except BaseException:
        writers.abort()
        for d in made:  # the directories this run made, when nothing is in them
            with contextlib.suppress(OSError):
                d.rmdir()
        raise
    return summary


def _typed_tables(typed: TypedRun, writers: _Writers, summary: Summary, mode: str) -> None:
    """The typed change tables, and their values that could not be decoded as errors."""
    from mqtool.formats.urb.typed.table import table_name

    result = typed.finish()
    summary.layouts = result.report
    errors = result.errors
    if errors.num_rows:
        first = errors.slice(0, 1).to_pylist()[0]
        where = (f"{first['reason']} at {first['path']}, offset X'{first['offset']:04X}' "
                 f"({first['offset']}) in {first['file']}")
        if mode == "FAILFAST":
            raise DecodeError(FORMAT, f"{first['file']}: {first['path']}", first["offset"],
                              f"{first['reason']} (mode FAILFAST)")
        writers.write("errors", errors)
        summary.rows["errors"] += errors.num_rows
        summary.errors_by_reason.update(_reason_key(r) for r in errors.column("reason").to_pylist())
        summary.first_error = summary.first_error or where
    for key, table in sorted(result.tables.items()):
        name = table_name(key)
        writers.add(name, table)
        summary.typed[name] = table.num_rows


def _output_dir(outdir: str) -> list[Path]:
    """The output directory made (a path; returns the directories this made, deepest
    first) or its bucket there (an object-store URI: nothing made)."""
    from mqtool.io.uris import check_output_dir, is_remote, local_path

    if is_remote(outdir):
        check_output_dir(outdir, True, ())
        return []
    out = Path(local_path(outdir))
    made = _made_dirs(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise EnvError(f"{outdir}: cannot create output directory: {e.strerror}") from None
    if not os.access(out, os.W_OK):
        raise EnvError(f"{outdir}: output directory is not writable")
    return made


def _made_dirs(out: Path) -> list[Path]:
    """The directories ``mkdir(parents=True)`` of ``out`` would make, deepest first."""
    made = []
    for d in (out, *out.absolute().parents):
        if d.exists():
            break
        made.append(d)
    return made


def extract_file(path: str, writers: Any, summary: Summary, state: Stitch, mode: str = "PERMISSIVE",
                 leap_seconds: int = 0, progress: Callable[[int], None] | None = None,
                 name: str | None = None, on_part: Callable[[str, bytes, int], None] | None = None,
                 split_size: int | None = None, options: Mapping[str, str] | None = None) -> None:
    """One input (a raw stream, a queue dump, dump text, an mqtool directory; a raw stream
    may be a URI) through the tables: ``writers.write(table, rows)`` for each part;
    ``state`` carries the counts; ``name`` is what rows and errors call the input (its path
    by default); ``on_part`` is given each part's file name, bytes and offset before it is
    decoded. A raw stream is read as byte ranges of ``split_size`` (``ranges``; the rows do
    not depend on it)."""
    from mqtool.formats.urb.ranges import SPLIT_SIZE, plan

    size = input_size(path, options)
    for rng in plan([(path, size)], split_size or SPLIT_SIZE, {path: name or path}):
        extract_range(rng.path, rng.start, rng.end, rng.size, writers, summary, state, mode,
                      leap_seconds, progress, rng.name, on_part, options)


def extract_range(path: str, start: int, end: int, size: int, writers: Any, summary: Summary,
                  state: Stitch, mode: str = "PERMISSIVE", leap_seconds: int = 0,
                  progress: Callable[[int], None] | None = None, name: str | None = None,
                  on_part: Callable[[str, bytes, int], None] | None = None,
                  options: Mapping[str, str] | None = None) -> None:
    """The rows of one byte range of an input (``ranges.range_parts``); an input that is no
    raw stream (a queue dump, dump text, a directory) is read whole by its range at 0."""
    from mqtool.formats.urb.ranges import range_parts

    state.open_tx.clear()  # continuations stay in their range (never cut from it)
    state.last_records.clear()
    kind = _kind(path, options)
    name = name or path
    if kind != "raw":
        if start == 0:
            _whole(path, kind, writers, summary, state, mode, leap_seconds, progress, name, on_part)
        return
    for part, done in range_parts(path, start, end, size, name, options):
        if on_part:
            on_part(part.file, part.data, part.base)
        _part(part, state, 0, writers, summary, mode, [], leap_seconds)
        if progress:
            progress(done)


def _whole(path: str, kind: str, writers: Any, summary: Summary, state: Stitch, mode: str,
           leap_seconds: int, progress: Callable[[int], None] | None, name: str,
           on_part: Callable[[str, bytes, int], None] | None) -> None:
    """A queue dump, dump text or mqtool directory, read whole."""
    if is_uri(path):
        raise InputError(f"{path}: a queue dump is read from a local file; copy it first "
                         "(raw URB streams are read from object stores)")
    if kind == "dump-text":
        from mqtool.io.undump import undump

        with open(path, encoding="utf-8", errors="replace") as f:
            part = Part(name, undump(f.read()))
        if on_part:
            on_part(part.file, part.data, part.base)
        _part(part, state, 0, writers, summary, mode, [], leap_seconds)
        if progress:
            progress(os.path.getsize(path))
        return
    for part, bad in dump_parts(path, progress):
        part.file = name
        if on_part:
            on_part(part.file, part.data, part.base)
        _part(part, state, 0, writers, summary, mode, bad, leap_seconds)


def input_size(path: str, options: Mapping[str, str] | None = None) -> int:
    """Bytes of an input (0 for a directory)."""
    if is_uri(path):
        from mqtool.io.uris import list_files

        return sum(size for _name, size in list_files([path], options)[:1])
    return 0 if Path(path).is_dir() else os.path.getsize(path)


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
    tables, errors, msgs = _decode(part, msg_base, dump_errors)
    merged = _merged(tables, leap_seconds)
    change, tx_t, tx_r = changes(merged, state)
    _count_errors(errors, part.file, summary, mode)
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


def _decode(part: Part, msg_base: int, dump_errors: list[Any],
            ) -> tuple[dict[str, list[pa.Table]], list[dict[str, Any]], int]:
    """The element tables of one part (columnar walk, then the span decoder for what it
    leaves, resynchronising after damage), its error rows and the next message number.
    ``msg`` is the offset of the row's message (``_by_offset``)."""
    data, file = part.data, part.file
    dump = part.dump()
    tables: dict[str, list[pa.Table]] = {}
    errors: list[dict[str, Any]] = [
        {"file": file, "offset": p.offset, "msg": None, "dump_message": None,
         "path": p.path, "reason": p.reason, "first_bytes": None} for p in dump_errors]
    starts: dict[int, int] = {}  # message number -> offset of its first byte
    pos, msgs = 0, msg_base
    while pos < len(data):
        view, base, where = data[pos:], part.base + pos, _shift(dump, pos)
        cols, irregular = column_tables(view, file, base, msgs, where)
        stop = _stop(view, cols, irregular, base, part.more)
        if stop < len(view):  # damage, then a message: decode again up to that message only
            view = view[:stop]
            cols, irregular = column_tables(view, file, base, msgs, where)
            _stop(view, cols, irregular, base, True)
        spans = span_tables(irregular, file, base, msgs, where)
        for etype, t in (*cols.items(), *spans.items()):
            tables.setdefault(etype, []).append(t)
        errors += _unit_errors(view, irregular, file, base, msgs, where)
        if "URBH" in cols:
            heads = cols["URBH"]
            starts.update(zip(heads.column("msg").to_pylist(), heads.column("offset").to_pylist(),
                              strict=True))
        starts.update((msgs + cast(int, u.attrs.get("msg", 0)), base + u.offset) for u in irregular)
        msgs += (cols["URBH"].num_rows if "URBH" in cols else 0) + len(irregular)
        pos += stop
    return _by_offset(tables, starts), _errors_by_offset(errors, starts), msgs


def _by_offset(tables: dict[str, list[pa.Table]], starts: dict[int, int],
               ) -> dict[str, list[pa.Table]]:
    """Every row's ``msg`` (a message number while decoding) as its message's offset, so
    rows name a message the same way whatever part or byte range read it."""
    if not starts:
        return tables
    import numpy as np

    lo = min(starts)
    offsets = np.full(max(starts) - lo + 1, -1, np.int64)
    offsets[np.fromiter(starts, np.int64) - lo] = np.fromiter(starts.values(), np.int64)
    out: dict[str, list[pa.Table]] = {}
    for etype, ts in tables.items():
        out[etype] = []
        for t in ts:
            k = t.schema.get_field_index("msg")
            nums = t.column(k).cast(pa.int64()).to_numpy(zero_copy_only=False)
            t = t.set_column(k, t.schema.field(k), pa.array(offsets[nums - lo], pa.int64()))
            out[etype].append(t)
    return out


def _errors_by_offset(errors: list[dict[str, Any]], starts: dict[int, int]) -> list[dict[str, Any]]:
    for e in errors:
        if e["msg"] is not None:
            e["msg"] = starts.get(e["msg"], e["msg"])
    return errors


def _stop(view: bytes, cols: dict[str, pa.Table], irregular: list[Decoded], base: int,
          more: bool = False) -> int:
    """How much of ``view`` one walk read: all of it, unless the walk stopped at damage
    after its last regular message; then up to the next regular header (``resync``), the
    damaged unit cut there and its errors saying where reading resumes (at the end of
    ``view`` when ``more``: a message starts there)."""
    if not irregular:
        return len(view)
    last = irregular[-1]
    heads = cols.get("URBH")
    regular_end = (max(pc.max(heads.column("offset")).as_py() - base, -1)
                   if heads is not None and heads.num_rows else -1)
    if not (last.errors and last.offset > regular_end):
        return len(view)
    if (last.offset + last.length == len(view)  # a message whose length ends where one starts
            and all(p.path != NOT_A_MESSAGE for p in last.errors)):
        return len(view)
    stop = resync(view, last.offset)
    last.length = stop - last.offset
    if stop < len(view) or more:
        _resynced(last, base + stop)
    return stop


def _unit_errors(view: bytes, units: list[Decoded], file: str, base: int, msgs: int,
                 dump: Callable[[int], Any] | None) -> list[dict[str, Any]]:
    """An error row per problem of the span-decoded units of ``view``."""
    rows = []
    for u in units:
        for p in u.errors:
            first = view[u.offset:u.offset + min(u.length, FIRST_BYTES)]
            d = dump(u.offset) if dump else Provenance()
            rows.append({"file": file, "offset": base + p.offset,
                         "msg": msgs + cast(int, u.attrs.get("msg", 0)), "dump_message": d.message,
                         "path": p.path, "reason": p.reason, "first_bytes": first.hex().upper()})
    return rows


def _merged(tables: dict[str, list[pa.Table]], leap_seconds: int) -> dict[str, pa.Table]:
    """One table per element type, timestamps ``leap_seconds`` earlier, transactions,
    records and images in reading order, images with their code page."""
    merged = {e: _concat(ts, e) for e, ts in tables.items()}
    if leap_seconds:
        merged = {e: _earlier(t, leap_seconds) for e, t in merged.items()}
    for e in ("URBT", "URBR", "URBD"):
        if e in merged:
            merged[e] = merged[e].sort_by([("offset", "ascending")])
    if "URBD" in merged and "URBH" in merged:
        merged["URBD"] = _with_codepage(merged["URBD"], merged["URBH"])
    return merged


def _count_errors(errors: list[dict[str, Any]], file: str, summary: Summary, mode: str) -> None:
    """The part's errors counted in the summary (the first one said); FAILFAST stops at it."""
    if not errors:
        return
    summary.errors_by_reason.update(_reason_key(e["reason"]) for e in errors)
    err = errors[0]
    if not summary.first_error:
        summary.first_error = (f"{err['reason']} at {err['path']}, offset X'{err['offset']:04X}' "
                               f"({err['offset']}) in {file}")
    if mode == "FAILFAST":
        raise DecodeError(FORMAT, f"{file}: {err['path']}", err["offset"],
                          f"{err['reason']} (mode FAILFAST)")


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
                           (f"{unit.length} bytes are not a URB message" if p.path == NOT_A_MESSAGE
                            else p.reason) + f"; reading resumes at the next message, offset {nxt}")
                   for p in unit.errors]


def _shift(dump: Callable[[int], Any] | None, pos: int) -> Callable[[int], Any] | None:
    if dump is None:
        return None
    return lambda off: dump(off + pos)


def _concat(tables: list[pa.Table], etype: str) -> pa.Table:
    return tables[0] if len(tables) == 1 else pa.concat_tables(tables)


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
