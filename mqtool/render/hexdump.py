"""The fast plain hex dumper: the documents' style, xxd style and canonical (``hexdump -C``).

Document style (the seeds')::

    0000 E4D9C2C8 00000040 F0F10001 000000A0 *URBH... 01.....-*
    1 identical line(s) suppressed

With ``base`` (a storage address) lines are aligned to the address, offsets have 8 digits
and a dump may start and end mid-line, as IPCS prints storage. One geometry per style
(cells -> column positions) drives both the vectorised path for full lines (numpy, imported
only when dumping) and the per-line path for partial lines and colour.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType

from mqtool.codepages import char_table

STYLES = ("document", "xxd", "canonical")
SUPPRESSED = "{n} identical line(s) suppressed"
LINES_PER_BLOCK = 1 << 16


@dataclass(frozen=True)
class DumpOptions:
    """How to dump; ``None`` fields take the style's default (see ``resolved``)."""

    style: str = "document"
    cols: int = 16
    group: int | None = None  # bytes per group: document 4, xxd 2, canonical 1
    upper: bool | None = None  # document upper-case; xxd/canonical lower unless -u
    codepage: str | None = None  # document: cp037; xxd/canonical: ascii
    dual: bool = False  # document style: EBCDIC and ASCII columns
    squeeze: bool = True
    base: int | None = None  # storage address of the first dumped byte
    offset_width: int | None = None  # minimum digits; default 4 (document), 8 (others)

    def resolved(self) -> Resolved:
        if self.style not in STYLES:
            raise ValueError(f"unknown style {self.style!r}; choose one of {', '.join(STYLES)}")
        if self.cols < 1 or self.cols > 256:
            raise ValueError("columns must be 1..256")
        doc = self.style == "document"
        group = self.group if self.group is not None else {"document": 4, "xxd": 2}.get(self.style, 1)
        if group < 1:
            group = self.cols
        width = self.offset_width or (8 if self.base is not None or not doc else 4)
        return Resolved(
            style=self.style,
            cols=self.cols,
            group=group,
            upper=doc if self.upper is None else self.upper,
            codepage=self.codepage or ("cp037" if doc else "ascii"),
            dual=self.dual,
            squeeze=self.squeeze,
            base=self.base,
            offset_width=width,
        )


@dataclass(frozen=True)
class Resolved(DumpOptions):
    """``DumpOptions`` with the style's defaults filled in: no ``None`` left but ``base``."""

    group: int = 1
    upper: bool = False
    codepage: str = "cp037"
    offset_width: int = 4


# --------------------------------------------------------------------------- geometry


@dataclass(frozen=True)
class Geometry:
    """Column positions of one full line for a style, offset width and column count."""

    template: bytes  # a full line: literals in place, blanks where values go, "\n" last
    off_pos: int
    off_width: int
    hex_pos: tuple[int, ...]  # first hex digit of byte j
    chr_pos: tuple[tuple[int, ...], ...]  # per character column: position of byte j
    tables: tuple[bytes, ...]  # per character column: the printable table
    chr_close: tuple[int, ...]  # per character column: position of its closing delimiter, -1 none
    upper_offsets: bool  # the documents print X'00A0'; xxd and hexdump always lower-case

    @property
    def high_chars(self) -> tuple[int, ...]:
        return tuple(sorted({b for t in self.tables for b in t if b >= 0x80}))


