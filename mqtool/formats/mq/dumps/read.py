"""Queue dumps -> messages (MQMD fields + body), read as a stream.

What IBM MQ tools write when a queue is unloaded or browsed, and mqtool's own format:

* ``dmpmqmsg`` (the queue-unload utility, formerly the ``qload`` SupportPac): ``*`` comment
  lines, ``A XXX value`` MQMD attribute lines, ``N`` (a new message without MQMD, ``-dN``),
  ``X`` hex data lines of any width, ``S "..."`` string lines (``~~`` is a tilde, ``~XX`` a
  byte in hex), ``T`` text lines (lossy: unprintable bytes and line ends are not recoverable,
  so such a body is marked unusable for byte-exact work), CRLF line ends; also a directory
  of one-file-per-message dumps.
* ``amqsbcg`` browse listings: the MQMD field by field, then the body in hex with a
  character column; a listing that shows fewer bytes than the message had is reported.
* MQMD-prefixed binaries: a 364-byte (version 2) or 324-byte (version 1) MQMD in either
  byte order, eyecatcher ``MD  `` in ASCII or EBCDIC, followed by the body; one message per
  file, or a directory of them.
* The mqtool directory: ``index.jsonl`` (one object per message: ``seq``, ``file``,
  ``msgtype``, ``correlid`` as 48 hex digits, optional other MQMD fields under their
  lower-cased MQMD names) next to the body files.

Readers never hold more than one message body (dmpmqmsg text is read in blocks; runs of
``X`` lines are decoded a block at a time). Bad lines do not stop a reader: the message is
marked unusable and the problem says where (line, byte offset) and why.
"""

from __future__ import annotations

import binascii
import json
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from mqtool.errors import InputError
from mqtool.formats.mq.mqmd import FIELD_NAMES, HEX_FIELDS, INT_FIELDS, TEXT_FIELDS, parse_mqmd, sniff_mqmd
from mqtool.model import Decoded, Problem

FORMATS = ("dmpmqmsg", "amqsbcg", "mqmd-binary", "mqtool-dir")
INDEX = "index.jsonl"
BLOCK = 4 << 20

Progress = Callable[[int], None]  # bytes of the dump read so far


@dataclass
class Message:
    """One message of a queue dump: what the dump said of its MQMD, and its body."""

    position: int  # 1-based, in dump order (amqsbcg's "message number")
    body: bytes
    mqmd: dict[str, Any] = field(default_factory=dict)  # lower-cased MQMD names
    source: str = ""  # where it came from: "dump.txt line 57", "dir/000003.bin"
    problems: list[Problem] = field(default_factory=list)
    usable: bool = True  # False: body lossy (T lines), truncated, or damaged

    @property
    def msgtype(self) -> int | None:
        v = self.mqmd.get("msgtype")
        return v if isinstance(v, int) else None

    @property
    def correlid(self) -> bytes | None:
        v = self.mqmd.get("correlid")
        return v if isinstance(v, bytes) else None

    @property
    def encoding(self) -> int | None:
        v = self.mqmd.get("encoding")
        return v if isinstance(v, int) else None

    @property
    def ccsid(self) -> int | None:
        v = self.mqmd.get("codedcharsetid")
        return v if isinstance(v, int) else None

    def missing_fields(self) -> list[str]:
        """The MQMD fields reassembly needs that this dump did not carry."""
        return [name for name, v in (("MsgType", self.msgtype), ("CorrelId", self.correlid))
                if v is None]

    def problem(self, reason: str, offset: int = 0, path: str = "", usable: bool = True) -> None:
        self.problems.append(Problem(path or self.source, offset, reason))
        self.usable = self.usable and usable


def label_unit(unit: Decoded, msg: Message, role: str = "") -> Decoded:
    """Say which queue-dump message a decoded unit came from (title and JSON attributes
    ``message``, ``source``, ``msgtype``, ``correlid``); the reader's problems with the
    message join the unit's, as errors when the body is unusable."""
    for p in msg.problems:
        (unit.problems if msg.usable else unit.errors).append(p)
    cid = msg.correlid
    cid_hex = cid.hex().upper() if cid else None
    what = f": {role}" if role else (f": {unit.title}" if unit.title else "")
    unit.title = (f"message {msg.position} ({msg.source}): MsgType {msg.msgtype}, "
                  f"CorrelId {cid_hex or 'none'}{what}")
    unit.attrs = {"message": msg.position, "source": msg.source, "msgtype": msg.msgtype,
                  "correlid": cid_hex, **({"role": role} if role else {}), **unit.attrs}
    return unit


