"""Getting bytes in: what an input is (a file, a directory, stdin), its head, its bytes
whole or as chunks, binary or dump text; stdin spooled where a reader must seek.

Only regular files are opened: a FIFO, a device or a socket named as an input is refused
(``check_regular``, ``open_regular``), never opened — reading one could wait forever or
never end. Stdin is read once: ``Input`` keeps the head it read, so the rest of a reader
sees the whole input.

An input a decoder takes whole is mapped, not read (``Input.view``, ``map_file``): a
regular file through ``mmap`` (Python, ``mmap`` module; POSIX ``mmap(2)``), stdin spooled to
an unnamed temporary file first and that mapped. Its bytes come as a ``memoryview``: a
decoder that reads only the headers touches only their pages, one that walks a whole
payload reads it without a copy -- memory stays bounded whatever the input's size. (A
mapped file must not be truncated by another process while it is read: POSIX gives such
a reader SIGBUS. Evidence is read, not written, while mqtool runs.)"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any, Protocol

from mqtool.errors import InputError

if TYPE_CHECKING:
    from mqtool.model import Decoded

CHUNK = 1 << 20
HEAD = 65536  # what sniffers look at
TEXT_LIMIT = 64 << 20  # larger inputs are not read as text
STDIN = "-"


_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _refuse_special(path: str | os.PathLike[str], mode: int) -> None:
    if stat.S_ISDIR(mode):
        raise InputError(f"{path}: is a directory")
    if not stat.S_ISREG(mode):
        kind = next((k for test, k in _KINDS if test(mode)), "not a regular file")
        raise InputError(f"{path}: is {kind}: mqtool reads regular files only (pipe the data "
                         "into stdin and give '-')")


def missing_input(path: str | os.PathLike[str]) -> InputError:
    """The one error for an input that does not exist, in every command: ``PATH: no such
    file``, exit status 1 (usage), said before any output is made."""
    return InputError(f"{path}: no such file")


def check_regular(path: str | os.PathLike[str]) -> None:
    """Refuse (``InputError``) what is not a regular file — missing, a directory, a FIFO, a
    device, a socket — without opening it (opening a FIFO waits for a writer forever)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise missing_input(path) from None
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}") from None
    _refuse_special(path, st.st_mode)


def open_regular(path: str | os.PathLike[str]) -> IO[bytes]:
    """Open a regular file for binary reading; special files are refused, not opened (the
    type is checked again on the open file, in case it was swapped meanwhile)."""
    check_regular(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}") from None
    try:
        _refuse_special(path, os.fstat(fd).st_mode)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def _isatty(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError):
        return False


def stdin() -> IO[bytes]:
    """Standard input, binary; refused when it is a terminal (nothing was piped in)."""
    if _isatty(sys.stdin):
        raise InputError("no input: give a FILE or pipe data into stdin")
    return sys.stdin.buffer


def _open(path: str) -> IO[bytes]:
    if path == STDIN:
        return stdin()
    return open_regular(path)


def read_bytes(path: str) -> bytes:
    """All bytes of a file or of stdin."""
    f = _open(path)
    try:
        return f.read()
    finally:
        if f is not sys.stdin.buffer:
            f.close()


def read_text(path: str) -> str:
    """Dump text: UTF-8 (documents' typeset characters), latin-1 as a fallback."""
    from mqtool.io.undump import text_of

    return text_of(read_bytes(path))


def read_input(path: str, hex_text: bool = False) -> bytes:
    """Binary input, or the bytes of the dump text in it (``--hex``)."""
    if not hex_text:
        return read_bytes(path)
    from mqtool.io.undump import undump

    return undump(read_text(path))


def read_binary_or_dump(path: str) -> bytes:
    """A file's bytes, or the bytes of the hex dump text it holds (any style ``undump``
    reads)."""
    from mqtool.io.undump import is_dump_text, undump

    data = read_bytes(path)
    return undump(data.decode("utf-8")) if is_dump_text(data) else data


def is_missing(path: str) -> bool:
    """A local input named on the command line that does not exist (stdin, URIs and globs
    are looked at by their readers)."""
    return not (path == STDIN or "://" in path or any(c in os.path.basename(path) for c in "*?[")
                or os.path.lexists(path))


