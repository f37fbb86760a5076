"""Rebuild SAS attachments from the messages of a queue dump, as a stream.

Messages are grouped by header (MsgType 100000), message correlid (the application message)
and attachment correlid: the first 20 bytes of the 24-byte CorrelId are matched (16-byte G
+ 4-byte sequence number), the last 4 are reported when not zero. Sequenced messages that
arrive in order go straight to their writer; any that arrive early, and messages whose
header has not been seen yet, wait in a spool file on disk. Nothing ever holds a whole
attachment in memory.

Per header, ``OUTDIR/<header CorrelId, 48 hex digits>/`` gets ``message.bin``, one output
per attachment (external file under its sanitised base name; data set as
``<member>.parquet`` / ``.csv`` / ``.xpt``) and ``manifest.json``. Outputs are written
under a temporary name and renamed when complete (or with ``partial``); an incomplete
attachment leaves no file behind otherwise.
"""

from __future__ import annotations

import codecs
import hashlib
import io
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, NamedTuple

from mqtool.errors import ExitStatus, MissingExtraError, MqtoolError, OutputExistsError
from mqtool.formats.mq.chain import Chain, unwrap
from mqtool.formats.mq.dumps.read import INDEX, Message, QueueDump, message_json
from mqtool.formats.sas.decode import (
    DatasetContext,
    Hints,
    RecordError,
    RecordStream,
    dataset_type,
    decode_header,
    detect_record_nul,
    dsdef_of,
    message_settings,
    parse_dsdef,
    parse_indexes,
    parse_vardefs,
    variable_of,
)
from mqtool.formats.sas.layout import (
    CONSTRAINTS,
    DATASET,
    DATASET_MESSAGES,
    DSDEF,
    HEADER_MSGTYPE,
    INDEXES,
    INT_MAX,
    OBSERVATIONS,
    SUBORDINATE_MSGTYPE,
    TEXT_FILE,
    VARDEFS,
    Entry,
    Header,
    Settings,
    g_of,
    key_of,
    layouts_for,
    pad_of,
    seq_raw,
    type_word,
)
from mqtool.formats.sas.placement import Placement, placement
from mqtool.io.outputs import AtomicFile, OutputDir, safe_name
from mqtool.model import Problem

if TYPE_CHECKING:
    from mqtool.formats.sas.datasets import Observations
    from mqtool.formats.sas.layout import DatasetDef

UNPLACED = "unplaced"  # OUTDIR/<header>/unplaced/: messages after a gap that cannot be placed
RESERVED_NAMES = {"message.bin", "manifest.json", UNPLACED}
NEWLINES = {"lf": b"\n", "crlf": b"\r\n"}
MISSING_LIST_LIMIT = 10_000  # sequence numbers listed in a manifest's "missing"
LINE_LIMIT = 16 << 20  # a text record longer than this is written in pieces
DEFINITIONS_LIMIT = 64 << 20  # data set definition / variable / index bytes


@dataclass
class Options:
    outdir: str | None = None  # None: check and list only, write nothing
    force: bool = False
    partial: bool = False
    keep_orphans: bool = False
    encoding: str = "utf-8"
    newline: str = "lf"
    hints: Hints = field(default_factory=Hints)
    obs_layout: str = "definition"
    formats: tuple[str, ...] = ("parquet", "csv", "xpt")
    input_format: str | None = None
    inputs: tuple[str, ...] = ()  # what the run read: each manifest's chain of custody names it


class Used(NamedTuple):
    """One input message a header used (a tuple: one per message, kept to the end)."""

    position: int
    correlid: bytes
    role: str


# --------------------------------------------------------------------------- spool


class Spool:
    """Message bodies set aside on disk (a temporary file), read back by reference."""

    def __init__(self, directory: str | None = None) -> None:
        self.directory = directory
        self._f: IO[bytes] | None = None
        self.size = 0

    def put(self, body: bytes) -> tuple[int, int]:
        if self._f is None:
            self._f = tempfile.TemporaryFile(prefix="mqtool-spool-", dir=self.directory)  # noqa: SIM115
        self._f.seek(0, os.SEEK_END)
        off = self._f.tell()
        self._f.write(body)
        self.size += len(body)
        return off, len(body)

    def get(self, ref: tuple[int, int]) -> bytes:
        assert self._f is not None
        self._f.seek(ref[0])
        return self._f.read(ref[1])

    def close(self) -> None:
        if self._f is not None:
            self._f.close()
            self._f = None


@dataclass
class Held:
    """A message waiting in the spool: its metadata in memory, its body on disk."""

    msg: Message  # body emptied; MQMD, position, problems kept
    ref: tuple[int, int]


# --------------------------------------------------------------------------- writers


class PartFile:
    """An output written whole or not at all (``OutputDir.create``: a temporary file renamed
    into place when kept); hashes as it goes."""

    def __init__(self, folder: OutputDir | None, subdir: str, name: str) -> None:
        self.folder, self.subdir, self.name = folder, subdir, name
        self.sha = hashlib.sha256()
        self.size = 0
        self.holes = 0  # bytes left as holes
        self._f: AtomicFile | None = None

    def _open(self) -> AtomicFile | None:
        if self._f is None and self.folder is not None:
            self._f = self.folder.create(self.subdir, self.name)
        return self._f

    def write(self, data: bytes | memoryview) -> None:
        f = self._open()
        if f is not None:
            f.write(data)
        self.sha.update(data)
        self.size += len(data)

    def hole(self, length: int) -> None:
        """``length`` bytes nobody sent: skipped, so the file has a hole there (sparse where
        the file system allows, zeros otherwise); hashed as the zeros it reads back as."""
        if length <= 0:
            return
        f = self._open()
        if f is not None:
            f.seek(length, os.SEEK_CUR)
        zeros = memoryview(bytes(min(length, 1 << 20)))
        for done in range(0, length, len(zeros)):
            self.sha.update(zeros[:min(len(zeros), length - done)])
        self.size += length
        self.holes += length

    def keep(self) -> str | None:
        """Rename into place (empty outputs too); the relative name, or None when listing."""
        f = self._open()
        if f is None:
            return None
        if self.holes:
            f.truncate(self.size)  # a hole at the end: the file still has its full size
        f.close()
        return self.name

    def drop_part(self) -> None:
        """Remove what was written so far; the output never appears."""
        if self._f is not None:
            self._f.discard()
            self._f = None

    def discard(self) -> None:
        """Drop the output; with ``--force`` an older file of the same name goes too (it
        would otherwise pass for this run's result)."""
        self.drop_part()
        if self.folder is not None and self.folder.force:
            self.folder.path(self.subdir, self.name).unlink(missing_ok=True)


