"""Writing results: an output directory nothing can escape, whatever names the input carries,
and output files that appear whole or not at all.

Names from the input (a sender's ``d:\\mytext.txt``, a member name) pass through
``safe_name``: the base name only, no drive letters, UNC prefixes, ``..``, NUL or control
characters, no invisible or bidi characters, no Windows device names (also ``con .txt``,
which Windows reads as ``CON``), no leading dots or dashes — the spirit of Python's
tarfile ``data`` filter. Existing files are not overwritten without ``force``.

Files are written under a temporary name beside the target and renamed into place when
the writer finishes without error -- one mechanism, ``AtomicPath``, with an open-file face
(``AtomicFile``, ``atomic_output``, ``write_file``, ``OutputDir.create``) and a path face
(``AtomicPath`` itself, for pyarrow's writers): a failed run (an error mid-write, FAILFAST,
Ctrl-C) leaves no partial output file. ``StagedDirs`` does the same for the named
sub-directories of an output directory. An output that cannot be written (missing
directory, permission) is an ``EnvError`` (exit status 4).

Outputs named by an object-store URI (``s3://``, ``gs://``, ``hdfs://``, through
``pyarrow.fs``) have the same faces and the same promise, kept the way object stores allow
(an object appears whole when its upload completes; nothing can be renamed):
``RemotePath`` writes a local temporary file and uploads it on commit (``atomic_path``
picks the face for a name); ``RemoteStagedDirs`` lets many writers (Spark tasks) put their
parts straight under the output, each under a name of its own (the run and the attempt
in it), keeps the parts the run reports as its own and removes every other one on commit
(failed attempts, what ``--force`` replaces), removes the run's parts on failure, and
``success`` writes ``_SUCCESS`` last, so readers that follow the Hadoop convention see all
or nothing; ``published`` stages a command's whole output locally and uploads it at the
end. A URI is never taken for a local path.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any, Protocol

from mqtool.errors import EnvError, MqtoolError, OutputExistsError

_DEVICES = {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$", "CLOCK$"} | {
    f"{d}{n}" for d in ("COM", "LPT") for n in "0123456789¹²³"
}
# C0/C1 controls (EBCDIC NL X'15' decodes to U+0085), bidi overrides and isolates (names
# that display as "txt.exe"), line/paragraph separators, and the characters Windows refuses
_UNSAFE = re.compile('[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069<>:"|?*]')
# invisible characters, removed: marks (LRM, RLM, ALM), zero-width space/joiners, word
# joiner and invisible operators, BOM, soft hyphen, Mongolian vowel separator
_INVISIBLE = re.compile("[\u00ad\u061c\u180e\u200b-\u200f\u2060-\u2064\ufeff]")
TEMP_SUFFIX = ".part"  # temporary files: ``.<name>.<random>.part`` beside the target
# every temporary file and scratch folder this process made and has not yet put in place or
# removed (``discard_left``: what a signal that struck between making one and entering the
# block that removes it would otherwise leave behind)
_LEFT: dict[Path, int] = {}


def _make_temp(parent: Path, prefix: str, suffix: str = "", folder: bool = False) -> Path:
    """A new temporary file (mode 0666 less the umask, as ``open`` makes) or folder (0700)
    in ``parent``, recorded *before* it exists: a signal can strike at any bytecode (worker
    and Arrow threads take it for the main thread, so masking it is no help), and whatever
    moment it strikes, ``discard_left`` finds the path."""
    for _ in range(100):
        p = parent / f"{prefix}{secrets.token_hex(4)}{suffix}"
        _LEFT[p] = os.getpid()
        try:
            if folder:
                os.mkdir(p, 0o700)
            else:
                os.close(os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666))
            return p
        except FileExistsError:
            _LEFT.pop(p, None)
        except OSError:  # not made (a signal leaves it recorded: it may exist)
            _LEFT.pop(p, None)
            raise
    raise FileExistsError(f"{parent}: no free temporary name")


def _settled(p: Path) -> None:
    """``p`` was put in place or removed: no longer left over."""
    _LEFT.pop(p, None)


def discard_left() -> list[Path]:
    """Remove the temporary files and scratch folders this process made and never put in
    place or removed (a run stopped by a signal at an unlucky moment); what was removed."""
    gone = [p for p, pid in _LEFT.items() if pid == os.getpid()]
    for p in gone:
        _LEFT.pop(p, None)
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink(missing_ok=True)
    return gone


def safe_name(name: str, fallback: str) -> str:
    """A file name that stays inside any directory it is joined to, or ``fallback``."""
    base = re.split(r"[\\/]", name.replace("\x00", ""))[-1]  # drop any directory part
    base = re.sub(r"^[A-Za-z]:", "", base)  # a bare drive letter prefix (C:name)
    base = _UNSAFE.sub("_", _INVISIBLE.sub("", base)).strip(" .\t").lstrip("-").strip(" .\t")
    # Windows ignores blanks and dots at the end of the part before the first dot
    stem = base.split(".")[0].rstrip(" ").upper()
    if not base or base in (".", "..") or stem in _DEVICES or len(base.encode()) > 200:
        return fallback
    return base


class OutputDir:
    """A directory created on demand (at the first path handed out, so a run that fails
    before writing anything leaves no directory); every path handed out is checked to stay
    inside it. Whether it can be created is checked at once."""

    def __init__(self, path: str | os.PathLike[str], force: bool = False) -> None:
        self.root = Path(path)
        self.force = force
        self._real: Path | None = None
        there = self.root.absolute()
        while not there.exists() and there != there.parent:
            there = there.parent
        if not there.is_dir():
            raise EnvError(f"{path}: cannot create output directory: {there} is not a directory")
        if not os.access(there, os.W_OK):
            raise EnvError(f"{path}: output directory is not writable")

    @property
    def real(self) -> Path:
        """The directory's resolved path (it is created here when it does not exist yet)."""
        if self._real is None:
            try:
                self.root.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise EnvError(f"{self.root}: cannot create output directory: {e.strerror}") from None
            self._real = self.root.resolve()
        return self._real

    def path(self, *parts: str) -> Path:
        """``root/parts...``; refuses (``EnvError``) a result that would leave the directory,
        such as a symlink planted there."""
        base = self.real
        p = self.root.joinpath(*parts)
        real = p.resolve()
        if real != base and base not in real.parents:
            raise EnvError(f"refusing to write outside {self.root}: {'/'.join(parts)!r}")
        return p

    def create(self, *parts: str, binary: bool = True) -> AtomicFile:
        """Open a new file for writing (whole or not at all, see ``AtomicFile``); refuses to
        overwrite without ``force``."""
        return AtomicFile(self._beside(*parts), self.force, binary)

    def atomic(self, *parts: str) -> AtomicPath:
        """A temporary path for a new file (for writers that want a path, see
        ``AtomicPath``); refuses to overwrite without ``force``."""
        return AtomicPath(self._beside(*parts), self.force)

    def _beside(self, *parts: str) -> Path:
        p = self.path(*parts)
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise EnvError(f"{p.parent}: cannot create directory: {e.strerror}") from None
        return p


