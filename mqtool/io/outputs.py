"""Writing results: an output directory nothing can escape, whatever names the input carries.

Names from the input (a sender's ``d:\\mytext.txt``, a member name) pass through
``safe_name``: the base name only, no drive letters, UNC prefixes, ``..``, NUL or control
characters, no Windows device names, no leading dots or dashes — the spirit of Python's
tarfile ``data`` filter. Existing files are not overwritten without ``force``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from mqtool.errors import EnvError, MqtoolError

_DEVICES = {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$", "CLOCK$"} | {
    f"{d}{n}" for d in ("COM", "LPT") for n in "0123456789¹²³"
}
# C0/C1 controls (EBCDIC NL X'15' decodes to U+0085), bidi overrides and isolates (names
# that display as "txt.exe"), line/paragraph separators, and the characters Windows refuses
_UNSAFE = re.compile('[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069<>:"|?*]')


class OutputExistsError(MqtoolError):
    """An output file exists and ``--force`` was not given."""


def safe_name(name: str, fallback: str) -> str:
    """A file name that stays inside any directory it is joined to, or ``fallback``."""
    base = re.split(r"[\\/]", name.replace("\x00", ""))[-1]  # drop any directory part
    base = re.sub(r"^[A-Za-z]:", "", base)  # a bare drive letter prefix (C:name)
    base = _UNSAFE.sub("_", base).strip().strip(".").lstrip("-")
    stem = base.split(".")[0].upper()
    if not base or base in (".", "..") or stem in _DEVICES or len(base.encode()) > 200:
        return fallback
    return base


class OutputDir:
    """A directory created on demand; every path handed out is checked to stay inside it."""

    def __init__(self, path: str | os.PathLike[str], force: bool = False) -> None:
        self.root = Path(path)
        self.force = force
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise EnvError(f"{path}: cannot create output directory: {e.strerror}") from None
        if not os.access(self.root, os.W_OK):
            raise EnvError(f"{path}: output directory is not writable")
        self.real = self.root.resolve()

    def path(self, *parts: str) -> Path:
        """``root/parts...``; raises if the result would leave the directory."""
        p = self.root.joinpath(*parts)
        real = p.resolve()
        if real != self.real and self.real not in real.parents:
            raise MqtoolError(f"refusing to write outside {self.root}: {'/'.join(parts)!r}")
        return p

    def create(self, *parts: str, binary: bool = True):  # type: ignore[no-untyped-def]
        """Open a new file for writing; refuses to overwrite without ``force``."""
        p = self.path(*parts)
        p.parent.mkdir(parents=True, exist_ok=True)
        if p.exists() and not self.force:
            raise OutputExistsError(f"{p} exists (use --force to overwrite)")
        try:
            return p.open("wb" if binary else "w", **({} if binary else {"encoding": "utf-8"}))
        except OSError as e:
            raise EnvError(f"{p}: {e.strerror}") from None


def open_new(path: str, force: bool = False):  # type: ignore[no-untyped-def]
    """Open one output file named on the command line (``-o FILE``) for binary writing."""
    p = Path(path)
    if p.exists() and not force:
        raise OutputExistsError(f"{path} exists (use --force to overwrite)")
    try:
        return p.open("wb")
    except OSError as e:
        raise EnvError(f"{path}: {e.strerror}") from None


def write_file(path: str, data: bytes, force: bool = False) -> None:
    """Write one output file named on the command line (``-o FILE``)."""
    with open_new(path, force) as f:
        f.write(data)
