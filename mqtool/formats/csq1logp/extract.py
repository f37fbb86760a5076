"""Bulk extraction of CSQ1LOGP records (local, no JVM): framing, the vectorised decoder,
filters, ``--messages`` reassembly, and writers for JSON lines, CSV and Parquet.

Large files are cut at record boundaries with a sparse index (one header pass) and the
splits are decoded by a process pool, so every core works; results are written in file
order. Bad spans follow ``mode`` (PERMISSIVE / DROPMALFORMED / FAILFAST) exactly as in the
Spark job, which calls the same functions.
"""

from __future__ import annotations

import contextlib
import fnmatch
import json
import os
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ProcessPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mqtool.errors import DecodeError, InputError
from mqtool.formats.csq1logp.bulk import MODES, MalformedError, batches, numeric, record_schema
from mqtool.formats.csq1logp.framing import (
    Frame,
    Index,
    IndexPass,
    Split,
    head_of,
    resolve_framing,
    sparse_index,
    split_frames,
)
from mqtool.formats.csq1logp.layout import COMMIT_STATUS, MAX_SEGMENT
from mqtool.formats.csq1logp.outdir import OUT_DIRS, PartitionedWriter
from mqtool.io.outputs import atomic_path, part_name, staged_dirs
from mqtool.io.uris import is_uri, looks_like_uri

FORMATS = {".jsonl": "jsonl", ".json": "jsonl", ".ndjson": "jsonl", ".csv": "csv",
           ".parquet": "parquet", ".pq": "parquet"}
SPLIT_SIZE = 32 << 20
MIN_SPLIT = 1 << 10
STATUS_WORDS = {"committed": "C", "backed-out": "B", "backedout": "B", "inflight": "I",
                "in-flight": "I"} | {k: k for k in COMMIT_STATUS}


# --------------------------------------------------------------------------- filters


@dataclass
class Filters:
    """Row filters; bad-span rows are always kept (they are never silently dropped)."""

    queue: tuple[str, ...] = ()
    verb: tuple[str, ...] = ()
    urid: tuple[str, ...] = ()
    qmgr: tuple[str, ...] = ()
    since: datetime | None = None
    until: datetime | None = None
    status: tuple[str, ...] = ()

    @classmethod
    def make(cls, queue: Iterable[str] = (), verb: Iterable[str] = (), urid: Iterable[str] = (),
             qmgr: Iterable[str] = (), since: str | None = None, until: str | None = None,
             status: Iterable[str] = ()) -> Filters:
        """From CLI text; ValueError names what is wrong."""
        from mqtool.tod import Tod

        def when(text: str | None, name: str) -> datetime | None:
            if not text:
                return None
            try:
                return Tod.parse(text).datetime()
            except ValueError as e:
                raise ValueError(f"--{name}: {e}") from None

        urids = []
        for u in urid:
            h = u.strip().removeprefix("X'").removeprefix("x'").rstrip("'").upper()
            if len(h) != 12 or any(ch not in "0123456789ABCDEF" for ch in h):
                raise ValueError(f"--urid: {u!r} is not 12 hex digits (a 6-byte URID)")
            urids.append(h)
        states = []
        for s in status:
            code = STATUS_WORDS.get(s.strip().lower()) or STATUS_WORDS.get(s.strip().upper())
            if code is None:
                raise ValueError(f"--status: {s!r} is not B, C, I (backed-out, committed, inflight)")
            states.append(code)
        return cls(tuple(queue), tuple(v.upper() for v in verb), tuple(urids),
                   tuple(q.upper() for q in qmgr), when(since, "since"), when(until, "until"),
                   tuple(states))

    def __bool__(self) -> bool:
        return bool(self.queue or self.verb or self.urid or self.qmgr or self.since or self.until
                    or self.status)

    def apply(self, table: pa.Table) -> pa.Table:
        if not self or table.num_rows == 0:
            return table
        keep = pc.is_valid(table.column("_error"))
        mask = numeric(np.ones(table.num_rows, bool))
        if self.queue:
            # fnmatch's regex, anchored, in RE2 syntax (\\z, not \\Z)
            regex = "|".join(f"(?:^{fnmatch.translate(q).replace(chr(92) + 'Z', chr(92) + 'z')})"
                             for q in self.queue)
            mask = pc.and_(mask, pc.match_substring_regex(table.column("csqueuename"), regex))
        for name, values in (("csverb", self.verb), ("csurid", self.urid),
                             ("csqmgrname", self.qmgr), ("cscmitstatus", self.status)):
            if values:
                mask = pc.and_(mask, pc.is_in(table.column(name), pa.array(values)))
        ts = table.column("dtodout")
        if self.since:
            mask = pc.and_(mask, pc.greater_equal(ts, pa.scalar(self.since, ts.type)))
        if self.until:
            mask = pc.and_(mask, pc.less(ts, pa.scalar(self.until, ts.type)))
        return table.filter(pc.or_(keep, pc.fill_null(mask, False)))