# --------------------------------------------------------------------------- sniffing

_DMP_LINE = re.compile(rb"^(?:A [A-Z]{3}(?: |\r?$)|N\r?$|X [0-9A-Fa-f]|S \"|T )")
_AMQSBCG = re.compile(rb"AMQSBCG0|\*\*\*\*Message descriptor\*\*\*\*|MQGET of message number")


def sniff(data: bytes) -> str | None:
    """Which queue-dump kind ``data`` (the start of a file) is: ``dmpmqmsg``, ``amqsbcg``,
    ``mqmd-binary``, ``mqtool-dir`` (an ``index.jsonl``), or None."""
    if sniff_mqmd(data) is not None or data[:4] in (b"MD  ", b"\xd4\xc4\x40\x40"):
        return "mqmd-binary" if sniff_mqmd(data + bytes(400)) is not None else None
    head = data[:65536]
    if _AMQSBCG.search(head) and _is_text(head):  # a browse listing is text, not a body
        return "amqsbcg"
    lines = head.splitlines()
    if len(head) == 65536 and len(lines) > 1:
        lines = lines[:-1]  # the last line may be cut
    if lines and lines[0].lstrip().startswith(b"{"):
        try:
            first = json.loads(lines[0])
        except ValueError:
            return None
        if isinstance(first, dict) and "file" in first and ("correlid" in first or "msgtype" in first):
            return "mqtool-dir"
        return None
    seen = False
    for line in lines:
        if not line.strip() or line.startswith(b"*"):
            continue
        if not _DMP_LINE.match(line):
            return None
        seen = True
    if seen or b"dmpmqmsg" in head[:400].lower() or b"qload" in head[:400].lower():
        return "dmpmqmsg" if seen or head.startswith(b"*") else None
    return None


def _is_text(head: bytes) -> bool:
    """UTF-8 text with line ends and no control bytes but tab, CR, LF, FF (a browse listing;
    a binary body that merely contains the word is not one)."""
    sample = head[:4096]
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as e:
        if e.start < len(sample) - 3:  # not just a character cut at the sample's end
            return False
    return b"\n" in head and not any(b < 0x20 and b not in b"\t\r\n\x0c" for b in sample)


def detect_format(path: str, head: bytes | None = None) -> str:
    """The kind of a dump file or directory; ``InputError`` when it is none of them."""
    if path != "-" and Path(path).is_dir():
        if (Path(path) / INDEX).is_file():
            return "mqtool-dir"
        return "directory"
    if head is None:
        with _open(path) as f:
            head = f.read(65536)
    kind = sniff(head)
    if kind is None:
        raise InputError(f"{path}: not a queue dump mqtool knows (dmpmqmsg, amqsbcg, MQMD-prefixed "
                         "binary, mqtool directory); --input-format forces one")
    if kind == "mqtool-dir":
        raise InputError(f"{path}: this is an index.jsonl; give its directory instead")
    return kind


def _open(path: str) -> IO[bytes]:
    if path == "-":
        return sys.stdin.buffer
    p = Path(path)
    if not p.exists():
        raise InputError(f"{path}: no such file or directory")
    try:
        return p.open("rb")
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}") from None


