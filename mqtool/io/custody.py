"""Chain of custody: what a run read and wrote, with which mqtool, when, and how to check
later that nothing changed.

A ``Custody`` record holds, for every input, its path (as given and resolved), size,
modification time (UTC) and SHA-256 (read in pieces, never whole), and for every output
file its path relative to the record's directory, size and SHA-256; then the mqtool version,
the command line and the start and end times of the run in UTC. Every ``manifest.json`` /
``_summary.json`` embeds ``Custody.to_json()`` under the key ``custody``.

``verify(manifest_path)`` re-reads the files a manifest names and says, file by file, what
changed: ``missing``, ``size``, ``mtime`` (the content is unchanged but the file was
touched), ``sha256`` — the digest comparison NIST's forensic tool guidance (SP 800-86,
section 3.1.2, "Examination") asks for.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mqtool.errors import ExitStatus, InputError

CHUNK = 1 << 20  # bytes read at a time while hashing
KEY = "custody"  # the key under which manifests embed the record
STDIN = "-"

OK, MISSING, SIZE, MTIME, SHA256, UNREADABLE = "ok", "missing", "size", "mtime", "sha256", "unreadable"
UNCHECKED = "unchecked"  # standard input, a URI: what was read cannot be read again here
RUN: dict[str, Any] = {}  # the running command: when it started, its command line (begin_run)


def utc_now() -> str:
    """The current time, UTC, ISO 8601 with microseconds and ``Z``."""
    return iso_utc(datetime.now(UTC))


def iso_utc(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def mtime_of(st: os.stat_result) -> str:
    """A file's modification time, UTC, to the microsecond."""
    seconds, ns = divmod(st.st_mtime_ns, 1_000_000_000)
    return iso_utc(datetime.fromtimestamp(seconds, UTC).replace(microsecond=ns // 1000))


def sha256_file(path: str | os.PathLike[str], chunk: int = CHUNK) -> tuple[str, int]:
    """SHA-256 (hex, lower case) and size of a file, read ``chunk`` bytes at a time."""
    h = hashlib.sha256()
    n = 0
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
            n += len(block)
    return h.hexdigest(), n


@dataclass(frozen=True)
class FileRecord:
    """One file a run read (an input) or wrote (an output)."""

    path: str  # as given (inputs) / relative to the record's directory (outputs)
    size: int
    sha256: str
    mtime: str = ""  # inputs: UTC modification time when read
    resolved: str = ""  # inputs: the absolute path

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"path": self.path}
        if self.resolved:
            d["resolved"] = self.resolved
        if self.size < 0:  # not read here (record_unread)
            return d
        d["size"] = self.size
        if self.mtime:
            d["mtime"] = self.mtime
        d["sha256"] = self.sha256
        return d

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> FileRecord:
        try:
            if "size" not in d and "sha256" not in d:
                return cls(str(d["path"]), -1, "", "", str(d.get("resolved") or ""))
            return cls(str(d["path"]), int(d["size"]), str(d["sha256"]),
                       str(d.get("mtime") or ""), str(d.get("resolved") or ""))
        except (KeyError, TypeError, ValueError) as e:
            raise InputError(f"custody record: a file entry lacks {e}: {dict(d)!r:.120}") from None


def record_input(path: str) -> FileRecord:
    """Size, modification time and SHA-256 of an input file (stat before and after
    hashing: a file that changed while it was read is refused)."""
    try:
        before = os.stat(path)
        digest, size = sha256_file(path)
        after = os.stat(path)
    except OSError as e:
        raise InputError(f"{path}: cannot read for the custody record: {e.strerror}") from None
    if (before.st_size, before.st_mtime_ns) != (after.st_size, after.st_mtime_ns) or \
            size != after.st_size:
        raise InputError(f"{path}: changed while it was being hashed; a custody record of it "
                         "would not hold")
    return FileRecord(path, size, digest, mtime_of(after), str(Path(path).resolve()))


def record_bytes(name: str, data: bytes) -> FileRecord:
    """An input that is no file (stdin): its size and SHA-256, no time."""
    return FileRecord(name, len(data), hashlib.sha256(data).hexdigest())


def record_unread(name: str) -> FileRecord:
    """An input that cannot be hashed here (a URI, stdin already read): its name only."""
    return FileRecord(name, -1, "")


def begin_run(argv: Sequence[str]) -> None:
    """Note the start of a command (its time in UTC, its command line) for the records its
    outputs will carry (``run_record``)."""
    RUN.clear()
    RUN.update(started=utc_now(), command=list(argv))


def run_record(inputs: Iterable[str], outputs: Iterable[str | os.PathLike[str]] = (),
               base: str | os.PathLike[str] = ".") -> Custody:
    """The record of the running command (``begin_run``; else a run starting now) as it
    ends: ``inputs`` (a directory: the files in it) hashed now, local files only (a URI or
    a file gone by now is named without a digest); ``outputs`` hashed and named relative
    to ``base`` (absolute when not under it)."""
    from mqtool import __version__

    records = [_input_now(p) for p in _expanded(inputs)]
    rec = Custody(records, list(RUN.get("command") or sys.argv), str(RUN.get("started") or
                                                                     utc_now()),
                  version=__version__)
    root = Path(base)
    for out in outputs:
        digest, size = sha256_file(out)
        rec.add_output(_relative(Path(out), root), size, digest)
    return rec.finish()


def _relative(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` when it is under it, else absolute (``verify`` finds
    it from anywhere)."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.resolve().as_posix()


def files_under(directory: str | os.PathLike[str], exclude: Iterable[str] = ()) -> list[Path]:
    """The regular files under ``directory`` (sorted; hidden ones, a scratch directory and
    ``exclude``d names left out): a run's outputs."""
    root, skip = Path(directory), set(exclude)
    found = [p for p in root.rglob("*") if p.is_file() and not p.is_symlink()
             and not any(part.startswith(".") for part in p.relative_to(root).parts)
             and p.name not in skip]
    return sorted(found)


def _expanded(inputs: Iterable[str]) -> Iterator[str]:
    for p in inputs:
        if p != STDIN and os.path.isdir(p):
            yield from (str(f) for f in files_under(p))
        else:
            yield p


def _input_now(path: str) -> FileRecord:
    if path == STDIN or "://" in path or not os.path.isfile(path):
        return record_unread(path)
    return record_input(path)


class Hasher:
    """SHA-256 and size of bytes as they stream past (stdin, a carved file being written)."""

    def __init__(self) -> None:
        self._h = hashlib.sha256()
        self.size = 0

    def update(self, data: bytes | memoryview) -> None:
        self._h.update(data)
        self.size += len(data)

    def hexdigest(self) -> str:
        return self._h.hexdigest()


@dataclass
class Custody:
    """The record of one run. ``start`` hashes the inputs; ``add_output`` notes each file
    written; ``finish`` stamps the end time."""

    inputs: list[FileRecord]
    command: list[str]
    started: str
    finished: str = ""
    outputs: list[FileRecord] = field(default_factory=list)
    version: str = ""
    tool: str = "mqtool"

    @classmethod
    def start(cls, inputs: Iterable[str], argv: Sequence[str] | None = None,
              stdin: bytes | None = None, names: Mapping[str, str] | None = None) -> Custody:
        """Begin a record: every input hashed now (``-`` is ``stdin``, given as bytes;
        ``names``: a copy spooled from stdin -> ``-``, recorded by its bytes)."""
        from mqtool import __version__

        started = utc_now()
        records = []
        for p in inputs:
            if p == STDIN:
                records.append(record_bytes(STDIN, stdin or b""))
            elif names and p in names:
                spooled = record_input(p)
                records.append(FileRecord(names[p], spooled.size, spooled.sha256))
            else:
                records.append(record_input(p))
        return cls(records, list(sys.argv if argv is None else argv), started, version=__version__)

    def add_output(self, relpath: str, size: int, sha256: str) -> None:
        self.outputs.append(FileRecord(relpath, size, sha256))

    def finish(self) -> Custody:
        self.finished = utc_now()
        return self

    def to_json(self) -> dict[str, Any]:
        return {"tool": self.tool, "version": self.version, "command": list(self.command),
                "started": self.started, "finished": self.finished,
                "inputs": [r.to_json() for r in self.inputs],
                "outputs": [r.to_json() for r in self.outputs]}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Custody:
        if not isinstance(d, Mapping) or not isinstance(d.get("inputs"), list):
            raise InputError("custody record: no 'inputs' list")
        for r in (*d["inputs"], *(d.get("outputs") or [])):
            if not isinstance(r, Mapping):
                raise InputError(f"custody record: a file entry is not an object: {r!r:.60}")
        return cls([FileRecord.from_json(r) for r in d["inputs"]],
                   [str(a) for a in d.get("command") or []], str(d.get("started") or ""),
                   str(d.get("finished") or ""),
                   [FileRecord.from_json(r) for r in d.get("outputs") or []],
                   str(d.get("version") or ""), str(d.get("tool") or "mqtool"))


# --------------------------------------------------------------------------- verify


@dataclass(frozen=True)
class Check:
    """The verdict on one file a record names: ``ok`` or what differs, in words."""

    role: str  # "input" / "output"
    path: str
    status: str  # ok, missing, size, mtime, sha256, unreadable
    detail: str = ""

    def to_json(self) -> dict[str, str]:
        return {"role": self.role, "path": self.path, "status": self.status,
                "detail": self.detail}

    def line(self) -> str:
        return f"{self.status.upper():10} {self.role:6} {self.path}" + (
            f": {self.detail}" if self.detail else "")


@dataclass(frozen=True)
class Verification:
    """Every file's verdict. ``status``: ``verified`` (every file as recorded; standard
    input, which cannot be read again, is ``unchecked``), ``touched`` (contents the same, a
    modification time differs) or ``changed`` (a file is missing, unreadable or its size or
    SHA-256 differs)."""

    manifest: str
    checks: tuple[Check, ...]

    @property
    def status(self) -> str:
        states = {c.status for c in self.checks}
        if states <= {OK, UNCHECKED}:
            return "verified"
        if states <= {OK, MTIME, UNCHECKED}:
            return "touched"
        return "changed"

    @property
    def exit_status(self) -> ExitStatus:
        """0 verified, 0 touched (the content is intact), 2 changed."""
        return ExitStatus.DECODE if self.status == "changed" else ExitStatus.OK

    def to_json(self) -> dict[str, Any]:
        return {"manifest": self.manifest, "status": self.status,
                "checks": [c.to_json() for c in self.checks]}


class ManifestError(InputError):
    """A file given as a manifest that holds no custody record (empty, not JSON, no
    record): input of another kind, exit status 2."""

    status = ExitStatus.DECODE


def load_record(manifest_path: str) -> Custody:
    """The custody record of a manifest (top-level or under ``custody``)."""
    from mqtool.io.inputs import read_bytes

    data = read_bytes(manifest_path)
    if not data.strip():
        raise ManifestError(f"{manifest_path}: empty file, no custody record in it")
    try:
        doc = json.loads(data)
    except ValueError as e:
        raise ManifestError(f"{manifest_path}: not JSON ({type(e).__name__}: "
                            f"{str(e).splitlines()[0][:80]}), no custody record in it") from None
    if isinstance(doc, Mapping) and isinstance(doc.get(KEY), Mapping):
        doc = doc[KEY]
    if not isinstance(doc, Mapping) or "inputs" not in doc:
        raise ManifestError(f"{manifest_path}: no custody record (a '{KEY}' object with "
                            "'inputs') in this file")
    try:
        return Custody.from_json(doc)
    except InputError as e:
        raise ManifestError(f"{manifest_path}: {e}") from None


def verify(manifest_path: str) -> Verification:
    """Re-hash every input and output a manifest's custody record names and compare.

    Inputs are looked up by their resolved path, then by the path as given (relative to
    the working directory); outputs relative to the manifest's directory. ``-`` (stdin)
    cannot be re-read and is reported ``unchecked`` with that reason."""
    rec = load_record(manifest_path)
    base = Path(manifest_path).parent
    checks = [_check("input", r, _input_path(r)) for r in rec.inputs]
    checks += [_check("output", r, base / r.path) for r in rec.outputs]
    return Verification(manifest_path, tuple(checks))


def _input_path(r: FileRecord) -> Path | None:
    if r.path == STDIN:
        return None
    for p in (r.resolved, r.path):
        if p and os.path.lexists(p):
            return Path(p)
    return Path(r.resolved or r.path)


def _check(role: str, r: FileRecord, p: Path | None) -> Check:
    if p is None:
        return Check(role, r.path, UNCHECKED, "standard input cannot be read again")
    if r.size < 0:
        return Check(role, r.path, UNCHECKED, "not a local file when the run ended: no digest "
                                              "was recorded")
    try:
        st = os.stat(p)
    except FileNotFoundError:
        return Check(role, r.path, MISSING, f"{p} does not exist")
    except OSError as e:
        return Check(role, r.path, UNREADABLE, f"{p}: {e.strerror}")
    if not os.path.isfile(p):
        return Check(role, r.path, UNREADABLE, f"{p} is not a regular file")
    if st.st_size != r.size:
        return Check(role, r.path, SIZE, f"{st.st_size} bytes, recorded {r.size}")
    try:
        digest, _n = sha256_file(p)
    except OSError as e:
        return Check(role, r.path, UNREADABLE, f"{p}: {e.strerror}")
    if digest != r.sha256:
        return Check(role, r.path, SHA256, f"SHA-256 {digest}, recorded {r.sha256}")
    if r.mtime and mtime_of(st) != r.mtime:
        return Check(role, r.path, MTIME, f"modified {mtime_of(st)}, recorded {r.mtime}; "
                                          "content unchanged")
    return Check(role, r.path, OK)