# --------------------------------------------------------------------------- summary


@dataclass
class Summary:
    """Counts for the rich summary and ``_summary.json``."""

    files: list[dict[str, Any]] = field(default_factory=list)
    bytes: int = 0
    records: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    dropped: int = 0
    corrupt_fields: Counter[str] = field(default_factory=Counter)
    rows: int = 0
    messages: int = 0
    incomplete: int = 0
    message_problems: Counter[str] = field(default_factory=Counter)
    first_error: str = ""
    mode: str = "PERMISSIVE"

    def count_rows(self, table: pa.Table, messages: bool = False) -> None:
        self.rows += table.num_rows
        for lst in pc.list_flatten(table.column("_corrupt_fields")).to_pylist():
            self.corrupt_fields[lst.split(":", 1)[0]] += 1
        if messages:
            ok = pc.is_null(table.column("_error"))
            self.messages += pc.sum(ok.cast(pa.int64())).as_py() or 0
            inc = pc.and_(ok, pc.invert(pc.fill_null(table.column("complete"), False)))
            self.incomplete += pc.sum(inc.cast(pa.int64())).as_py() or 0
            for p in pc.list_flatten(table.column("problems")).to_pylist():
                self.message_problems[p.split(":", 1)[0]] += 1

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "mode": self.mode,
            "files": self.files,
            "bytes": self.bytes,
            "records": self.records,
            "bad_spans": sum(self.errors.values()),
            "errors_by_reason": dict(sorted(self.errors.items())),
            "dropped": self.dropped,
            "corrupt_fields": dict(sorted(self.corrupt_fields.items())),
            "rows_written": self.rows,
        }
        if self.first_error:
            d["first_error"] = self.first_error
        if self.messages or self.message_problems:
            d["messages"] = {"total": self.messages, "incomplete": self.incomplete,
                             "problems": dict(sorted(self.message_problems.items()))}
        return d


# --------------------------------------------------------------------------- planning


def plan(paths: Iterable[str], framing: str = "auto", codepage: str = "cp037",
         split_size: int = SPLIT_SIZE, index_all: bool = False,
         options: Mapping[str, str] | None = None) -> list[Index]:
    """Framing and splits of every input. With ``index_all`` every file gets the header
    pass (splits, counts); otherwise each file is one split (counted while decoding).

    A file that cannot be read or is no CSQ1LOGP extract is not fatal: its Index has no
    splits and one bad span (``unreadable-file`` / ``not-csq1logp``) naming the file."""
    out = []
    for path in expand_inputs(paths, options):
        size, head = 0, b""
        try:
            size = _check_file(path, options)
            head = head_of(path, options=options)
            chosen, reason = resolve_framing(head, framing, codepage, final=len(head) == size)
        except (InputError, DecodeError) as e:
            out.append(file_problem(path, e, size, head))
            continue
        if index_all and not is_uri(path):
            out.append(sparse_index(path, chosen, codepage, split_size))
            out[-1].framing_reason = reason
            continue
        out.append(Index(path, size, chosen, reason, [Split(path, 0, size, 0, chosen)], -1, {},
                         None))
    return out


def expand_inputs(paths: Iterable[str], options: Mapping[str, str] | None = None) -> Iterator[str]:
    """The inputs as ``spark-extract`` takes them: files and URIs as given, a local directory
    as its files (sorted; hidden and ``_``-prefixed ones left out), a glob as its matches. A
    local name that does not exist is refused (``missing_input``, before any output); one
    that cannot be listed is kept, so it becomes an ``unreadable-file`` row."""
    from mqtool.io.inputs import is_missing, missing_input
    from mqtool.io.uris import list_files

    for path in paths:
        if is_missing(path):
            raise missing_input(path)
        glob = any(ch in os.path.basename(path) for ch in "*?[")
        if glob or (not is_uri(path) and os.path.isdir(path)):
            try:
                yield from (name for name, _size in list_files([path], options))
            except InputError:
                yield path
        else:
            yield path


