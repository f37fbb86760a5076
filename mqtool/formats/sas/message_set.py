"""Build the message set of a SAS attachment: what SAS's SENDMESSAGE with ATTACHLIST puts
on the queue (spec section 9), for testing consumers and this project's reassembler.

Queue order: header (MsgType 100000), application message, then per attachment its
sequenced messages 1..N and the count message last (MsgType 100001). Files are read in
blocks and messages are produced lazily, so a large file is never held in memory.
"""

from __future__ import annotations

import csv
import hashlib
import math
import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from mqtool.codepages import ccsid_for
from mqtool.errors import BuildError, InputError
from mqtool.formats.mq.dumps.read import Message
from mqtool.formats.mq.mqmd import encoding_for
from mqtool.formats.sas.build import (
    build_count,
    build_dsdef,
    build_fileinfo,
    build_header,
    build_typeid,
    build_vardef,
)
from mqtool.formats.sas.datasets import encode_doubles, missing_letter
from mqtool.formats.sas.layout import (
    BINARY_FILE,
    CHAR_LENGTH_MAX,
    CORRELID_SIZE,
    DATASET,
    FORMAT,
    G_SIZE,
    HEADER_MSGTYPE,
    INT_MAX,
    NUMERIC_LENGTHS,
    OBSERVATIONS,
    SUBORDINATE_MSGTYPE,
    TEXT_FILE,
    VARDEFS,
    DatasetDef,
    Entry,
    Header,
    Settings,
    Variable,
    int_struct,
    make_correlid,
)

MAX_MSG = 32768
MIN_MSG = 64
MEMBER_NAME = 32  # longest SAS member name
ROWS_AT_ONCE = 4096  # observations encoded together
FMT = FORMAT


@dataclass
class FileAttachment:
    """An external file: ``path`` (read in blocks) or ``data``; ``name`` is what the sender
    calls it (qualifier 2, e.g. ``d:\\mytext.txt``)."""

    path: Path | None = None
    data: bytes | None = None
    name: str | None = None  # None: the file's own name
    text: bool = False
    spec: str = "FILENAME"
    description: str = ""
    version: tuple[int, int] = (0, 0)  # major, minor
    lrecl: int | None = None
    source_encoding: str = "utf-8"  # of a text file's lines, converted to the sender's page
    correlid: bytes | None = None  # 16 bytes (G); default: stepped from the header's


@dataclass
class DatasetAttachment:
    """A SAS data set: variables and rows (numbers, strings, None / ``.A`` missing): a list,
    or any sized collection that can be iterated more than once (``CsvRows``)."""

    variables: list[Variable]
    rows: Sequence[list[Any]] | CsvRows
    library: str = "WORK"
    member: str = "DATA"
    label: str = ""
    description: str = ""
    version: tuple[int, int] = (0, 0)
    correlid: bytes | None = None


@dataclass
class Request:
    """An application message and its attachments."""

    message: bytes = b""
    attachments: list[FileAttachment | DatasetAttachment] = field(default_factory=list)
    original_msgtype: int = 1
    original_correlid: bytes = bytes(CORRELID_SIZE)
    header_correlid: bytes | None = None  # 16 bytes (G); default: BuildOptions.correlid
    message_correlid: bytes | None = None  # 16 bytes; default: stepped from the header's


def new_g(seed: int | None = None) -> bytes:
    """A header G: random, or the same for the same ``seed`` (reproducible message sets)."""
    rng = random.SystemRandom() if seed is None else random.Random(seed)
    return bytes(rng.getrandbits(8) for _ in range(G_SIZE))


def stepped_g(first: bytes, step: int) -> bytes:
    """The G of the ``step``-th CorrelId of a set (0 header, 1 application message, 1 + i
    attachment i): each byte of the header's G plus X'11' per step, as in IBM's example
    (11.., 22.., 33..); distinct for 255 steps, hashed from the header's G beyond."""
    if step < 255:
        return bytes((b + 0x11 * step) & 0xFF for b in first[:G_SIZE].ljust(G_SIZE, b"\0"))
    return hashlib.sha256(first + step.to_bytes(4, "big")).digest()[:G_SIZE]


