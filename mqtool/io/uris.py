"""Inputs named by URI, read with ``pyarrow.fs``: local paths, ``file://``, ``s3://``, ``gs://``,
``hdfs://`` (where libhdfs exists). Listing gives files and sizes; reading is ranged and
streamed (a file is never read whole).

S3 settings come from ``options`` (``s3.endpoint``, ``s3.region``, ``s3.access_key``,
``s3.secret_key``, ``s3.scheme``) or the standard environment (``AWS_ENDPOINT_URL``,
``AWS_REGION`` / ``AWS_DEFAULT_REGION``, ``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``).
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

from mqtool.errors import EnvError, InputError
from mqtool.io.inputs import missing_input

SCHEMES = ("file", "s3", "gs", "gcs", "hdfs")
CHUNK = 4 << 20
OPTION_KEYS = ("s3.endpoint", "s3.region", "s3.access_key", "s3.secret_key", "s3.scheme")


def is_uri(name: str) -> bool:
    """``scheme://...`` with a scheme pyarrow.fs reads (a Windows drive letter is no URI)."""
    scheme = urlsplit(name).scheme.lower()
    return "://" in name and scheme in SCHEMES


def looks_like_uri(name: str) -> bool:
    """``scheme://...`` of any scheme (``s3a://``, ``abfss://``, ``http://``): a name that
    must never be taken for a local path, whether or not it can be served."""
    return re.match(r"^[A-Za-z][A-Za-z0-9+.-]+://", name) is not None


def is_remote(name: str) -> bool:
    """A URI of another file system than this machine's (``s3://``, ``gs://``, ``hdfs://``;
    not ``file://``)."""
    return is_uri(name) and urlsplit(name).scheme.lower() != "file"


def local_path(name: str) -> str:
    """The local path of a path or ``file://`` URI (``ValueError`` for a remote URI)."""
    if is_remote(name):
        raise ValueError(f"{name}: not a local path")
    return urlsplit(name).path if is_uri(name) else name


def join(base: str, *parts: str) -> str:
    """``base/part/...`` for a path or a URI (a URI keeps its scheme and host)."""
    if not parts:
        return base
    if is_uri(base):
        return "/".join([base.rstrip("/"), *(p.strip("/") for p in parts)])
    return os.path.join(base, *parts)


def refuse_unserved(name: str, what: str) -> None:
    """One line for a URI no pyarrow file system serves (``s3a://``, ``abfss://``,
    ``http://``): which schemes work and what to use instead (``InputError``)."""
    if looks_like_uri(name) and not is_uri(name):
        scheme = name.split("://", 1)[0]
        hint = (" (s3a:// and s3n:// are Hadoop's names: write s3://)"
                if scheme.lower() in ("s3a", "s3n") else
                "; for other stores use a local path or a mounted file system")
        raise InputError(f"{name}: {what} cannot use {scheme}:// ({', '.join(f'{s}://' for s in SCHEMES)} "
                         f"are read and written through pyarrow.fs){hint}")


def absolute(name: str) -> str:
    """The absolute URI of a path or URI (``file:///abs/path`` for local files)."""
    if is_uri(name):
        return name
    from pathlib import Path

    return Path(name).resolve().as_uri()