def file_problem(path: str, e: Exception, size: int = 0, head: bytes = b"") -> Index:
    """The Index of a file that is unreadable or no CSQ1LOGP extract: one bad span."""
    from mqtool.formats.csq1logp.framing import NOT_CSQ1LOGP, UNREADABLE, Frame

    if isinstance(e, DecodeError):
        reason, detail, where = NOT_CSQ1LOGP, e.reason, e.path
    else:
        reason, detail, where = UNREADABLE, str(e), "file"
    fr = Frame(0, size, 0, 0, b"", 0, -1, -1, reason, detail, where, head[:256])
    return Index(path, size, "", detail, [], 0, {reason: 1}, fr)


def _check_file(path: str, options: Mapping[str, str] | None = None) -> int:
    if is_uri(path):
        from mqtool.io.uris import list_files

        ((_, size),) = list_files([path], options)[:1] or [(path, 0)]
        return size
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{path}: no such file" if not p.exists() else f"{path}: not a regular file")
    if not os.access(p, os.R_OK):
        raise InputError(f"{path}: permission denied")
    return p.stat().st_size


# --------------------------------------------------------------------------- byte ranges


@dataclass
class RangeStats:
    """What decoding one byte range met: records, bad spans by reason, the first one."""

    records: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    first: str = ""

    def count(self, frames: Iterable[Frame], name: str) -> Iterator[Frame]:
        for fr in frames:
            if fr.error:
                self.errors[fr.error] += 1
                if not self.first:
                    self.first = describe(fr, name)
            else:
                self.records += 1
            yield fr


def describe(fr: Frame, name: str) -> str:
    return f"{fr.error}: {fr.detail} at {fr.path}, offset X'{fr.offset:04X}' ({fr.offset}) in {name}"


def decode_range(path: str, start: int, end: int, size: int, framing: str = "auto",
                 codepage: str = "cp037", mode: str = "PERMISSIVE", name: str | None = None,
                 options: Mapping[str, str] | None = None,
                 stats: RangeStats | None = None) -> Iterator[pa.RecordBatch]:
    """Record batches of one byte range of a file or URI (``framing.range_frames``): what a
    Spark task runs. ``auto`` framing is resolved from the file's head by every range; a
    file that cannot be framed is one bad span, yielded by the range that starts at 0."""
    from mqtool.formats.csq1logp.framing import ByteRange, read_range_frames

    name = name or path
    stats = stats if stats is not None else RangeStats()
    chosen = framing
    if framing == "auto" or start == 0:
        try:
            head = head_of(path, options=options)
            chosen, _ = resolve_framing(head, framing, codepage, final=len(head) >= size)
        except (InputError, DecodeError) as e:
            if start != 0:
                return
            fr = file_problem(path, e, size).first_error
            assert fr is not None
            yield from batches(name, stats.count([fr], name), codepage, mode)
            return
    rng = ByteRange(path, start, end, chosen)
    yield from batches(name, stats.count(read_range_frames(rng, codepage, options), name), codepage,
                       mode)


class _Counted:
    """The framing counts of one split, taken while its frames pass: records, bad spans by
    reason, the first bad span in words, and the FAILFAST stop."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.counts: Counter[str] = Counter()
        self.records = 0
        self.first = ""
        self.failfast: tuple[str, int, str] | None = None

    def frames(self, frames: Iterable[Frame]) -> Iterator[Frame]:
        for fr in frames:
            if fr.error:
                self.counts[fr.error] += 1
                if not self.first:
                    self.first = (f"{fr.error}: {fr.detail} at {fr.path}, offset "
                                  f"X'{fr.offset:04X}' ({fr.offset}) in {self.name}")
            else:
                self.records += 1
            yield fr

    def batches(self, split: Split, codepage: str, mode: str) -> Iterator[pa.RecordBatch]:
        """The split's record batches (one per framer buffer, some 4 MiB of input)."""
        try:
            yield from batches(self.name, self.frames(split_frames(split, codepage)), codepage,
                               mode)
        except MalformedError as e:
            fr = e.frame
            self.failfast = (fr.path, fr.offset,
                             f"{fr.error}: {fr.detail} in {self.name} (mode FAILFAST)")

    def info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"records": self.records, "errors": dict(self.counts),
                                "first": self.first}
        if self.failfast is not None:
            info["failfast"] = self.failfast
        return info