class FileWriter:
    """External file (type 2 text, type 3 binary): rebuilt from ``lrecl|filesize`` and the
    ``len|record`` stream of messages 2..N.

    Messages are fed in sequence order. Up to the first gap (``--partial``) the stream is
    read record by record. After a gap, a binary file whose messages have the sender's
    regular shape (``placement.Placement``) keeps every byte at its offset: a missing
    message is a hole. Otherwise nothing after the gap can be placed: the output stops at
    the gap and the messages after it are written aside as sent
    (``unplaced/NAME.from-message-K``), with the gaps and pieces listed in the manifest."""

    def __init__(self, att: AttachmentState, out: PartFile, options: Options) -> None:
        self.att, self.out, self.o = att, out, options
        self.text = att.entry.type == TEXT_FILE
        self.s = att.settings
        self.stream: RecordStream | None = None
        self.lrecl = 0
        self.filesize: int | None = None
        self.line = bytearray()
        self.decoder = codecs.getincrementaldecoder(self.s.codepage)(errors="replace")
        self.undecodable = False
        self.long_lines = 0
        self.newline = NEWLINES[options.newline]
        self.replaced = 0
        self.records = 0
        self.data_bytes = 0
        # before the first gap: the stream bytes read, the body length of those messages
        # (-1 once they differ), records whose length is not lrecl
        self.stream_pos = 0
        self.prefix: dict[int, int] = {}  # first and last data message read -> body length
        self.irregular = 0
        self.largest = 0  # the largest data message (stream bytes)
        self.mode = "stream"  # "placed" or "aside" after the first gap
        self.place: Placement | None = None
        self.aside: PartFile | None = None
        self.aside_seqs: list[int] = []
        self.gaps: list[dict[str, Any]] = []
        self.unplaced: list[dict[str, Any]] = []

    def feed(self, seq: int, msg: Message) -> None:
        body = msg.body
        if seq > 1:
            self.largest = max(self.largest, len(body))
        if seq == 1:
            self._fileinfo(body)
        elif self.mode == "placed":
            self._placed(seq, body)
        elif self.mode == "aside":
            self._aside(seq, body)
        else:
            self._prefix(seq, len(body))
            self._records(seq, msg)

    def _fileinfo(self, body: bytes) -> None:
        info = layouts_for(self.s).fileinfo
        if len(body) != info.size:
            self.att.anomaly(f"message 1 (lrecl, filesize) has {len(body)} bytes, not "
                             f"{info.size}")
        if len(body) >= info.size:  # type: ignore[operator]
            values = info.values(body)
            self.lrecl, self.filesize = values["lrecl"], values["filesize"]

    def _prefix(self, seq: int, length: int) -> None:
        """Note a data message read before any gap: all of them must have one length for
        the bytes after a gap to be placed (-1: they do not)."""
        self.stream_pos += length
        if not self.prefix:
            self.prefix = {seq: length}
            return
        first = min(self.prefix)
        same = length if self.prefix[first] == length else -1
        self.prefix = {first: same, seq: same}

    def _records(self, seq: int, msg: Message) -> None:
        body = msg.body
        if self.stream is None:
            nul = detect_record_nul(body, self.s, self.lrecl)
            if nul:
                self.s = replace(self.s, record_nul=True)
                self.att.anomaly("records are followed by a NUL byte (detected)", error=False)
            self.stream = RecordStream(self.s, self.lrecl)
        if self.stream.broken:
            return
        mv = memoryview(body)
        try:
            for kind, a, b, ends in self.stream.pieces(body):
                if kind in ("data", "cont"):
                    self.data_bytes += b - a
                    if self.text:
                        self.line += mv[a:b]
                        if ends:
                            self._line()
                        elif len(self.line) > LINE_LIMIT:
                            self._line(end=False)
                    else:
                        self.out.write(mv[a:b])
                elif kind == "len" and ends != self.lrecl:
                    self.irregular += 1
                elif kind == "nul" and ends:
                    self.att.anomaly(f"message {seq}: record terminator X'{ends:02X}' is not a NUL")
        except RecordError as e:
            self.att.anomaly(f"message {seq} (dump message {msg.position}), offset "
                             f"X'{e.offset:04X}': {e.reason}; the rest of the file cannot be "
                             "read", error=True)

    def _line(self, end: bool = True) -> None:
        """Write the record collected so far: a whole line, or (``end`` False: a record
        longer than LINE_LIMIT, memory stays bounded) a piece of one."""
        text = self.decoder.decode(bytes(self.line), final=end)
        if "\ufffd" in text and not self.undecodable:
            self.undecodable = True
            self.att.anomaly(f"bytes that are no character of code page {self.s.codepage} were "
                             "written as U+FFFD", error=False)
        try:
            data = text.encode(self.o.encoding)
        except UnicodeEncodeError:
            data = text.encode(self.o.encoding, errors="replace")
            self.replaced += sum(1 for ch in text if not _encodable(ch, self.o.encoding))
        self.out.write(data + self.newline if end else data)
        self.line.clear()
        if end:
            self.records += 1
        elif not self.long_lines:
            self.long_lines += 1
            self.att.anomaly(f"a record longer than {LINE_LIMIT} bytes was written in pieces")

    # -- gaps ------------------------------------------------------------------------------

    def gap(self, seqs: range, lengths: dict[int, int], count: int | None) -> str:
        """Messages ``seqs`` are missing and the next one is there: a hole at their offset,
        or (no placement) the output ends here. ``lengths``: the body lengths of the
        messages still to come. Returns what was done, for the anomaly."""
        if self.mode == "stream":
            if self.stream is not None and not self.stream.at_boundary:
                self.att.anomaly(f"a record was cut by the gap at message {seqs[0]}")
            if self.line:
                self._line()
            data = range(max(seqs.start, 2), seqs.stop)  # a range: a damaged number may be huge
            if not data:  # message 1 only: lrecl and file size unknown, no data lost
                if self.stream is not None:
                    self.stream.reset()
                return " (lrecl and the file size are unknown; it holds no file bytes)"
            self.place = self._placement(data[0], lengths, count)
            self.mode = "placed" if self.place is not None else "aside"
            if self.mode == "aside":
                return self._unplaceable(data, self.out.size)
        data = range(max(seqs.start, 2), seqs.stop)
        if self.mode == "aside":
            return self._unplaceable(data, None)
        assert self.place is not None
        start, end = self.place.span(data[0])[0], self.place.span(data[-1])[1]
        self.out.hole(end - self.out.size)
        self.gaps.append({"messages": ranges(data), "offset": start, "length": end - start})
        return f" ({end - start} bytes at offset {start} left as a hole)"

    def _unplaceable(self, data: range, offset: int | None) -> str:
        self._close_aside()
        self.gaps.append({"messages": ranges(data), "offset": offset, "length": None})
        if offset is None:
            return ""
        why = ("a text file is re-encoded, its offsets are not the sender's" if self.text else
               "the size of what is missing is unknown: lrecl or the file size is missing, "
               "or the messages differ in size")
        return (f" (cannot be placed: {why}; the output ends at offset {offset}, the messages "
                f"after the gap are written aside as sent, in {UNPLACED}/)")

    def _placement(self, first_missing: int, lengths: dict[int, int],
                   count: int | None) -> Placement | None:
        """The file's shape, when the messages read so far and those to come agree on one
        (and the bytes written so far sit where it says)."""
        if self.text or self.irregular or -1 in self.prefix.values():
            return None
        known = {**{k: n for k, n in lengths.items() if k >= 2}, **self.prefix}
        p = placement(long=self.s.long, lrecl=self.lrecl, nul=int(self.s.record_nul),
                      filesize=self.filesize, count=count, lengths=known)
        if p is None or p.stream_start(first_missing) != self.stream_pos:
            return None
        return p if p.offset(self.stream_pos) == self.out.size else None

    def _placed(self, seq: int, body: bytes) -> None:
        """A message after a gap, at its offset; one that does not fit the shape goes aside
        with all after it."""
        assert self.place is not None
        pieces = self.place.pieces(seq, len(body))
        fmt = RecordStream(self.s, self.lrecl).fmt
        if len(body) != self.place.body_length(seq) or any(
                fmt.unpack_from(body, a)[0] != v for kind, a, _b, v in pieces if kind == "len"):
            self.att.anomaly(f"message {seq} does not have the shape of the messages before "
                             "it: it and the messages after it are written aside as sent",
                             error=True)
            self.mode = "aside"
            self._aside(seq, body)
            return
        mv = memoryview(body)
        for kind, a, b, at in pieces:
            if kind == "data":
                self.out.hole(at - self.out.size)
                self.out.write(mv[a:b])
                self.data_bytes += b - a

    def _aside(self, seq: int, body: bytes) -> None:
        """A message that cannot be placed, its bytes as sent; one file per run of
        messages."""
        if self.aside is None or self.aside_seqs[-1] != seq - 1:
            self._close_aside()
            self.aside = PartFile(self.out.folder, f"{self.out.subdir}/{UNPLACED}",
                                  f"{self.out.name}.from-message-{seq}")
        self.aside.write(body)
        self.aside_seqs.append(seq)

    def _close_aside(self) -> None:
        if self.aside is None:
            return
        name = self.aside.keep()
        self.unplaced.append({"file": f"{UNPLACED}/{name}" if name else None,
                              "messages": ranges(self.aside_seqs), "size": self.aside.size,
                              "sha256": self.aside.sha.hexdigest()})
        self.aside, self.aside_seqs = None, []

    def trailing(self, expected: int, count: int | None) -> str:
        """After the last message there was: the messages missing at the end. A binary
        file whose declared size the missing messages can hold (each no larger than the
        largest seen; one message when the count is unknown) gets that size, the missing
        bytes a hole at the end."""
        if count is not None and expected > count:
            return ""
        missing = range(max(expected, 2), count + 1) if count is not None else range(0)
        where = ranges(missing) if missing else f"after {expected - 1} (count unknown)"
        end, here = self.filesize, self.out.size
        if self.text:  # re-encoded: its size says nothing about what is missing
            end = None
        if (end is not None and end <= here) or (end is None and not missing):
            return ""
        if (self.mode == "aside" or self.text or end is None or end > INT_MAX
                or end - here > self.largest * max(1, len(missing))):
            at = None if self.mode == "aside" else here
            self.gaps.append({"messages": where, "offset": at, "length": None})
            return ""
        self.out.hole(end - here)
        self.gaps.append({"messages": where, "offset": here, "length": end - here})
        return (f"the last {end - here} bytes (offset {here}, message"
                f"{'s' * (len(missing) != 1)} {where}) left as a hole")

    def discard_aside(self) -> None:
        if self.aside is not None:
            self.aside.discard()
            self.aside = None

    def finish(self) -> None:
        self._close_aside()
        if self.line:
            self._line()
            self.att.anomaly("the last record is incomplete")
        if self.stream is not None and self.stream.carry and self.mode == "stream":
            self.att.anomaly("the data ends inside a record length field", error=True)
        if self.stream is not None and self.stream.oversize:
            self.att.anomaly(f"{self.stream.oversize} records are longer than lrecl {self.lrecl}",
                             error=False)
        if self.replaced:
            self.att.anomaly(f"{self.replaced} characters have no {self.o.encoding} form and were "
                             "replaced", error=False)
        if self.filesize is None or not self.att.complete:
            return
        n = self.stream.records if self.stream else 0
        if self.text:
            if self.filesize not in (self.data_bytes, self.data_bytes + n, self.data_bytes + 2 * n):
                self.att.anomaly(f"declared file size {self.filesize} matches neither the "
                                 f"{self.data_bytes} record bytes nor them with line ends "
                                 f"({n} records)", error=True)
        elif self.data_bytes != self.filesize:
            self.att.anomaly(f"declared file size {self.filesize}, rebuilt {self.data_bytes} bytes",
                             error=True)