@lru_cache(maxsize=64)
def geometry(opts: DumpOptions, width: int) -> Geometry:
    o = opts.resolved()
    # what each cell holds: "off" None, "lit" text, "hex" column, "chr" (table, column),
    # "close" (table, delimiter)
    cells: list[tuple[str, str | int | tuple[int, int] | tuple[int, str] | None]] = [("off", None)]
    cols, group = o.cols, o.group
    if o.style == "document":
        cells.append(("lit", " "))
        for j in range(cols):
            if j and j % group == 0:
                cells.append(("lit", " "))
            cells.append(("hex", j))
        tables = [char_table(o.codepage)] + ([char_table("ascii")] if o.dual else [])
        for t in range(len(tables)):
            cells.append(("lit", " *"))
            cells += [("chr", (t, j)) for j in range(cols)]
            cells.append(("close", (t, "*")))
    elif o.style == "xxd":
        cells.append(("lit", ": "))
        for j in range(cols):
            if j and j % group == 0:
                cells.append(("lit", " "))
            cells.append(("hex", j))
        cells.append(("lit", "  "))
        tables = [char_table(o.codepage, full=True)]
        cells += [("chr", (0, j)) for j in range(cols)]
    else:  # canonical
        cells.append(("lit", "  "))
        for j in range(cols):
            cells.append(("hex", j))
            cells.append(("lit", "  " if j % 8 == 7 and j != cols - 1 else " "))
        cells.append(("lit", " |"))
        tables = [char_table(o.codepage, full=True)]
        cells += [("chr", (0, j)) for j in range(cols)]
        cells.append(("close", (0, "|")))
    line = bytearray()
    off_pos, hex_pos = 0, [0] * cols
    chr_pos = [[0] * cols for _ in tables]
    close = [-1] * len(tables)
    for cell in cells:
        match cell:
            case ("off", _):
                off_pos = len(line)
                line += b"0" * width
            case ("lit", str(text)):
                line += text.encode()
            case ("hex", int(j)):
                hex_pos[j] = len(line)
                line += b"  "
            case ("chr", (int(t), int(j))):
                chr_pos[t][j] = len(line)
                line += b" "
            case ("close", (int(t), str(ch))):
                close[t] = len(line)
                line += ch.encode()
    line += b"\n"
    return Geometry(bytes(line), off_pos, width, tuple(hex_pos),
                    tuple(tuple(p) for p in chr_pos), tuple(tables), tuple(close),
                    o.style == "document")


def _digits(address: int, minimum: int) -> int:
    return max(minimum, len(f"{address:X}"))


# --------------------------------------------------------------------------- per-line path


def format_line(data: bytes, address: int, first: int, geo: Geometry, upper: bool) -> bytes:
    """One (possibly partial) line, latin-1 bytes: ``data`` fills columns ``first``...

    ``address`` is that of ``data[0]``. Missing leading columns are blank (alignment);
    missing trailing columns are cut from the character column, as xxd and hexdump do.
    """
    line = bytearray(geo.template)
    off = (f"{address:0{geo.off_width}X}" if geo.upper_offsets
           else f"{address:0{geo.off_width}x}").encode()
    line[geo.off_pos:geo.off_pos + geo.off_width] = off[-geo.off_width:]
    hexd = (data.hex().upper() if upper else data.hex()).encode()
    for k in range(len(data)):
        p = geo.hex_pos[first + k]
        line[p:p + 2] = hexd[2 * k:2 * k + 2]
    for t, table in enumerate(geo.tables):
        chars = data.translate(table)
        for k in range(len(data)):
            line[geo.chr_pos[t][first + k]] = chars[k]
    last = first + len(data)
    if last < len(geo.hex_pos):  # cut the unused tail of each character column
        for t in reversed(range(len(geo.tables))):
            start = geo.chr_pos[t][last]
            end = geo.chr_close[t] if geo.chr_close[t] >= 0 else len(line) - 1
            del line[start:end]
    return bytes(line)


def to_utf8(buf: bytes, geo: Geometry) -> bytes:
    """Latin-1 line bytes -> UTF-8. Only character columns hold bytes >= X'80' (a few table
    entries such as the EBCDIC cent sign), so a replace per such character suffices."""
    for ch in geo.high_chars:
        buf = buf.replace(bytes([ch]), chr(ch).encode())
    return buf


# --------------------------------------------------------------------------- streaming


def dump(
    chunks: Iterable[bytes], opts: DumpOptions, *, start: int = 0, total: int | None = None
) -> Iterator[bytes]:
    """Yield the dump as UTF-8 blocks (whole lines with newlines).

    Addresses shown are ``base`` (when given) or ``start`` (the input position of the first
    byte, after ``--seek``) plus the position in the data. ``total`` is the number of bytes
    that will come, when known: it fixes the offset width for the whole dump.
    """
    o = opts.resolved()
    origin = o.base if o.base is not None else start
    cols = o.cols
    sq = _Squeeze(o)
    align = origin % cols if (o.base is not None and o.style == "document") else 0
    end_addr = origin + total if total is not None else None

    def geo(upto: int) -> Geometry:
        return geometry(o, _digits(end_addr if end_addr is not None else upto, o.offset_width))

    pending, pos = b"", 0
    for chunk in chunks:
        if not chunk:
            continue
        data, pending = pending + chunk, b""
        if align and pos == 0:  # first line of an unaligned storage dump
            take = cols - align
            if len(data) < take:
                pending = data
                continue
            g = geo(origin + len(data))
            yield to_utf8(sq.partial(data[:take], origin, align, g, o.upper), g)
            data, pos = data[take:], take
        full = len(data) - len(data) % cols
        if full:
            g = geo(origin + pos + full)
            for block in sq.full(data[:full], origin + pos, g, o.upper):
                yield to_utf8(block, g)
            pos += full
        pending = data[full:]
    if pending:
        first = align if pos == 0 else 0
        g = geo(origin + pos + len(pending))
        yield to_utf8(sq.partial(pending, origin + pos, first, g, o.upper), g)
        pos += len(pending)
    yield sq.finish()
    if o.style == "canonical" and pos:
        yield f"{origin + pos:0{_digits(origin + pos, o.offset_width)}x}\n".encode()


