"""Record images to typed columns: a ``RecordLayout`` walked over many images at once.

Every image is walked with its own position (a numpy array): a fixed-length value is read
at each image's position at once; a variable-length value (length 0: a one-byte length
that counts itself) moves each image's position by its own length; occurrences of an MU
field or PE group become child rows (image, occurrence) read the same way, in one pass
when their size is fixed, else occurrence by occurrence. The result is one struct per
image (the layout's ``struct_type``), MU fields as lists, PE groups as lists of structs.

An image that ends before its layout does, or whose length byte does not fit, stops there:
the values after it are null, and one failure names the field and the byte offset.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pyarrow as pa

from mqtool.formats.urb.typed import values as vals
from mqtool.formats.urb.typed.layout import (
    MAX_OCCURRENCES,
    Count,
    Item,
    RecordLayout,
    Repeat,
    Skip,
    Value,
    _fields,
    items_size,
    value_type,
)
from mqtool.formats.urb.typed.values import Encoding

FIRST_BYTES = 16  # bytes of a value that did not decode, kept in its failure


@dataclass(frozen=True)
class Failure:
    """A value that could not be decoded: which image, where in it, which field, why."""

    image: int  # index of the image in the batch
    offset: int  # byte offset in the image
    path: str  # column path: SALARY, INCOME[].BONUS[]
    reason: str
    first_bytes: str  # hex


@dataclass
class _Walk:
    buf: np.ndarray
    start: np.ndarray  # each image's first byte in ``buf``
    end: np.ndarray  # each image's end
    enc: Encoding
    failures: list[Failure] = field(default_factory=list)

    # ------------------------------------------------------------------ failures

    def fail(self, rows: np.ndarray, pos: np.ndarray, which: np.ndarray, path: str, reason: str,
             length: int = FIRST_BYTES) -> None:
        for i in np.nonzero(which)[0]:
            img, p = int(rows[i]), int(pos[i])
            stop = min(p + length, int(self.end[img]))
            self.failures.append(Failure(img, p - int(self.start[img]), path, reason,
                                         self.buf[p:stop].tobytes().hex().upper()))

    def short(self, rows: np.ndarray, pos: np.ndarray, alive: np.ndarray, need: np.ndarray | int,
              path: str, what: str) -> np.ndarray:
        """Rows where ``need`` bytes do not fit: a failure each, and no longer alive."""
        room = self.end[rows] - pos
        bad = alive & (room < need)
        if bad.any():
            for i in np.nonzero(bad)[0]:
                n = int(need[i]) if isinstance(need, np.ndarray) else need
                self.fail(rows[i:i + 1], pos[i:i + 1], np.ones(1, bool), path,
                          f"the image ends {int(room[i])} bytes into {what} of {n} bytes")
        still: np.ndarray = alive & ~bad
        return still

    # ------------------------------------------------------------------ items

    def items(self, items: tuple[Item, ...], rows: np.ndarray, pos: np.ndarray, alive: np.ndarray,
              path: str) -> tuple[list[pa.Array], np.ndarray, np.ndarray]:
        """Decode ``items`` for every row: their columns, and each row's next position."""
        pos = pos.copy()
        counts: dict[str, np.ndarray] = {}
        cols: list[pa.Array] = []
        for it in items:
            if isinstance(it, Skip):
                alive = self.short(rows, pos, alive, it.length, path, f"a {it.why} skip")
                pos += it.length
            elif isinstance(it, Count):
                counts[it.name], pos, alive = self.count(it, rows, pos, alive, path)
            elif isinstance(it, Value):
                arr, pos, alive = self.value(it, rows, pos, alive, path + it.column)
                cols.append(arr)
            else:
                arr, pos, alive = self.repeat(it, rows, pos, alive, counts.get(it.name), path + it.column)
                cols.append(arr)
        return cols, pos, alive

    def count(self, c: Count, rows: np.ndarray, pos: np.ndarray, alive: np.ndarray,
              path: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        where = f"{path}{c.name}C"
        alive = self.short(rows, pos, alive, c.length, where, "a count")
        n = vals.integers(vals.gather(self.buf, pos, c.length), c.fmt == "F", self.enc.big).astype(np.int64)
        bad = alive & ((n < 0) | (n > MAX_OCCURRENCES))
        self.fail(rows, pos, bad, where, f"a count of {'occurrences'} out of range 0..{MAX_OCCURRENCES}",
                  c.length)
        alive = alive & ~bad
        return np.where(alive, n, 0), pos + c.length, alive

    # ------------------------------------------------------------------ values

    def value(self, v: Value, rows: np.ndarray, pos: np.ndarray, alive: np.ndarray,
              path: str) -> tuple[pa.Array, np.ndarray, np.ndarray]:
        if v.length:
            alive = self.short(rows, pos, alive, v.length, path, f"{v.name} ({v.fmt})")
            idx = np.nonzero(alive)[0]
            arr, fails = vals.fixed(v, vals.gather(self.buf, pos[idx], v.length), self.enc)
            self._value_fails(fails, rows[idx], pos[idx], path, v.length)
            return _spread(arr, alive, value_type(v)), pos + v.length, alive
        return self.variable(v, rows, pos, alive, path)

    def variable(self, v: Value, rows: np.ndarray, pos: np.ndarray, alive: np.ndarray,
                 path: str) -> tuple[pa.Array, np.ndarray, np.ndarray]:
        """A value preceded by its length (one byte, counting itself)."""
        alive = self.short(rows, pos, alive, 1, path, f"the length byte of {v.name}")
        n = self.buf[np.minimum(pos, len(self.buf) - 1)].astype(np.int64)
        n = np.where(alive, n, 1)
        bad = alive & ((n < 1) | (pos + n > self.end[rows]))
        for i in np.nonzero(bad)[0]:
            self.fail(rows[i:i + 1], pos[i:i + 1], np.ones(1, bool), path,
                      f"length byte X'{int(n[i]):02X}' of {v.name} does not fit the image "
                      f"({int(self.end[rows[i]] - pos[i])} bytes left)", 1)
        alive = alive & ~bad
        n = np.where(alive, n, 1)
        idx = np.nonzero(alive)[0]
        typ = value_type(v)
        if v.fmt in ("A", "W") or (v.fmt == "B" and typ == pa.binary()):
            flat, offsets = vals.ragged(self.buf, pos[idx] + 1, n[idx] - 1)
            if v.fmt == "B":
                arr: pa.Array = pa.BinaryArray.from_buffers(
                    pa.binary(), len(idx), [None, pa.py_buffer(offsets.astype(np.int32)),
                                            pa.py_buffer(flat.tobytes())])
                fails: vals.Failures = []
            else:
                arr, fails = vals.text(flat, offsets, self.enc.acodec if v.fmt == "A" else self.enc.wcodec,
                                       self.enc.keep_blanks)
            self._value_fails(fails, rows[idx], pos[idx] + 1, path, FIRST_BYTES)
            return _spread(arr, alive, typ), pos + n, alive
        parts = []
        order = []
        for size in np.unique(n[idx] - 1).tolist():  # numbers: one pass per length met
            sel = idx[n[idx] - 1 == size]
            if size == 0:
                parts.append(pa.nulls(len(sel), typ))
            else:
                sub, fails = vals.fixed(replace(v, length=size), vals.gather(self.buf, pos[sel] + 1, size),
                                        self.enc)
                self._value_fails(fails, rows[sel], pos[sel] + 1, path, size)
                parts.append(sub.cast(typ))
            order.append(sel)
        joined = pa.concat_arrays(parts) if parts else pa.array([], typ)
        perm = np.argsort(np.concatenate(order)) if order else np.zeros(0, np.int64)
        return _spread(joined.take(pa.array(perm)), alive, typ), pos + n, alive

    def _value_fails(self, fails: vals.Failures, rows: np.ndarray, pos: np.ndarray, path: str,
                     length: int) -> None:
        for i, reason in fails:
            self.fail(rows[i:i + 1], pos[i:i + 1], np.ones(1, bool), path, reason, length)

    # ------------------------------------------------------------------ occurrences

    def repeat(self, r: Repeat, rows: np.ndarray, pos: np.ndarray, alive: np.ndarray,
               counted: np.ndarray | None, path: str) -> tuple[pa.Array, np.ndarray, np.ndarray]:
        n = len(rows)
        c = np.full(n, r.count, np.int64) if r.count is not None else counted
        assert c is not None  # layout.check: a Repeat up to N follows its Count
        c = np.where(alive, c, 0)
        size = items_size(r.items)
        if size is not None:
            alive = self.short(rows, pos, alive, c * size, path,
                               f"{'occurrences' if r.kind == 'MU' else 'group occurrences'}")
            c = np.where(alive, c, 0)
        if size is not None and not r.range_order:
            parent, j = _children(c)
            cols, _, _ = self.items(r.items, rows[parent], pos[parent] + j * size,
                                    np.ones(len(parent), bool), path + "[].")
            pos = pos + c * size
        elif r.range_order:
            cols, pos, alive = self.ranges(r, rows, pos, alive, c, path)
        else:
            cols, pos, alive = self.rounds(r.items, rows, pos, alive, c, path + "[].")
        return _lists(r, cols, c, alive), pos, alive

    def ranges(self, r: Repeat, rows: np.ndarray, pos: np.ndarray, alive: np.ndarray, c: np.ndarray,
               path: str) -> tuple[list[pa.Array], np.ndarray, np.ndarray]:
        """PE members one after the other: all occurrences of the first, then the next."""
        cols: list[pa.Array] = []
        for it in r.items:
            size = items_size((it,))
            if size is not None:
                parent, j = _children(c)
                got, _, _ = self.items((it,), rows[parent], pos[parent] + j * size,
                                       np.ones(len(parent), bool), path + "[].")
                pos = pos + c * size
            else:
                got, pos, alive = self.rounds((it,), rows, pos, alive, c, path + "[].")
            cols += got
        return cols, pos, alive

    def rounds(self, items: tuple[Item, ...], rows: np.ndarray, pos: np.ndarray, alive: np.ndarray,
               c: np.ndarray, path: str) -> tuple[list[pa.Array], np.ndarray, np.ndarray]:
        """Occurrences of variable size: the first occurrence of every row, then the second..."""
        pos, alive = pos.copy(), alive.copy()
        parents: list[np.ndarray] = []
        js: list[np.ndarray] = []
        got: list[list[pa.Array]] = []
        for j in range(int(c.max()) if len(c) else 0):
            act = np.nonzero(c > j)[0]
            cols, pos[act], alive[act] = self.items(items, rows[act], pos[act], alive[act], path)
            parents.append(act)
            js.append(np.full(len(act), j))
            got.append(cols)
        fields = _fields(items)
        if not got:
            return [pa.array([], f.type) for f in fields], pos, alive
        order = np.lexsort((np.concatenate(js), np.concatenate(parents)))
        ind = pa.array(order)
        return ([pa.concat_arrays([g[k] for g in got]).take(ind) for k in range(len(fields))],
                pos, alive)


def _children(c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For counts ``c``: each child's parent row and its occurrence index (0-based)."""
    parent = np.repeat(np.arange(len(c)), c)
    first = np.zeros(len(c), np.int64)
    np.cumsum(c[:-1], out=first[1:]) if len(c) > 1 else None
    return parent, np.arange(len(parent), dtype=np.int64) - first[parent]


def _lists(r: Repeat, cols: list[pa.Array], c: np.ndarray, alive: np.ndarray) -> pa.Array:
    typ = r.arrow_type()
    inner = typ.value_type
    if pa.types.is_struct(inner):
        child = pa.StructArray.from_arrays([a.cast(f.type) for a, f in zip(cols, inner, strict=True)],
                                           fields=list(inner))
    else:
        child = cols[0].cast(inner)
    offsets = np.zeros(len(c) + 1, np.int32)
    np.cumsum(c, out=offsets[1:])
    return pa.ListArray.from_arrays(pa.array(offsets), child, type=typ, mask=pa.array(~alive))


def _spread(arr: pa.Array, alive: np.ndarray, typ: pa.DataType) -> pa.Array:
    """Values of the alive rows placed among nulls for the others."""
    if alive.all():
        return arr.cast(typ)
    at = np.cumsum(alive) - 1
    return arr.cast(typ).take(pa.array(np.maximum(at, 0), mask=~alive))


# --------------------------------------------------------------------------- entry point


def binary_parts(images: pa.Array | pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The data buffer of a binary array and each value's start and end in it (nulls empty)."""
    if isinstance(images, pa.ChunkedArray):
        images = images.combine_chunks() if images.num_chunks != 1 else images.chunk(0)
    if pa.types.is_large_binary(images.type):
        images = images.cast(pa.binary())
    n = len(images)
    _valid, offsets, data = images.buffers()
    offs = np.frombuffer(offsets, np.int32)[images.offset:images.offset + n + 1].astype(np.int64) \
        if n else np.zeros(1, np.int64)
    buf = np.frombuffer(data, np.uint8) if data is not None else np.zeros(0, np.uint8)
    start, end = offs[:-1], offs[1:]
    if images.null_count:
        nulls = np.asarray(images.is_null())
        end = np.where(nulls, start, end)
    if not len(buf):
        buf = np.zeros(1, np.uint8)
    return buf, start, end


def decode_images(layout: RecordLayout, images: pa.Array | pa.ChunkedArray, enc: Encoding,
                  prefix: str = "") -> tuple[pa.StructArray, list[Failure]]:
    """One struct per image (``layout.struct_type()``), and the values that failed.

    ``prefix`` starts every failure's path (``after.``)."""
    buf, start, end = binary_parts(images)
    walk = _Walk(buf, start, end, enc)
    rows = np.arange(len(start), dtype=np.int64)
    cols, pos, alive = walk.items(layout.items, rows, start.copy(), np.ones(len(rows), bool), prefix)
    extra = alive & (pos < end)
    for i in np.nonzero(extra)[0]:
        walk.fail(rows[i:i + 1], pos[i:i + 1], np.ones(1, bool), prefix.rstrip(".") or "image",
                  f"{int(end[i] - pos[i])} bytes after the last field of the layout ({layout.source})")
    typ = layout.struct_type()
    arrays = [a.cast(f.type) for a, f in zip(cols, typ, strict=True)]
    if not arrays:
        return pa.array([{}] * len(rows), pa.struct([])), walk.failures
    return pa.StructArray.from_arrays(arrays, fields=list(typ)), walk.failures
