"""Multi-segment CSQ1LOGP message data -> one row per logical message.

Records of one message are consecutive in file order: it starts at ``lsegment == 1``; a
record continues it when ``lsegment`` = previous + 1 and ``csqmgrname``, ``csurid``,
``csqueuename``, ``csdmcp``, ``cssqdmcp`` and ``csverb`` are equal (``cslogrba`` may differ).
Data is concatenated in segment order. Places are file offsets (a byte range's reader does not
know record numbers), so the local and the Spark paths word problems alike. Anomalies are
reported in ``problems`` and ``complete`` is false; nothing is dropped:

* ``gap``: a segment number was skipped (the data that is there is still joined);
* ``duplicate-segment``: a segment number seen again (its data is left out, its record named);
* ``orphan-segment``: a segment > 1 without a start;
* ``interleaved``: other records (or bad spans) sit between two segments (still reassembled);
* ``missing-tail``: the input ended (or the key was reused) before a last segment;
* ``length-mismatch``: reading B (``ldatalen`` = message total) and the sum differs.

A message ends with a segment shorter than ``max_seg`` (reading A) or once the total of
reading B is reached. A record that opens and closes a message at once (``standalone``)
never touches an open group, so the local path and the Spark path (which shuffles only the
other records) group identically.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from mqtool.formats.csq1logp.bulk import numeric, record_schema
from mqtool.formats.csq1logp.layout import BDW_LEN, MAX_SEGMENT

KEY = ("csqmgrname", "csurid", "csqueuename", "csdmcp", "cssqdmcp", "csverb")
MESSAGE_EXTRA = [
    pa.field("segments", pa.int32()),
    pa.field("complete", pa.bool_()),
    pa.field("problems", pa.list_(pa.string())),
]


@lru_cache(maxsize=1)
def message_schema() -> pa.Schema:
    """A record row of the first segment, data reassembled, plus segments/complete/problems."""
    s = record_schema()
    at = s.get_field_index("csvardata")
    fields = list(s)
    return pa.schema(fields[:at + 1] + MESSAGE_EXTRA + fields[at + 1:])


def standalone(batch: pa.RecordBatch | pa.Table, max_seg: int = MAX_SEGMENT) -> np.ndarray:
    """Rows that are a whole message by themselves (or bad spans, passed through)."""
    err = batch.column("_error").is_valid().to_numpy(zero_copy_only=False)
    seg = batch.column("lsegment").fill_null(0).to_numpy(zero_copy_only=False)
    ld = batch.column("ldatalen").fill_null(0).to_numpy(zero_copy_only=False)
    n = pc.binary_length(batch.column("csvardata")).fill_null(0).to_numpy(zero_copy_only=False)
    whole: np.ndarray = err | ((seg == 1) & (n < max_seg) & (ld <= n))
    return whole


def standalone_sql(max_seg: int = MAX_SEGMENT) -> str:
    """``standalone`` as a Spark SQL predicate (tests prove they agree)."""
    return (f"(_error IS NOT NULL) OR (lsegment = 1 AND length(csvardata) < {max_seg} "
            "AND ldatalen <= length(csvardata))")


def singles(batch: pa.RecordBatch | pa.Table) -> pa.Table:
    """Message rows of standalone records (vectorised: no per-row Python)."""
    n = batch.num_rows
    ok = batch.column("_error").is_null()
    cols = {name: batch.column(name) for name in batch.schema.names}
    cols["segments"] = pc.if_else(ok, pa.scalar(1, pa.int32()), pa.scalar(None, pa.int32()))
    cols["complete"] = pc.if_else(ok, True, pa.scalar(None, pa.bool_()))
    cols["problems"] = pa.nulls(n, pa.list_(pa.string()))
    schema = message_schema()
    return pa.Table.from_arrays([cols[f.name] for f in schema], schema=schema)


@dataclass
class _Group:
    first: dict[str, Any]
    parts: list[bytes]
    last_seg: int
    last_end: int  # file offset just after the last segment's record
    total: int | None  # reading B: the message total
    problems: list[str] = field(default_factory=list)
    started: bool = True
    gaps: bool = False
    ended: bool = False

    @property
    def size(self) -> int:
        return sum(len(p) for p in self.parts)


def _end(row: dict[str, Any]) -> int:
    return int(row["offset"]) + int(row["rec_len"])


class Reassembler:
    """Feed record rows (dicts) in file order; get message rows (dicts) as they complete."""

    def __init__(self, max_seg: int = MAX_SEGMENT) -> None:
        self.max_seg = max_seg
        self.open: dict[tuple[Any, ...], _Group] = {}

    def feed(self, row: dict[str, Any]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        key = (row["file"], *(row[k] for k in KEY))
        seg = int(row["lsegment"])
        data = row["csvardata"] or b""
        g = self.open.get(key)
        if seg <= 1 or g is None:
            if g is not None:
                g.problems.append(f"missing-tail: key reused by a new message at offset {row['offset']}")
                out.append(self._close(self.open.pop(key)))
            total = row["ldatalen"] if row["ldatalen"] > len(data) else None
            g = _Group(row, [data], seg, _end(row), total)
            if seg != 1:
                g.started = False
                g.problems.append(f"orphan-segment: first segment seen is {seg} (offset {row['offset']})")
            self.open[key] = g
        else:
            if not 0 <= row["offset"] - g.last_end <= BDW_LEN:  # adjacent, or a block descriptor between
                g.problems.append(f"interleaved: offset {g.last_end}..{row['offset'] - 1} "
                                  "between segments")
            if seg <= g.last_seg:
                g.problems.append(f"duplicate-segment: segment {seg} again at offset {row['offset']}")
                g.last_end = _end(row)
                return out
            if seg > g.last_seg + 1:
                g.gaps = True
                missing = (f"{g.last_seg + 1}" if seg == g.last_seg + 2
                           else f"{g.last_seg + 1}..{seg - 1}")
                g.problems.append(f"gap: segment {missing} missing before offset {row['offset']}")
            g.parts.append(data)
            g.last_seg, g.last_end = seg, _end(row)
        if (g.total is not None and g.size >= g.total) or (g.total is None and len(data) < self.max_seg):
            g.ended = True
            out.append(self._close(self.open.pop(key)))
        return out

    def finish(self) -> list[dict[str, Any]]:
        out = []
        for g in self.open.values():
            g.problems.append(f"missing-tail: input ended after segment {g.last_seg}")
            out.append(self._close(g))
        self.open.clear()
        return out

    def _close(self, g: _Group) -> dict[str, Any]:
        row = dict(g.first)
        data = b"".join(g.parts)
        if g.total is not None and len(data) != g.total:
            g.problems.append(f"length-mismatch: ldatalen {g.total} (reading B), {len(data)} bytes joined")
        row["csvardata"] = data
        row["segments"] = len(g.parts)
        row["complete"] = g.started and g.ended and not g.gaps and not (
            g.total is not None and len(data) != g.total)
        row["problems"] = g.problems or None
        return row


def messages(batches: Iterable[pa.RecordBatch], max_seg: int = MAX_SEGMENT) -> Iterator[pa.Table]:
    """Message tables from record batches in file order (each file's records in order)."""
    r = Reassembler(max_seg)
    schema = message_schema()
    for b in batches:
        mask = standalone(b, max_seg)
        if mask.any():
            yield singles(b.filter(numeric(mask)))
        if not mask.all():
            done = []
            for row in b.filter(numeric(~mask)).to_pylist():
                done += r.feed(row)
            if done:
                yield pa.Table.from_pylist(done, schema=schema)
    done = r.finish()
    if done:
        yield pa.Table.from_pylist(done, schema=schema)