def _check_target(p: Path, force: bool) -> None:
    if p.is_dir():
        raise EnvError(f"{p}: is a directory, not a file")
    if (p.exists() or p.is_symlink()) and not force:
        raise OutputExistsError(f"{p} exists (use --force to overwrite)")


def _temp_beside(p: Path) -> Path:
    try:
        return _make_temp(p.parent, f".{p.name}.", TEMP_SUFFIX)
    except OSError as e:
        raise EnvError(f"{p}: cannot write: {e.strerror}") from None


def _commit(tmp: Path, p: Path, force: bool) -> None:
    """Rename ``tmp`` to ``p``; without ``force`` never replace a file that appeared meanwhile."""
    try:
        if force:
            os.replace(tmp, p)
            return
        try:
            os.link(tmp, p)  # fails if the name is taken: no check-then-rename race
        except FileExistsError:
            raise
        except OSError:  # a file system without hard links
            if p.exists():
                raise FileExistsError(p) from None
            os.replace(tmp, p)
        else:
            tmp.unlink()
    except FileExistsError:
        tmp.unlink(missing_ok=True)
        raise OutputExistsError(f"{p} exists (use --force to overwrite)") from None
    except OSError as e:
        tmp.unlink(missing_ok=True)
        raise EnvError(f"{p}: cannot write: {e.strerror}") from None


