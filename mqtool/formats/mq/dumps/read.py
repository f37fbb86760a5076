"""Queue dumps -> messages (MQMD fields, properties, body), read as a stream.

What IBM MQ tools write when a queue is unloaded or browsed, and mqtool's own format; one
module per producer:

* ``dmpmqmsg`` / qload text files (``dmpmqmsg.py``): every display mode of the writer.
* ``amqsbcg`` browse listings (``amqsbcg.py``): MQ 7.x and 9.x layouts, property sections.
* RFHUtil files (``rfhutil.py``): save files of many messages (``#@#@#`` between them), with
  or without MQMDs and properties; single-message files.
* MQMD-prefixed binaries: a 364-byte (version 2) or 324-byte (version 1) MQMD in either
  byte order, eyecatcher ``MD  `` in ASCII or EBCDIC, then the body; one message per file,
  or a directory of them.
* The mqtool directory (``mqtool_dir.py``): ``index.jsonl`` next to the body files.
* pcap and pcapng captures of IBM MQ TCP traffic (``formats.mq.capture``): the messages on
  the wire, each with where it came from (frames, endpoints, verb, queue).

``sniff`` (``sniff.py``) scores a file's first 64 KiB to tell them apart. Readers hold one
message body at a time. Bad lines do not stop a reader: the message is marked unusable
(or truncated) and the problem names the line and says why.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

from mqtool.errors import DecodeError, ExitStatus, InputError, NoMessagesError
from mqtool.formats.mq.dumps.amqsbcg import AmqsbcgReader
from mqtool.formats.mq.dumps.dmpmqmsg import CODES as DMPMQMSG_CODES
from mqtool.formats.mq.dumps.dmpmqmsg import DmpmqmsgReader
from mqtool.formats.mq.dumps.lines import BLOCK, read_lines
from mqtool.formats.mq.dumps.message import Message, label_unit, problem_json
from mqtool.formats.mq.dumps.mqtool_dir import (
    INDEX,
    inside,
    message_json,
    read_mqtool_dir,
    write_mqtool_dir,
)
from mqtool.formats.mq.dumps.producers import CAPTURES, PRODUCERS
from mqtool.formats.mq.dumps.rfhutil import RfhutilReader
from mqtool.formats.mq.dumps.sniff import HEAD, sniff
from mqtool.formats.mq.mqmd import parse_mqmd, sniff_mqmd
from mqtool.io.inputs import STDIN, Input, missing_input, open_input
from mqtool.model import Problem

__all__ = ["BLOCK", "DMPMQMSG_CODES", "FORMATS", "INDEX", "DumpProblemsError", "Message",
           "QueueDump", "detect_format", "label_unit", "message_json", "open_dump",
           "problem_json", "read_messages", "sniff", "write_mqtool_dir"]

FORMATS = tuple(PRODUCERS)
RECORDS = ("manifest.json", "_summary.json", "custody.json")  # mqtool's records of its runs
KINDS = ", ".join(FORMATS)

Progress = Callable[[int], None]  # bytes of the dump read so far


class NotADumpError(InputError):
    """The input is no queue dump mqtool knows (empty, or another format): exit 2, as
    every command says of input it cannot read as what it expects."""

    status = ExitStatus.DECODE


class DumpProblemsError(DecodeError):
    """Some files or messages of a queue dump could not be read (each said first); the rest
    was decoded: exit status 2."""

    def __init__(self, source: str, count: int) -> None:
        super().__init__("queue-dump", "", 0, f"{source}: {count} file(s) or message(s) of this "
                                             "dump could not be read (listed above)")

    def describe(self) -> str:
        return f"{self.format}: {self.reason}"


class Dumps:
    """The queue dumps mqtool reads, for ``io.inputs.sources``: which producer wrote a
    file (``sniff``), and the messages of a dump, whose unreadable files or messages are
    said (``say``) and raised (``DumpProblemsError``) once all were read."""

    def __init__(self, say: Callable[[str], None]) -> None:
        self.say = say

    def kind(self, head: bytes) -> str | None:
        return sniff(head)

    def messages(self, inp: Input, kind: str) -> Iterator[Message]:
        stream = inp.stream() if inp.is_stdin else None
        dump = QueueDump(inp.path, None if kind == "directory" else kind, stream=stream)
        yield from dump
        if dump.report(self.say):
            raise DumpProblemsError(inp.path, len(dump.errors))


def open_dump(path: str, input_format: str | None = None) -> QueueDump | Input:
    """The queue dump at ``path`` — a dump file, a directory of them, stdin — or, when its
    head is none (``sniff``), the input itself, opened and its head read (stdin is read
    once: the dump or the input goes on from what was read). ``input_format`` names the
    dump's kind instead."""
    if input_format not in (None, "auto"):
        return QueueDump(path, input_format)
    inp = open_input(path, HEAD)
    if inp.is_dir:
        return QueueDump(path)
    kind = sniff(inp.head)
    if kind is None:
        return inp
    if inp.is_stdin:
        return QueueDump(path, kind, stream=inp.stream())
    inp.close()
    return QueueDump(path, kind)


