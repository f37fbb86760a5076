"""The library API the shells (the CLI, the Spark jobs, the viewer) call. Thin: each
function hands over to the module that owns the work, so this file stays a map of what
mqtool can do.

    >>> from mqtool import api
    >>> units = api.decode("urb", data)              # list[Decoded], with spans
    >>> api.dump(data)                               # the documents' dump style
    >>> api.undump(text)                             # dump text -> bytes
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import tzinfo
from pathlib import Path
from typing import IO, TYPE_CHECKING, cast

from mqtool.model import Decoded, Detection

if TYPE_CHECKING:
    from mmap import mmap

    import numpy as np
    import pyarrow as pa

    from mqtool.formats.csq1logp.extract import Filters, RangeStats
    from mqtool.formats.csq1logp.extract import Summary as CsqSummary
    from mqtool.formats.csq1logp.framing import ByteRange, Frame
    from mqtool.formats.csq1logp.outdir import PartitionedWriter
    from mqtool.formats.csq1logp.segments import Reassembler
    from mqtool.formats.mq.dumps.message import Message
    from mqtool.formats.mq.dumps.read import QueueDump
    from mqtool.formats.mq.dumps.summary import Filters as MessageFilters
    from mqtool.formats.mq.dumps.summary import Summary as MessageSummary
    from mqtool.formats.mq.dumps.summary import Table as MessageTable
    from mqtool.formats.mq.properties import Chain
    from mqtool.formats.sas.decode import Hints
    from mqtool.formats.sas.layout import Settings
    from mqtool.formats.sas.message_set import Request
    from mqtool.formats.sas.reassemble import Report
    from mqtool.formats.sas.request import SenderOverrides
    from mqtool.formats.urb.extract import Collect as UrbTables
    from mqtool.formats.urb.extract import Summary as ExtractSummary
    from mqtool.formats.urb.typed.run import TypedRun
    from mqtool.io.carving import Found, Work
    from mqtool.io.custody import Custody, Verification
    from mqtool.io.inputs import Input, Source
    from mqtool.io.window import WindowRequest
    from mqtool.query import Count
    from mqtool.query import Selection as Selection
    from mqtool.render.layouts import FormatDoc, RecordDoc
    from mqtool.scan import CarveDir


# --------------------------------------------------------------------------- inputs


def read_unit(path: str, hex_text: bool = False, fmt: str = "input",
              window: WindowRequest | None = None) -> bytes:
    """The bytes of one input to decode as ``fmt``: binary, or those of the dump text in
    it (``hex_text``); ``window`` (``--offset`` / ``--length``): only those bytes of it
    (of a file only they are read; with ``hex_text``, of the bytes the text holds). Empty
    input is ``EmptyInputError``; binary input that is really dump text gets a hint
    instead of a confusing decode error."""
    from mqtool.io import inputs

    if not window:
        return inputs.read_unit(path, hex_text, fmt)
    from mqtool.io.undump import unit_bytes

    return unit_bytes(window_bytes(path, hex_text, fmt, window), False, path, fmt)


def window_bytes(path: str, hex_text: bool, fmt: str, window: WindowRequest,
                 limit: int | None = None) -> bytes:
    """The bytes of ``window`` of an input (a file: only they are read; ``hex_text``: of the
    bytes its dump text holds), at most ``limit``; ``window.start`` says where they
    begin."""
    from mqtool.io import inputs
    from mqtool.io.window import read

    if hex_text:
        return window.cut(inputs.read_unit(path, True, fmt))[:limit]
    return read(path, window, limit)[0]


def sources(path: str, hex_text: bool = False, fmt: str = "input",
            say: Callable[[str], None] | None = None,
            window: WindowRequest | None = None) -> Iterator[Source]:
    """The input as decoders see it (``io.inputs.sources``): each message body of a queue
    dump (a dump file of any producer the registry knows, a directory of them, stdin), or
    the one blob (``read_unit``; with a ``window``, always its bytes as one blob). After a
    dump, each unreadable file or message is said (``say``, one line each) and makes
    ``DumpProblemsError`` (exit 2); a dump with no message is ``NoMessagesError``."""
    from mqtool.io import inputs
    from mqtool.registry import queue_dump_reader

    if window:
        return iter([inputs.Source(read_unit(path, hex_text, fmt, window))])
    return inputs.sources(path, hex_text, fmt, queue_dump_reader(say or _quiet))


def _quiet(line: str) -> None:
    return None


# --------------------------------------------------------------------------- decoding


def decode(fmt: str, data: bytes | memoryview, **options: object) -> list[Decoded]:
    """Decode every unit in ``data`` with the codec of ``fmt`` (a name or alias of
    ``registry.CODECS``); ``data`` may be a mapped input (``registry.given``)."""
    from mqtool.registry import codec, given

    c = codec(fmt)
    return list(c.decode(given(c, data), **options))


def decode_units(fmt: str, data: bytes | memoryview, **options: object) -> Iterator[tuple[Decoded, bytes]]:
    """Every unit of ``data`` decoded as ``fmt``, each with its own bytes, streamed
    (``registry.decode_blob``: an MQ chain's payload decoded too)."""
    from mqtool.registry import decode_blob

    return decode_blob(fmt, data, **options)


def decode_fast(fmt: str, data: bytes | memoryview, listing: bool = False,
                tz: tzinfo | None = None) -> Iterator[tuple[Decoded, bytes]] | None:
    """Units straight from the format's declarations, without spans: for JSON, or
    (``listing``) carrying their listing lines (times in ``tz``); None when the format
    has no such path (``Codec.fast_json``, ``Codec.fast_listing``). ``data`` may be a
    mapped input (``registry.given``)."""
    from mqtool.registry import codec, given

    c = codec(fmt)
    blob = given(c, data)
    if listing:
        if c.fast_listing is None:
            return None
        units = c.fast_listing(blob, tz)
    elif c.fast_json is None:
        return None
    else:
        units = c.fast_json(blob)
    return ((u, blob[u.offset:u.offset + u.length]) for u in units)


def decode_file(fmt: str, path: str, hex_text: bool = False, window: WindowRequest | None = None,
                *, refuse_other: bool = True, **options: object) -> Iterator[tuple[Decoded, bytes]]:
    """Every unit of an input decoded as ``fmt``, each with its own bytes. A file a
    streaming codec reads (``Codec.stream``) is decoded piece by piece, whatever its size
    (bounded memory, the first unit at once); other inputs (and dump text, recognised or
    ``hex_text``) are read whole. ``window``: only those bytes of the input (offsets count
    from the window's start). ``refuse_other``: input another codec recognises and
    ``fmt``'s does not is refused (``refuse_other_format``)."""
    from mqtool.io.inputs import HEAD, STDIN, as_bytes, iter_chunks, open_input
    from mqtool.io.undump import is_dump_text, unit_bytes
    from mqtool.registry import codec, decode_blob

    c = codec(fmt)
    if window and (c.stream is None or hex_text or path == STDIN):
        data = read_unit(path, hex_text, c.name, window)
        if refuse_other:
            refuse_other_format(c.name, data, path, claimed=True)
        return decode_blob(c.name, data, **options)
    if window:
        head = unit_bytes(window_bytes(path, False, c.name, window, HEAD), False, path, c.name)
        if refuse_other:
            refuse_other_format(c.name, head, path, claimed=True, whole=False)
        w, stream = window.window, c.stream
        assert w is not None and stream is not None  # no stream: the branch above decoded it
        return stream(iter_chunks(path, w.start, w.length), head, final=False, **options)
    with open_input(path) as inp:
        inp.refuse_directory()
        dump = hex_text or is_dump_text(inp.head)
        if c.stream is None or dump or inp.is_stdin or inp.whole:
            whole = _whole(inp, path, c.name, dump, mapped=c.stream is None)
            if refuse_other:
                refuse_other_format(c.name, whole, path, claimed=True)
            if c.stream is None:
                return decode_blob(c.name, whole, **options)
            blob = as_bytes(whole)
            return c.stream([blob], blob[:HEAD], final=True, **options)
        head = unit_bytes(inp.head, False, path, c.name)
        if refuse_other:
            refuse_other_format(c.name, head, path, claimed=True, whole=False)
    return c.stream(iter_chunks(path), head, final=False, **options)


def _whole(inp: Input, path: str, fmt: str, dump: bool, mapped: bool) -> bytes | memoryview:
    """All of an input to decode as ``fmt``: binary ``mapped`` (``io.inputs.Input.view``: a
    decoder that reads only headers touches only their pages), or read; dump text (``dump``)
    as the bytes it holds. No bytes is ``EmptyInputError``."""
    from mqtool.errors import EmptyInputError
    from mqtool.io.undump import unit_bytes

    if dump or not mapped:
        return unit_bytes(inp.read(), dump, path, fmt)
    data = inp.view()
    if not data:
        raise EmptyInputError(fmt, path)
    return data


def unit_info(unit: Decoded, tz: tzinfo | None = None) -> str:
    """A unit in one line, as Wireshark's Info column (``render.info.info_line``): the
    fields its codec names (``Codec.info``), else its element chain or title."""
    from mqtool.registry import CODECS
    from mqtool.render.info import info_line

    c = next((c for c in CODECS if unit.format in c.names), None)
    return info_line(unit, c.info if c is not None else (), tz)


def refuse_other_format(fmt: str, data: bytes | memoryview, source: str, hint: str = "", *,
                        claimed: bool = False, whole: bool = True) -> None:
    """Raise ``WrongFormatError`` (exit 2) when the detector of ``fmt`` does not recognise
    ``data``, naming what ``registry.identify`` takes it for. ``claimed``: only when another
    codec recognises it (a damaged unit of ``fmt`` that nothing else claims is decoded as
    far as it goes); ``whole``: ``data`` is the whole input, not its head."""
    from mqtool.errors import WrongFormatError
    from mqtool.registry import codec, identify

    blob = cast(bytes, data)  # detectors read a mapped input as bytes, without a copy
    mine = codec(fmt).detect(blob)
    if mine is not None and mine.confidence > 0:
        return
    name = codec(fmt).name
    others = [d for d in identify(blob) if d.format != name and d.confidence > 0]
    if claimed and not others:
        return
    who = (f"{others[0].format} ({others[0].confidence:.2f}) {others[0].reason}" if others
           else "unknown (no codec recognises these bytes)")
    what = f"these {len(data)} bytes" if whole else f"its first {len(data)} bytes"
    raise WrongFormatError(name, 0, f"{source}: {what} are not {name}{hint}", who)


@dataclass
class Decoding:
    """What ``decode_auto`` chose (``heading``: the codec, its confidence and the evidence,
    in words) and the units it decodes, each with its own bytes."""

    heading: str
    units: Iterator[tuple[Decoded, bytes]]
    dump: bool = False  # a queue dump: the heading is worth saying only once a unit came


STREAM_FROM = 64 << 20  # larger files a streaming codec decodes piece by piece
QUEUE_DUMP_HEADING = ("format queue dump: each message decoded with the codec its MsgType or "
                      "its bytes point to")


def decode_auto(path: str, hex_text: bool = False,
                say: Callable[[str], None] | None = None,
                window: WindowRequest | None = None) -> Decoding:
    """Recognise what an input holds (``registry.identify``: every codec's detector, queue
    dumps, hex dump text), then decode it with the most confident codec: a queue dump
    message by message (``registry.decode_messages``), a large file a streaming codec
    recognises by its head piece by piece, anything else whole. ``window``: only those
    bytes of the input, recognised and decoded as one blob (offsets count from the
    window's start)."""
    from mqtool.formats.mq.dumps.read import QueueDump, open_dump
    from mqtool.io.inputs import read_input

    if window:
        return _recognised(path, window_bytes(path, hex_text, "auto", window), hex_text)
    opened = None if hex_text else open_dump(path)
    if isinstance(opened, QueueDump):
        return Decoding(QUEUE_DUMP_HEADING, _dump_units(opened, path, say), dump=True)
    data: bytes | memoryview
    if opened is None:
        data = read_input(path, hex_text)
    else:
        with opened:
            streamed = _streamed(opened) if (opened.size or 0) > STREAM_FROM else None
            if streamed is not None:
                return streamed
            data = opened.view()  # mapped: detectors and the MQ decoder read it in place
    return _recognised(path, data, hex_text)


def _dump_units(dump: QueueDump, path: str,
                say: Callable[[str], None] | None) -> Iterator[tuple[Decoded, bytes]]:
    from mqtool.formats.mq.dumps.read import DumpProblemsError
    from mqtool.registry import decode_messages

    yield from decode_messages(dump)
    if dump.report(say or _quiet):
        raise DumpProblemsError(path, len(dump.errors))


def _streamed(opened: Input) -> Decoding | None:
    """A large file whose head a streaming codec recognises, decoded piece by piece."""
    from mqtool.io.inputs import iter_chunks
    from mqtool.registry import best_codec, codec, identify

    choice = best_codec(identify(opened.head))
    if choice is None or choice.options.get("hex"):
        return None
    c = codec(choice.format)
    if c.stream is None:
        return None
    return Decoding(_heading(choice), c.stream(iter_chunks(opened.path), opened.head, final=False,
                                               **choice.options))


def _heading(choice: Detection) -> str:
    return f"format {choice.format} ({choice.confidence:.2f}): {choice.reason}"


def _recognised(path: str, data: bytes | memoryview, hex_text: bool) -> Decoding:
    from mqtool.errors import DecodeError, EmptyInputError
    from mqtool.io.undump import undump
    from mqtool.registry import best_codec, decode_blob, identify

    if not data:
        raise EmptyInputError("auto", path)
    found = identify(cast(bytes, data))  # detectors read a mapped input as bytes, in place
    choice = best_codec(found)
    if choice is None:
        raise DecodeError("auto", "", 0, _why_not(path, data, found))
    options = dict(choice.options)
    if options.pop("hex", False) and not hex_text:
        data = undump(bytes(data).decode("utf-8"))
    return Decoding(_heading(choice), decode_blob(choice.format, data, **options))


def _why_not(path: str, data: bytes | memoryview, found: list[Detection]) -> str:
    if found and found[0].confidence > 0:
        d = found[0]
        return (f"{path}: {d.reason} ({d.format}); no codec decodes it as a whole "
                "(decode its messages with the codec's own command)")
    return f"{path}: no codec recognises these {len(data)} bytes (mqtool identify lists candidates)"


def build(fmt: str, request: object, **options: object) -> bytes:
    """Build a request / template / message from a description (the codec's ``build``);
    for ``sas-attachment`` the message set as dmpmqmsg text (``build_sas_attachment``)."""
    from mqtool.errors import InputError
    from mqtool.registry import codec

    c = codec(fmt)
    if c.build is None:
        raise InputError(f"{c.name}: mqtool builds no {c.name} request")
    return c.build(request, **options)


def dump(data: bytes, **options: object) -> str:
    """Hex dump text (``render.hexdump.DumpOptions`` fields as keywords)."""
    from mqtool.render.hexdump import dump_bytes

    return dump_bytes(data, None, **options)


def undump(text: str) -> bytes:
    """Bytes of dump text: the documents' style, xxd, hexdump -C, plain hex."""
    from mqtool.io.undump import undump as _undump

    return _undump(text)


def identify(data: bytes) -> list[Detection]:
    """Detections for a blob, best first (``registry.identify``)."""
    from mqtool.registry import identify as _identify

    return _identify(data)


def messages(path: str, input_format: str | None = None,
             progress: Callable[[int], None] | None = None,
             stream: IO[bytes] | None = None) -> QueueDump:
    """The messages of a queue dump (``formats.mq.dumps.read.QueueDump``: iterate it for
    ``Message`` objects; ``errors``, ``count`` and ``truncated`` once read); ``stream``:
    read it instead of opening ``path`` (stdin already read)."""
    from mqtool.formats.mq.dumps.read import QueueDump

    return QueueDump(path, input_format, progress, stream=stream)


def body_codepage(ccsid: int | None, encoding: int | None = None) -> str:
    """The code page a message body's characters are shown in: its CCSID's codec
    (``codepages.ccsid_codec``; UTF-16 in the byte order the MQMD Encoding gives), cp037
    when the CCSID names none."""
    from mqtool.codepages import ccsid_codec
    from mqtool.formats.mq.mqmd import byte_order_of

    try:
        return ccsid_codec(ccsid, byte_order_of(encoding) != "little") or "cp037"
    except (LookupError, ValueError, TypeError):
        return "cp037"


def csq1logp_frames(path: str, framing: str = "auto",
                    codepage: str = "cp037") -> tuple[str, str, Iterator[Frame]]:
    """The records of a CSQ1LOGP extract file, framed as they are read: the framing used
    (forced, or detected from the head: rdw, bdw, none), why, and each record's ``Frame``
    (offset, length, RDW size, BDW; a bad span with its error)."""
    import os

    from mqtool.formats.csq1logp.framing import frames, head_of, read_chunks, resolve_framing

    head = head_of(path)
    chosen, reason = resolve_framing(head, framing, codepage,
                                     final=len(head) == os.path.getsize(path))
    return chosen, reason, frames(read_chunks(path), chosen, codepage)


def csq1logp_record(buf: bytes | mmap, pos: int, length: int, hdr: int, codepage: str = "cp037",
                    *, framing: str = "rdw", rec_no: int = 0, block: int = -1) -> Decoded:
    """One framed CSQ1LOGP record at ``buf[pos:pos+length]`` (``hdr`` 4 with an RDW)."""
    from mqtool.formats.csq1logp.decode import decode_record

    return decode_record(cast(bytes, buf), pos, length, hdr, codepage, framing=framing,
                         rec_no=rec_no, block=block)


# the bulk paths the Spark jobs run in executors and the driver: CSQ1LOGP byte ranges,
# message reassembly, partitioned output; URB change tables per input file


def csq1logp_summary(mode: str = "PERMISSIVE") -> CsqSummary:
    """An empty summary of a CSQ1LOGP extract run (counts filled as the work goes)."""
    from mqtool.formats.csq1logp.extract import Summary

    return Summary(mode=mode)


def csq1logp_modes() -> tuple[str, ...]:
    """What a bad span does: PERMISSIVE (an error row), DROPMALFORMED, FAILFAST."""
    from mqtool.formats.csq1logp.bulk import MODES

    return tuple(MODES)


def bad_span_reasons() -> tuple[str, ...]:
    """Why the framer refuses a span of a CSQ1LOGP extract (the summary counts by these)."""
    from mqtool.formats.csq1logp.framing import REASONS

    return tuple(REASONS)


def byte_ranges(path: str, size: int, split_size: int) -> list[ByteRange]:
    """``size`` bytes of a CSQ1LOGP extract cut every ``split_size`` bytes, nothing read:
    each task finds the first record of its range itself."""
    from mqtool.formats.csq1logp.framing import byte_ranges as _byte_ranges

    return _byte_ranges(path, size, "", split_size)


def record_schema() -> pa.Schema:
    """The Arrow schema of CSQ1LOGP record rows."""
    from mqtool.formats.csq1logp.bulk import record_schema as _record_schema

    return _record_schema()


def message_schema() -> pa.Schema:
    """The Arrow schema of CSQ1LOGP message rows (segments reassembled)."""
    from mqtool.formats.csq1logp.segments import message_schema as _message_schema

    return _message_schema()


def range_stats() -> RangeStats:
    """The counts of one byte range (records, bad spans by reason), filled by ``decode_range``."""
    from mqtool.formats.csq1logp.extract import RangeStats

    return RangeStats()


def decode_range(path: str, start: int, end: int, size: int, framing: str = "auto",
                 codepage: str = "cp037", mode: str = "PERMISSIVE", name: str | None = None,
                 options: Mapping[str, str] | None = None,
                 stats: RangeStats | None = None) -> Iterator[pa.RecordBatch]:
    """Record batches of the records that start in ``start..end`` of a CSQ1LOGP file or URI
    (the bulk decoder; bad spans as ``_error`` rows unless DROPMALFORMED)."""
    from mqtool.formats.csq1logp.extract import decode_range as _decode_range

    return _decode_range(path, start, end, size, framing, codepage, mode, name, options, stats)


def standalone(table: pa.Table, max_seg: int) -> np.ndarray:
    """Which record rows are whole messages by themselves (or bad spans)."""
    from mqtool.formats.csq1logp.segments import standalone as _standalone

    return _standalone(table, max_seg)


def standalone_sql(max_seg: int) -> str:
    """``standalone`` as a Spark SQL predicate."""
    from mqtool.formats.csq1logp.segments import standalone_sql as _standalone_sql

    return _standalone_sql(max_seg)


def singles(batch: pa.RecordBatch | pa.Table) -> pa.Table:
    """Message rows of standalone record rows."""
    from mqtool.formats.csq1logp.segments import singles as _singles

    return _singles(batch)


def reassembler(max_seg: int) -> Reassembler:
    """Feed record rows (dicts) in file order, get message rows as they complete."""
    from mqtool.formats.csq1logp.segments import Reassembler

    return Reassembler(max_seg)


def partitioned_writer(root: str, name: str, by: str | None = "log_date",
                       keep: bool = False, options: Mapping[str, str] | None = None
                       ) -> PartitionedWriter:
    """Parquet files under ``root`` (a path or an object-store URI; ``options`` its
    endpoint and credentials), one per value of ``by`` (Hive-style folders)."""
    from mqtool.formats.csq1logp.outdir import PartitionedWriter

    return PartitionedWriter(root, name, by=by, keep=keep, options=options)


def urb_input_files(paths: Iterable[str]) -> Iterator[str]:
    """The files ``extract urb`` reads of files and directories (an mqtool queue-dump
    directory is one input)."""
    from mqtool.formats.urb.stream import input_files

    return input_files(paths)


def urb_tables() -> tuple[str, ...]:
    """The tables of ``extract urb``."""
    from mqtool.formats.urb.tables import TABLES

    return tuple(TABLES)


def urb_table_schema(table: str) -> pa.Schema:
    from mqtool.formats.urb.tables import schema

    return schema(table)


def urb_modes() -> tuple[str, ...]:
    from mqtool.formats.urb.extract import MODES

    return tuple(MODES)


def urb_file_tables(path: str, mode: str = "PERMISSIVE", leap_seconds: int = 0) -> UrbTables:
    """The ``extract urb`` tables of one input file, in memory (``.table(name)``)."""
    from mqtool.formats.urb.extract import extract_tables

    return extract_tables(path, mode, leap_seconds)[0]


def urb_write_file(path: str, writers: object, mode: str = "PERMISSIVE",
                   leap_seconds: int = 0) -> ExtractSummary:
    """The ``extract urb`` tables of one input file, decoded once and streamed part by part
    into ``writers.write(table_name, arrow_table)`` (a Spark task's writers); its summary
    (rows per table, errors by reason, the first error)."""
    from mqtool.formats.urb.changes import Stitch
    from mqtool.formats.urb.extract import Summary, extract_file

    summary = Summary(mode=mode, files=[path])
    extract_file(path, writers, summary, Stitch(), mode, leap_seconds)
    return summary


def urb_plan(paths: Sequence[str], split_size: int | None = None,
             options: Mapping[str, str] | None = None) -> list[tuple[str, int, int, int]]:
    """``(path, start, end, size)`` of every byte range of the ``extract urb`` inputs
    (paths, directories, globs, URIs): a listing, no data read (``formats.urb.ranges``)."""
    from mqtool.formats.urb.extract import input_size
    from mqtool.formats.urb.ranges import SPLIT_SIZE, plan
    from mqtool.formats.urb.stream import input_files

    files = [(f, input_size(f, options)) for f in input_files(paths, options)]
    return [(r.path, r.start, r.end, r.size) for r in plan(files, split_size or SPLIT_SIZE)]


def urb_range_tables(path: str, start: int, end: int, size: int, mode: str = "PERMISSIVE",
                     leap_seconds: int = 0, options: Mapping[str, str] | None = None,
                     writers: object | None = None,
                     on_part: Callable[[str, bytes, int], None] | None = None,
                     ) -> tuple[UrbTables, ExtractSummary]:
    """The ``extract urb`` rows of one byte range of an input (the messages that start in
    it; a queue dump or dump text whole, by its range at 0), into ``writers`` (a Spark
    task's) or in memory; and its summary. ``on_part(file, data, base)`` sees the bytes
    read (``urb_format_tables``)."""
    from mqtool.formats.urb.changes import Stitch
    from mqtool.formats.urb.extract import Collect, Summary, extract_range

    out = Collect()
    summary = Summary(mode=mode, files=[path])
    extract_range(path, start, end, size, writers if writers is not None else out, summary,
                  Stitch(), mode, leap_seconds, on_part=on_part, options=options)
    return out, summary


def urb_format_tables(data: bytes, base: int = 0) -> list[tuple[int, bytes]]:
    """The messages of ``data`` (at ``base`` in its input) that hold a global format field
    table, with their offsets: what ``extract urb --typed`` lays images out by
    (``formats.urb.typed.gfft.holding``)."""
    from mqtool.formats.urb.typed.gfft import holding

    return [(base + at, message) for at, message in holding(data)]


def urb_typed_run(format_buffers: Sequence[str] = (), fdts: Sequence[str] = ()) -> TypedRun:
    """``extract urb --typed``'s layouts as the user gives them, read before any input
    (``LayoutError``); ``part`` adds the stream's tables, ``keep`` the untyped tables."""
    from mqtool.formats.urb.typed.run import typed_run

    return typed_run(format_buffers, fdts)


def urb_typed_tables(run: TypedRun, writers: object, mode: str = "PERMISSIVE") -> ExtractSummary:
    """The typed change tables of a run into ``writers`` (``add(name, table)``; the values
    that did not decode: ``write("errors", table)``), as ``extract urb --typed`` ends; the
    rows written (``typed``, ``rows["errors"]``), error reasons and layout report.
    FAILFAST: ``DecodeError`` at the first value that did not decode."""
    from mqtool.formats.urb.extract import Summary, _typed_tables, _Writers

    summary = Summary(mode=mode)
    _typed_tables(run, cast(_Writers, writers), summary, mode)  # the two methods it calls
    return summary


SUMMARY = "_summary.json"  # a bulk run's summary, beside its outputs


def write_summary(path: str, summary: Mapping[str, object],
                  inputs: Iterable[str] | None = None) -> None:
    """A run's summary as indented JSON, written whole or not at all, with the run's chain
    of custody under ``custody`` (``io.custody.run_record``): the inputs (``inputs``, else
    the summary's ``files``) hashed, and for a ``_summary.json`` every file beside it and
    under its directory as the run's outputs; the mqtool version, the command line, the
    start and end of the run in UTC."""
    import json

    from mqtool.io.custody import files_under, run_record
    from mqtool.io.outputs import write_file

    p = Path(path)
    outputs: Sequence[str | Path] = files_under(p.parent, exclude=(p.name,)) if p.name == SUMMARY else []
    named = summary.get("output")  # a run writing one file names it
    if not outputs and isinstance(named, str) and named != "-" and Path(named).is_file():
        outputs = [named]
    record = run_record(summary_inputs(summary) if inputs is None else inputs, outputs, p.parent)
    doc = {**summary, "custody": record.to_json()}
    write_file(path, (json.dumps(doc, indent=2) + "\n").encode("utf-8"), force=True)


def summary_inputs(summary: Mapping[str, object]) -> list[str]:
    """The input files a run's summary lists (``files``: names, or objects with ``file``;
    else ``inputs``: names)."""
    files = summary.get("files", summary.get("inputs"))
    if not isinstance(files, list):
        return []
    return [str(f.get("file")) if isinstance(f, Mapping) else str(f) for f in files
            if f is not None and (not isinstance(f, Mapping) or f.get("file"))]


# --------------------------------------------------------------------------- layouts


def format_docs() -> list[FormatDoc]:
    """Every format's documentation model (``catalog``): records, titles, variants,
    composition; ``render.layouts`` prints it as tables, Markdown, JSON or Kaitai."""
    from mqtool.catalog import formats

    return list(formats())


def lookup_layout(selector: str) -> tuple[FormatDoc, RecordDoc | None]:
    """``urb`` -> (urb, None); ``urb.URBH`` (any case) -> (urb, URBH)."""
    from mqtool.catalog import lookup

    return lookup(selector)


def ksy(name: str) -> str:
    """The Kaitai Struct spec of a whole format."""
    from mqtool.catalog import ksy as _ksy

    return _ksy(name)


# --------------------------------------------------------------------------- URB requests


@dataclass
class Built:
    """What a builder built: each message's bytes and the code page its dump shows, and
    warnings about what the server may refuse."""

    pieces: list[tuple[bytes, str]]
    warnings: list[str]


def build_urb(rtype: str | None, document: str | None = None, *,
              per_urbi: Mapping[str, Iterable[str]] | None = None, isn: Iterable[str] = (),
              sender: str | None = None, msnr: str | None = None, stck: str | None = None,
              encoding: str | None = None, codepage: str | None = None,
              byte_order: str | None = None, align: int | None = None,
              status: str | None = None, answers: str | None = None, rsp: str | None = None,
              subcode: str | None = None, images: Iterable[str] = (),
              befores: Iterable[str] = (), record_type: str | None = None,
              initial_state: bool = False) -> Built:
    """Event Replicator messages: input requests (``rtype`` open, close, inst, tran, stat)
    from options over the requests of ``document`` (JSON, JSON lines as ``decode urb
    --json`` prints them, or YAML; any message there is rebuilt), or a status reply or a
    data message (``rtype`` reply, data; ``formats.urb.server``) from options alone.
    Every refusal of a message at once (``BuildError``)."""
    from mqtool.errors import InputError
    from mqtool.formats.urb import build as urb
    from mqtool.formats.urb.compose import Message, build_message
    from mqtool.formats.urb.server import KINDS, ServerRequest, server_message

    per = {k: list(v) for k, v in (per_urbi or {}).items()}
    r = ServerRequest((rtype or "").lower(), per, list(isn), status, answers, rsp, subcode,
                      list(images), list(befores), record_type, initial_state, sender, msnr,
                      stck, encoding, codepage, byte_order, align)
    if r.kind in KINDS:
        if document is not None:
            raise InputError(f"{r.kind} builds from options; --from takes any message as is")
        msg = server_message(r)
        return Built([(build_message(msg), msg.cp)], [])
    given = r.reply_only + r.data_only
    if given:
        raise InputError(f"{', '.join(given)}: for reply and data messages only")
    header = {"sender": sender, "msnr": msnr, "stck": stck}
    message = {"encoding": encoding, "codepage": codepage, "byte_order": byte_order,
               "align": align}
    kind = urb.REQUEST_TYPES[r.kind] if r.kind else None
    built = Built([], [])
    for req in urb.load_requests(document) if document is not None else [None]:
        if isinstance(req, Message):  # a status or data message (decode --json)
            m = urb.apply_message_options(req, kind, per, header, message, r.isn)
            built.pieces.append((build_message(m), m.cp))
            continue
        q = urb.apply_options(req, kind, per, header, message, r.isn)
        built.warnings += urb.validate(q)
        built.pieces.append((urb.build_request(q), q.cp))
    return built


# --------------------------------------------------------------------------- MQ header chains


def mq_chain(*, fields: Mapping[str, str] | None = None, properties: Iterable[str] = (),
             document: Mapping[str, object] | None = None, payload: bytes | None = None,
             payload_text: str | None = None, payload_format: str | None = None,
             encoding: int | None = None, ccsid: int | None = None,
             payload_ccsid: int | None = None, payload_needed: bool = True) -> Chain:
    """An MQ header chain to build (``formats.mq.properties``): a ``decode mq --json``
    ``document``, then each header type's ``fields`` as ``name=value,...`` and MQRFH2
    ``properties`` as ``folder.name[:dt]=value``; the payload as bytes or text; the MQMD's
    ``encoding`` and ``ccsid``. Every refusal at once (``ChainRefusedError``: its
    ``refusals`` name the header type, ``MQRFH2`` or ``payload``)."""
    from mqtool.formats.mq.properties import ChainRequest, resolve

    return resolve(ChainRequest(dict(fields or {}), tuple(properties), document, payload,
                                payload_text, payload_format, encoding, ccsid, payload_ccsid),
                   payload_needed)


def build_mq(chain: Chain, with_mqmd: bool = False) -> bytes:
    """The chain's bytes and its payload; ``with_mqmd``: behind an MQMD version 2 that
    announces the chain (as MQMD-prefixed dumps hold messages)."""
    from mqtool.formats.mq.properties import with_mqmd as prefixed

    data = chain.build()
    return prefixed(chain, data) if with_mqmd else data


def wrap_messages(path: str, chain: Chain) -> bytes:
    """Every message of the queue dump at ``path`` with its body wrapped in ``chain`` (the
    headers take over each message's Format, Encoding and CCSID), as dmpmqmsg text."""
    from mqtool.errors import DecodeError
    from mqtool.formats.mq.dumps.read import QueueDump
    from mqtool.formats.mq.dumps.write import write_dmpmqmsg
    from mqtool.formats.mq.properties import wrapped

    out = io.BytesIO()
    if write_dmpmqmsg(wrapped(QueueDump(path), chain), out) == 0:
        raise DecodeError("queue-dump", "", 0, f"{path}: no messages in this dump")
    return out.getvalue()


# --------------------------------------------------------------------------- SAS attachments


def sender_hints(byte_order: str | None = None, long: int | None = None,
                 codepage: str | None = None, nul: bool | None = None,
                 float_format: str | None = None) -> Hints:
    """What the user says of a SAS sender (None: detected): byte order, C long size, code
    page, NUL-terminated strings, numerics' format."""
    from mqtool.formats.sas.decode import Hints

    return Hints(byte_order, long, codepage, nul, float_format)


def decode_sas_attachment(path: str, *, hex_text: bool = False, input_format: str = "auto",
                          part: str = "auto", text: bool = False, hints: Hints | None = None,
                          say: Callable[[str], None] | None = None,
                          window: WindowRequest | None = None) -> Iterator[tuple[Decoded, bytes]]:
    """SAS attachment messages: one message body (``input_format`` ``message``, or what is
    no queue dump; the bytes of a ``window``), or every message of a queue dump in the
    role its header gives it. A body of any size is decoded in bounded memory; one no
    attachment message fits says what ``identify`` takes it for."""
    from mqtool.formats.mq.dumps.read import DumpProblemsError, QueueDump, open_dump
    from mqtool.io.inputs import open_input
    from mqtool.io.undump import is_dump_text, unit_bytes

    hints = hints or sender_hints()
    if hex_text or window:
        data = read_unit(path, hex_text, "sas-attachment", window)
        yield from _sas_body(io.BytesIO(data), hints, part, text)
        return
    opened = open_input(path) if input_format == "message" else open_dump(path, input_format)
    if isinstance(opened, QueueDump):
        from mqtool.formats.sas.stream import decode_messages

        yield from decode_messages(iter(opened), hints)
        if opened.report(say or _quiet):
            raise DumpProblemsError(path, len(opened.errors))
        return
    with opened:
        _sas_checked(opened)
        if is_dump_text(opened.head):  # as decode auto reads it
            data = unit_bytes(opened.read(), True, path, "sas-attachment")
            yield from _sas_body(io.BytesIO(data), hints, part, text)
            return
        yield from _sas_body(opened.stream(), hints, part, text)


def _sas_checked(inp: Input) -> None:
    from mqtool.errors import EmptyInputError

    inp.refuse_directory()
    if not inp.head:
        raise EmptyInputError("sas-attachment", inp.path)


def _sas_body(f: IO[bytes], hints: Hints, part: str, text: bool) -> Iterator[tuple[Decoded, bytes]]:
    """Units of a lone message body; a body no attachment message fits says what
    ``identify`` takes it for."""
    from mqtool.formats.sas.stream import decode_body

    first = True
    for unit, data in decode_body(f, part, hints, text=text):
        if first and unit.errors:  # refused, or not what part says: is it another format?
            said = _identified(data, always=unit.attrs.get("part") == "unrecognised")
            if said:
                p = unit.errors[0]
                unit.errors[0] = type(p)(p.path, p.offset, f"{p.reason}; {said}")
        first = False
        yield unit, data


def _identified(data: bytes, always: bool = True) -> str:
    """What ``identify`` takes the start of an input for, in words ("" when it knows no
    other format and ``always`` is false)."""
    from mqtool.io.inputs import HEAD
    from mqtool.registry import identify

    found = [d for d in identify(data[:HEAD]) if d.format != "sas-attachment"]
    if not found:
        return "identify recognises no format either" if always else ""
    best = max(found, key=lambda d: d.confidence)
    return f"identify takes it for {best.format} ({best.confidence:.2f}: {best.reason})"


# --------------------------------------------------------------------------- queue dumps


def message_filters(msgtype: str | None = None, fmt: str | None = None,
                    correlid: str | None = None, grep: str | None = None, *,
                    msgid: str | None = None, appl: str | None = None, user: str | None = None,
                    since: str | None = None, until: str | None = None,
                    event: str | None = None, reason: str | None = None) -> MessageFilters:
    """Which messages of a queue dump to keep: MsgType (a number or request, reply, report,
    datagram), MQMD or payload Format, CorrelId or MsgId prefix in hex, text in the body
    (UTF-8, EBCDIC or the MQMD's code page), PutApplName and UserIdentifier (``*``
    wildcards), put time from ``since`` until before ``until`` (ISO-8601), event type and
    reason (``MQRC_*`` name or number; dead-letter reasons too); ``ValueError`` names what
    is wrong."""
    from mqtool.formats.mq.dumps.summary import filters

    return filters(msgtype, fmt, correlid, grep, msgid=msgid, appl=appl, user=user,
                   since=since, until=until, event=event, reason=reason)


def message_table(wide: bool = False, tz: tzinfo | None = None,
                  clean: Callable[[str], str] = str) -> MessageTable:
    """The ``messages`` table (``heading()``, ``row(summary)``): 120 columns with longer
    values cut, or (``wide``) every column whole; put times in ``tz``; ``clean`` makes each
    value safe for a terminal."""
    from mqtool.formats.mq.dumps.summary import Table

    return Table(wide, tz, clean)


def mq_ports(ports: Iterable[int]) -> AbstractContextManager[None]:
    """Inside: every pcap / pcapng capture read as a queue dump takes ``ports`` as IBM MQ's
    TCP ports (none given: 1414); connections on other ports are still read when their data
    starts with a TSH (``formats.mq.capture.read``)."""
    from mqtool.formats.mq.capture.read import mq_ports as _mq_ports

    return _mq_ports(ports)


def summarize(message: Message) -> MessageSummary:
    """What ``mqtool messages`` says of one message: its JSON (``to_json``) and table row
    (``row``, under ``COLUMNS``), the header chain walked once."""
    from mqtool.formats.mq.dumps.summary import summarize as _summarize

    return _summarize(message)


CUSTODY = "custody.json"  # the chain of custody of messages -o, in (or beside) what it wrote


def message_record(summary: MessageSummary) -> dict[str, object]:
    """What ``--where`` and ``--fields`` see of a queue-dump message: its ``messages --json``
    object, with each header's fields also under the header's type (``mqdlh.reason``,
    ``mqdlh.reason_meaning``), as ``decode`` names them."""
    doc = summary.to_json()
    record: dict[str, object] = dict(doc)
    for h in doc.get("headers") or []:
        if isinstance(h, Mapping) and isinstance(h.get("fields"), Mapping):
            meanings = h.get("meanings")
            named = meanings.items() if isinstance(meanings, Mapping) else ()
            fields = {**h["fields"], **{f"{k}_meaning": v for k, v in named}}
            record.setdefault(str(h.get("type", "")).lower(), fields)
    return record


def write_messages(messages: Iterable[Message], output: str, to: str = "mqtool-dir", *,
                   force: bool = False, stdout: IO[bytes] | None = None,
                   inputs: Iterable[str] | None = None) -> int:
    """Write queue-dump messages: an mqtool directory (``to`` ``mqtool-dir``: index.jsonl and
    the bodies; none is made when there is no message), or a dmpmqmsg file (``-``:
    ``stdout``), whole or not at all. Returns how many were written. ``inputs``: the dumps
    read, for the run's chain of custody (``custody.json`` in the directory, or
    ``FILE.custody.json`` beside the file)."""
    import itertools

    from mqtool.formats.mq.dumps.read import write_mqtool_dir
    from mqtool.formats.mq.dumps.write import write_dmpmqmsg
    from mqtool.io.outputs import OutputDir, atomic_output, published

    if to == "dmpmqmsg":
        if output == "-" and stdout is not None:
            return write_dmpmqmsg(messages, stdout)
        with atomic_output(output, force) as f:
            n = write_dmpmqmsg(messages, f)  # type: ignore[arg-type]
        if inputs is not None:
            _custody_beside(output, list(inputs))
        return n
    chosen = iter(messages)
    first = next(chosen, None)  # nothing readable: no directory is made
    if first is None:
        return 0
    with published(output, force) as local:  # an object-store URI: staged, uploaded at the end
        n = write_mqtool_dir(itertools.chain([first], chosen), OutputDir(local, force))
        if inputs is not None:
            _custody_json(Path(local) / CUSTODY, list(inputs), Path(local))
        return n


def _custody_beside(output: str, inputs: list[str]) -> None:
    """``FILE.custody.json``: the record of a run that wrote one file (an object-store
    output: its inputs, the object named without a digest)."""
    from mqtool.io.uris import is_remote, write_bytes

    if is_remote(output):
        import json

        from mqtool.io.custody import run_record

        doc = {"custody": run_record(inputs).to_json(), "output": output}
        write_bytes(f"{output}.{CUSTODY}", (json.dumps(doc, indent=1) + "\n").encode("utf-8"))
        return
    target = Path(output)
    _custody_json(target.with_name(target.name + "." + CUSTODY), inputs, target.parent,
                  [target])


def _custody_json(path: Path, inputs: list[str], base: Path,
                  outputs: list[Path] | None = None) -> None:
    import json

    from mqtool.io.custody import files_under, run_record
    from mqtool.io.outputs import write_file

    files = outputs if outputs is not None else files_under(base, (path.name,))
    doc = {"custody": run_record(inputs, files, base).to_json()}
    write_file(str(path), (json.dumps(doc, indent=1) + "\n").encode("utf-8"), force=True)


def reassemble_attachments(dump: str, outdir: str | None = None, *,
                           messages: Iterable[Message] | None = None,
                           progress: Callable[[int], None] | None = None, force: bool = False,
                           partial: bool = False, keep_orphans: bool = False,
                           encoding: str = "utf-8", newline: str = "lf",
                           hints: Hints | None = None, obs_layout: str = "definition",
                           formats: tuple[str, ...] = ("parquet", "csv", "xpt"),
                           input_format: str | None = None) -> Report:
    """Rebuild the SAS attachments of a queue dump (a file, ``-`` or a directory; or the
    ``messages`` themselves) into ``outdir``, one folder per header (None: check and list
    only, nothing written). ``Report.status`` is the exit status (0 complete, 2 damaged, 3
    incomplete); ``reassemble.summary(report)`` and ``manifest(header)`` give its JSON.
    Raises only ``MqtoolError`` subclasses."""
    from mqtool.formats.sas.decode import Hints
    from mqtool.formats.sas.reassemble import reassemble
    from mqtool.io.outputs import published

    if outdir is None:
        return reassemble(dump, None, messages=messages, progress=progress, force=force,
                          partial=partial, keep_orphans=keep_orphans, encoding=encoding,
                          newline=newline, hints=hints or Hints(), obs_layout=obs_layout,
                          formats=formats, input_format=input_format)
    with published(outdir, force) as local:  # an object-store URI: staged, uploaded at the end
        return reassemble(dump, local, messages=messages, progress=progress, force=force,
                          partial=partial, keep_orphans=keep_orphans, encoding=encoding,
                          newline=newline, hints=hints or Hints(), obs_layout=obs_layout,
                          formats=formats, input_format=input_format)


def reassembly_report(report: Report) -> ReassemblyReport:
    """A reassembly's report in words: its summary line, each attachment's status, the
    errors (one line each), and as JSON (a manifest per header, then the summary)."""
    return ReassemblyReport(report)


class ReassemblyReport:
    """What ``reassemble attachment`` says of a ``Report`` (``formats.sas.reassemble``)."""

    def __init__(self, report: Report) -> None:
        self.report = report

    def summary_line(self) -> str:
        from mqtool.formats.sas.reassemble import summary_line

        return summary_line(self.report)

    def status_of(self, attachment: object) -> str:
        from mqtool.formats.sas.reassemble import attachment_status

        return attachment_status(attachment)  # type: ignore[arg-type]

    def errors(self) -> list[str]:
        from mqtool.formats.sas.reassemble import report_errors

        return report_errors(self.report)

    def json_lines(self) -> list[dict[str, object]]:
        from mqtool.formats.sas.reassemble import manifest, summary

        return [*(manifest(hs) for hs in self.report.headers), summary(self.report)]


@dataclass
class SasSetRequest:
    """A SAS attachment message set as the user describes it: a request file (YAML or
    JSON), or attachment specs (``binary:FILE[=NAME]``, ``text:...``, ``dataset:CSV[=LIB.
    MEMBER]``) with descriptions; the application message as text (in the sender's code
    page) or bytes; the sender (a profile and what differs from it)."""

    request_file: str | None = None
    attach: tuple[str, ...] = ()
    description: tuple[str, ...] = ()
    message_text: str | None = None
    message_bytes: bytes | None = None
    lrecl: int | None = None
    source_encoding: str = "utf-8"
    sender: SenderOverrides | None = None  # ``sas_sender``: a profile and what differs
    correlid: str | None = None  # the header's G in hex
    seed: int | None = None
    max_msg: int = 32768
    straddle: bool = False
    seq_order: str = "big"


def build_sas_set(r: SasSetRequest, to: str, output: str | None, *, force: bool = False,
                  width: int = 32, stdout: IO[bytes] | None = None) -> None:
    """Build the message set of ``r`` and write it as a queue dump of kind ``to``
    (``set_kinds``) to ``output`` (a directory for the directory kinds) or ``stdout``;
    nothing is written when building fails. A bad request raises ``RequestError`` naming
    every bad field, one line each."""
    from mqtool.errors import BuildError, InputError
    from mqtool.formats.sas import message_set as ms
    from mqtool.formats.sas import request as rq

    s = rq.sender_settings(r.sender or rq.SenderOverrides())
    g = rq.parse_g(r.correlid, "--correlid") if r.correlid is not None else None
    if to in ms.DIRECTORY_FORMATS and (not output or output == "-"):
        raise InputError(f"--to {to} writes a directory: give -o DIR")
    message_text = r.message_text
    if r.request_file:
        loaded = rq.load_request(r.request_file, r.source_encoding, r.lrecl)
        request = loaded.request
        if message_text is None:
            message_text = loaded.message_text
    else:
        request = rq.request_from_specs(r.attach, r.description, r.lrecl, r.source_encoding)
    if r.message_bytes is not None:
        request.message = r.message_bytes
    elif message_text is not None:
        request.message = ms.encode_message(message_text, s)
    if not request.attachments and not request.message:
        raise BuildError("sas-attachment", "request", "nothing to build: give a message and/or "
                                                      "attachments")
    options = ms.BuildOptions(s, r.max_msg, r.straddle, r.seq_order, correlid=g, seed=r.seed)
    ms.write_set(ms.build_messages(request, options), to, output, force, width, stdout=stdout)


def sas_sender(profile: str = "zos", byte_order: str | None = None, long: int | None = None,
               codepage: str | None = None, float_format: str | None = None,
               nul: bool | None = None, record_nul: bool = False) -> SenderOverrides:
    """The SAS sender to build as: a profile (``zos``, ``win``, ``linux``, ``unix64``,
    ``unix32``) and what differs from it (None: the profile's)."""
    from mqtool.formats.sas.request import SenderOverrides

    return SenderOverrides(profile, byte_order, long, codepage, float_format, nul, record_nul)


def set_kinds() -> tuple[str, ...]:
    """The queue-dump kinds a SAS message set is written as."""
    from mqtool.formats.sas.message_set import SET_FORMATS

    return tuple(SET_FORMATS)


def float_formats() -> tuple[str, ...]:
    """The formats of SAS numerics (IBM HFP, IEEE in either byte order)."""
    from mqtool.formats.sas.layout import FLOAT_FORMATS

    return tuple(FLOAT_FORMATS)


def build_sas_attachment(request: Request | Mapping[str, object], *,
                         settings: Settings | None = None, max_msg: int = 32768,
                         straddle: bool = False, seq_order: str = "big",
                         correlid: bytes | None = None, seed: int | None = None
                         ) -> Iterator[Message]:
    """The message set SAS puts on a queue for ``request`` (a ``message_set.Request`` or a
    request document as YAML / JSON holds it), in queue order, built lazily. ``settings``:
    the sender (``layout.PROFILES``, default z/OS); ``correlid``: the header's 16-byte G
    (default a new random one, the same for the same ``seed``). Bad requests raise
    ``request.RequestError`` naming every bad field at once; ``api.build("sas-attachment",
    ...)`` gives the same set as dmpmqmsg text."""
    from mqtool.formats.sas.codec import messages
    from mqtool.formats.sas.layout import PROFILES

    return messages(request, settings=settings or PROFILES["zos"], max_msg=max_msg,
                    straddle=straddle, seq_order=seq_order, correlid=correlid, seed=seed)


# --------------------------------------------------------------------------- bulk extraction


def extract(paths: list[str], out: IO[bytes] | str, *, fmt: str = "jsonl", framing: str = "auto",
            codepage: str = "cp037", mode: str = "PERMISSIVE", filters: Filters | None = None,
            messages: bool = False, workers: int | None = None,
            progress: Callable[[int], None] | None = None,
            options: Mapping[str, str] | None = None, max_seg: int | None = None,
            split_size: int | None = None, names: dict[str, str] | None = None,
            summary: CsqSummary | None = None) -> CsqSummary:
    """CSQ1LOGP records of ``paths`` (files or URIs: ``s3://``, ``gs://``, ``hdfs://``,
    ``file://``; ``options`` their credentials/endpoint) to ``out``: a binary stream or a
    path for ``fmt`` ``jsonl``/``csv``/``parquet``, or a directory (``fmt="dir"``:
    ``records/log_date=YYYY-MM-DD/``, ``errors/``, ``messages/``). ``mode``: PERMISSIVE
    (bad spans become error rows), DROPMALFORMED, FAILFAST (``DecodeError`` at the first,
    nothing written); ``messages`` gives one row per logical message. The returned
    ``formats.csq1logp.extract.Summary`` counts records, bad spans by reason and rows
    (``summary``: filled as the work goes, so a failed run still has its counts)."""
    from mqtool.formats.csq1logp import extract as x
    from mqtool.formats.csq1logp.layout import MAX_SEGMENT

    return x.extract(paths, out, fmt=fmt, framing=framing, codepage=codepage, mode=mode,
                     filters=filters, messages=messages, workers=workers, progress=progress,
                     options=options, max_seg=max_seg or MAX_SEGMENT,
                     split_size=split_size or x.SPLIT_SIZE, names=names, summary=summary)


def csq1logp_filters(queue: Iterable[str] = (), verb: Iterable[str] = (),
                     urid: Iterable[str] = (), qmgr: Iterable[str] = (), since: str | None = None,
                     until: str | None = None, status: Iterable[str] = ()) -> Filters:
    """Row filters of a CSQ1LOGP extract, from text; ``ValueError`` names what is wrong."""
    from mqtool.formats.csq1logp.extract import Filters

    return Filters.make(queue, verb, urid, qmgr, since, until, status)


def parse_size(text: str | int) -> int:
    """``64m``, ``1g``, ``4096`` -> bytes; ``ValueError`` otherwise."""
    from mqtool.formats.csq1logp.extract import parse_size as _parse_size

    return _parse_size(text)


def csq1logp_out_dirs() -> tuple[str, ...]:
    """What a CSQ1LOGP extract directory holds (spark-extract's layout)."""
    from mqtool.formats.csq1logp.outdir import OUT_DIRS

    return tuple(OUT_DIRS)


@dataclass
class ExtractRun:
    """What ``extract_csq1logp`` is asked for besides its inputs and output."""

    to: str | None = None  # jsonl, csv, parquet (default: the output's extension)
    framing: str = "auto"
    codepage: str = "cp037"
    mode: str = "PERMISSIVE"
    filters: Filters | None = None
    messages: bool = False
    max_segment: int | None = None
    workers: int | None = None
    split_size: int | None = None
    force: bool = False
    summary_path: str | None = None  # checked before any work
    selection: Selection | None = None  # --where (rows kept), --fields (columns on stdout)


def extract_csq1logp(files: Iterable[str], output: str | None, run: ExtractRun, *,
                     stdout: IO[bytes], progress: Callable[[int], None] | None = None
                     ) -> dict[str, object]:
    """A CSQ1LOGP extract run: ``files`` (``-`` is stdin, spooled) to ``output`` — a file
    whose extension (or ``run.to``) names the format, stdout (None or ``-``: JSON lines or
    CSV), or a directory (a trailing slash, or one that exists: spark-extract's layout,
    ``records/`` by log_date, ``errors/``, ``messages/``, ``_summary.json``). Outputs are
    written whole or not at all. Returns the summary (``Summary.to_json``); an error raised
    carries it as ``summary``."""

    from mqtool.errors import InputError
    from mqtool.formats.csq1logp import extract as x
    from mqtool.io.inputs import spooled
    from mqtool.io.outputs import check_output, mark_complete, output_root
    from mqtool.io.uris import check_output_dir, join

    if run.summary_path and run.summary_path != "-":
        check_output(run.summary_path, True)
    summary = x.Summary(mode=run.mode.upper())
    to_dir = x.is_dir_output(output)
    fmt = "dir" if to_dir else x.output_format(output, run.to)
    target = output if output and output != "-" else None
    if target is None and fmt == "parquet":
        raise InputError("Parquet needs a file: -o OUT.parquet")
    if to_dir:
        check_output_dir(str(target), run.force, (*csq1logp_out_dirs(), "_summary.json"))
        target = output_root(str(target))
    elif target is not None:
        check_output(target, run.force)
    sel = run.selection
    if sel is not None and sel.columns:
        if target is not None or fmt != "jsonl":
            raise InputError("--fields prints columns on stdout: give it without -o and --to")
        from mqtool.query import ColumnStream

        stdout = ColumnStream(stdout, sel)  # type: ignore[assignment]
    try:
        with spooled(files) as spool:
            x.extract(spool.paths, target or stdout, fmt=fmt,
                      **_extract_options(run, summary, spool.names, progress))  # type: ignore[arg-type]
            stdout.flush()
    except Exception as e:
        e.summary = summary.to_json()  # type: ignore[attr-defined]
        raise
    if sel is not None:
        sel.check()
    info = summary.to_json()
    if to_dir:
        info["output"] = target
        write_summary(join(str(target), "_summary.json"), info)
        mark_complete(str(target))
    return info


def _extract_options(run: ExtractRun, summary: CsqSummary, names: dict[str, str],
                     progress: Callable[[int], None] | None) -> dict[str, object]:
    from mqtool.formats.csq1logp import extract as x
    from mqtool.formats.csq1logp.layout import MAX_SEGMENT

    filters: object = run.filters
    if run.selection is not None and run.selection.query is not None:
        from mqtool.formats.csq1logp.extract import Filters
        from mqtool.query import RowFilter

        filters = RowFilter(run.filters or Filters(), run.selection)
    return {"framing": run.framing, "codepage": run.codepage, "mode": run.mode.upper(),
            "filters": filters, "messages": run.messages,
            "max_seg": run.max_segment or MAX_SEGMENT, "workers": run.workers,
            "split_size": run.split_size or x.SPLIT_SIZE, "progress": progress, "names": names,
            "summary": summary, "force": run.force}


def extract_mq_stats(inputs: Iterable[str], output: str | None, *, to: str | None = None,
                     force: bool = False, input_format: str | None = None,
                     stdout: IO[bytes], say: Callable[[str], None] = _quiet,
                     summary_path: str | None = None) -> dict[str, object]:
    """IBM MQ accounting and statistics messages of queue dumps and captures (``inputs``)
    as rows, one per queue / channel per interval (``formats.mq.stats``), to ``output``: a
    file whose extension (or ``to``) names the format (Parquet, CSV, JSON lines), written
    whole or not at all, or ``stdout`` (None or ``-``: JSON lines or CSV). Unreadable
    messages and dumps without any are said (``say``) and counted; returns the summary."""
    from mqtool.errors import InputError
    from mqtool.formats.mq import stats
    from mqtool.formats.mq.dumps.read import QueueDump
    from mqtool.io.outputs import AtomicPath, check_output

    if summary_path and summary_path != "-":
        check_output(summary_path, True)
    fmt = stats.output_format(output, to)
    target = output if output and output != "-" else None
    if target is None and fmt == "parquet":
        raise InputError("Parquet needs a file: -o OUT.parquet")
    if target is not None:
        check_output(target, force)
    done = stats.Extracted(list(inputs), output=target or "-", format=fmt)
    dumps = (QueueDump(p, input_format) for p in done.inputs)
    if target is None:
        writer = stats.RowWriter(stdout, fmt)
        stats.extract(dumps, writer, done, say)
        writer.close()
        return done.to_json()
    with AtomicPath(target, force) as tmp, open(tmp, "wb") as f:
        writer = stats.RowWriter(f, fmt)
        stats.extract(dumps, writer, done, say)
        writer.close()
    return done.to_json()


def extract_urb(paths: list[str], outdir: str, *, fmt: str = "parquet", mode: str = "PERMISSIVE",
                force: bool = False, progress: Callable[[int], None] | None = None,
                leap_seconds: int = 0, names: Mapping[str, str] | None = None,
                typed: bool = False, format_buffers: Sequence[str] = (),
                fdts: Sequence[str] = ()) -> ExtractSummary:
    """URB messages (raw streams, queue dumps, dump text, directories) to the change tables
    in ``outdir``; returns the ``formats.urb.extract.Summary``. Inputs that are all empty
    files are ``EmptyInputError``, before any output is made. ``names``: what rows, the
    summary and errors call a path (``io.inputs.Spooled.names``: stdin's copy is ``-``).
    ``typed``: also one typed change table per (database, file), its layouts from the
    stream's global format field tables, ``format_buffers`` (``DBID:FNR=BUFFER``, ``@FILE``
    of such lines) and ``fdts`` (JSON files), which are read first (``LayoutError``)."""
    from mqtool.formats.urb.extract import extract as _extract
    from mqtool.io.inputs import total_size

    run = None
    if typed:
        from mqtool.formats.urb.typed.run import typed_run

        run = typed_run(format_buffers, fdts)
    total_size(paths, refuse_empty="urb")
    return _extract(paths, outdir, fmt=fmt, mode=mode, force=force, progress=progress,
                    leap_seconds=leap_seconds, names=names, typed=run)


def apply_changes(paths: Sequence[str], to: str, force: bool = False) -> dict[str, dict[str, object]]:
    """Fold typed change tables (files, or directories of ``changes_<dbid>_<fnr>.parquet``)
    in commit order into the current-state tables in ``to``, one per file keyed by ISN
    (``formats.urb.apply``; ``force``: to an empty state, replacing those there); what it
    did, by state table name."""
    from mqtool.formats.urb.apply import apply_paths, state_name

    return {state_name(key): r.to_json() for key, r in apply_paths(paths, to, fresh=force).items()}


# --------------------------------------------------------------------------- selecting and counting


def selection(where: str | None = None, fields: str | None = None,
              header: bool = False, fields_option: str = "--fields") -> Selection:
    """``--where EXPR`` / ``--fields A,B`` / ``--header`` as one object (``query.Selection``):
    which units or rows to keep, the columns to print; both checked now (``QueryError``,
    one line naming the fault; ``fields_option``: the option the field list came as)."""
    from mqtool.query import Selection

    return Selection(where, fields, header, fields_option)


def field_list(text: str) -> list[str]:
    """``a,b, c`` -> the field names (``QueryError`` for an empty or malformed one)."""
    from mqtool.query import field_list as _field_list

    return _field_list(text)


def stats(records: Iterable[object], by: Sequence[str]) -> list[Count]:
    """How many units or rows have each combination of values of the ``by`` fields, most
    frequent first (``query.stats``)."""
    from mqtool.query import stats as _stats

    return _stats(records, by)


def stats_table(counts: Sequence[Count], by: Sequence[str]) -> list[list[str]]:
    """The rows of the ``stats`` table: a header row, then count and each field's value
    with its meaning."""
    from mqtool.query import stats_table as _stats_table

    return _stats_table(counts, by)


def units(path: str, fmt: str = "auto", hex_text: bool = False,
          say: Callable[[str], None] | None = None,
          window: WindowRequest | None = None) -> Iterator[Decoded]:
    """Every unit of an input, as ``decode FORMAT`` gives them (``auto``: as ``decode auto``
    does: a queue dump message by message, anything else by the codec that recognises
    it); offsets absolute in the input when a ``window`` is read."""
    from mqtool.model import shift_unit
    from mqtool.registry import codec

    if fmt == "auto":
        pairs = decode_auto(path, hex_text, say, window).units
    else:
        pairs = decode_file(codec(fmt).name, path, hex_text, window)
    for unit, _data in pairs:
        if window and "payload_offset" not in unit.attrs:
            shift_unit(unit, window.start)
        yield unit


# --------------------------------------------------------------------------- scanning images


def scan_formats() -> tuple[str, ...]:
    """What ``scan`` looks for: every codec with a carver (``Codec.carve``), and hex dump
    text."""
    from mqtool.scan import KNOWN

    return tuple(KNOWN)


def scan(path: str, *, window: WindowRequest | None = None,
         formats: Sequence[str] | None = None, min_confidence: float = 0.0,
         work: Work | None = None,
         progress: Callable[[int], None] | None = None) -> Iterator[Found]:
    """Every structure found in a file (``scan.scan``): confirmed by decoding, in offset
    order, offsets absolute in the file; ``window``: only that part of it; ``progress``:
    told how many bytes were searched so far."""
    from mqtool.scan import scan as _scan

    return _scan(path, offset=window.offset if window else None,
                 length=window.length if window else None, formats=formats,
                 min_confidence=min_confidence, work=work, progress=progress)


def scan_window(path: str, window: WindowRequest | None = None) -> int:
    """How many bytes of a file ``scan`` searches (its ``window``; refused at once when
    the window does not fit)."""
    import os

    from mqtool.io.inputs import check_regular
    from mqtool.io.window import WindowRequest

    check_regular(path)
    return (window or WindowRequest()).resolve(os.path.getsize(path)).length


def carve_dir(outdir: str, *, force: bool = False, custody: Custody | None = None,
              names: Mapping[str, str] | None = None) -> CarveDir:
    """A directory to carve hits into (``scan.CarveDir``: ``add(image, hits)`` writes each
    hit as a file, ``finish()`` the manifest with the ``custody`` record, ``discard()``
    removes what a failed run carved); ``names``: spooled copies -> the name they stand
    for (stdin)."""
    from mqtool.scan import CarveDir

    return CarveDir(outdir, force, custody, names)


def scan_line(hit: Found) -> str:
    """A hit in one line: offset (hex and decimal), length, format, confidence, summary."""
    from mqtool.scan import summary_line

    return summary_line(hit)


def scan_heading() -> str:
    """The heading of ``scan_line``'s columns."""
    from mqtool.scan import summary_heading

    return summary_heading()


# --------------------------------------------------------------------------- chain of custody


def custody(inputs: Iterable[str], argv: Sequence[str] | None = None,
            stdin: bytes | None = None, names: Mapping[str, str] | None = None) -> Custody:
    """Begin a run's custody record: every input's path, size, modification time and
    SHA-256 now; the mqtool version, the command line (``argv``, default ``sys.argv``) and
    the start time (``io.custody.Custody``: ``add_output``, ``finish``, ``to_json``).
    ``names``: spooled copies of stdin -> ``-`` (recorded by their bytes)."""
    from mqtool.io.custody import Custody

    return Custody.start(inputs, argv, stdin, names)


def verify(manifest: str) -> Verification:
    """Re-hash the inputs and outputs a manifest's custody record names and say, file by
    file, what changed (``io.custody.verify``)."""
    from mqtool.io.custody import verify as _verify

    return _verify(manifest)