class _TempFile:
    """A temporary file (``temp``) that ``commit()`` puts in place once and ``discard()``
    removes once; as a context manager it gives ``temp``, commits when the block ends
    normally and discards on any exception (Ctrl-C included). ``AtomicPath`` and
    ``RemotePath`` differ only in how they commit."""

    temp: Path
    done: bool

    def commit(self) -> None:
        raise NotImplementedError

    def discard(self) -> None:
        """Remove the temporary file; the target is untouched (once)."""
        if not self.done:
            self.done = True
            self.temp.unlink(missing_ok=True)
            _settled(self.temp)

    def __enter__(self) -> Path:
        return self.temp

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.discard()


class AtomicPath(_TempFile):
    """The one mechanism: a temporary file beside ``path`` (``.<name>.<random>.part``),
    renamed to ``path`` by ``commit()`` and removed by ``discard()``. As a context manager it
    gives the temporary path and commits when the block ends normally, discards on any
    exception (Ctrl-C included). For writers that want a path (pyarrow, pandas):

        with AtomicPath("out.parquet", force) as tmp:
            pq.write_table(table, tmp)
    """

    def __init__(self, path: str | os.PathLike[str], force: bool = False) -> None:
        self.path = Path(path)
        self.force = force
        _check_target(self.path, force)
        self.temp = _temp_beside(self.path)
        self.done = False

    def commit(self) -> None:
        """Rename the temporary file into place (once)."""
        if not self.done:
            self.done = True
            try:
                _commit(self.temp, self.path, self.force)
            finally:
                _settled(self.temp)


class Atomic(Protocol):
    """What ``AtomicPath`` and ``RemotePath`` both are."""

    temp: Path

    @property
    def path(self) -> Path | str: ...

    def commit(self) -> None: ...

    def discard(self) -> None: ...

    def __enter__(self) -> Path: ...

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None: ...


def remote(path: str | os.PathLike[str]) -> bool:
    """Whether an output names an object store (a URI other than ``file://``)."""
    from mqtool.io.uris import is_remote

    return isinstance(path, str) and is_remote(path)


def _local(path: str | os.PathLike[str]) -> str | os.PathLike[str]:
    """A ``file://`` URI as its path (other names unchanged); a URI no file system serves
    is refused, never taken for a path."""
    if isinstance(path, str):
        from mqtool.io.uris import local_path, refuse_unserved

        refuse_unserved(path, "an output")
        return local_path(path)
    return path


class RemotePath(_TempFile):
    """``AtomicPath`` for an object-store URI: a local temporary file (``temp``) uploaded to
    the URI by ``commit()`` -- one object, which appears whole when the upload completes --
    and removed by ``discard()``. Without ``force`` an existing object is refused when the
    path is made (``check``: also the bucket is there); the object store has no
    link-if-absent, so a writer racing this one between the check and the upload wins."""

    def __init__(self, uri: str, force: bool = False, options: Any = None,
                 check: bool = True) -> None:
        from mqtool.io.uris import check_output_object

        self.path = uri
        self.force, self.options = force, options
        if check:
            check_output_object(uri, force, options)
        try:
            self.temp = _make_temp(Path(tempfile.gettempdir()), ".mqtool-upload-", TEMP_SUFFIX)
        except OSError as e:
            raise EnvError(f"{uri}: cannot stage a temporary file: {e.strerror}") from None
        self.done = False

    def commit(self) -> None:
        """Upload the temporary file (once), then remove it."""
        if not self.done:
            self.done = True
            from mqtool.io.uris import upload

            try:
                upload(str(self.temp), self.path, self.options)
            finally:
                self.temp.unlink(missing_ok=True)
                _settled(self.temp)