def total_size(paths: Iterable[str], refuse_empty: str | None = None) -> int:
    """The bytes of the regular files among ``paths``, before any work: a missing one is
    refused (``missing_input``); ``refuse_empty`` (a format name): when every input is an
    empty file, ``EmptyInputError`` — before any output is made."""
    given = list(paths)
    gone = next((p for p in given if is_missing(p)), None)
    if gone is not None:
        raise missing_input(gone)
    sizes = [os.path.getsize(p) for p in given if os.path.isfile(p)]
    if refuse_empty and len(sizes) == len(given) and not any(sizes):
        from mqtool.errors import EmptyInputError

        raise EmptyInputError(refuse_empty, ", ".join(given))
    return sum(sizes)


def size_of(path: str) -> int | None:
    """Size of a regular file, None for stdin and pipes."""
    if path == STDIN:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size if os.path.isfile(path) else None


def iter_chunks(path: str, seek: int = 0, length: int | None = None,
                chunk: int = CHUNK) -> Iterator[bytes]:
    """Stream a file (never read whole) from ``seek`` for ``length`` bytes.

    A negative ``seek`` counts from the end (files only). On stdin, ``seek`` bytes are
    read and dropped.
    """
    f = _open(path)
    try:
        if seek:
            if f is sys.stdin.buffer:
                if seek < 0:
                    raise InputError("a negative --seek needs a file, not stdin")
                remaining = seek
                while remaining > 0:
                    got = f.read(min(remaining, chunk))
                    if not got:
                        break
                    remaining -= len(got)
            else:
                f.seek(seek, os.SEEK_END if seek < 0 else os.SEEK_SET)
        left = length
        while left is None or left > 0:
            data = f.read(chunk if left is None else min(chunk, left))
            if not data:
                break
            if left is not None:
                left -= len(data)
            yield data
    finally:
        if f is not sys.stdin.buffer:
            f.close()


def as_text(data: bytes) -> str | None:
    """``data`` as text when it is text (UTF-8, no control characters but tab and line
    ends in its first 4 KiB), else None; inputs over ``TEXT_LIMIT`` are not text."""
    if not data or len(data) > TEXT_LIMIT:
        return None
    from mqtool.io.undump import plain_text

    try:
        text = bytes(data).decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text if plain_text(text[:4096]) else None


def read_request(path: str) -> object:
    """A request document from a file or stdin: JSON, the first line of JSON lines (as
    ``decode --json`` prints them), or YAML."""
    import json

    text = read_text(path).strip()
    if not text:
        raise InputError(f"{path}: empty request file")
    for candidate in (text, text.splitlines()[0]):
        try:
            return json.loads(candidate)
        except json.JSONDecodeError:
            pass
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise InputError(f"{path}: neither JSON nor YAML ({str(e).splitlines()[0]})") from None


# --------------------------------------------------------------------------- what an input is


class _Prefixed(io.RawIOBase):
    """``head`` (already read from ``rest``) followed by the rest of ``rest``."""

    def __init__(self, head: bytes, rest: IO[bytes]) -> None:
        self.head, self.rest = head, rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self.read(len(buffer))
        buffer[:len(data)] = data
        return len(data)

    def read(self, n: int = -1) -> bytes:
        if self.head:
            out = self.head if n is None or n < 0 else self.head[:n]
            self.head = self.head[len(out):]
            if n is None or n < 0:
                out += self.rest.read()
            return out
        return self.rest.read(n)