@dataclass
class BuildOptions:
    settings: Settings = field(default_factory=Settings)
    max_msg: int = MAX_MSG
    straddle: bool = False  # split records / observations at the message limit
    seq_order: str = "big"  # byte order of the sequence number inside correlids
    correlid: bytes | None = None  # header G when the request has none; None: new_g(seed)
    seed: int | None = None


class Builder:
    """Messages of one request, in queue order, one at a time."""

    def __init__(self, request: Request, options: BuildOptions | None = None) -> None:
        self.request = request
        self.o = options or BuildOptions()
        s = self.o.settings
        if self.o.max_msg < MIN_MSG:
            raise BuildError(FMT, "max_msg", f"{self.o.max_msg} bytes is too small (at least "
                             f"{MIN_MSG})")
        self.mqmd = {"encoding": encoding_for(s.byte_order, s.float_format),
                     "codedcharsetid": ccsid_for(s.codepage), "format": ""}
        self.position = 0

    def _msg(self, msgtype: int, cid: bytes, body: bytes) -> Message:
        self.position += 1
        msgid = b"MQTOOLSAS" + self.position.to_bytes(15, "big")
        return Message(self.position, body, {**self.mqmd, "msgtype": msgtype, "correlid": cid,
                                             "msgid": msgid})

    def header(self) -> Header:
        r = self.request
        first = r.header_correlid or self.o.correlid or new_g(self.o.seed)
        entries = []
        for i, att in enumerate(r.attachments, 1):
            cid = make_correlid(att.correlid or stepped_g(first, 1 + i))
            if isinstance(att, FileAttachment):
                name = att.name if att.name is not None else (att.path.name if att.path
                                                               else f"file{i}")
                entries.append(Entry(i, TEXT_FILE if att.text else BINARY_FILE, cid, att.spec,
                                     name, att.description, att.version[1], att.version[0]))
            else:
                entries.append(Entry(i, DATASET, cid, att.library, att.member, att.description,
                                     att.version[1], att.version[0]))
        return Header(make_correlid(first), r.original_msgtype,
                      r.original_correlid.ljust(CORRELID_SIZE, b"\0")[:CORRELID_SIZE],
                      make_correlid(r.message_correlid or stepped_g(first, 1)), entries,
                      self.o.settings)

    def prepare(self) -> None:
        """Everything that can be refused, refused now (before a single message is out):
        the header, text conversions, data set values. Binary files are read later."""
        self._header = self.header()
        self._header_body = build_header(self._header, self.o.settings)
        self._scans: dict[int, tuple[int, int]] = {}
        for att in self.request.attachments:
            if isinstance(att, DatasetAttachment):
                for _ in self._dataset(att):  # a first pass refuses; the messages come later
                    pass
            elif att.text:
                self._scans[id(att)] = self._text_scan(att)  # read twice: memory stays bounded

    def messages(self) -> Iterator[Message]:
        s = self.o.settings
        if not hasattr(self, "_header"):
            self.prepare()
        header = self._header
        yield self._msg(HEADER_MSGTYPE, header.header_correlid, self._header_body)
        yield self._msg(SUBORDINATE_MSGTYPE, header.message_correlid, self.request.message)
        for att, entry in zip(self.request.attachments, header.entries, strict=True):
            pieces = (self._dataset(att) if isinstance(att, DatasetAttachment)
                      else self._file(att))
            n = 0
            for n, body in enumerate(pieces, 1):
                yield self._msg(SUBORDINATE_MSGTYPE,
                                make_correlid(entry.correlid, n, self.o.seq_order), body)
            yield self._msg(SUBORDINATE_MSGTYPE, make_correlid(entry.correlid),
                            build_count(n, s))

    # -- external files --------------------------------------------------------------------

    def _records(self, att: FileAttachment) -> tuple[Iterator[bytes], int, int]:
        """The records of a file, its lrecl and its declared size."""
        s = self.o.settings
        overhead = s.long + (1 if s.record_nul else 0)
        if att.text:
            longest, size = self._scans.get(id(att)) or self._text_scan(att)
            return self._text_records(att), att.lrecl or longest or 1, size
        lrecl = att.lrecl or (self.o.max_msg - overhead)
        if att.data is not None:
            data = att.data
            return (data[i:i + lrecl] for i in range(0, len(data), lrecl)), lrecl, len(data)
        if att.path is None:
            raise BuildError(FMT, att.name or "file", "a file attachment needs a path or data")
        size = att.path.stat().st_size
        return _chunks(att.path, lrecl), lrecl, size

    def _text_records(self, att: FileAttachment) -> Iterator[bytes]:
        """A text file's lines (without line ends) in the sender's code page."""
        s = self.o.settings
        for n, line in enumerate(_lines(att), 1):
            try:
                yield line.rstrip(b"\r").decode(att.source_encoding).encode(s.codepage)
            except (UnicodeDecodeError, UnicodeEncodeError) as e:
                raise BuildError(FMT, f"{att.name or att.path} line {n}", f"not convertible "
                                 f"from {att.source_encoding} to {s.codepage}: {e.reason}") from None

    def _text_scan(self, att: FileAttachment) -> tuple[int, int]:
        """The longest record and the declared size of a text file (and every line it cannot
        convert refused), from a first pass over it."""
        longest = size = 0
        for rec in self._text_records(att):
            longest = max(longest, len(rec))
            size += len(rec) + 1
        return longest, size

    def _file(self, att: FileAttachment) -> Iterator[bytes]:
        s = self.o.settings
        records, lrecl, size = self._records(att)
        if size > INT_MAX:
            raise BuildError(FMT, att.name or str(att.path),
                             f"{size} bytes: the file size is an int (2 GB at most)")
        yield build_fileinfo(lrecl, size, s)
        limit = self.o.max_msg
        buf = bytearray()
        lenfmt = int_struct(s, long=True)
        nul = b"\0" if s.record_nul else b""
        for rec in records:
            pair = lenfmt.pack(len(rec)) + rec + nul
            if len(buf) + len(pair) <= limit:
                buf += pair
                continue
            if buf and not self.o.straddle and len(pair) <= limit:
                yield bytes(buf)
                buf = bytearray(pair)
                continue
            buf += pair  # straddles: fill this message, carry the rest
            while len(buf) >= limit:
                yield bytes(buf[:limit])
                del buf[:limit]
        if buf:
            yield bytes(buf)

    # -- data sets ---------------------------------------------------------------------------

    def _dataset(self, att: DatasetAttachment) -> Iterator[bytes]:
        s = self.o.settings
        for problem in variable_problems(att.variables):
            raise BuildError(FMT, f"{att.member}.{problem[0]}", problem[1])
        obslen = sum(v.length for v in att.variables)
        ds = DatasetDef(label=att.label, nobs=len(att.rows), nvars=len(att.variables),
                        obslen=obslen)
        yield build_dsdef(ds, s)
        yield from self._typed(VARDEFS, [build_vardef(v, s) for v in att.variables])
        if att.rows:
            yield from self._typed(OBSERVATIONS, self._observations(att))

    def _typed(self, kind: int, units: list[bytes] | Iterator[bytes]) -> Iterator[bytes]:
        """Messages of one type: the type word, then whole units (definitions, observations)
        up to the limit; a unit larger than a message (or ``straddle``) is split."""
        s = self.o.settings
        head = build_typeid(kind, s)
        room = self.o.max_msg - len(head)
        buf = bytearray()
        for unit in units:
            if len(buf) + len(unit) <= room:
                buf += unit
                continue
            if buf and not self.o.straddle and len(unit) <= room:
                yield head + bytes(buf)
                buf = bytearray(unit)
                continue
            buf += unit
            while len(buf) >= room:
                yield head + bytes(buf[:room])
                del buf[:room]
        if buf:
            yield head + bytes(buf)

    def _observations(self, att: DatasetAttachment) -> Iterator[bytes]:
        """The observations, encoded ``ROWS_AT_ONCE`` rows at a time."""
        batch: list[list[Any]] = []
        done = 0
        for row in att.rows:
            batch.append(row)
            if len(batch) == ROWS_AT_ONCE:
                yield from self._encoded(att, batch, done)
                done += len(batch)
                batch = []
        if batch:
            yield from self._encoded(att, batch, done)

    def _encoded(self, att: DatasetAttachment, rows: list[list[Any]], first: int
                 ) -> Iterator[bytes]:
        s = self.o.settings
        cols: list[list[bytes]] = []
        for j, var in enumerate(att.variables):
            values = [row[j] if j < len(row) else None for row in rows]
            if var.numeric:
                try:
                    cols.append(encode_doubles(values, s.float_format, var.length))
                except (ValueError, TypeError, OverflowError) as e:
                    raise BuildError(FMT, f"{att.member}.{var.name}", str(e)) from None
            else:
                col = []
                for i, v in enumerate(values):
                    text = "" if v is None else str(v)
                    try:
                        raw = text.encode(s.codepage)
                    except UnicodeEncodeError:
                        raise BuildError(FMT, f"{att.member}.{var.name}[{first + i + 1}]",
                                         f"{text!r} has characters {s.codepage} lacks") from None
                    if len(raw) > var.length:
                        raise BuildError(FMT, f"{att.member}.{var.name}[{first + i + 1}]",
                                         f"{text!r} is longer than the variable ({var.length})")
                    col.append(raw.ljust(var.length, " ".encode(s.codepage)))
                cols.append(col)
        for i in range(len(rows)):
            yield b"".join(col[i] for col in cols)