class _Squeeze:
    """Formats lines and squeezes runs identical to the line before (across blocks)."""

    def __init__(self, o: Resolved) -> None:
        self.o = o
        self.prev: bytes | None = None  # the last full line's bytes
        self.last: tuple[int, Geometry] | None = None  # its address and geometry
        self.run = 0

    def _marker(self) -> bytes:
        if not self.run:
            return b""
        n, self.run = self.run, 0
        return b"*\n" if self.o.style != "document" else (SUPPRESSED.format(n=n) + "\n").encode()

    def finish(self) -> bytes:
        """Close a run that ends the data. xxd style then prints the last line, as ``xxd -a``
        does, so a reader knows where the data ends (hexdump -C prints the end offset)."""
        if self.run and self.o.style == "xxd" and self.prev is not None and self.last:
            address, geo = self.last
            self.run -= 1
            return self._marker() + format_line(self.prev, address, 0, geo, self.o.upper)
        return self._marker()

    def partial(self, data: bytes, address: int, first: int, geo: Geometry, upper: bool) -> bytes:
        text = self._marker() + format_line(data, address, first, geo, upper)
        self.prev = None
        return text

    def full(self, data: bytes, address: int, geo: Geometry, upper: bool) -> Iterator[bytes]:
        import numpy as np

        cols = self.o.cols
        step = LINES_PER_BLOCK * cols
        for lo in range(0, len(data), step):
            block = data[lo:lo + step]
            text = _format_rows(np, block, address + lo, geo, upper)
            if not self.o.squeeze:
                yield text
                continue
            # compare lines 8 bytes at a time when they are whole 8-byte words
            unit = np.uint64 if cols % 8 == 0 else np.uint8
            rows = np.frombuffer(block, unit).reshape(len(block) // cols, -1)
            same = np.empty(len(rows), bool)
            same[1:] = (rows[1:] == rows[:-1]).all(axis=1)
            same[0] = self.prev == block[:cols]
            self.prev = block[-cols:]
            self.last = (address + lo + len(block) - cols, geo)
            if not same.any():
                yield self._marker() + text
            else:
                yield self._squeezed(text, same.tolist(), len(geo.template))

    def _squeezed(self, text: bytes, same: list[bool], width: int) -> bytes:
        """Drop lines equal to their predecessor; a marker closes each run."""
        out: list[bytes] = []
        i, n = 0, len(same)
        while i < n:
            j = i
            if same[i]:
                while j < n and same[j]:
                    j += 1
                self.run += j - i
            else:
                while j < n and not same[j]:
                    j += 1
                out.append(self._marker())
                out.append(text[i * width:j * width])
            i = j
        return b"".join(out)


@lru_cache(maxsize=4)
def _tables(upper: bool) -> tuple[bytes, bytes]:
    digits = b"0123456789ABCDEF" if upper else b"0123456789abcdef"
    pairs = bytes(c for b in range(256) for c in (digits[b >> 4], digits[b & 15]))
    return digits, pairs


class _Workspace:
    """Arrays reused from block to block: the literal columns are written once, and no
    block pays for fresh pages."""

    def __init__(self, np: ModuleType, geo: Geometry, n: int, upper: bool) -> None:
        cols = len(geo.hex_pos)
        self.out = np.empty((n, len(geo.template)), np.uint8)
        self.out[:] = np.frombuffer(geo.template, np.uint8)
        self.hexp = np.empty((n, cols), np.uint16)
        self.pairs16 = np.frombuffer(_tables(upper)[1], np.uint16)
        self.offpairs = np.frombuffer(_tables(geo.upper_offsets)[1], np.uint16)
        self.step = np.arange(n, dtype=np.uint64) * np.uint64(cols)


@lru_cache(maxsize=8)
def _workspace(geo: Geometry, n: int, upper: bool) -> _Workspace:
    import numpy as np

    return _Workspace(np, geo, n, upper)


@lru_cache(maxsize=16)
def _hex_plan(geo: Geometry) -> tuple[int, int, tuple[tuple[int, int, int], ...]] | None:
    """How ``binascii.hexlify(block, b" ", -g)`` lines up with the geometry's hex digits:
    ``(g, width of a line's hex text with its separator, runs)``; each run ``(out position,
    hex text position, length)`` is one slice copy. None when no grouping fits."""
    cols = len(geo.hex_pos)
    best: tuple[int, int, tuple[tuple[int, int, int], ...]] | None = None
    for g in range(1, cols + 1):
        if cols % g:
            continue
        at = [2 * j + j // g for j in range(cols)]
        runs: list[list[int]] = []
        for j in range(cols):
            d = geo.hex_pos[j] - at[j]
            if runs and runs[-1][3] == d:
                runs[-1][2] = at[j] + 2 - runs[-1][1]
            else:
                runs.append([geo.hex_pos[j], at[j], 2, d])
        plan = tuple((r[0], r[1], r[2]) for r in runs)
        if all(geo.template[o + k] == 0x20 for o, h, n in plan for k in range(n)) and (
                best is None or len(plan) < len(best[2])):
            best = (g, 2 * cols + cols // g, plan)
    return best if best is not None and len(best[2]) <= 4 else None


def _format_rows(np: ModuleType, block: bytes, address: int, geo: Geometry, upper: bool) -> bytes:
    """Vectorised formatting of full lines (latin-1 bytes, fixed width per line)."""
    import binascii

    cols = len(geo.hex_pos)
    n = len(block) // cols
    ws = _workspace(geo, n, upper)
    out = ws.out
    plan = _hex_plan(geo)
    if plan is not None:  # C-speed hex digits, copied in one slice per run of columns
        g, width, runs = plan
        text = binascii.hexlify(block, b" ", -g) + b" "
        if upper:
            text = text.upper()
        hx = np.frombuffer(text, np.uint8).reshape(n, width)
        for o, h, k in runs:
            out[:, o:o + k] = hx[:, h:h + k]
    else:
        rows = np.frombuffer(block, np.uint8).reshape(-1, cols)
        np.take(ws.pairs16, rows, out=ws.hexp)
        _scatter(out, geo.hex_pos, ws.hexp.view(np.uint8), 2)
    for table, pos in zip(geo.tables, geo.chr_pos, strict=True):
        chars = np.frombuffer(block.translate(table), np.uint8).reshape(n, cols)
        _scatter(out, pos, chars, 1)
    # offsets: two hex digits per address byte, through the same pair table
    nbytes = (geo.off_width + 1) // 2
    addrs = (ws.step + np.uint64(address)).astype(">u8").view(np.uint8).reshape(n, 8)
    digits = ws.offpairs[addrs[:, 8 - nbytes:]].view(np.uint8)
    out[:, geo.off_pos:geo.off_pos + geo.off_width] = digits[:, 2 * nbytes - geo.off_width:]
    lines: bytes = out.tobytes()
    return lines


def _scatter(out: object, positions: tuple[int, ...], values: object, size: int) -> None:
    """Write ``values`` (n, cols*size) to ``out`` at the positions, one slice per contiguous
    run of columns (a document-style word is one run of 8 digits)."""
    runs: list[tuple[int, int, int]] = []  # (out position, first value column, count)
    for j, p in enumerate(positions):
        if runs and runs[-1][0] + runs[-1][2] * size == p:
            runs[-1] = (runs[-1][0], runs[-1][1], runs[-1][2] + 1)
        else:
            runs.append((p, j, 1))
    for p, j, k in runs:
        out[:, p:p + k * size] = values[:, j * size:(j + k) * size]  # type: ignore[index]


def dump_bytes(data: bytes, opts: DumpOptions | None = None, **kw: object) -> str:
    """The whole dump of ``data`` as one string (convenience for listings and tests)."""
    o = opts or DumpOptions(**kw)  # type: ignore[arg-type]
    return b"".join(dump([data], o, total=len(data))).decode("utf-8")