@dataclass
class Input:
    """An input named on the command line, looked at but not yet read: a directory
    (``is_dir``), or a regular file or stdin with its first ``HEAD`` bytes read
    (``head``). ``stream()`` gives the whole input from its first byte (stdin: the head,
    then the rest); ``read()`` all of it."""

    path: str
    is_dir: bool = False
    head: bytes = b""
    size: int | None = None  # None: stdin, or a directory
    _file: IO[bytes] | None = field(default=None, repr=False)

    @property
    def is_stdin(self) -> bool:
        return self.path == STDIN

    @property
    def whole(self) -> bool:
        """``head`` is the whole input."""
        return self.size is not None and len(self.head) >= self.size

    def refuse_directory(self) -> None:
        """The one rule for a directory given where a file is read: ``DIR: is a directory``."""
        if self.is_dir:
            raise InputError(f"{self.path}: is a directory")

    def stream(self) -> IO[bytes]:
        """The whole input, from its first byte (read it once)."""
        self.refuse_directory()
        assert self._file is not None
        if self.is_stdin:
            return io.BufferedReader(_Prefixed(self.head, self._file))
        self._file.seek(0)
        return self._file

    def read(self) -> bytes:
        self.refuse_directory()
        if self.whole:
            return self.head
        return self.stream().read()

    def view(self) -> memoryview:
        """The whole input, mapped (``map_file``), never copied: a regular file as it is,
        stdin spooled to an unnamed temporary file first (``spool``); an input its head
        holds whole is that head. The mapping lives as long as the view (and its slices),
        after ``close``."""
        self.refuse_directory()
        if self.whole:
            return memoryview(self.head)
        assert self._file is not None
        if not self.is_stdin:
            return map_file(self._file)
        more = self._file.read(CHUNK)
        if not more:  # stdin that its head holds whole
            return memoryview(self.head)
        with spool(self.head + more, self._file) as tmp:
            return map_file(tmp)

    def drain(self) -> int:
        """Read stdin to its end, keeping nothing: the input's size."""
        size = len(self.head)
        while self._file is not None and (chunk := self._file.read(CHUNK)):
            size += len(chunk)
        return size

    def close(self) -> None:
        if self._file is not None and not self.is_stdin:
            self._file.close()

    def __enter__(self) -> Input:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def map_file(f: IO[bytes]) -> memoryview:
    """A read-only view of the whole of the open regular file ``f``, mapped (``mmap``):
    pages are read when touched, and the view stays valid once ``f`` is closed. An empty
    file is an empty view; a file the system cannot map (some FUSE or /proc files) is
    read instead."""
    size = os.fstat(f.fileno()).st_size
    if size == 0:
        return memoryview(b"")
    import mmap

    try:
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        f.seek(0)
        return memoryview(f.read())
    return memoryview(mapped)


def as_bytes(data: bytes | memoryview) -> bytes:
    """``data`` as bytes, for a reader that needs them: a mapped input is copied, and the
    pages the copy touched are given back to the system at once (``madvise(2)``
    MADV_DONTNEED: a clean file page is read again if touched again), so the copy is not
    counted twice."""
    if isinstance(data, bytes):
        return data
    out = bytes(data)
    release(data)
    return out