def variable_problems(variables: list[Variable]) -> Iterator[tuple[str, str]]:
    """``(where, why)`` for each variable SAS could not hold: numerics of 2..8 bytes,
    character variables of 1..32767."""
    for v in variables:
        if v.numeric and v.length not in NUMERIC_LENGTHS:
            yield (f"{v.name}.length", f"{v.length}: a numeric variable has "
                   f"{NUMERIC_LENGTHS[0]}..{NUMERIC_LENGTHS[-1]} bytes")
        elif not v.numeric and not 1 <= v.length <= CHAR_LENGTH_MAX:
            yield (f"{v.name}.length", f"{v.length}: a character variable has "
                   f"1..{CHAR_LENGTH_MAX} bytes")


def _lines(att: FileAttachment) -> Iterator[bytes]:
    """The lines of a text attachment (split at LF), its file read a block at a time."""
    if att.data is not None:
        lines = att.data.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        yield from lines
        return
    if att.path is None:
        raise BuildError(FMT, att.name or "file", "a file attachment needs a path or data")
    parts: list[bytes] = []  # the line being read (a long one spans blocks)
    for block in _chunks(att.path, 1 << 20):
        pieces = block.split(b"\n")
        parts.append(pieces[0])
        if len(pieces) > 1:
            yield b"".join(parts)
            yield from pieces[1:-1]
            parts = [pieces[-1]]
    if last := b"".join(parts):
        yield last