def detect_format(path: str, head: bytes | None = None) -> str:
    """The kind of a dump file or directory; ``InputError`` when it is none of them."""
    if path != "-" and Path(path).is_dir():
        if (Path(path) / INDEX).is_file():
            return "mqtool-dir"
        return "directory"
    if head is None:
        with _open(path) as f:
            head = f.read(HEAD)
    kind = sniff(head)
    if kind is None:
        what = "empty input" if not head.strip() else "not a queue dump mqtool knows"
        raise NotADumpError(f"{path}: {what} ({KINDS}); --input-format forces one")
    if kind == "mqtool-dir":
        raise InputError(f"{path}: this is an index.jsonl; give its directory instead")
    return kind


def _open(path: str) -> IO[bytes]:
    if path == STDIN:
        from mqtool.io.inputs import stdin

        return stdin()
    p = Path(path)
    if not p.exists():
        raise missing_input(path)
    from mqtool.io.inputs import open_regular

    return open_regular(p)  # FIFOs, devices and sockets are refused, not opened


class QueueDump:
    """Iterate the messages of a dump file or directory, whatever its kind.

    ``errors`` collects problems that made a message unusable or lost data (the command
    exits 2 when there are any); ``size`` is the dump's size in bytes when known.
    """

    def __init__(self, path: str, input_format: str | None = None,
                 progress: Progress | None = None, stream: IO[bytes] | None = None) -> None:
        self.path = path
        self.stream = stream  # read this instead of opening ``path`` (stdin already read)
        self.progress = progress
        self.requested = None if input_format in (None, "auto") else input_format
        if self.requested is not None and self.requested not in FORMATS:
            raise InputError(f"unknown input format {input_format!r}; known: {', '.join(FORMATS)}")
        self.format = ""
        self.errors: list[Problem] = []  # problems that made a message unusable
        self.warnings: list[Problem] = []  # the others (the first 1000)
        self.count = 0
        self.truncated = 0
        self.size = _size(path)
        self.notes: list[Problem] = []  # said, not errors: what a capture reader skipped
        self.empty_why = ""  # why no message came, when the reader knows (a capture)
        self._done = 0

    def __iter__(self) -> Iterator[Message]:
        for msg in self._messages():
            self.count += 1
            self.truncated += msg.truncated
            if not msg.usable:
                self.errors.extend(msg.problems)
            elif msg.problems and len(self.warnings) < 1000:
                self.warnings.extend(msg.problems)
            yield msg

    def report(self, say: Callable[[str], None], source: str | None = None) -> int:
        """After reading: each problem that made a message unusable (the first 50) said in
        one line; returns how many. No message at all is ``NoMessagesError`` (exit 2),
        which says the last problem (a capture of a TLS channel: one line in all)."""
        source = source or self.path
        bad = list(self.errors)
        last = bad.pop() if self.count == 0 and bad and len(bad) <= 50 else None
        for p in bad[:50]:
            say(f"{p.path}: {p.reason}")
        if len(bad) > 50:
            say(f"{source}: ... and {len(bad) - 50} more problems")
        if self.count == 0:
            raise NoMessagesError(source, self.format, last.reason if last else self.empty_why)
        return len(bad)

    def _advance(self, n: int) -> None:
        self._done += n
        if self.progress is not None:
            self.progress(self._done)

    def _problem(self, p: Problem) -> None:
        self.errors.append(p)

    def _messages(self) -> Iterator[Message]:
        path = self.path
        is_dir = path != "-" and Path(path).is_dir()
        if is_dir:
            kind = "mqtool-dir" if (Path(path) / INDEX).is_file() else "directory"
            if self.requested == "mqtool-dir" and kind != "mqtool-dir":
                raise InputError(f"{path}: no {INDEX} in this directory")
            self.format = kind if self.requested in (None, "mqtool-dir") else self.requested
            if self.format == "mqtool-dir":
                yield from read_mqtool_dir(Path(path), _display(str(Path(path) / INDEX)),
                                           lambda: self.count, self._advance)
            else:
                yield from self._read_directory(Path(path))
            return
        f = self.stream if self.stream is not None else _open(path)
        try:
            head = f.read(HEAD)
            kind = self.requested or detect_format(path, head)
            if kind == "mqtool-dir":
                raise InputError(f"{path}: an mqtool directory dump is a directory; give its path")
            self.format = kind
            yield from self._read_stream(kind, head, f, _display(path), 0)
        finally:
            if f is not sys.stdin.buffer and f is not self.stream:
                f.close()

    def _read_stream(self, kind: str, head: bytes, f: IO[bytes], name: str,
                     first: int) -> Iterator[Message]:
        if kind == "dmpmqmsg":
            yield from DmpmqmsgReader(name, first, self._advance, self._problem).read(head, f)
        elif kind == "amqsbcg":
            yield from AmqsbcgReader(name, first).read(read_lines(head, f, self._advance))
        elif kind == "rfhutil":
            yield from RfhutilReader(name, first, self._advance).read(head, f)
        elif kind == "mqmd-binary":
            data = head + f.read()
            self._advance(len(data))
            yield read_mqmd_binary(data, name, first + 1)
        elif kind in CAPTURES:
            yield from self._read_capture(head, f, name, first)
        else:
            raise InputError(f"unknown input format {kind!r}")

    def _read_capture(self, head: bytes, f: IO[bytes], name: str, first: int) -> Iterator[Message]:
        """The messages on the wire (MQ ports: ``capture.read.mq_ports``); a TLS channel or
        a gap is an error, what the reader skipped a note."""
        from mqtool.formats.mq.capture.read import CaptureReader

        reader = CaptureReader(name, first, self._advance, self._problem)
        yield from reader.read(head, f)
        self.notes += reader.problems
        self.empty_why = self.empty_why or reader.nothing_found()

    def _read_directory(self, root: Path) -> Iterator[Message]:
        """A directory of dumps (any kind, even mixed) and message bodies, in natural
        order: a file that is no dump is one message body without an MQMD (a folder of
        bodies, or of what ``scan --carve`` wrote); mqtool's own records in it
        (``RECORDS``) are not messages."""
        files = [p for p in sorted(root.iterdir(), key=lambda p: _natural(p.name))
                 if _regular(p) and not p.name.startswith(".") and inside(root, p)
                 and p.name not in RECORDS]
        if not files:
            raise InputError(f"{root}: empty directory, no dump files in it")
        position = 0
        for p in files:
            with p.open("rb") as f:
                head = f.read(HEAD)
                kind = self.requested or sniff(head)
                if kind is None and head:
                    position += 1
                    data = head + f.read()
                    self._advance(len(data))
                    yield Message(position, data, {}, _display(str(p)))
                    continue
                if kind is None or kind == "mqtool-dir":
                    self.errors.append(Problem(_display(str(p)), 0, "empty file; skipped"
                                               if not head else "not a message dump; skipped"))
                    continue
                for msg in self._read_stream(kind, head, f, _display(str(p)), position):
                    position = msg.position
                    yield msg