def _encodable(ch: str, encoding: str) -> bool:
    try:
        ch.encode(encoding)
        return True
    except UnicodeEncodeError:
        return False


class DatasetWriter:
    """SAS data set (type 1): definition, variables, observations (spooled to a temporary
    file in the output folder), written at the end as Parquet, CSV and XPORT."""

    def __init__(self, att: AttachmentState, folder: OutputDir | None, subdir: str, stem: str,
                 options: Options) -> None:
        self.att, self.folder, self.subdir, self.stem, self.o = att, folder, subdir, stem, options
        self.s = att.settings
        self.ctx = DatasetContext(layout=options.obs_layout)
        self.kind: int | None = None
        self.group = bytearray()  # definition / variable / index bytes of the current group
        self.obs: IO[bytes] | None = None
        self.obs_bytes = 0
        self.indexes = 0
        self.outputs: dict[str, str] = {}
        self.size = 0
        self.sha = ""

    def feed(self, seq: int, msg: Message) -> None:
        body = msg.body
        kind = dataset_type(body, self.s)
        if kind not in DATASET_MESSAGES:
            self.att.anomaly(f"message {seq} has type {kind}, not 1..5", error=True)
            return
        if kind != self.kind:
            self._close_group()
            self.kind = kind
        tw = type_word(self.s)
        if kind != OBSERVATIONS and len(self.group) + len(body) > DEFINITIONS_LIMIT:
            self.att.anomaly(f"more than {DEFINITIONS_LIMIT >> 20} MiB of "
                             f"{DATASET_MESSAGES[kind]}: not a plausible data set; message "
                             f"{seq} dropped", error=True)
            return
        if kind == OBSERVATIONS:
            if self.obs is None:
                where = None
                if self.folder is not None:
                    where = self.folder.path(self.subdir)
                    where.mkdir(parents=True, exist_ok=True)
                self.obs = tempfile.TemporaryFile(prefix="mqtool-obs-", dir=where)  # noqa: SIM115
            self.obs.write(memoryview(body)[tw:])
            self.obs_bytes += len(body) - tw
        else:
            self.group += memoryview(body)[tw:]

    def gap(self, seq: int) -> None:
        if self.kind == OBSERVATIONS and self.ctx.dsdef and self.ctx.dsdef.obslen > 0:
            cut = self.obs_bytes % self.ctx.dsdef.obslen
            if cut and self.obs is not None:
                self.obs.seek(self.obs_bytes - cut)
                self.obs.truncate()
                self.obs_bytes -= cut
                self.att.anomaly(f"an observation cut by the gap at message {seq} was dropped")
        self._close_group()
        self.kind = None

    def _close_group(self) -> None:
        data = bytes(self.group)
        self.group.clear()
        if self.kind == DSDEF:
            try:
                el = parse_dsdef(data, self.s, 0)
                self.ctx.dsdef = dsdef_of(el, self.s)
                if el.length != len(data):
                    self.att.anomaly(f"{len(data) - el.length} bytes after the data set definition")
            except MqtoolError as e:
                self.att.anomaly(f"data set definition: {e}", error=True)
        elif self.kind == VARDEFS:
            els, err = parse_vardefs(data, self.s)
            self.ctx.variables.extend(variable_of(el, self.s) for el in els)
            if err is not None:
                self.att.anomaly(f"variable definitions: {err.describe()}", error=True)
        elif self.kind == INDEXES:
            els, err = parse_indexes(data, self.s)
            self.indexes += len(els)
            if err is not None:
                self.att.anomaly(f"index definitions: {err.describe()}", error=False)
        elif self.kind == CONSTRAINTS:
            self.att.anomaly(f"{len(data)} bytes of integrity constraints (layout not published) "
                             "not decoded", error=False)

    def finish(self, keep: bool) -> None:
        self._close_group()
        try:
            found = self._observations(keep)
            if found is not None and keep and self.folder is not None:
                self._write(self.folder, *found)
        finally:
            self._drop()

    def _observations(self, keep: bool) -> tuple[DatasetDef, Observations] | None:
        """The data set's definition and observation layout, the anomalies said; None when
        nothing can be written."""
        ds, variables = self.ctx.dsdef, self.ctx.variables
        if ds is None or not variables:
            if keep:
                self.att.anomaly("no " + ("data set definition" if ds is None else
                                          "variable definitions") + ": nothing can be written",
                                 error=True)
            return None
        if ds.nvars != len(variables):
            self.att.anomaly(f"the definition says {ds.nvars} variables, {len(variables)} are "
                             "defined")
        from mqtool.formats.sas.datasets import Observations

        obs = Observations(variables, ds.obslen, self.s.float_format, self.s.codepage,
                           self.o.obs_layout)
        for p in obs.problems:
            self.att.anomaly(p, error=True)
        if obs.unusable:
            return None
        nrows = self.obs_bytes // obs.obslen
        self.att.rows = nrows
        if self.att.complete and nrows != ds.nobs:
            self.att.anomaly(f"the definition says {ds.nobs} observations, the messages hold "
                             f"{nrows}", error=True)
        return ds, obs

    def _write(self, folder: OutputDir, ds: DatasetDef, obs: Observations) -> None:
        """The data set in every output format, each file whole or not at all."""
        from mqtool.formats.sas.datasets import write_dataset, xport_available

        formats = [f for f in self.o.formats if f != "xpt" or xport_available()]
        if "xpt" in self.o.formats and "xpt" not in formats:
            self.att.anomaly("no .xpt written: pyreadstat is not installed "
                             "(pip install 'mqtool[sas]')", error=False)
            self.att.hs.r.report.missing_extra = MissingExtraError("pyreadstat", "sas")
        names = {f: f"{self.stem}.{f}" for f in formats}
        targets = {f: folder.atomic(self.subdir, n) for f, n in names.items()}
        about = {"library": self.att.entry.qualifier1, "member": self.att.entry.qualifier2,
                 "float_format": self.s.float_format, "codepage": self.s.codepage}
        try:
            result = write_dataset(self.obs or io.BytesIO(), self.obs_bytes, obs, ds,
                                   {f: t.temp for f, t in targets.items()}, about)
        except BaseException:
            for t in targets.values():
                t.discard()
            raise
        for p in result.problems:
            self.att.anomaly(p, error=False)
        for f, target in targets.items():
            if f in result.files:
                target.commit()
                self.outputs[f] = names[f]
            else:
                target.discard()
        main = self.outputs.get("parquet") or next(iter(self.outputs.values()), None)
        if main:
            self.size, self.sha = _size_and_sha(folder.path(self.subdir, main))

    def _drop(self) -> None:
        if self.obs is not None:
            self.obs.close()
            self.obs = None


