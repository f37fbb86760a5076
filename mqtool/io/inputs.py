"""Getting bytes in: a file or stdin (``-``), whole or as chunks, binary or dump text.

Only regular files are opened: a FIFO, a device or a socket named as an input is refused
(``check_regular``, ``open_regular``), never opened — reading one could wait forever or
never end."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from typing import IO

from mqtool.errors import InputError

CHUNK = 1 << 20
TEXT_LIMIT = 64 << 20  # larger inputs are not read as text


_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _refuse_special(path: str | os.PathLike[str], mode: int) -> None:
    if stat.S_ISDIR(mode):
        raise InputError(f"{path}: is a directory")
    if not stat.S_ISREG(mode):
        kind = next((k for test, k in _KINDS if test(mode)), "not a regular file")
        raise InputError(f"{path}: is {kind}: mqtool reads regular files only (pipe the data "
                         "into stdin and give '-')")


def check_regular(path: str | os.PathLike[str]) -> None:
    """Refuse (``InputError``) what is not a regular file — missing, a directory, a FIFO, a
    device, a socket — without opening it (opening a FIFO waits for a writer forever)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
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


def _open(path: str) -> IO[bytes]:
    if path == "-":
        return sys.stdin.buffer
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
    data = read_bytes(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def read_input(path: str, hex_text: bool = False) -> bytes:
    """Binary input, or the bytes of the dump text in it (``--hex``)."""
    if not hex_text:
        return read_bytes(path)
    from mqtool.io.undump import undump

    return undump(read_text(path))


def size_of(path: str) -> int | None:
    """Size of a regular file, None for stdin and pipes."""
    if path == "-":
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
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if any(ord(c) < 0x20 and c not in "\t\r\n" for c in text[:4096]):
        return None
    return text


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