# --------------------------------------------------------------------------- the reader


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
        self.size = _size(path)
        self._done = 0

    def __iter__(self) -> Iterator[Message]:
        for msg in self._messages():
            self.count += 1
            if not msg.usable:
                self.errors.extend(msg.problems)
            elif msg.problems and len(self.warnings) < 1000:
                self.warnings.extend(msg.problems)
            yield msg

    def _advance(self, n: int) -> None:
        self._done += n
        if self.progress is not None:
            self.progress(self._done)

    def _messages(self) -> Iterator[Message]:
        path = self.path
        is_dir = path != "-" and Path(path).is_dir()
        if is_dir:
            kind = "mqtool-dir" if (Path(path) / INDEX).is_file() else "directory"
            if self.requested == "mqtool-dir" and kind != "mqtool-dir":
                raise InputError(f"{path}: no {INDEX} in this directory")
            self.format = kind if self.requested in (None, "mqtool-dir") else self.requested
            if self.format == "mqtool-dir":
                yield from _read_mqtool_dir(Path(path), self)
            else:
                yield from self._read_directory(Path(path))
            return
        f = self.stream if self.stream is not None else _open(path)
        try:
            head = f.read(65536)
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
            yield from _DmpmqmsgReader(name, first, self._advance).read(head, f)
        elif kind == "amqsbcg":
            yield from _read_amqsbcg(_lines_of(head, f, self._advance), name, first)
        elif kind == "mqmd-binary":
            data = head + f.read()
            self._advance(len(data))
            yield _read_mqmd_binary(data, name, first + 1)
        else:
            raise InputError(f"unknown input format {kind!r}")

    def _read_directory(self, root: Path) -> Iterator[Message]:
        """A directory of one-file-per-message dumps (any kind, even mixed), in natural order."""
        files = [p for p in sorted(root.iterdir(), key=lambda p: _natural(p.name))
                 if p.is_file() and not p.name.startswith(".") and _inside(root, p)]
        if not files:
            raise InputError(f"{root}: empty directory, no dump files in it")
        position = 0
        for p in files:
            with p.open("rb") as f:
                head = f.read(65536)
                kind = self.requested or sniff(head)
                if kind is None or kind == "mqtool-dir":
                    self.errors.append(Problem(_display(str(p)), 0, "not a message dump; skipped"))
                    continue
                for msg in self._read_stream(kind, head, f, _display(str(p)), position):
                    position = msg.position
                    yield msg


def read_messages(path: str, input_format: str | None = None) -> Iterator[Message]:
    """The messages of a dump (see ``QueueDump`` for errors and progress)."""
    return iter(QueueDump(path, input_format))


def _size(path: str) -> int | None:
    if path == "-":
        return None
    p = Path(path)
    try:
        if p.is_dir():
            return sum(c.stat().st_size for c in p.iterdir() if c.is_file())
        return p.stat().st_size
    except OSError:
        return None


def _display(path: str) -> str:
    return "stdin" if path == "-" else path


def _natural(name: str) -> list[object]:
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", name)]


def _inside(root: Path, p: Path) -> bool:
    try:
        return p.resolve().is_relative_to(root.resolve())
    except OSError:
        return False


def _lines_of(head: bytes, f: IO[bytes], advance: Callable[[int], None]) -> Iterator[bytes]:
    """Lines (without line ends) of a text stream, read in blocks."""
    carry = b""
    block = head
    while block:
        advance(len(block))
        buf = carry + block
        lines = buf.split(b"\n")
        carry = lines.pop()
        for line in lines:
            yield line.rstrip(b"\r")
        block = f.read(BLOCK)
    if carry:
        yield carry.rstrip(b"\r")


# --------------------------------------------------------------------------- dmpmqmsg

_HEX = object()
_ATTRS: dict[str, tuple[str, object]] = {
    "VER": ("version", int), "RPT": ("report", int), "MST": ("msgtype", int),
    "EXP": ("expiry", int), "FDB": ("feedback", int), "ENC": ("encoding", int),
    "CCS": ("codedcharsetid", int), "FMT": ("format", str), "PRI": ("priority", int),
    "PER": ("persistence", int), "MSI": ("msgid", _HEX), "COI": ("correlid", _HEX),
    "BOC": ("backoutcount", int), "RTQ": ("replytoq", str), "RTM": ("replytoqmgr", str),
    "USR": ("useridentifier", str), "ACC": ("accountingtoken", _HEX),
    "AIX": ("applidentitydata", _HEX), "AID": ("applidentitydata", str),
    "PAT": ("putappltype", int), "PAN": ("putapplname", str), "PTD": ("putdate", str),
    "PTT": ("puttime", str), "AOX": ("applorigindata", _HEX), "AOD": ("applorigindata", str),
    "GRP": ("groupid", _HEX), "MSQ": ("msgseqnumber", int), "OFF": ("offset", int),
    "MSF": ("msgflags", int), "ORL": ("originallength", int),
}
_ATTRS_BYTES = {code.encode(): spec for code, spec in _ATTRS.items()}
DMPMQMSG_CODES = {name: code for code, (name, _) in _ATTRS.items() if code not in ("AIX", "AOX")}
_XRUN_END = re.compile(rb"\n(?!X[ \t])")  # the end of a run of X lines
_TILDE = re.compile(rb"~(~|[0-9A-Fa-f]{2})")
_TEXT_HEX_FIELDS = ("applidentitydata", "applorigindata")