def _decode_split(split: Split, codepage: str, mode: str, name: str,
                  spill: str | None = None) -> tuple[pa.Table | str, dict[str, Any]]:
    """Decode one split (in a worker); returns its rows (or the Arrow file they were
    spilled to in ``spill``, cheaper to hand over than a pickle) and its framing counts."""
    counted = _Counted(name)
    table = pa.Table.from_batches(list(counted.batches(split, codepage, mode)), record_schema())
    if spill is None:
        return table, counted.info()
    import tempfile

    fd, path = tempfile.mkstemp(prefix="mqtool-split-", suffix=".arrow", dir=spill)
    with os.fdopen(fd, "wb") as f, pa.ipc.new_file(f, table.schema) as w:
        w.write_table(table)
    return path, counted.info()


def _streamed_split(split: Split, codepage: str, mode: str, name: str, summary: Summary,
                    progress: Callable[[int], None] | None) -> Iterator[pa.Table]:
    """Decode one split in this process a batch at a time (memory bounded whatever the
    split's size: a whole file with ``-j 1``, a URI, a file of up to two splits)."""
    counted = _Counted(name)
    for b in counted.batches(split, codepage, mode):
        if b.num_rows:
            yield pa.Table.from_batches([b], record_schema())
    yield from _account(record_schema().empty_table(), counted.info(), split, summary, progress)


def _spill_dir() -> str | None:
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else None


def _pool(workers: int) -> ProcessPoolExecutor:
    import multiprocessing as mp

    # fork: workers start in milliseconds and inherit the imports; created before any Arrow
    # thread runs in this process. Elsewhere spawn.
    # Ctrl-C reaches every worker with the parent: the workers ignore it (no traceback from
    # each), the parent stops the pool
    from mqtool.io.signals import held, worker_signals

    method = "fork" if "fork" in mp.get_all_start_methods() and sys.platform == "linux" else "spawn"
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context(method),
                               initializer=worker_signals)
    try:
        with held():  # start the workers now, Ctrl-C held back until they ignore it
            pool.submit(int).result()
    except BaseException:  # a signal that came meanwhile: the pool is stopped, not leaked
        pool.shutdown(cancel_futures=True)
        raise
    return pool