def _size_and_sha(path: Path) -> tuple[int, str]:
    """Size and SHA-256 of a written file, read a block at a time."""
    sha, size = hashlib.sha256(), 0
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            sha.update(block)
            size += len(block)
    return size, sha.hexdigest()


# --------------------------------------------------------------------------- state


class AttachmentState:
    """One attachment of one header: which sequenced messages came, and its writer."""

    def __init__(self, hs: HeaderState, entry: Entry, settings: Settings) -> None:
        self.hs, self.entry, self.settings = hs, entry, settings
        self.g = g_of(entry.correlid)
        self.order: str | None = None  # byte order of the sequence numbers in the correlids
        self.expected = 1
        self.count: int | None = None
        self.count_position: int | None = None
        self.held: dict[int, Held] = {}  # early messages, waiting in the spool
        # messages 1 .. expected-1 went to the writer (in order, so no set of them is kept)
        self.unusable: dict[int, str] = {}
        self.max_seen = 0
        self.anomalies: list[str] = []
        self.errors = False
        self.first_error: str | None = None  # what made the data unreadable, in words
        self.complete = False
        self.missing: list[int | str] = []
        self.output: str | None = None
        self.rows: int | None = None  # data sets: observations found
        self.size = 0
        self.sha256: str | None = None
        self.pad_noted = False
        self.writer: FileWriter | DatasetWriter | None = None
        self.out: PartFile | None = None

    def anomaly(self, text: str, error: bool = False) -> None:
        if text not in self.anomalies:
            self.anomalies.append(text)
        self.errors = self.errors or error
        if error and self.first_error is None:
            self.first_error = text

    def seq_of(self, cid: bytes) -> int:
        raw = seq_raw(cid)
        if not any(raw):
            return 0
        if self.order is None:
            be, le = int.from_bytes(raw, "big"), int.from_bytes(raw, "little")
            self.order = "big" if be <= le else "little"
            if self.order == "little":
                self.anomaly("sequence numbers in the correlids are little-endian", error=False)
        return int.from_bytes(raw, self.order)  # type: ignore[arg-type]