class _DmpmqmsgReader:
    """dmpmqmsg text, read in blocks; runs of X lines are decoded a run at a time."""

    def __init__(self, name: str, first: int, advance: Callable[[int], None]) -> None:
        self.name, self.position, self.advance = name, first, advance
        self.line = 0  # number of the line being read (1-based once reading)
        self.base = 0  # file offset of the current buffer
        self.cur: Message | None = None
        self.has_data = False
        self.text_lines = 0
        self.codes: set[bytes] = set()
        self.ready: list[Message] = []

    def read(self, head: bytes, f: IO[bytes]) -> Iterator[Message]:
        carry = b""
        block = head
        while True:
            at_end = not block
            if at_end and not carry:
                break
            self.advance(len(block))
            buf = carry + block
            if at_end:
                buf += b"\n"
                cut = len(buf)
            else:
                cut = buf.rfind(b"\n") + 1
            self._lines(buf, cut)
            self.base += cut
            carry = buf[cut:]
            yield from self.ready
            self.ready.clear()
            if at_end:
                break
            block = f.read(BLOCK)
        self._finish()
        yield from self.ready
        self.ready.clear()

    def _lines(self, buf: bytes, end: int) -> None:
        pos = 0
        run_end = _XRUN_END.search
        while pos < end:
            if buf[pos] == 0x58 and buf[pos + 1] in (0x20, 0x09):  # "X " / "X\t"
                m = run_end(buf, pos, end)
                stop = m.end() if m is not None else end
                self._xrun(buf, pos, stop)
                pos = stop
                continue
            nl = buf.index(b"\n", pos)
            self.line += 1
            self._line(buf[pos:nl].rstrip(b"\r"), self.base + pos)
            pos = nl + 1

    # -- messages ------------------------------------------------------------------------

    def _start(self, offset: int) -> Message:
        self._finish()
        self.position += 1
        self.cur = Message(self.position, b"", {}, f"{self.name} line {self.line}")
        self.cur.body = bytearray()  # type: ignore[assignment]
        self.has_data = False
        self.text_lines = 0
        self.codes = set()
        return self.cur

    def _finish(self) -> None:
        if self.cur is not None:
            self.cur.body = bytes(self.cur.body)
            self.ready.append(self.cur)
            self.cur = None

    def _data_target(self, offset: int) -> Message:
        msg = self.cur if self.cur is not None else self._start(offset)
        self.has_data = True
        return msg

    # -- lines ---------------------------------------------------------------------------

    def _xrun(self, buf: bytes, a: int, b: int) -> None:
        msg = self._data_target(self.base + a)
        first_line = self.line + 1
        run = buf[a:b]
        lines = run.count(b"\n")
        self.line += lines
        # "X" is no hex digit: one translate drops the tags and the blanks; an X anywhere
        # but at the start of a line (lines == X count fails) takes the careful path
        if run.count(b"X") == lines:
            try:
                msg.body += binascii.unhexlify(run.translate(None, b"X \t\r\n"))  # type: ignore[operator]
                return
            except (binascii.Error, ValueError):
                pass
        self._xrun_slow(msg, run, first_line, self.base + a)

    def _xrun_slow(self, msg: Message, run: bytes, line: int, offset: int) -> None:
        for n, raw in enumerate(run.split(b"\n")[:-1]):
            text = raw[1:].translate(None, b" \t\r")
            try:
                msg.body += binascii.unhexlify(text)  # type: ignore[operator]
            except (binascii.Error, ValueError):
                bad = next((i for i, c in enumerate(raw[1:], 1) if c not in b" \t\r"
                            and chr(c) not in "0123456789abcdefABCDEF"), None)
                why = (f"'{chr(raw[bad])}' at column {bad + 1} is not a hex digit" if bad is not None
                       else "odd number of hex digits")
                msg.problem(f"dmpmqmsg: X line {line + n}: {why}; the rest of this line is lost",
                            offset, f"{self.name} line {line + n}", usable=False)
            offset += len(raw) + 1

    def _line(self, line: bytes, offset: int) -> None:
        if not line.strip() or line[:1] == b"*":
            return
        tag = line[:1]
        if tag == b"A":
            self._attr(line, offset)
        elif tag == b"N" and not line[1:].strip():
            self._start(offset)
        elif tag == b"S":
            self._string(line, offset)
        elif tag == b"T":
            msg = self._data_target(offset)
            if self.text_lines:
                msg.body += b"\n"  # type: ignore[operator]
            else:
                msg.problem("dmpmqmsg: body given as T (text) lines: unprintable bytes and line "
                            "ends are not recoverable, so it is not byte-exact", offset,
                            f"{self.name} line {self.line}", usable=False)
            self.text_lines += 1
            msg.body += line[2:]  # type: ignore[operator]
        elif tag == b"X":
            self._xline(line, offset)
        else:
            msg = self.cur if self.cur is not None else self._start(offset)
            msg.problem(f"dmpmqmsg: line {self.line} is not a dmpmqmsg line "
                        f"({line[:20].decode('latin-1')!r}); ignored", offset,
                        f"{self.name} line {self.line}", usable=not self.has_data)

    def _xline(self, line: bytes, offset: int) -> None:
        msg = self._data_target(offset)
        self._xrun_slow(msg, line + b"\n", self.line, offset)

    def _attr(self, line: bytes, offset: int) -> None:
        code = line[2:5]
        # a new message starts with attributes after data, or (an empty body) when an
        # attribute comes a second time
        if self.cur is None or self.has_data or code in self.codes:
            self._start(offset)
        self.codes.add(code)
        msg = self.cur
        assert msg is not None
        spec = _ATTRS_BYTES.get(code)
        if spec is None:
            msg.problem(f"dmpmqmsg: unknown attribute {code.decode('latin-1')!r}; ignored",
                        offset, f"{self.name} line {self.line}")
            return
        name, kind = spec
        value = line[6:]
        try:
            if kind is int:
                msg.mqmd[name] = int(value)
            elif kind is _HEX:
                raw = bytes.fromhex(value.decode("latin-1"))
                if name in _TEXT_HEX_FIELDS:
                    msg.mqmd[name] = raw.decode("latin-1").rstrip(" \x00")
                else:
                    msg.mqmd[name] = raw
                    if name == "correlid" and len(raw) not in (20, 24):
                        msg.problem(f"dmpmqmsg: A COI has {len(raw)} bytes, a CorrelId has 24",
                                    offset, f"{self.name} line {self.line}")
            else:
                msg.mqmd[name] = value.decode("latin-1").rstrip(" ")
        except ValueError:
            shown = value.decode("latin-1").strip()
            msg.problem(f"dmpmqmsg: A {code.decode('latin-1')} value {shown!r} is not "
                        f"{'a number' if kind is int else 'hex'}; field left out", offset,
                        f"{self.name} line {self.line}")

    def _string(self, line: bytes, offset: int) -> None:
        msg = self._data_target(offset)
        a, b = line.find(b'"'), line.rfind(b'"')
        where = f"{self.name} line {self.line}"
        if a < 0 or b <= a:
            msg.problem(f"dmpmqmsg: S line {self.line} has no quoted string", offset, where,
                        usable=False)
            return
        text = line[a + 1:b]
        if b"~" in text:
            stray = _TILDE.sub(b"", text).find(b"~")
            if stray >= 0:
                msg.problem(f"dmpmqmsg: S line {self.line}: '~' not followed by '~' or two hex "
                            "digits; kept as is", offset, where)
            text = _TILDE.sub(lambda m: b"~" if m.group(1) == b"~" else bytes.fromhex(
                m.group(1).decode()), text)
        msg.body += text  # type: ignore[operator]