def _settings(options: Mapping[str, str] | None) -> tuple[tuple[str, str], ...]:
    opts = {k.lower(): v for k, v in (options or {}).items() if k.lower() in OPTION_KEYS and v}
    env = os.environ
    opts.setdefault("s3.endpoint", env.get("AWS_ENDPOINT_URL_S3") or env.get("AWS_ENDPOINT_URL", ""))
    opts.setdefault("s3.region", env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION", ""))
    return tuple(sorted((k, v) for k, v in opts.items() if v))


def driver_settings() -> dict[str, str]:
    """The endpoint and region this process's environment names (no credentials): handed
    to executors whose environment may not have them."""
    return {k: v for k, v in _settings(None) if k in ("s3.endpoint", "s3.region")}


@lru_cache(maxsize=32)
def _filesystem(scheme: str, netloc: str, settings: tuple[tuple[str, str], ...]) -> Any:
    import pyarrow.fs as pafs

    opts = dict(settings)
    if scheme in ("", "file"):
        return pafs.LocalFileSystem()
    if scheme == "s3":
        kw: dict[str, Any] = {}
        endpoint = opts.get("s3.endpoint", "")
        if endpoint:
            parts = urlsplit(endpoint if "://" in endpoint else f"https://{endpoint}")
            kw["endpoint_override"] = parts.netloc
            kw["scheme"] = opts.get("s3.scheme") or parts.scheme
        if opts.get("s3.region"):
            kw["region"] = opts["s3.region"]
        if opts.get("s3.access_key"):
            kw["access_key"] = opts["s3.access_key"]
            kw["secret_key"] = opts.get("s3.secret_key", "")
        return pafs.S3FileSystem(**kw)
    if scheme in ("gs", "gcs"):
        return pafs.GcsFileSystem()
    if scheme == "hdfs":
        host, _, port = netloc.partition(":")
        try:
            return pafs.HadoopFileSystem(host or "default", int(port or 0))
        except (OSError, ImportError) as e:
            raise EnvError(f"hdfs://{netloc}: cannot reach HDFS ({_first_line(e)}): pyarrow "
                           "needs libhdfs (HADOOP_HOME, CLASSPATH, ARROW_LIBHDFS_DIR); else use "
                           "s3://, gs:// or a local path") from None
    raise InputError(f"{scheme}://: not a supported scheme ({', '.join(SCHEMES)})")


def resolve(name: str, options: Mapping[str, str] | None = None) -> tuple[Any, str]:
    """``(filesystem, path inside it)`` of a path or URI."""
    if not is_uri(name):
        return _filesystem("", "", ()), os.path.abspath(name)
    parts = urlsplit(name)
    scheme = parts.scheme.lower()
    if scheme == "file":
        return _filesystem("", "", ()), parts.path
    fs = _filesystem(scheme, parts.netloc, _settings(options))
    if scheme == "hdfs":
        return fs, parts.path
    return fs, f"{parts.netloc}{parts.path}"


def _join(name: str, child: str) -> str:
    if is_uri(name):
        parts = urlsplit(name)
        scheme = parts.scheme.lower()
        if scheme == "file":
            return f"file://{child}"
        if scheme == "hdfs":
            return f"hdfs://{parts.netloc}{child}"
        return f"{parts.scheme}://{child}"
    return child


def list_files(names: list[str], options: Mapping[str, str] | None = None) -> list[tuple[str, int]]:
    """``(uri or path, size)`` of every regular file the names stand for: files,
    directories (their files, not hidden, not ``_``-prefixed, sorted) and globs
    (``*``, ``?``, ``[``: matched on the base name inside their directory). Missing names
    raise InputError naming them; nothing is read."""
    import fnmatch

    import pyarrow.fs as pafs

    out: list[tuple[str, int]] = []
    for name in names:
        if name == "-":
            raise InputError("-: stdin cannot be split across tasks; give a file or a URI")
        fs, path = resolve(name, options)
        glob = any(ch in posixpath.basename(path) for ch in "*?[")
        target = posixpath.dirname(path) if glob else path
        try:
            info = fs.get_file_info(target)
        except OSError as e:
            raise InputError(f"{name}: cannot list ({str(e).splitlines()[0]})") from None
        if info.type == pafs.FileType.NotFound:
            raise missing_input(name)
        if info.type == pafs.FileType.File and not glob:
            out.append((name if is_uri(name) else path, info.size))
            continue
        if info.type != pafs.FileType.Directory:
            raise InputError(f"{name}: not a regular file or directory")
        pattern = posixpath.basename(path) if glob else None
        try:
            infos = fs.get_file_info(pafs.FileSelector(target, recursive=False))
        except OSError as e:
            raise InputError(f"{name}: cannot list ({str(e).splitlines()[0]})") from None
        found = sorted(
            (i.path, i.size) for i in infos
            if i.type == pafs.FileType.File and not i.base_name.startswith((".", "_"))
            and (pattern is None or fnmatch.fnmatchcase(i.base_name, pattern)))
        if glob and not found:
            raise InputError(f"{name}: no file matches")
        out += [(_join(name, p) if is_uri(name) else p, size) for p, size in found]
    return out


def read_range(name: str, start: int = 0, end: int | None = None, chunk: int = CHUNK,
               options: Mapping[str, str] | None = None) -> Iterator[bytes]:
    """Bytes ``start..end`` (to the end of the file when ``end`` is None) in chunks, by
    ranged reads."""
    fs, path = resolve(name, options)
    try:
        f = fs.open_input_file(path)
    except FileNotFoundError:
        raise InputError(f"{name}: no such file") from None
    except OSError as e:
        raise InputError(f"{name}: cannot open ({str(e).splitlines()[0]})") from None
    try:
        size = f.size()
        stop = size if end is None else min(end, size)
        at = start
        while at < stop:
            n = min(chunk, stop - at)
            data = f.read_at(n, at)
            if not data:
                break
            at += len(data)
            yield data
    finally:
        f.close()


def check_output_dir(outdir: str, force: bool, outputs: Iterable[str]) -> None:
    """An output directory (a path, ``file://`` or an object-store URI) that holds none of
    ``outputs`` (unless ``force``) and can be created and written: ``OutputExistsError``
    (exit 1) or ``EnvError`` (exit 4), before any work. A URI is never taken for a path;
    one no pyarrow file system serves is refused saying what to use instead."""
    from pathlib import Path

    from mqtool.errors import OutputExistsError

    refuse_unserved(outdir, "an output")
    if is_remote(outdir):
        _check_remote_dir(outdir, force, outputs)
        return
    root = Path(local_path(outdir))
    if root.exists() and not root.is_dir():
        raise OutputExistsError(f"{outdir}: exists and is not a directory")
    if root.is_dir() and not force:
        there = [n for n in outputs if (root / n).exists()]
        if there:
            raise OutputExistsError(f"{root / there[0]} exists (use --force to replace it)")
    probe = root
    while not probe.exists():
        probe = probe.parent
    if not probe.is_dir() or not os.access(probe, os.W_OK | os.X_OK):
        raise EnvError(f"{outdir}: cannot create output directory: {probe} is not writable")


def _info(name: str, options: Mapping[str, str] | None = None) -> Any:
    """``pyarrow.fs.FileInfo`` of a URI; a store that cannot be asked is ``EnvError``."""
    fs, path = resolve(name, options)
    try:
        return fs.get_file_info(path)
    except OSError as e:
        raise EnvError(f"{name}: cannot reach the store ({_first_line(e)})") from None


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__


def _check_container(name: str, options: Mapping[str, str] | None) -> None:
    """The bucket (or HDFS root) of a URI exists."""
    import pyarrow.fs as pafs

    parts = urlsplit(name)
    if parts.scheme.lower() == "hdfs":
        return
    bucket = f"{parts.scheme}://{parts.netloc}"
    fs, _path = resolve(name, options)
    try:
        info = fs.get_file_info(parts.netloc)
    except OSError as e:
        raise EnvError(f"{name}: cannot reach the store ({_first_line(e)})") from None
    if info.type == pafs.FileType.NotFound:
        raise EnvError(f"{name}: cannot write: the bucket {bucket} does not exist")


def _check_remote_dir(outdir: str, force: bool, outputs: Iterable[str],
                      options: Mapping[str, str] | None = None) -> None:
    import pyarrow.fs as pafs

    from mqtool.errors import OutputExistsError

    _check_container(outdir, options)
    info = _info(outdir, options)
    if info.type == pafs.FileType.File:
        raise OutputExistsError(f"{outdir}: exists and is not a directory")
    if info.type == pafs.FileType.Directory and not force:
        for n in outputs:
            if _info(join(outdir, n), options).type != pafs.FileType.NotFound:
                raise OutputExistsError(f"{join(outdir, n)} exists (use --force to replace it)")


def check_output_object(name: str, force: bool, options: Mapping[str, str] | None = None) -> None:
    """An object-store URI for one output file: not a directory, not there unless ``force``,
    its bucket there (``OutputExistsError`` / ``EnvError``, before any work)."""
    import pyarrow.fs as pafs

    from mqtool.errors import OutputExistsError

    _check_container(name, options)
    info = _info(name, options)
    if info.type == pafs.FileType.Directory:
        raise EnvError(f"{name}: is a directory, not a file")
    if info.type == pafs.FileType.File and not force:
        raise OutputExistsError(f"{name} exists (use --force to overwrite)")


def upload(local: str, name: str, options: Mapping[str, str] | None = None) -> None:
    """Copy a local file to ``name``: one object, visible whole when its upload completes
    (a single PUT or a multipart upload completed at once); an interrupted copy leaves none."""
    import pyarrow.fs as pafs

    fs, path = resolve(name, options)
    try:
        pafs.copy_files(local, path, source_filesystem=pafs.LocalFileSystem(),
                        destination_filesystem=fs)
    except OSError as e:
        raise EnvError(f"{name}: cannot write ({_first_line(e)})") from None


def write_bytes(name: str, data: bytes, options: Mapping[str, str] | None = None) -> None:
    """One small object (a marker, a summary)."""
    fs, path = resolve(name, options)
    try:
        with fs.open_output_stream(path) as dst:
            dst.write(data)
    except OSError as e:
        raise EnvError(f"{name}: cannot write ({_first_line(e)})") from None


def list_tree(name: str, options: Mapping[str, str] | None = None) -> list[str]:
    """The URIs of every file under ``name`` (recursively; none when it does not exist)."""
    import pyarrow.fs as pafs

    fs, path = resolve(name, options)
    try:
        infos = fs.get_file_info(pafs.FileSelector(path, recursive=True, allow_not_found=True))
    except OSError as e:
        raise EnvError(f"{name}: cannot list ({_first_line(e)})") from None
    return sorted(_join(name, i.path) for i in infos if i.type == pafs.FileType.File)


def delete(names: Iterable[str], options: Mapping[str, str] | None = None) -> None:
    """Remove files (missing ones are no error)."""
    for name in names:
        fs, path = resolve(name, options)
        try:
            fs.delete_file(path)
        except FileNotFoundError:
            pass
        except OSError as e:
            raise EnvError(f"{name}: cannot remove ({_first_line(e)})") from None


def prune(name: str, options: Mapping[str, str] | None = None) -> None:
    """Remove the directories under ``name`` (and ``name``) that hold no file: an object
    store keeps an empty marker where files were deleted."""
    import pyarrow.fs as pafs

    fs, path = resolve(name, options)
    try:
        infos = fs.get_file_info(pafs.FileSelector(path, recursive=True, allow_not_found=True))
        files = [i.path for i in infos if i.type == pafs.FileType.File]
        dirs = [i.path for i in infos if i.type == pafs.FileType.Directory] + [path]
        for d in sorted(dirs, key=lambda p: -p.count("/")):  # the deepest first
            if "/" in d.strip("/") and not any(f.startswith(d.rstrip("/") + "/") for f in files):
                fs.delete_dir(d)
    except FileNotFoundError:
        pass
    except OSError as e:
        raise EnvError(f"{name}: cannot remove ({_first_line(e)})") from None