def read_messages(path: str, input_format: str | None = None) -> Iterator[Message]:
    """The messages of a dump (see ``QueueDump`` for errors and progress)."""
    return iter(QueueDump(path, input_format))


def read_mqmd_binary(data: bytes, name: str, position: int) -> Message:
    """One MQMD-prefixed message."""
    if sniff_mqmd(data) is None:
        msg = Message(position, data, {}, name)
        msg.problem("mqmd-binary: no MQMD at offset 0 (eyecatcher 'MD  ' in ASCII or EBCDIC, "
                    "version 1 or 2, 324 or 364 bytes)", 0, usable=False)
        return msg
    values, size, _variant = parse_mqmd(data)
    values.pop("strucid", None)
    return Message(position, data[size:], values, name)


def _regular(p: Path) -> bool:
    try:
        return stat.S_ISREG(os.stat(p).st_mode)
    except OSError:
        return False


def _size(path: str) -> int | None:
    if path == "-":
        return None
    p = Path(path)
    try:
        if p.is_dir():
            return sum(c.stat().st_size for c in p.iterdir() if _regular(c))
        return p.stat().st_size
    except OSError:
        return None


def _display(path: str) -> str:
    return "stdin" if path == "-" else path


def _natural(name: str) -> list[object]:
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", name)]