def release(view: memoryview) -> None:
    """Give the pages of a mapped input that were read back to the system (they are read
    from the file again when touched again); other views are left alone."""
    import mmap

    mapped = view.obj
    if isinstance(mapped, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED"):
        with contextlib.suppress(OSError, ValueError):
            mapped.madvise(mmap.MADV_DONTNEED)


@contextlib.contextmanager
def spool(first: bytes, rest: IO[bytes]) -> Iterator[IO[bytes]]:
    """``first`` and then the rest of the stream ``rest`` copied piece by piece to an
    unnamed temporary file (gone when closed, or when the process ends however it ends),
    positioned at its start."""
    import shutil
    import tempfile

    with tempfile.TemporaryFile(prefix="mqtool-stdin-") as tmp:
        tmp.write(first)
        shutil.copyfileobj(rest, tmp, 4 << 20)
        tmp.flush()
        tmp.seek(0)
        yield tmp


def read_view(path: str) -> memoryview:
    """All bytes of a file or of stdin, mapped (``Input.view``); a directory is refused."""
    with open_input(path) as inp:
        return inp.view()


def open_input(path: str, head: int = HEAD) -> Input:
    """What ``path`` is: stdin (``-``), a directory, or a regular file (anything else is
    refused, ``check_regular``), with its first ``head`` bytes read."""
    if path == STDIN:
        f = stdin()
        return Input(path, head=f.read(head), _file=f)
    if os.path.isdir(path):
        return Input(path, is_dir=True)
    f = open_regular(path)
    size = os.fstat(f.fileno()).st_size
    return Input(path, head=f.read(head), size=size, _file=f)


def _texty(data: bytes) -> bool:
    return all(b >= 0x20 or b in (9, 10, 13) for b in data)


def read_head(path: str, limit: int, text_limit: int) -> tuple[bytes, int]:
    """The first ``limit`` bytes of a file or stdin and its whole size (stdin is drained to
    know it; nothing of it kept). Of text, only ``text_limit`` bytes, cut after the last
    complete line, so that dump text stays readable."""
    with open_input(path, limit) as inp:
        inp.refuse_directory()
        data = inp.head
        size = inp.size if inp.size is not None else inp.drain()
    if size > len(data) and _texty(data[:4096]):  # dump text: 4 characters a byte or more
        data = data[:text_limit]
        if (nl := data.rfind(b"\n")) > 0:
            data = data[:nl + 1]
    return data, size


@dataclass
class Spooled:
    """Input paths with stdin (``-``) replaced by a temporary copy: ``paths`` for readers
    that seek or split, ``names`` the name each copy stands for (``-``)."""

    paths: list[str]
    names: dict[str, str]


@contextlib.contextmanager
def spooled(inputs: Iterable[str]) -> Iterator[Spooled]:
    """``-`` (stdin, once) copied piece by piece to a temporary file; removed afterwards."""
    given = list(inputs)
    if given.count(STDIN) > 1:
        raise InputError("stdin (-) can be read once")
    if STDIN not in given:
        yield Spooled(given, {})
        return
    import shutil
    import tempfile

    source = stdin()
    with tempfile.NamedTemporaryFile(prefix="mqtool-stdin-", suffix=".bin") as tmp:
        shutil.copyfileobj(source, tmp, 4 << 20)
        tmp.flush()
        yield Spooled([tmp.name if p == STDIN else p for p in given], {tmp.name: STDIN})


# --------------------------------------------------------------------------- units to decode


class DumpMessage(Protocol):
    """A message of a queue dump, as decoders see it: its body, and a way to say which
    message a decoded unit came from."""

    body: bytes
    mqmd: dict[str, Any]  # the MQMD fields the dump gives

    def label(self, unit: Decoded, role: str = "") -> Decoded: ...


class QueueDumps(Protocol):
    """The reader of queue dumps (``registry.queue_dump_reader``): which producer wrote a
    file starting with ``head``; the messages of a dump (``kind`` ``directory``: a directory
    of dump files), whose unreadable ones are said and raised once all were read."""

    def kind(self, head: bytes) -> str | None: ...

    def messages(self, inp: Input, kind: str) -> Iterator[DumpMessage]: ...


class Source:
    """One unit of input to decode: the whole input (mapped: ``Input.view``), or one
    message of a queue dump. ``view`` is its bytes as given, a mapped input not copied;
    ``data`` its bytes (a mapped input copied, once, when asked for: ``as_bytes``)."""

    def __init__(self, data: bytes | memoryview, message: DumpMessage | None = None) -> None:
        self.view, self.message = data, message
        self._bytes: bytes | None = data if isinstance(data, bytes) else None

    @property
    def data(self) -> bytes:
        if self._bytes is None:
            self._bytes = as_bytes(self.view)
        return self._bytes

    def __repr__(self) -> str:
        return f"Source({len(self.view)} bytes, message={self.message!r})"

    def label(self, unit: Decoded, role: str = "") -> Decoded:
        """``unit``, saying which queue-dump message it came from (when it did)."""
        return unit if self.message is None else self.message.label(unit, role)


def read_unit(path: str, hex_text: bool = False, fmt: str = "input") -> bytes:
    """The bytes of one input to decode as ``fmt`` (``undump.unit_bytes``): binary, or
    those of the dump text in it (``hex_text``)."""
    from mqtool.io.undump import unit_bytes

    with open_input(path) as inp:
        inp.refuse_directory()
        return unit_bytes(inp.read(), hex_text, path, fmt)


def sources(path: str, hex_text: bool, fmt: str, dumps: QueueDumps) -> Iterator[Source]:
    """The input as decoders see it: each message body of a queue dump (a directory, or a
    file or stdin whose head ``dumps`` recognises), or the one blob (``read_unit``)."""
    from mqtool.errors import EmptyInputError
    from mqtool.io.undump import is_dump_text, unit_bytes

    with open_input(path) as inp:
        kind = None if hex_text else "directory" if inp.is_dir else dumps.kind(inp.head)
        if kind is not None:
            yield from (Source(m.body, m) for m in dumps.messages(inp, kind))
            return
        inp.refuse_directory()
        if hex_text or is_dump_text(inp.head):
            data: bytes | memoryview = unit_bytes(inp.read(), True, path, fmt)
        else:  # mapped: a decoder that reads the headers only touches their pages
            data = inp.view()
            if not data:
                raise EmptyInputError(fmt, path)
    yield Source(data)
