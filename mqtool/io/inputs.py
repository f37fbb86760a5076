"""Getting bytes in: a file or stdin (``-``), whole or as chunks, binary or dump text."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

from mqtool.errors import InputError

CHUNK = 1 << 20


def _open(path: str):  # type: ignore[no-untyped-def]
    if path == "-":
        return sys.stdin.buffer
    p = Path(path)
    if not p.exists():
        raise InputError(f"{path}: no such file")
    if p.is_dir():
        raise InputError(f"{path}: is a directory")
    try:
        return p.open("rb")
    except OSError as e:
        raise InputError(f"{path}: {e.strerror}") from None


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