class HeaderState:
    """One attachment header and everything found for it."""

    def __init__(self, r: Reassembler, msg: Message, header: Header) -> None:
        self.r, self.header = r, header
        self.position = msg.position
        self.correlid = msg.correlid or header.header_correlid
        self.folder = self.correlid.hex().upper()
        self.used: list[Used] = [Used(msg.position, self.correlid, "header")]
        self.anomalies: list[str] = list(header.problems)
        self.app: PartFile | None = None
        self.app_position: int | None = None
        self.app_size = 0
        self.attachments: list[AttachmentState] = []
        names: set[str] = set(RESERVED_NAMES)
        for e in header.entries:
            att = AttachmentState(self, e, message_settings(header, r.o.hints))
            self.attachments.append(att)
            stem_or_name = _output_name(e, names)
            if e.type == DATASET:
                att.writer = DatasetWriter(att, r.out, self.folder, stem_or_name, r.o)
            else:
                att.out = PartFile(r.out, self.folder, stem_or_name)
                att.writer = FileWriter(att, att.out, r.o)
        r.check_free(self)

    def app_message(self, msg: Message) -> None:
        if self.app_position is not None:
            self.anomalies.append(f"a second application message (dump message {msg.position}) "
                                  "was ignored")
            self.used.append(Used(msg.position, msg.correlid or b"", "application message "
                                  "(duplicate, ignored)"))
            return
        self.app_position = msg.position
        self.used.append(Used(msg.position, msg.correlid or b"", "application message"))
        if not msg.usable:
            self.anomalies.append(f"the application message is unusable: "
                                  f"{'; '.join(p.reason for p in msg.problems)}")
        self.app = PartFile(self.r.out, self.folder, "message.bin")
        self.app.write(msg.body)
        self.app_size = len(msg.body)
        self.app.keep()


def _output_name(e: Entry, taken: set[str]) -> str:
    """Sanitised base name of qualifier 2, unique in the folder (case-insensitively)."""
    if e.type == DATASET:
        base = safe_name(e.qualifier2, "") or f"attachment-{e.index}"
        stem = base
        n = 2
        while {f"{stem}.{x}".lower() for x in ("parquet", "csv", "xpt")} & taken:
            stem = f"{base}-{n}"
            n += 1
        taken.update(f"{stem}.{x}".lower() for x in ("parquet", "csv", "xpt"))
        return stem
    name = safe_name(e.qualifier2, f"attachment-{e.index}.bin")
    stem, dot, ext = name.partition(".")
    candidate, n = name, 2
    while candidate.lower() in taken:
        candidate = f"{stem}-{n}{dot}{ext}"
        n += 1
    taken.add(candidate.lower())
    return candidate


# --------------------------------------------------------------------------- the reassembler


@dataclass
class Report:
    """What reassembly found: per header, its manifest; orphans; problems of the dump."""

    headers: list[HeaderState] = field(default_factory=list)
    messages: int = 0
    dump_format: str = ""
    orphans: int = 0
    orphan_dir: str | None = None
    unplaceable: dict[str, int] = field(default_factory=dict)  # "MsgType, CorrelId" -> count
    bad_headers: list[str] = field(default_factory=list)
    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    dead_letters: dict[str, int] = field(default_factory=dict)  # "2051 MQRC_..." -> messages
    missing_extra: MissingExtraError | None = None  # an output skipped: its module is missing

    @property
    def incomplete(self) -> bool:
        return any(not a.complete for h in self.headers for a in h.attachments) or any(
            h.app_position is None for h in self.headers)

    @property
    def damaged(self) -> bool:
        return bool(self.errors or self.bad_headers) or any(
            a.errors for h in self.headers for a in h.attachments)

    @property
    def status(self) -> ExitStatus:
        if self.incomplete:
            return ExitStatus.INCOMPLETE
        if self.damaged or not self.messages:  # a dump with no messages: nothing was read
            return ExitStatus.DECODE
        if self.missing_extra is not None:  # the environment: an extra is not installed
            return ExitStatus.ENVIRONMENT
        if not self.headers and self.orphans:
            return ExitStatus.INCOMPLETE
        return ExitStatus.OK