def atomic_path(path: str | os.PathLike[str], force: bool = False, options: Any = None,
                check: bool = True) -> Atomic:
    """``AtomicPath`` for a local path or ``file://`` URI, ``RemotePath`` for an object
    store (``options``: its endpoint and credentials; ``check``: refuse an existing one)."""
    if remote(path):
        return RemotePath(str(path), force, options, check)
    return AtomicPath(_local(path), force)


class AtomicFile:
    """An open file on an ``AtomicPath``: ``close()`` (or leaving a ``with`` block normally)
    renames it into place; ``discard()`` (or an exception in the ``with`` block) removes it.
    Write errors (disk full) are ``EnvError``.

        with AtomicFile("out.bin") as f:
            f.write(data)
    """

    def __init__(self, path: str | os.PathLike[str], force: bool = False, binary: bool = True) -> None:
        self.target = atomic_path(path, force)
        self.path: Path | str = self.target.path
        try:
            self._file: IO[Any] = (self.target.temp.open("wb") if binary
                                   else self.target.temp.open("w", encoding="utf-8"))
        except OSError as e:
            self.target.discard()
            raise EnvError(f"{self.path}: cannot write: {e.strerror}") from None
        self.closed = False

    def write(self, data: Any) -> int:
        try:
            return self._file.write(data)
        except OSError as e:
            self.discard()
            raise EnvError(f"{self.path}: cannot write: {e.strerror}") from None

    def flush(self) -> None:
        self._file.flush()

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._file.fileno()

    def tell(self) -> int:
        return self._file.tell()

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        """Move the write position; writing past the end leaves a hole (sparse where the
        file system allows, zeros otherwise)."""
        return self._file.seek(offset, whence)

    def truncate(self, size: int) -> int:
        """Cut or extend (with a hole) the file to ``size`` bytes. Errors are ``EnvError``."""
        try:
            return self._file.truncate(size)
        except OSError as e:
            self.discard()
            raise EnvError(f"{self.path}: cannot write: {e.strerror}") from None

    def close(self) -> None:
        """Finish: flush and rename into place."""
        if self.closed:
            return
        self.closed = True
        try:
            self._file.close()
        except OSError as e:
            self.target.discard()
            raise EnvError(f"{self.path}: cannot write: {e.strerror}") from None
        self.target.commit()

    def discard(self) -> None:
        """Give up: remove the temporary file; the target is untouched."""
        if self.closed:
            return
        self.closed = True
        with suppress(OSError):
            self._file.close()
        self.target.discard()

    def __enter__(self) -> AtomicFile:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self.close()
        else:
            self.discard()