def decoded_tables(indexes: list[Index], codepage: str = "cp037", mode: str = "PERMISSIVE",
                   workers: int = 1, summary: Summary | None = None,
                   progress: Callable[[int], None] | None = None,
                   names: dict[str, str] | None = None, split_size: int = SPLIT_SIZE,
                   pool: ProcessPoolExecutor | None = None) -> Iterator[pa.Table]:
    """Record tables of every input, in file order; fills ``summary``.

    With a ``pool`` (and ``workers`` > 1) a file larger than two splits is cut by the header
    pass while the workers already decode the splits found so far.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}")
    summary = summary if summary is not None else Summary(mode=mode)
    names = names or {}
    for ix in indexes:
        name = names.get(ix.path, ix.path)
        summary.files.append({"file": name, "bytes": ix.size, "framing": ix.framing,
                              "framing_reason": ix.framing_reason})
        summary.bytes += ix.size
        if not ix.splits and ix.first_error is not None:  # unreadable, or no CSQ1LOGP extract
            fr = ix.first_error
            info = {"records": 0, "errors": {fr.error: 1}, "first": describe(fr, name)}
            if mode == "FAILFAST":
                info["failfast"] = (fr.path, fr.offset, f"{fr.error}: {fr.detail} in {name} "
                                                        "(mode FAILFAST)")
            table = pa.Table.from_batches(list(batches(name, [fr], codepage, "PERMISSIVE"
                                                       if mode == "FAILFAST" else mode)),
                                          record_schema())
            yield from _account(table if mode != "FAILFAST" else table.slice(0, 0), info,
                                Split(ix.path, 0, ix.size, 0, ""), summary, progress)
            continue
        if pool is None or workers < 2 or ix.size <= 2 * split_size or is_uri(ix.path):
            for split in ix.splits:
                yield from _streamed_split(split, codepage, mode, name, summary, progress)
            continue
        from collections import deque

        spill = _spill_dir()
        ip = IndexPass(ix.path, ix.framing, codepage, split_size)
        pending: deque[tuple[Split, Any]] = deque()
        try:
            for split in ip.splits():
                pending.append((split, pool.submit(_decode_split, split, codepage, mode, name, spill)))
                while pending and pending[0][1].done():
                    yield from _account(*_next_loaded(pending), summary, progress)
            while pending:
                yield from _account(*_next_loaded(pending), summary, progress)
        finally:
            _drop_pending([fut for _s, fut in pending])


def _drop_pending(futures: list[Any]) -> None:
    """After a failure or an interrupt: cancel the splits not started, wait for those being
    decoded (the workers ignore Ctrl-C), and remove every spilled result."""
    from concurrent.futures import wait

    for fut in futures:
        fut.cancel()
    wait(futures)
    for fut in futures:
        if not fut.cancelled() and fut.exception() is None:
            res = fut.result()[0]
            if isinstance(res, str):
                with contextlib.suppress(OSError):
                    os.unlink(res)


def _next_loaded(pending: Any) -> tuple[pa.Table, dict[str, Any], Split]:
    """The first pending split's rows, taken off ``pending`` only once they are loaded (its
    spill file removed): a signal at any moment leaves the file for ``_drop_pending``."""
    split, fut = pending[0]
    table, info = _load(fut.result())
    pending.popleft()
    return table, info, split


def _load(result: tuple[pa.Table | str, dict[str, Any]]) -> tuple[pa.Table, dict[str, Any]]:
    table, info = result
    if isinstance(table, str):
        path = table
        table = pa.ipc.open_file(pa.memory_map(path)).read_all()
        os.unlink(path)  # the mapping stays valid
    return table, info


def _account(table: pa.Table, info: dict[str, Any], split: Split, summary: Summary,
             progress: Callable[[int], None] | None) -> Iterator[pa.Table]:
    summary.records += info["records"]
    summary.errors.update(info["errors"])
    if summary.mode == "DROPMALFORMED":
        summary.dropped += sum(info["errors"].values())
    if info["first"] and not summary.first_error:
        summary.first_error = info["first"]
    if table.num_rows:
        yield table
    if progress:
        progress(split.size)
    if "failfast" in info:
        raise DecodeError("csq1logp", *info["failfast"])


# --------------------------------------------------------------------------- writers


def _hex(arr: pa.Array) -> pa.Array:
    """Binary -> upper-case hex strings, vectorised."""
    from mqtool.formats.csq1logp.bulk import _tables

    arr = arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr
    if len(arr) == 0:
        return pa.array([], pa.string())
    text = _tables("cp037")[0]
    _validity, offsets, data = arr.buffers()
    off = np.frombuffer(offsets, np.int32, len(arr) + 1, arr.offset * 4)
    raw = np.frombuffer(data, np.uint8, off[-1] - off[0], off[0]) if data is not None else \
        np.zeros(0, np.uint8)
    hexed = text.hex[raw].reshape(-1)
    new_off = ((off - off[0]) * 2).astype(np.int32)
    valid = arr.is_valid().to_numpy(zero_copy_only=False)
    from mqtool.formats.csq1logp.bulk import _bitmap

    bitmap, nulls = _bitmap(valid)
    return pa.StringArray.from_buffers(len(arr), pa.py_buffer(new_off), pa.py_buffer(hexed),
                                       bitmap, nulls)


def textual(table: pa.Table, join_lists: bool = False) -> pa.Table:
    """JSON/CSV form: STCK ISO UTC with ``Z``, naive timestamps ISO, binary as hex."""
    cols, names = [], []
    for name, col in zip(table.column_names, table.columns, strict=True):
        t = col.type
        if pa.types.is_timestamp(t):
            fmt = "%Y-%m-%dT%H:%M:%SZ" if t.tz else "%Y-%m-%dT%H:%M:%S"
            col = pc.strftime(col, format=fmt) if len(col) else pa.array([], pa.string())
        elif pa.types.is_binary(t):
            col = _hex(col)
        elif pa.types.is_date(t):
            col = pc.strftime(col, format="%Y-%m-%d") if len(col) else pa.array([], pa.string())
        elif pa.types.is_list(t) and join_lists:
            col = pc.binary_join(col, "; ")
        cols.append(col)
        names.append(name)
    return pa.Table.from_arrays(cols, names=names)


JSON_ROWS = 4096  # rows turned into Python objects at a time for JSON lines


class Writer:
    """JSON lines, CSV or Parquet, appended table by table."""

    def __init__(self, fmt: str, out: IO[bytes] | str, schema: pa.Schema) -> None:
        self.fmt, self.schema = fmt, schema
        self._csv: Any = None  # pyarrow.csv.CSVWriter once the first table came (pyarrow is untyped)
        self._pq: Any = None  # pyarrow.parquet.ParquetWriter
        self._stream = out if not isinstance(out, str) else None
        self._path = out if isinstance(out, str) else None
        if fmt == "parquet":
            import pyarrow.parquet as pq

            self._pq = pq.ParquetWriter(out, schema, compression="snappy")
        elif fmt == "jsonl" and self._path:
            self._stream = open(self._path, "wb")  # noqa: SIM115 (closed in close())

    def write(self, table: pa.Table) -> None:
        if self._pq is not None:
            self._pq.write_table(table.cast(self.schema))
        elif self.fmt == "csv":
            import pyarrow.csv as pcsv

            t = textual(table, join_lists=True)
            if self._csv is None:
                self._csv = pcsv.CSVWriter(self._path or self._stream, t.schema)
            self._csv.write_table(t)
        else:
            t = textual(table)
            assert self._stream is not None
            dumps = json.dumps
            for batch in t.to_batches(max_chunksize=JSON_ROWS):  # Python rows cost ~10x Arrow's
                self._stream.write("".join(
                    dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n"
                    for r in batch.to_pylist()).encode("utf-8"))

    def close(self) -> None:
        if self._pq is not None:
            self._pq.close()
        if self._csv is not None:
            self._csv.close()
        elif self.fmt == "csv":  # nothing written: still a header
            import pyarrow.csv as pcsv

            t = textual(self.schema.empty_table(), join_lists=True)
            pcsv.write_csv(t, self._path or self._stream)
        if self._stream is not None:
            self._stream.flush()
            if self._path:
                self._stream.close()


def output_format(output: str | None, to: str | None) -> str:
    if to:
        return {"json": "jsonl", "ndjson": "jsonl", "pq": "parquet"}.get(to, to)
    if output and output != "-":
        suffix = Path(output).suffix.lower()
        if suffix and suffix not in FORMATS:
            raise InputError(f"{output}: the extension {suffix!r} names no output format "
                             f"({', '.join(FORMATS)}; or name one with --to)")
        return FORMATS.get(suffix, "jsonl")
    return "jsonl"


# --------------------------------------------------------------------------- the whole job


def extract(paths: list[str], out: IO[bytes] | str, *, fmt: str = "jsonl", framing: str = "auto",
            codepage: str = "cp037", mode: str = "PERMISSIVE", filters: Filters | None = None,
            messages: bool = False, max_seg: int = MAX_SEGMENT, workers: int | None = None,
            split_size: int = SPLIT_SIZE, progress: Callable[[int], None] | None = None,
            names: dict[str, str] | None = None, summary: Summary | None = None,
            options: Mapping[str, str] | None = None, force: bool = False) -> Summary:
    """Decode ``paths`` (files or URIs) and write rows to ``out`` (a path, written whole or
    not at all and replacing an existing file only with ``force``; a directory for
    ``fmt="dir"``; or a binary stream). ``summary`` is filled as the work goes, so a failed
    run still has its counts."""
    from mqtool.formats.csq1logp.segments import message_schema
    from mqtool.formats.csq1logp.segments import messages as reassemble

    filters = filters or Filters()
    mode = mode.upper()
    workers = workers if workers is not None else (os.cpu_count() or 1)
    summary = summary if summary is not None else Summary(mode=mode)
    summary.mode = mode
    indexes = plan(paths, framing, codepage, split_size, index_all=False, options=options)
    big = workers > 1 and any(ix.size > 2 * split_size for ix in indexes)
    pool = None
    try:
        pool = _pool(workers) if big else None  # before this process starts any Arrow thread
        schema = message_schema() if messages else record_schema()
        tables: Iterable[pa.Table] = decoded_tables(indexes, codepage, mode, workers, summary,
                                                    progress, names, split_size, pool)
        if fmt == "dir":
            staged = staged_dirs(str(out), OUT_DIRS, options)
            with staged as scratch:
                staged.keep(_extract_to_dir(str(scratch), tables, filters, messages, max_seg,
                                            summary, part_name(0, getattr(staged, "run", "")),
                                            options))
            return summary
        if messages:
            batches_ = (b for t in tables for b in t.to_batches())
            tables = reassemble(batches_, max_seg)
        target = atomic_path(out, force, options) if isinstance(out, str) else None
        with target or nullcontext():
            _write(Writer(fmt, str(target.temp) if target else out, schema), tables, filters,
                   messages, summary)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    return summary


def _write(writer: Writer, tables: Iterable[pa.Table], filters: Filters, messages: bool,
           summary: Summary) -> None:
    try:
        for t in tables:
            t = filters.apply(t)
            if t.num_rows:
                summary.count_rows(t, messages)
                writer.write(t)
    finally:
        writer.close()


def _extract_to_dir(root: str, tables: Iterable[pa.Table], filters: Filters, messages: bool,
                    max_seg: int, summary: Summary, name: str = "part-00000.parquet",
                    options: Mapping[str, str] | None = None) -> list[str]:
    """``spark-extract``'s layout in ``root`` (a path or an object-store URI): records/ in
    log_date folders, errors/, and with ``messages`` messages/ (the same rows as the other
    writers); the files written."""
    from mqtool.formats.csq1logp.segments import messages as reassemble
    from mqtool.io.uris import join

    records = PartitionedWriter(join(root, "records"), name, options=options)
    errors = PartitionedWriter(join(root, "errors"), name, by=None, options=options)
    msgs = PartitionedWriter(join(root, "messages"), name, options=options) if messages else None

    def split(tables: Iterable[pa.Table]) -> Iterator[pa.RecordBatch]:
        for t in tables:
            bad = t.column("_error").is_valid()
            if pc.any(bad).as_py():
                errs = t.filter(bad)
                errors.write(errs)
                summary.rows += errs.num_rows
                t = t.filter(pc.invert(bad))
            kept = filters.apply(t)
            if kept.num_rows:
                records.write(kept)
                summary.count_rows(kept)
            if messages:
                yield from t.to_batches()

    writers = [w for w in (records, errors, msgs) if w is not None]
    try:
        if msgs is None:
            for _ in split(tables):
                pass
        else:
            for m in reassemble(split(tables), max_seg):
                m = filters.apply(m)
                if m.num_rows:
                    msgs.write(m)
                    ok = m.column("complete")
                    summary.messages += m.num_rows
                    summary.incomplete += m.num_rows - (pc.sum(ok.cast(pa.int64())).as_py() or 0)
                    for p in pc.list_flatten(m.column("problems")).to_pylist():
                        summary.message_problems[p.split(":", 1)[0]] += 1
    except BaseException:
        for w in writers:
            w.abort()
        raise
    for w in writers:
        w.close()
    return [f for w in writers for f in w.written]


def is_dir_output(output: str | None) -> bool:
    """``-o DIR/`` (a trailing slash, or an existing directory; a URI with a trailing
    slash): the Spark layout."""
    if not output or output == "-":
        return False
    return output.endswith(("/", os.sep)) or (not looks_like_uri(output) and os.path.isdir(output))


def parse_size(text: str | int) -> int:
    """``64m``, ``1g``, ``4096`` -> bytes."""
    if isinstance(text, int):
        return text
    t = text.strip().lower().removesuffix("b")
    mult = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}.get(t[-1:], 1)
    try:
        n = int(float(t[:-1] if mult > 1 else t) * mult)
    except ValueError:
        raise ValueError(f"{text!r} is not a size (e.g. 64m, 1g, 1048576)") from None
    if n < MIN_SPLIT:
        raise ValueError(f"{text!r}: a split must be at least 1k")
    return n