class Reassembler:
    """Feed messages in dump order; ``finish`` completes, writes manifests, reports."""

    def __init__(self, options: Options) -> None:
        self.o = options
        self.out = OutputDir(options.outdir, options.force) if options.outdir else None
        self.spool = Spool()
        self.report = Report()
        self.by_app: dict[bytes, HeaderState] = {}
        self.by_g: dict[bytes, AttachmentState] = {}
        self.by_header: dict[bytes, HeaderState] = {}
        self.waiting: dict[bytes, list[Held]] = {}  # G -> messages without header
        self.orphan_index: AtomicFile | None = None
        # dump position -> (MQDLH reason, its MQRC name) of dead-lettered messages
        self.dead_letters: dict[int, tuple[int, str]] = {}
        self.chain_warnings: list[Problem] = []  # MQ header chains that could not be walked

    # -- output checks ------------------------------------------------------------------

    def check_free(self, hs: HeaderState) -> None:
        """Before any data is streamed: every output path must stay in OUTDIR (a symlink
        planted there is refused), and none may exist without --force."""
        if self.out is None:
            return
        names = ["message.bin", "manifest.json"]
        for a in hs.attachments:
            if isinstance(a.writer, DatasetWriter):
                names += [f"{a.writer.stem}.{f}" for f in self.o.formats]
            elif a.out is not None:
                names.append(a.out.name)
        for n in names:
            p = self.out.path(hs.folder, n)
            if p.exists() and not self.o.force:
                raise OutputExistsError(f"{p} exists (use --force to overwrite)")

    # -- feeding -------------------------------------------------------------------------

    def feed(self, msg: Message) -> None:
        self.report.messages += 1
        msg, chain = payload(msg)
        if chain is not None and chain.dead_letter_reason is not None:
            self.dead_letters[msg.position] = chain.dead_letter_reason
        for e in (chain.errors + chain.problems) if chain is not None else ():
            self.chain_warnings.append(Problem(
                f"dump message {msg.position}", e.offset,
                f"MQ header chain: {e.path} at offset {e.offset}: {e.reason}"))
        missing = msg.missing_fields()
        if missing:
            key = ", ".join(missing)
            self.report.unplaceable[key] = self.report.unplaceable.get(key, 0) + 1
            self._orphan(msg)
            return
        cid = msg.correlid
        assert cid is not None
        if msg.msgtype == HEADER_MSGTYPE:
            self._header(msg)
        elif msg.msgtype == SUBORDINATE_MSGTYPE:
            self._subordinate(msg)
        else:
            self._orphan(msg)

    def _header(self, msg: Message) -> None:
        cid = msg.correlid or b""
        if not msg.usable:
            self.report.bad_headers.append(f"dump message {msg.position} ({msg.source}): header "
                                           f"unusable: {'; '.join(p.reason for p in msg.problems)}")
            self._orphan(msg)
            return
        existing = self.by_header.get(key_of(cid))
        if existing is not None:
            existing.anomalies.append(f"dump message {msg.position} repeats this header; ignored")
            existing.used.append(Used(msg.position, cid, "header (duplicate, ignored)"))
            return
        hints = replace(self.o.hints, **_mqmd_hints(msg))
        unit, header = decode_header(msg.body, hints, cid)
        if header is None:
            why = "; ".join(p.describe() for p in unit.errors)
            self.report.bad_headers.append(f"dump message {msg.position} ({msg.source}): MsgType "
                                           f"100000 but not an attachment header: {why}")
            self._orphan(msg)
            return
        hs = HeaderState(self, msg, header)
        if str(msg.mqmd.get("format", "")).strip() == "MQSTR":
            hs.anomalies.append("MQMD Format is MQSTR: if the message was converted on its way "
                                "(MQGET with convert, channel conversion), its binary fields are "
                                "corrupt")
        self.report.headers.append(hs)
        self.by_header[key_of(cid)] = hs
        self.by_app[key_of(header.message_correlid)] = hs
        for a in hs.attachments:
            if a.g in self.by_g:
                hs.anomalies.append(f"attachment {a.entry.index} correlid is also used by another "
                                    "header's attachment; messages go to the first")
                continue
            self.by_g[a.g] = a
        self._claim(g_of(header.message_correlid))
        for a in hs.attachments:
            self._claim(a.g)

    def _claim(self, g: bytes) -> None:
        for held in self.waiting.pop(g, []):
            msg = held.msg
            msg.body = self.spool.get(held.ref)
            self._subordinate(msg)

    def _subordinate(self, msg: Message) -> None:
        cid = msg.correlid or b""
        hs = self.by_app.get(key_of(cid))
        if hs is not None:
            hs.app_message(msg)
            return
        att = self.by_g.get(g_of(cid))
        if att is None:
            self._hold(msg, self.waiting.setdefault(g_of(cid), []))
            return
        self._piece(att, msg)

    def _hold(self, msg: Message, where: list[Held]) -> None:
        ref = self.spool.put(msg.body)
        msg.body = b""
        where.append(Held(msg, ref))

    def _piece(self, att: AttachmentState, msg: Message) -> None:
        cid = msg.correlid or b""
        if any(pad_of(cid)) and not att.pad_noted:
            att.pad_noted = True
            att.anomaly(f"correlid bytes 20-23 are {pad_of(cid).hex().upper()} (expected zeros)")
        seq = att.seq_of(cid)
        hs = att.hs
        if seq == 0:
            self._count(att, msg)
            return
        att.max_seen = max(att.max_seen, seq)
        if att.count_position is not None and msg.position > att.count_position:
            att.anomaly(f"the count message (dump message {att.count_position}) came before "
                        f"sequenced message {seq} (dump message {msg.position})")
        if seq < att.expected or seq in att.held or seq in att.unusable:
            hs.used.append(Used(msg.position, cid, f"attachment {att.entry.index} message {seq} "
                                "(duplicate, ignored)"))
            att.anomaly(f"message {seq} appears more than once (dump message {msg.position} "
                        "ignored)")
            return
        role = f"attachment {att.entry.index} message {seq}"
        if not msg.usable:
            att.unusable[seq] = "; ".join(p.reason for p in msg.problems)
            hs.used.append(Used(msg.position, cid, role + " (unusable)"))
            att.anomaly(f"message {seq} (dump message {msg.position}) is unusable: "
                        f"{att.unusable[seq]}")
            return
        hs.used.append(Used(msg.position, cid, role))
        if seq == att.expected:
            self._deliver(att, seq, msg)
            self._drain(att)
        else:
            ref = self.spool.put(msg.body)
            msg.body = b""
            att.held[seq] = Held(msg, ref)

    def _deliver(self, att: AttachmentState, seq: int, msg: Message) -> None:
        assert att.writer is not None
        att.writer.feed(seq, msg)
        att.expected = seq + 1

    def _drain(self, att: AttachmentState) -> None:
        while att.expected in att.held:
            held = att.held.pop(att.expected)
            held.msg.body = self.spool.get(held.ref)
            self._deliver(att, att.expected, held.msg)

    def _count(self, att: AttachmentState, msg: Message) -> None:
        cid = msg.correlid or b""
        role = f"attachment {att.entry.index} count"
        if att.count_position is not None:
            att.hs.used.append(Used(msg.position, cid, role + " (duplicate, ignored)"))
            att.anomaly(f"a second count message (dump message {msg.position}) was ignored")
            return
        att.hs.used.append(Used(msg.position, cid, role))
        count = layouts_for(att.settings).count
        if not msg.usable or len(msg.body) < count.size:  # type: ignore[operator]
            att.anomaly(f"the count message (dump message {msg.position}) is unreadable "
                        f"({len(msg.body)} bytes)", error=True)
            return
        if len(msg.body) != count.size:
            att.anomaly(f"the count message has {len(msg.body)} bytes, not {count.size}")
        att.count = count.values(msg.body)["count"]
        att.count_position = msg.position

    def _orphan(self, msg: Message) -> None:
        self.report.orphans += 1
        if not self.o.keep_orphans or self.out is None:
            return
        if self.orphan_index is None:
            self.orphan_index = self.out.create("orphans", INDEX)
            self.report.orphan_dir = "orphans"
        index = self.orphan_index
        name = f"{msg.position:06d}.bin"
        with self.out.create("orphans", name) as f:
            f.write(msg.body)
        index.write(json.dumps(message_json(msg, name), separators=(",", ":")).encode() + b"\n")

    # -- the end ---------------------------------------------------------------------------

    def finish(self) -> Report:
        for held_list in self.waiting.values():
            for held in held_list:
                held.msg.body = self.spool.get(held.ref)
                self._orphan(held.msg)
        self.waiting.clear()
        for hs in self.report.headers:
            for att in hs.attachments:
                self._complete(att)
            if hs.app_position is None:
                hs.anomalies.append("no application message (correlid "
                                    f"{hs.header.message_correlid.hex().upper()})")
            self._manifest(hs)
        if self.orphan_index is not None:
            self.orphan_index.close()
        self.spool.close()
        return self.report

    def abort(self) -> None:
        """After an error: remove the outputs being written, keep whatever was already
        complete."""
        for hs in self.report.headers:
            for att in hs.attachments:
                if att.out is not None:
                    att.out.drop_part()
                if isinstance(att.writer, FileWriter):
                    att.writer.discard_aside()
                if isinstance(att.writer, DatasetWriter):
                    att.writer._drop()
        if self.orphan_index is not None:
            self.orphan_index.discard()
        self.spool.close()

    def _complete(self, att: AttachmentState) -> None:
        """At the end: is the attachment complete (every sequence number up to its count)?
        Keep it (complete, or with ``partial``: the held messages delivered, gaps said) or
        drop it."""
        n = att.count
        att.missing = self._missing(att)
        beyond = [] if n is None else sorted(
            [*range(max(n, 0) + 1, att.expected), *(k for k in att.held if k > n)])
        if beyond:
            att.anomaly(f"sequence numbers beyond the count {n}: {ranges(beyond)}", error=True)
        # complete: every message came, and their data read to the end (a record stream
        # that breaks leaves the rest of the file unread: incomplete, kept only with partial)
        att.complete = (n is not None and n >= 1 and not att.missing and not att.held
                        and not beyond and not att.errors)
        keep = att.complete or self.o.partial
        if keep:
            self._deliver_held(att)
        self._close_output(att, keep)
        if att.errors:  # the writer's last checks (the declared size) found damage
            att.complete = False

    def _missing(self, att: AttachmentState) -> list[int | str]:
        """The sequence numbers (and the count message) never seen, listed up to a limit (a
        count may be hostile); the anomalies said."""
        n = att.count
        top = max([n or 0, att.max_seen, att.expected - 1, *att.held])
        missing: list[int | str] = []
        for k in range(att.expected, top + 1):
            if len(missing) >= MISSING_LIST_LIMIT:
                break
            if k not in att.held:
                missing.append(k)
        absent = max(0, top - att.expected + 1) - sum(1 for k in att.held if k >= att.expected)
        if absent > len(missing):
            att.anomaly(f"{absent} sequence numbers are missing (up to {top}); \"missing\" lists "
                        f"the first {len(missing)}", error=True)
        if n is None:
            missing.append("count")
        elif n < 1:
            att.anomaly(f"the count message says {n} messages", error=True)
        return missing

    def _deliver_held(self, att: AttachmentState) -> None:
        """The messages still held, in order, each gap before them said and left as a hole
        where its offset is known; then the messages missing at the end."""
        w = att.writer
        assert w is not None
        lengths = {k: h.ref[1] for k, h in att.held.items()}
        for k in sorted(att.held):
            if k > att.expected:
                missing = range(att.expected, k)  # never a list: a damaged number may be huge
                if isinstance(w, FileWriter):
                    how = w.gap(missing, lengths, att.count)
                else:
                    how = ""
                    w.gap(missing[0])  # the group the gap cut is closed once
                att.anomaly(f"gap: message{'s' if len(missing) > 1 else ''} {ranges(missing)} "
                            f"missing{how}", error=False)
            held = att.held.pop(k)
            held.msg.body = self.spool.get(held.ref)
            self._deliver(att, k, held.msg)
        if isinstance(w, FileWriter):
            how = w.trailing(att.expected, att.count)
            if how:
                att.anomaly(f"gap: {how}", error=False)

    @staticmethod
    def _close_output(att: AttachmentState, keep: bool) -> None:
        """Rename the attachment's output into place, or drop it."""
        w = att.writer
        if isinstance(w, FileWriter):
            if not keep:
                w.discard_aside()
            w.finish()
            assert att.out is not None
            if keep:
                att.output = att.out.keep()
                att.size, att.sha256 = att.out.size, att.out.sha.hexdigest()
            else:
                att.size, att.sha256 = att.out.size, None
                att.out.discard()
        elif isinstance(w, DatasetWriter):
            w.finish(keep)
            att.output = w.outputs.get("parquet") or next(iter(w.outputs.values()), None)
            att.size, att.sha256 = w.size, (w.sha or None)

    def _manifest(self, hs: HeaderState) -> None:
        if self.out is None:
            return
        from mqtool.io.custody import files_under, run_record

        folder = self.out.path(hs.folder)
        record = run_record(self.o.inputs, files_under(folder, ("manifest.json",)), folder)
        with self.out.create(hs.folder, "manifest.json") as f:
            write_manifest(f, hs, record.to_json())