def _chunks(path: Path, size: int) -> Iterator[bytes]:
    try:
        f = path.open("rb")
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}") from None
    with f:
        while chunk := f.read(size):
            yield chunk


def build_messages(request: Request, options: BuildOptions | None = None) -> Iterator[Message]:
    """The messages of ``request`` in queue order. ``BuildError`` comes now, not halfway
    through; binary files are read lazily, a block at a time."""
    builder = Builder(request, options)
    builder.prepare()
    return builder.messages()


# --------------------------------------------------------------------------- CSV in


class CsvRows:
    """The data rows of a CSV file (after its header row) as a data set's values, read from
    the file again on every iteration: numbers for numeric columns, the text otherwise."""

    def __init__(self, path: Path, encoding: str, numeric: list[bool], count: int) -> None:
        self.path, self.encoding, self.numeric, self.count = path, encoding, numeric, count

    def __len__(self) -> int:
        return self.count

    def __iter__(self) -> Iterator[list[Any]]:
        for k, r in enumerate(_csv_rows(self.path, self.encoding)):
            if k == 0:
                continue
            row: list[Any] = []
            for j, numeric in enumerate(self.numeric):
                c = r[j] if j < len(r) else ""
                row.append((_number(c) if _number(c) is not None else c.strip() or None)
                           if numeric else c)
            yield row