# --------------------------------------------------------------------------- amqsbcg

_BCG_FIELD = re.compile(r"(\w+)\s*:\s*(X'[0-9A-Fa-f]*'|'[^']*'|-?\d+)?")
_BCG_LENGTH = re.compile(r"length\s*-\s*(\d+)(?:\s+of\s+(\d+))?\s+bytes", re.IGNORECASE)
_BCG_DATA = re.compile(r"^\s*([0-9A-Fa-f]{8}):\s+([^']*)")
_BCG_NAMES = {n: n for n in FIELD_NAMES}


def _read_amqsbcg(lines: Iterable[bytes], name: str, first: int) -> Iterator[Message]:
    """amqsbcg output: ``MQGET of message number N``, the descriptor, then the body."""
    msg: Message | None = None
    section = ""  # get / md / props / body / end
    pending = ""
    shown: int | None = None
    total: int | None = None
    position = first
    for n, raw in enumerate(lines, 1):
        line = raw.decode("latin-1")
        stripped = line.strip()
        new_get = "MQGET of message number" in line
        new_md = stripped == "****Message descriptor****" and section != "get"
        if new_get or new_md:
            if msg is not None and section not in ("get", ""):
                yield _bcg_finish(msg, shown, total)
            position += 1
            msg = Message(position, b"", {}, f"{name} line {n}")
            msg.body = bytearray()  # type: ignore[assignment]
            shown = total = None
            section = "get" if new_get else "md"
            continue
        if msg is None:
            continue
        if stripped == "****Message descriptor****":
            section = "md"
        elif stripped.startswith("****") and "propert" in stripped.lower():
            section = "props"
        elif stripped.startswith("****") and "Message" in stripped:
            section = "body"
        elif stripped.startswith("No more messages"):
            section = "end"
        elif section == "md":
            pending = _bcg_fields(msg, line, pending, n, name)
        elif section == "body":
            _bcg_body(msg, line, n, name)
            m = _BCG_LENGTH.search(line)
            if m and not _BCG_DATA.match(line):
                shown = int(m.group(1))
                total = int(m.group(2)) if m.group(2) else shown
    if msg is not None and section not in ("get", ""):
        yield _bcg_finish(msg, shown, total)