class StagedDirs:
    """The named sub-directories of an output directory, written whole or not at all: the
    run writes them in a scratch directory inside ``root`` (``.mqtool-<random>``, which
    Spark and Hive readers skip); ``commit()`` makes each replace its namesake (an output
    the run did not write replaces its namesake with an empty directory, so nothing stale
    survives ``--force``); ``discard()`` removes the scratch directory, and ``root`` when the
    run created it. As a context manager it gives the scratch directory.

        with StagedDirs(root, ("records", "errors")) as scratch:
            write(scratch / "records" / "part-00000.parquet")
    """

    def __init__(self, root: str | os.PathLike[str], names: Iterable[str]) -> None:
        self.root = Path(root)
        self.names = tuple(names)
        self.created = not self.root.exists()
        try:
            if self.created:  # recorded first: see _make_temp
                _LEFT[self.root] = os.getpid()
            self.root.mkdir(parents=True, exist_ok=True)
            self.scratch = _make_temp(self.root, ".mqtool-", folder=True)
        except OSError as e:
            raise EnvError(f"{root}: cannot create output directory: {e.strerror}") from None
        self.done = False

    def commit(self) -> None:
        """Move every staged output into place, then remove the scratch directory."""
        if self.done:
            return
        self.done = True
        try:
            for name in self.names:
                staged, target = self.scratch / name, self.root / name
                if staged.exists() or target.exists():
                    if target.exists():
                        shutil.rmtree(target)  # the caller checked --force
                    staged.mkdir(exist_ok=True)
                    os.replace(staged, target)
        except OSError as e:
            raise EnvError(f"{self.root}: cannot write: {e.strerror}") from None
        finally:
            shutil.rmtree(self.scratch, ignore_errors=True)
            _settled(self.scratch)
            _settled(self.root)

    def add(self, names: Iterable[str]) -> None:
        """Outputs named during the run (typed tables known once the input is read),
        staged and committed as the ones named up front."""
        self.names += tuple(n for n in names if n not in self.names)

    def keep(self, paths: Iterable[str]) -> None:
        """(``RemoteStagedDirs``' face: parts here are renamed into place, a retried
        writer's file replaces its failed attempt's; nothing to remember.)"""

    def success(self) -> None:
        """(``RemoteStagedDirs``' face: a directory here appears whole by rename; no
        marker is written.)"""

    def discard(self) -> None:
        """Remove what the run staged (and ``root`` when the run created it)."""
        if self.done:
            return
        self.done = True
        shutil.rmtree(self.scratch, ignore_errors=True)
        if self.created:
            shutil.rmtree(self.root, ignore_errors=True)
        _settled(self.scratch)
        _settled(self.root)

    def __enter__(self) -> Path:
        return self.scratch

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.discard()


SUCCESS = "_SUCCESS"  # Hadoop's marker: the directory's output is complete


class RemoteStagedDirs:
    """``StagedDirs`` for an object-store URI. Nothing can be renamed there, so writers put
    their parts straight under ``root/<name>/``, each under a name of its own
    (``part_name``: the run's id and the attempt), and say which they finished
    (``keep``). ``commit()`` removes every other file under the names (parts of failed
    or killed attempts, the output ``--force`` replaces); ``discard()`` removes the run's
    parts (and ``root`` when the run created it); ``success()`` writes ``_SUCCESS`` last.
    An earlier output's ``_SUCCESS`` is removed when the run starts: from then on readers
    that follow the Hadoop convention take the directory as incomplete until this run's
    marker appears. As a context manager it gives ``root`` (a URI string)."""

    def __init__(self, root: str, names: Iterable[str], options: Any = None) -> None:
        import uuid

        from mqtool.io.uris import delete, join, list_tree

        self.root, self.names, self.options = root.rstrip("/"), tuple(names), options
        self.run = uuid.uuid4().hex[:12]
        self.kept: set[str] = set()
        self.created = not list_tree(self.root, options)
        delete([join(self.root, SUCCESS)], options)
        self.done = False

    @property
    def scratch(self) -> str:
        return self.root

    def add(self, names: Iterable[str]) -> None:
        """Outputs named during the run: their finished parts are kept on commit, the
        run's parts removed on discard, as for the names given up front."""
        self.names += tuple(n for n in names if n not in self.names)

    def keep(self, uris: Iterable[str]) -> None:
        """Parts a finished writer wrote (the others are removed on commit)."""
        self.kept.update(uris)

    def _under_names(self) -> list[str]:
        from mqtool.io.uris import join, list_tree

        return [f for n in self.names for f in list_tree(join(self.root, n), self.options)]

    def commit(self) -> None:
        if self.done:
            return
        self.done = True
        from mqtool.io.uris import delete, join, prune

        delete([f for f in self._under_names() if f not in self.kept], self.options)
        for n in self.names:
            prune(join(self.root, n), self.options)

    def discard(self) -> None:
        if self.done:
            return
        self.done = True
        from mqtool.io.uris import delete, join, prune

        mine = [f for f in self._under_names() if f in self.kept or self.run in f]
        with suppress(MqtoolError):  # the failure being reported matters more
            delete(mine, self.options)
            for n in self.names:
                prune(join(self.root, n), self.options)
            if self.created:
                prune(self.root, self.options)

    def success(self) -> None:
        """``_SUCCESS``, written last (after ``_summary.json``)."""
        mark_complete(self.root, self.options)

    def __enter__(self) -> str:
        return self.root

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.discard()