def payload(msg: Message) -> tuple[Message, Chain | None]:
    """The SAS message a queue-dump message carries, and its MQ header chain: the one
    place a body is taken from a dump. MQ headers ahead of the SAS message (MQDLH, MQRFH2,
    ...; the MQMD Format says) are stepped over with ``formats.mq.chain.unwrap``, which
    gives the payload as the body and the payload's Format, Encoding and CCSID as its
    MQMD; a chain that cannot be walked leaves the message as it is."""

    return unwrap(msg)


def _mqmd_hints(msg: Message) -> dict[str, Any]:
    from mqtool.codepages import ccsid_codec
    from mqtool.formats.mq.mqmd import byte_order_of, float_format_of

    return {"mqmd_byte_order": byte_order_of(msg.encoding),
            "mqmd_codepage": ccsid_codec(msg.ccsid),
            "mqmd_float": float_format_of(msg.encoding)}


def ranges(ks: Sequence[int]) -> str:
    """``1, 3-5, 9`` for sorted sequence numbers (a ``range`` in one step, whatever its
    size)."""
    if isinstance(ks, range) and ks.step == 1:
        return "" if not ks else str(ks.start) if len(ks) == 1 else f"{ks.start}-{ks[-1]}"
    out, i = [], 0
    while i < len(ks):
        j = i
        while j + 1 < len(ks) and ks[j + 1] == ks[j] + 1:
            j += 1
        out.append(str(ks[i]) if i == j else f"{ks[i]}-{ks[j]}")
        i = j + 1
    return ", ".join(out)


def write_manifest(f: IO[bytes] | AtomicFile, hs: HeaderState,
                   custody: dict[str, Any] | None = None) -> None:
    """``manifest.json``, indented, with the (possibly long) ``messages`` list streamed one
    message a line instead of being built in memory; ``custody``: the run's chain of
    custody (``io.custody``), last."""
    doc = manifest(hs, messages=False)
    if custody is not None:
        doc["custody"] = custody
    head, tail = json.dumps(doc, indent=2, ensure_ascii=False).split('"messages": []')
    f.write(head.encode("utf-8") + b'"messages": [')
    sep = b"\n"
    for u in sorted(hs.used):
        f.write(sep + b"    " + json.dumps(used_json(hs, u)).encode("utf-8"))
        sep = b",\n"
    f.write(b"\n  ]" + tail.encode("utf-8") + b"\n")


def used_json(hs: HeaderState, u: Used) -> dict[str, Any]:
    """One entry of the manifest's ``messages``; ``dead_letter_reason`` for a message that
    was read off a dead-letter queue (its MQDLH's reason and MQRC name)."""
    d: dict[str, Any] = {"position": u.position, "correlid": u.correlid.hex().upper(),
                         "role": u.role}
    reason = hs.r.dead_letters.get(u.position)
    if reason is not None:
        d["dead_letter_reason"] = {"reason": reason[0], "name": reason[1]}
    return d