def _bcg_body(msg: Message, line: str, n: int, name: str) -> None:
    d = _BCG_DATA.match(line)
    if not d:
        return
    off = int(d.group(1), 16)
    have = len(msg.body)
    if off != have:
        msg.problem(f"amqsbcg: data line at offset {off:08X} where {have:08X} was expected: "
                    "lines missing", have, f"{name} line {n}", usable=False)
    try:
        msg.body += bytes.fromhex(d.group(2))  # type: ignore[operator]
    except ValueError:
        msg.problem(f"amqsbcg: line {n}: the hex part is not hex", off, f"{name} line {n}",
                    usable=False)


def _bcg_fields(msg: Message, line: str, pending: str, n: int, name: str) -> str:
    for key, value in _BCG_FIELD.findall(line):
        field_name = _BCG_NAMES.get(key.lower())
        if field_name is None:
            continue
        if not value:
            pending = field_name
            continue
        _bcg_set(msg, field_name, value, n, name)
        pending = ""
    if pending and line.strip().startswith("X'"):
        _bcg_set(msg, pending, line.strip(), n, name)
        pending = ""
    return pending


def _bcg_set(msg: Message, name: str, value: str, n: int, src: str) -> None:
    try:
        if value.startswith("X'"):
            raw = bytes.fromhex(value[2:-1])
            msg.mqmd[name] = raw if name in HEX_FIELDS else raw.decode("latin-1").rstrip(" \x00")
        else:
            text = value[1:-1] if value.startswith("'") else value
            if name in INT_FIELDS:
                msg.mqmd[name] = int(text.strip())
            elif name in TEXT_FIELDS or name == "strucid":
                msg.mqmd[name] = text.rstrip(" ")
    except ValueError:
        msg.problem(f"amqsbcg: {name} value {value!r} is not readable; field left out", 0,
                    f"{src} line {n}")


def _bcg_finish(msg: Message, shown: int | None, total: int | None) -> Message:
    msg.body = bytes(msg.body)
    msg.mqmd.pop("strucid", None)
    if total is not None and shown is not None and shown < total:
        msg.problem(f"amqsbcg: the listing shows {shown} of the message's {total} bytes: the "
                    "body is truncated", shown, usable=False)
    elif shown is not None and len(msg.body) != shown:
        msg.problem(f"amqsbcg: the listing announces {shown} bytes but shows {len(msg.body)}",
                    len(msg.body), usable=False)
    return msg


# --------------------------------------------------------------------------- MQMD binary


def _read_mqmd_binary(data: bytes, name: str, position: int) -> Message:
    if sniff_mqmd(data) is None:
        msg = Message(position, data, {}, name)
        msg.problem("mqmd-binary: no MQMD at offset 0 (eyecatcher 'MD  ' in ASCII or EBCDIC, "
                    "version 1 or 2, 324 or 364 bytes)", 0, usable=False)
        return msg
    values, size, _variant = parse_mqmd(data)
    values.pop("strucid", None)
    return Message(position, data[size:], values, name)