def _csv_rows(path: Path, encoding: str) -> Iterator[list[str]]:
    try:
        with path.open(newline="", encoding=encoding) as f:
            yield from csv.reader(f)
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise InputError(f"{path}: not {encoding} text ({e.reason} at byte {e.start})") from None
    except csv.Error as e:
        raise InputError(f"{path}: not CSV ({e})") from None


def dataset_from_csv(path: Path, *, encoding: str = "utf-8", member: str | None = None,
                     library: str = "WORK", label: str = "") -> DatasetAttachment:
    """A data set from a CSV file with a header row. A column is numeric when every cell is
    a number or a SAS missing value (empty, ``.``, ``.A``..``.Z``, ``._``); otherwise it is
    character, as long as its longest value (in bytes, at least 1). The file is read a row
    at a time (here to find the variables, later for the observations)."""
    names: list[str] | None = None
    numeric: list[bool] = []
    width: list[int] = []
    count = 0
    for r in _csv_rows(path, encoding):
        if names is None:
            names, numeric, width = r, [True] * len(r), [0] * len(r)
            continue
        count += 1
        for j in range(len(names)):
            c = r[j] if j < len(r) else ""
            if numeric[j] and _number(c) is None and missing_letter(c) is None:
                numeric[j] = False
            width[j] = max(width[j], len(c.encode("utf-8")))
    if names is None:
        raise BuildError(FMT, str(path), "empty CSV file: the first row names the variables")
    variables: list[Variable] = []
    for j, name in enumerate(names):
        if not name.strip():
            raise BuildError(FMT, f"{path}:1", f"column {j + 1} has no name")
        variables.append(Variable(name.strip(), vartype=1, length=8) if numeric[j]
                         else Variable(name.strip(), vartype=2, length=width[j] or 1))
    return DatasetAttachment(variables, CsvRows(path, encoding, numeric, count), library=library,
                             member=member or path.stem.upper()[:MEMBER_NAME], label=label)


def _number(text: str) -> float | None:
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


# --------------------------------------------------------------------------- writing a set

SET_FORMATS = ("dmpmqmsg", "mqtool-dir", "amqsbcg", "mqmd-binary")
DIRECTORY_FORMATS = ("mqtool-dir", "mqmd-binary")


def encode_message(text: str, s: Settings) -> bytes:
    """The application message text in the sender's code page."""
    try:
        return text.encode(s.codepage)
    except UnicodeEncodeError as e:
        raise BuildError(FMT, "message", f"{text[e.start:e.end]!r} (character {e.start + 1}) has "
                         f"no form in code page {s.codepage}") from None


def write_set(messages: Iterable[Message], fmt: str, output: str | None, force: bool = False,
              width: int = 32, stdout: IO[bytes] | None = None) -> None:
    """Write a message set as a queue dump: a file (``output``; written under a temporary
    name and renamed, so a refused set leaves nothing) or ``stdout``; a directory for
    ``mqtool-dir`` and ``mqmd-binary``."""
    from mqtool.formats.mq.dumps.read import write_mqtool_dir
    from mqtool.formats.mq.dumps.write import write_amqsbcg, write_dmpmqmsg, write_mqmd_binaries
    from mqtool.io.outputs import OutputDir, atomic_output

    if fmt not in SET_FORMATS:
        raise BuildError(FMT, "output_format", f"{fmt!r}: use {', '.join(SET_FORMATS)}")
    if fmt in DIRECTORY_FORMATS:
        if not output or output == "-":
            raise BuildError(FMT, "output", f"{fmt} writes a directory: give one")
        out = OutputDir(output, force)
        (write_mqtool_dir if fmt == "mqtool-dir" else write_mqmd_binaries)(messages, out)
        return
    writer: Any = write_dmpmqmsg if fmt == "dmpmqmsg" else write_amqsbcg
    kwargs = {"width": width} if fmt == "dmpmqmsg" else {}
    if output and output != "-":
        with atomic_output(output, force) as f:
            writer(messages, f, **kwargs)
        return
    if stdout is None:
        raise BuildError(FMT, "output", "no output: give a file")
    writer(messages, stdout, **kwargs)
    stdout.flush()