def manifest(hs: HeaderState, messages: bool = True) -> dict[str, Any]:
    """The ``manifest.json`` object of one header (header, application message, attachments
    and their outputs, plus ``anomalies``)."""
    h = hs.header
    return {
        "header_correlid": hs.correlid.hex().upper(),
        "message_correlid": h.message_correlid.hex().upper(),
        "original_msgtype": h.original_msgtype,
        "original_correlid": h.original_correlid.hex().upper(),
        "attachments": [{
            "index": a.entry.index,
            "type": a.entry.type,
            "type_name": a.entry.type_name,
            "correlid": a.entry.correlid.hex().upper(),
            "qualifier1": a.entry.qualifier1,
            "qualifier2": a.entry.qualifier2,
            "description": a.entry.description,
            "version": [a.entry.major_version, a.entry.minor_version],
            "complete": a.complete,
            "missing": a.missing,
            "output": a.output,
            "size": a.size,
            "sha256": a.sha256,
            "gaps": a.writer.gaps if isinstance(a.writer, FileWriter) else [],
            "unplaced": a.writer.unplaced if isinstance(a.writer, FileWriter) else [],
            "anomalies": a.anomalies,
        } for a in hs.attachments],
        "messages": [used_json(hs, u) for u in sorted(hs.used)] if messages else [],
        "anomalies": hs.anomalies,
    }


def reassemble(dump: str, outdir: str | None = None, *, messages: Iterable[Message] | None = None,
               progress: Callable[[int], None] | None = None, **options: Any) -> Report:
    """Reassemble every attachment in ``dump`` (a file, ``-`` or a directory) into ``outdir``
    (None: check and list only). ``options`` are ``Options`` fields."""
    o = Options(outdir=outdir, inputs=(dump,), **options)
    src = QueueDump(dump, o.input_format, progress) if messages is None else None
    r = Reassembler(o)
    try:
        for msg in src if src is not None else messages:  # type: ignore[union-attr]
            r.feed(msg)
        report = r.finish()
    except BaseException:
        r.abort()
        raise
    if src is not None:
        if src.count == 0:  # as every command says of a dump with no message: exit 2
            from mqtool.errors import NoMessagesError

            why = src.errors[-1].reason if src.errors else src.empty_why
            raise NoMessagesError(dump, src.format, why)
        report.dump_format = src.format
        report.errors = list(src.errors)
        report.warnings = list(src.warnings)
    report.warnings.extend(r.chain_warnings)
    for code, name in r.dead_letters.values():
        key = f"{code} {name}"
        report.dead_letters[key] = report.dead_letters.get(key, 0) + 1
    if report.messages and sum(report.unplaceable.values()) == report.messages:
        fields = " and ".join(sorted(report.unplaceable, key=len)[-1].split(", "))
        span = ("message 1" if report.messages == 1 else f"message 1 to message {report.messages}")
        raise NoMqmdError(f"{dump}: none of the {report.messages} messages ({span}) carries {fields} (the "
                          "dump has no MQMD, e.g. dmpmqmsg -dN): attachments cannot be "
                          "reassembled without them")
    return report


class NoMqmdError(MqtoolError):
    status = ExitStatus.DECODE


# --------------------------------------------------------------------------- summaries


def attachment_status(a: AttachmentState) -> str:
    """``complete``, ``complete, 2 notes`` or ``incomplete: missing 2-3, count``."""
    if a.complete:
        return "complete" + (f", {len(a.anomalies)} note{'s' * (len(a.anomalies) != 1)}"
                             if a.anomalies else "")
    nums = [m for m in a.missing if isinstance(m, int)]
    what = [ranges(nums)] if nums else []
    if "count" in a.missing:
        what.append("count")
    text = "incomplete: missing " + ", ".join(what) if what else "incomplete"
    if a.first_error and not what:
        text += f": {a.first_error}"
    return text + (" (partial output)" if a.output else "")


def summary_line(report: Report) -> str:
    """One line: messages, headers, attachments (complete / incomplete), orphans."""
    atts = [a for h in report.headers for a in h.attachments]
    done = sum(1 for a in atts if a.complete)
    parts = [f"{report.messages} message{'s' * (report.messages != 1)}",
             f"{len(report.headers)} header{'s' * (len(report.headers) != 1)}",
             f"{len(atts)} attachment{'s' * (len(atts) != 1)} ({done} complete, "
             f"{len(atts) - done} incomplete)",
             f"{report.orphans} orphan{'s' * (report.orphans != 1)}"
             + (f" (saved in {report.orphan_dir}/)" if report.orphan_dir else "")]
    parts += [f"{n} dead-lettered with reason {reason}" for reason, n in report.dead_letters.items()]
    return ", ".join(parts)


def summary(report: Report) -> dict[str, Any]:
    """The ``--json`` summary object (after one manifest per header)."""
    atts = [a for h in report.headers for a in h.attachments]
    return {"summary": {
        "messages": report.messages, "headers": len(report.headers), "attachments": len(atts),
        "complete": sum(1 for a in atts if a.complete), "orphans": report.orphans,
        "orphan_dir": report.orphan_dir, "unplaceable": report.unplaceable,
        "dump_format": report.dump_format, "dead_letters": report.dead_letters,
        "status": int(report.status)}}


WARNINGS_SHOWN = 10


def report_errors(report: Report) -> list[str]:
    """What went wrong, one line each (the command prints them on stderr)."""
    out = [p.reason if p.reason.startswith(p.path) else f"{p.path}: {p.reason}"
           for p in report.errors]
    out += [f"warning: {p.path}: {p.reason}" for p in report.warnings[:WARNINGS_SHOWN]]
    if len(report.warnings) > WARNINGS_SHOWN:
        out.append(f"warning: {len(report.warnings) - WARNINGS_SHOWN} more like these")
    out += report.bad_headers
    if report.missing_extra is not None:
        out.append(f"{report.missing_extra} (or --no-xpt); the Parquet and CSV files were "
                   "written")
    for fields, n in report.unplaceable.items():
        out.append(f"{n} message{'s' * (n != 1)} without {fields} in the dump: "
                   f"{'they' if n != 1 else 'it'} cannot be placed in an attachment (orphans)")
    for h in report.headers:
        for a in h.attachments:
            if not a.complete:
                out.append(f"{h.folder} attachment {a.entry.index} ({a.entry.qualifier2}): "
                           f"{attachment_status(a)}")
    out += [f"{h.folder}: no application message" for h in report.headers
            if h.app_position is None]
    if not report.messages:
        out.append(f"no messages in this {report.dump_format or 'queue'} dump (none from byte 0 "
                   "to its end)")
    elif not report.headers:
        n = report.messages
        span = "message 1" if n == 1 else f"message 1 to message {n}"
        out.append(f"no attachment header (MsgType 100000) among the {n} messages ({span})")
    return out