def output_root(root: str) -> str:
    """An output directory as writers name it: an object-store URI as given (no trailing
    slash), a path or ``file://`` URI as an absolute path (tasks have other working
    directories)."""
    if remote(root):
        return root.rstrip("/")
    return str(Path(_local(root)).resolve())


def mark_complete(root: str, options: Any = None) -> None:
    """``_SUCCESS`` in an object-store output directory, written last: readers that follow
    the Hadoop convention take the directory as complete from then on. (A local directory
    appears whole by rename: nothing to mark.)"""
    if remote(root):
        from mqtool.io.uris import join, write_bytes

        write_bytes(join(root, SUCCESS), b"", options)


def part_name(split: int, run: str = "", attempt: int | None = None) -> str:
    """``part-00003.parquet``; with a run id (object stores) ``part-00003-<run>-a0.parquet``:
    every attempt of every run writes a name of its own."""
    tail = f"-{run}-a{attempt or 0}" if run else ""
    return f"part-{split:05d}{tail}.parquet"


def staged_dirs(root: str, names: Iterable[str], options: Any = None) -> StagedDirs | RemoteStagedDirs:
    """The named sub-directories of ``root`` written whole or not at all: ``StagedDirs``
    for a local path (or ``file://``), ``RemoteStagedDirs`` for an object store."""
    if remote(root):
        return RemoteStagedDirs(root, names, options)
    return StagedDirs(Path(_local(root)).resolve(), names)


@contextmanager
def published(output: str, force: bool = False, directory: bool = True) -> Iterator[str]:
    """A command's output (a directory, or one file) for a writer that needs a local
    path: the path itself, or for an object-store URI a local staging folder uploaded file
    by file when the block ends normally, ``_SUCCESS`` last for a directory; nothing is
    uploaded when it fails. Existing objects are refused without ``force``."""
    if not remote(output):
        yield str(_local(output))
        return
    from mqtool.io.uris import check_output_dir, join, upload, write_bytes

    if directory:
        check_output_dir(output, True, ())
    else:
        check_output(output, force)
    stage = _make_temp(Path(tempfile.gettempdir()), ".mqtool-stage-", folder=True)
    try:
        local = stage / "out"
        yield str(local)
        if directory:
            if not force:  # what the local writer refuses, refused here too
                for f in sorted(p for p in local.rglob("*") if p.is_file()):
                    check_output(join(output, *f.relative_to(local).parts))
            for f in sorted(p for p in local.rglob("*") if p.is_file()):
                upload(str(f), join(output, *f.relative_to(local).parts))
            if local.exists():
                write_bytes(join(output, SUCCESS), b"")
        elif local.exists():
            upload(str(local), output)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
        _settled(stage)


def atomic_output(path: str | os.PathLike[str], force: bool = False, binary: bool = True) -> AtomicFile:
    """Open ``path`` for writing, whole or not at all (see ``AtomicFile``)."""
    return AtomicFile(path, force, binary)


def check_output(path: str | os.PathLike[str], force: bool = False) -> None:
    """Refuse before any work: an existing output without ``force`` (``OutputExistsError``),
    a directory, a missing or read-only parent directory (``EnvError``); for an object-store
    URI an existing object without ``force`` and a missing bucket."""
    if remote(path):
        from mqtool.io.uris import check_output_object

        check_output_object(str(path), force)
        return
    p = Path(_local(path))
    _check_target(p, force)
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise EnvError(f"{path}: cannot write: directory {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise EnvError(f"{path}: cannot write: directory {parent} is not writable")


def write_file(path: str | os.PathLike[str], data: bytes, force: bool = False) -> None:
    """Write one output file (``-o FILE``, a summary), whole or not at all."""
    with AtomicFile(path, force) as f:
        f.write(data)