# --------------------------------------------------------------------------- mqtool directory

_ALIASES = {"msg_type": "msgtype", "correl_id": "correlid", "msg_id": "msgid", "ccsid":
            "codedcharsetid", "coded_char_set_id": "codedcharsetid", "put_date": "putdate",
            "put_time": "puttime", "group_id": "groupid", "msg_seq_number": "msgseqnumber",
            "reply_to_q": "replytoq", "reply_to_q_mgr": "replytoqmgr",
            "user_identifier": "useridentifier", "put_appl_name": "putapplname",
            "put_appl_type": "putappltype", "backout_count": "backoutcount"}


def _read_mqtool_dir(root: Path, dump: QueueDump) -> Iterator[Message]:
    index = root / INDEX
    where = _display(str(index))
    with index.open("rb") as f:
        for n, raw in enumerate(f, 1):
            dump._advance(len(raw))
            if not raw.strip():
                continue
            try:
                entry = json.loads(raw)
                if not isinstance(entry, dict):
                    raise ValueError("not an object")
            except ValueError as e:
                msg = Message(dump.count + 1, b"", {}, f"{where} line {n}")
                msg.problem(f"mqtool-dir: {INDEX} line {n} is not a JSON object ({e}); "
                            "this message is lost", 0, usable=False)
                yield msg
                continue
            yield _dir_message(root, entry, n, where, dump)


def _dir_message(root: Path, entry: dict[str, Any], n: int, where: str,
                 dump: QueueDump) -> Message:
    seq = entry.get("seq")
    position = seq if isinstance(seq, int) and seq > 0 else dump.count + 1
    name = entry.get("file")
    msg = Message(position, b"", {}, f"{where} line {n}")
    for key, value in entry.items():
        key = _ALIASES.get(key, key)
        if key in ("seq", "file") or key not in FIELD_NAMES or value is None:
            continue
        try:
            if key in HEX_FIELDS:
                raw = bytes.fromhex(str(value))
                if key == "correlid" and len(raw) == 20:
                    raw += bytes(4)  # an MSMQ 20-byte correlation id
                msg.mqmd[key] = raw
            elif key in INT_FIELDS:
                msg.mqmd[key] = int(value)
            else:
                msg.mqmd[key] = str(value)
        except (TypeError, ValueError):
            msg.problem(f"mqtool-dir: {key} value {value!r} is not readable; field left out", 0,
                        f"{where} line {n}")
    if not isinstance(name, str) or not name:
        msg.problem(f"mqtool-dir: {INDEX} line {n} names no body file", 0, usable=False)
        return msg
    p = root / name
    if Path(name).is_absolute() or not _inside(root, p):
        msg.problem(f"mqtool-dir: body file {name!r} is outside the dump directory; not read", 0,
                    usable=False)
        return msg
    try:
        msg.body = p.read_bytes()
        dump._advance(len(msg.body))
    except OSError as e:
        msg.problem(f"mqtool-dir: body file {name!r}: {e.strerror}", 0, usable=False)
    msg.source = _display(str(p))
    return msg


def message_json(msg: Message, file: str) -> dict[str, Any]:
    """The ``index.jsonl`` object of a message (MQMD fields it carries, bytes as hex)."""
    out: dict[str, Any] = {"seq": msg.position, "file": file}
    for key in FIELD_NAMES:
        if key in msg.mqmd and key != "strucid":
            v = msg.mqmd[key]
            out[key] = v.hex().upper() if isinstance(v, bytes) else v
    return out


def write_mqtool_dir(messages: Iterable[Message], outdir: Any) -> int:
    """Write messages as an mqtool directory (``OutputDir``): ``index.jsonl`` + ``NNNNNN.bin``.

    Returns the number of messages written.
    """
    n = 0
    with outdir.create(INDEX) as index:
        for n, msg in enumerate(messages, 1):
            seq = msg.position or n
            name = f"{seq:06d}.bin"
            with outdir.create(name) as f:
                f.write(msg.body)
            index.write(json.dumps(message_json(msg, name), separators=(",", ":")).encode() + b"\n")
    return n
