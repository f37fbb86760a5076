"""xxd's own output modes, byte for byte as xxd (2022) writes them: plain (``-p``), C
include (``-i``), bits (``-b``), little-endian groups (``-e``) and autoskip (``-a``: a
run of all-zero lines becomes ``*``). The normal mode without ``-a`` takes the vectorised
path in ``render.hexdump``; these stream a line at a time.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from mqtool.errors import InputError

MODES = ("normal", "plain", "include", "bits", "little")
MAX_COLS = 256
_LOWER = "0123456789abcdef"
_UPPER = "0123456789ABCDEF"


@dataclass(frozen=True)
class XxdOptions:
    """What xxd's options say; ``None`` takes xxd's default for the mode."""

    mode: str = "normal"
    cols: int | None = None  # -c: normal 16, bits 6, include 12, plain 30
    group: int | None = None  # -g: normal 2, little 4, bits 1
    upper: bool = False  # -u
    autoskip: bool = False  # -a
    name: str | None = None  # -i: the file name as given (None: stdin, no declaration)
    checked: bool = False  # resolved already (a group clamped to -c is not checked again)

    def resolved(self) -> XxdOptions:
        """Defaults filled in and checked as xxd checks them (``InputError`` as xxd refuses)."""
        if self.checked:
            return self
        if self.mode not in MODES:
            raise InputError(f"unknown xxd mode {self.mode!r}")
        default = {"bits": 6, "include": 12, "plain": 30}.get(self.mode, 16)
        cols = self.cols if self.cols is not None else default
        if cols < 0 or cols > MAX_COLS:
            raise InputError(f"invalid number of columns (max. {MAX_COLS})")
        if cols == 0 and self.mode != "plain":
            cols = default  # -c 0: the default, except for -p (one line)
        group = self.group if self.group is not None else {
            "little": 4, "bits": 1}.get(self.mode, 2)
        if group < 1 or group > max(cols, 1):
            group = max(cols, 1)
        elif self.mode == "little" and group & (group - 1):
            raise InputError("number of octets per group must be a power of 2 with -e")
        return replace(self, cols=cols, group=group, checked=True)


def xxd(chunks: Iterable[bytes], opts: XxdOptions, start: int = 0) -> Iterator[bytes]:
    """The xxd output of the bytes in ``chunks`` (``start``: the offset of the first, as
    after ``-s``)."""
    o = opts.resolved()
    if o.mode == "plain":
        yield from _plain(chunks, o)
    elif o.mode == "include":
        yield from _include(chunks, o)
    else:
        yield from _lines(chunks, o, start)


def _plain(chunks: Iterable[bytes], o: XxdOptions) -> Iterator[bytes]:
    cols = o.cols or 0
    left = cols  # bytes still to go on the current line
    for chunk in chunks:
        h = chunk.hex()
        if o.upper:
            h = h.upper()
        if not cols:
            yield h.encode()
            continue
        out = []
        pos = 0
        while pos < len(h):
            take = min(left * 2, len(h) - pos)
            out.append(h[pos:pos + take])
            pos += take
            left -= take // 2
            if left == 0:
                out.append("\n")
                left = cols
        yield "".join(out).encode()
    if not cols or left != cols:
        yield b"\n"


def _c_name(name: str) -> str:
    return ("__" if name[:1].isdigit() else "") + "".join(
        c if c.isascii() and c.isalnum() else "_" for c in name)


def _include(chunks: Iterable[bytes], o: XxdOptions) -> Iterator[bytes]:
    cols = o.cols or 12
    fmt = "0X{:02X}" if o.upper else "0x{:02x}"
    if o.name is not None:
        yield f"unsigned char {_c_name(o.name)}[] = {{\n".encode()
    p = 0
    for chunk in chunks:
        out = []
        for c in chunk:
            out.append((", " if p % cols else ("  " if not p else ",\n  ")) + fmt.format(c))
            p += 1
        yield "".join(out).encode()
    if p:
        yield b"\n"
    if o.name is not None:
        yield f"}};\nunsigned int {_c_name(o.name)}_len = {p};\n".encode()


class _Skip:
    """xxd's ``xxdline``: with autoskip, a run of zero lines prints its first line, ``*``
    for the middle and (at the end of the data) its last line."""

    def __init__(self) -> None:
        self.zero_seen = 0
        self.saved = ""

    def line(self, text: str, nz: int) -> str:
        out = ""
        if not nz and self.zero_seen == 1:
            self.saved = text
        seen = self.zero_seen
        self.zero_seen += 0 if nz else 1
        if nz or not seen:
            if nz:
                if nz < 0:
                    self.zero_seen -= 1
                if self.zero_seen == 2:
                    out += self.saved
                if self.zero_seen > 2:
                    out += "*\n"
            if nz >= 0 or self.zero_seen > 0:
                out += text
            if nz:
                self.zero_seen = 0
        return out


def _lines(chunks: Iterable[bytes], o: XxdOptions, start: int) -> Iterator[bytes]:
    cols, group = o.cols or 16, o.group or 1
    digits = _UPPER if o.upper else _LOWER
    bits = o.mode == "bits"
    little = o.mode == "little"
    grplen = (8 * group + 1) if bits else (2 * group + 1)
    skip = _Skip() if o.autoskip else None
    n = start
    pending = b""
    last = ""
    for chunk in chunks:
        data = pending + chunk
        full = len(data) - len(data) % cols
        out = []
        for i in range(0, full, cols):
            row = data[i:i + cols]
            last = _format(row, n, cols, group, grplen, digits, bits, little)
            n += cols
            if skip is None:
                out.append(last)
            else:
                out.append(skip.line(last, 1 if any(row) else 0))
        pending = data[full:]
        if out:
            yield "".join(out).encode("latin-1")
    if pending:
        text = _format(pending, n, cols, group, grplen, digits, bits, little)
        yield (skip.line(text, 1) if skip is not None else text).encode("latin-1")
    elif skip is not None and last:
        yield skip.line(last, -1).encode("latin-1")


def _format(row: bytes, address: int, cols: int, group: int, grplen: int, digits: str,
            bits: bool, little: bool) -> str:
    """One line as xxd lays it out in its line buffer (blanks, then each byte placed)."""
    head = f"{address:08x}:"
    a = len(head)
    chr_at = a + 3 + (grplen * cols - 1) // group
    line = [" "] * (chr_at + cols + grplen * group + 8)
    line[:a] = head
    for p, e in enumerate(row):
        x = p ^ (group - 1) if little else p
        c = a + 1 + (grplen * x) // group
        if bits:
            line[c:c + 8] = format(e, "08b")
        else:
            line[c] = digits[e >> 4]
            line[c + 1] = digits[e & 15]
        line[chr_at + p] = chr(e) if 31 < e < 127 else "."
    end = chr_at + len(row)
    return "".join(line[:end]) + "\n"
