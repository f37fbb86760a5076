"""Finding every structure mqtool knows inside arbitrary bytes (a disk image, a core or
memory dump, a spool file, a trace) and carving each one out.

The signatures come from each format's ``carve`` module (``io.carving`` describes the
protocol; the registry's ``Codec.carve`` names it), which derives them from its
declarations: URBH prefixes, MQ StrucIds, the MQCFH StrucLength/Version pair, SAS file
specifications, the OSB eyecatcher, the CSQ1LOGP record date; MATQMSG templates are looked
for on 16-byte boundaries; hex dump text by its first line. All signatures are searched in
one pass with Hyperscan (Intel's multi-pattern matcher); each candidate is confirmed by
decoding it (``confirm``), never by the signature alone.

The input streams through in windows: each window's own ``chunk`` bytes are searched, with
``BEFORE`` bytes kept before them and ``max_length`` bytes of look-ahead after, so memory is
bounded by ``chunk + max_length`` whatever the input's size, and a structure that starts in
a window is decoded whole. Overlaps are resolved in offset order: a structure inside one
already found (a URB inside an MQRFH2 inside an MQXQH) is part of that hit and its chain, and
candidates inside a hit are not looked at again -- so the work is linear in the input,
whatever it holds (``Work`` counts it).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import IO, Any

from mqtool.codec import Carver as Carving
from mqtool.codec import LaterModule
from mqtool.errors import InputError
from mqtool.io.carving import LONGEST, Found, Work
from mqtool.io.custody import Custody, Hasher
from mqtool.io.window import Window, resolve


def _carvers() -> dict[str, Carving | LaterModule]:
    """Format name -> its carve module, for every codec of ``registry.CODECS`` that has one
    (``Codec.carve``)."""
    from mqtool.registry import CODECS

    return {c.name: c.carve for c in CODECS if c.carve is not None}


CARVERS = _carvers()
DUMP = "dump"  # hex dump text: found here, read back by io.undump
KNOWN = (*CARVERS, DUMP)
CHUNK = 16 << 20  # bytes searched per window
MAX_LENGTH = LONGEST  # look-ahead: the longest structure decoded whole
MANIFEST = "manifest.json"


# --------------------------------------------------------------------------- carvers


@dataclass(frozen=True)
class Carver:
    """One format's carve module, as the scanner uses it."""

    name: str
    module: Carving | LaterModule | None  # None: the hex dump text finder below
    signatures: tuple[bytes, ...]
    patterns: tuple[bytes, ...]
    before: int
    align: int

    def confirm(self, view: memoryview, at: int, final: bool, work: Work) -> Found | None:
        if self.module is None:
            return None  # the scan's own DumpText answers (it needs the absolute offset)
        result: Found | None = self.module.confirm(view, at, final, work)
        return result

    def confirm_start(self, view: memoryview, at: int, final: bool, work: Work) -> Found | None:
        """A structure starting exactly at ``at`` (a payload after MQ headers)."""
        fn = getattr(self.module, "confirm_start", None)
        if fn is not None:
            result: Found | None = fn(view, at, final, work)
            return result
        if self.module is not None and self.before == 0 and any(
                view[at:at + len(s)] == s for s in self.signatures):
            return self.confirm(view, at, final, work)
        return None

    def candidates(self, view: memoryview, lo: int, hi: int, base: int) -> Iterator[int]:
        fn = getattr(self.module, "candidates", None)
        if fn is not None:
            yield from fn(view, lo, hi, base)


def carvers(formats: Iterable[str] | None = None) -> list[Carver]:
    """The carvers of ``formats`` (default: every one, dump text included)."""
    names = list(formats) if formats is not None else list(KNOWN)
    bad = [n for n in names if n not in KNOWN]
    if bad:
        raise InputError(f"scan: unknown format {bad[0]!r}; known: {', '.join(KNOWN)}")
    out = []
    for name in names:
        if name == DUMP:
            out.append(Carver(DUMP, None, (), DumpText.PATTERNS, 0, 0))
            continue
        mod: Any = CARVERS[name]
        out.append(Carver(name, mod, tuple(mod.SIGNATURES), tuple(mod.PATTERNS), int(mod.BEFORE),
                          int(getattr(mod, "ALIGN", 0))))
    return out


# --------------------------------------------------------------------------- signatures


class Matcher:
    """Every carver's signatures and patterns in one Hyperscan database (block mode)."""

    def __init__(self, chosen: Sequence[Carver]) -> None:
        import hyperscan

        self.carvers = list(chosen)
        exprs: list[bytes] = []
        flags: list[int] = []
        self.owner: list[tuple[int, int]] = []  # id -> (carver index, literal length or -1)
        for i, c in enumerate(self.carvers):
            for sig in c.signatures:
                exprs.append(b"".join(b"\\x%02x" % b for b in sig))
                flags.append(0)
                self.owner.append((i, len(sig)))
            for pat in c.patterns:
                exprs.append(pat)
                flags.append(hyperscan.HS_FLAG_SOM_LEFTMOST | hyperscan.HS_FLAG_DOTALL |
                             hyperscan.HS_FLAG_MULTILINE)
                self.owner.append((i, -1))
        self.db = None
        if exprs:
            self.db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
            self.db.compile(expressions=exprs, ids=list(range(len(exprs))), elements=len(exprs),
                            flags=flags)

    def find(self, view: memoryview, lo: int, hi: int, longest: int) -> list[tuple[int, int]]:
        """``(position, carver index)`` of every signature starting in ``view[lo:hi]``,
        sorted (the search runs ``longest - 1`` bytes on so a signature across ``hi`` is
        seen)."""
        if self.db is None or hi <= lo:
            return []
        found: list[tuple[int, int]] = []
        owner = self.owner

        def on_match(id_: int, start: int, end: int, _flags: int, _ctx: object) -> None:
            i, n = owner[id_]
            at = lo + (end - n if n >= 0 else start)
            if at < hi:
                found.append((at, i))

        data: Any = view[lo:min(len(view), hi + longest - 1)]  # a buffer: Hyperscan reads it in place
        self.db.scan(data, match_event_handler=on_match)
        found.sort()
        return found


# --------------------------------------------------------------------------- hex dump text

_DUMP_LINE = re.compile(rb"[ \t]*[0-9A-Fa-f]{4,16}(?::|\s)[ \t]*[0-9A-Fa-f]{2}[\t\r\n\x20-\x7e]*\Z")
LINE = 1 << 16  # the longest dump line read (the documents run whole dumps into one line)


class DumpText:
    """Hex dump text (xxd, ``hexdump -C``, the documents' style, amqsbcg lines) whose first
    line has offset zero: the run of dump lines from there, read back with ``io.undump``
    and identified by the registry. Lines already looked at are not read again
    (``examined``, absolute), so text that never reads back costs one pass."""

    PATTERNS = (rb"0{4,8}(?::|[ \t])[ \t]*[0-9A-Fa-f]{2}",)
    MIN_BYTES = 8

    def __init__(self) -> None:
        self.examined = -1

    @staticmethod
    def line_at(view: memoryview, pos: int, work: Work) -> bytes:
        """The line at ``pos`` (with its line end), read a little at a time."""
        size = 256
        while True:
            chunk = bytes(view[pos:pos + size])
            nl = chunk.find(b"\n")
            if nl >= 0 or len(chunk) < size or size >= LINE:
                line = chunk[:nl + 1] if nl >= 0 else chunk
                work.count(len(line))
                return line
            size *= 4

    def confirm(self, view: memoryview, at: int, base: int, work: Work) -> Found | None:
        from mqtool.errors import MqtoolError
        from mqtool.io.undump import detect, undump
        from mqtool.registry import best_codec, identify

        if base + at < self.examined or (at > 0 and bytes(view[at - 1:at]).isalnum()):
            return None  # inside text already read, or inside a longer word or number
        pos = at
        while pos < len(view):
            line = self.line_at(view, pos, work)
            if not line.strip() or not _DUMP_LINE.match(line):
                break
            pos += len(line)
        self.examined = base + pos
        body = bytes(view[at:pos]).decode("ascii")
        try:
            raw = undump(body)
        except MqtoolError:
            return None
        if len(raw) < self.MIN_BYTES:
            return None
        inner = best_codec(identify(raw, text_kinds=False))
        what = (f"{inner.format} ({inner.confidence:.2f}) {inner.reason}" if inner else
                "no codec recognises the bytes")
        return Found(at, pos - at, DUMP, "hex dump text", 0.7 if inner else 0.4,
                     f"hex dump text ({detect(body)} style), {len(raw)} bytes: {what}",
                     (DUMP, *((inner.format,) if inner else ())), {"hex": True}, (), "dump")


# --------------------------------------------------------------------------- the scan


@dataclass
class Scan:
    """How to scan: which formats, the window sizes, which hits to report."""

    formats: Sequence[str] | None = None
    min_confidence: float = 0.0
    chunk: int = CHUNK
    max_length: int = MAX_LENGTH
    work: Work = field(default_factory=Work)
    progress: Callable[[int], None] | None = None  # told the bytes searched so far

    def __post_init__(self) -> None:
        if self.chunk <= 0 or self.max_length <= 0:
            raise InputError("scan: chunk and max_length must be positive")
        self.carvers = carvers(self.formats)
        self.matcher = Matcher(self.carvers)
        self.before = max((c.before for c in self.carvers), default=0)
        self.longest = max((len(s) for c in self.carvers for s in c.signatures), default=1)
        self.aligned = [c for c in self.carvers if getattr(c.module, "candidates", None)]
        self.dump = DumpText()

    def stream(self, f: IO[bytes], window: Window) -> Iterator[Found]:
        """Every hit in ``window`` of the open file ``f``, in offset order, absolute.

        One buffer of ``before + chunk + max_length`` bytes is reused: each window moves its
        tail (look-behind and look-ahead) to the front and reads the rest in place."""
        end = window.end if window.length >= 0 else None
        f.seek(window.start)
        buf = bytearray(self.before + self.chunk + self.max_length)
        base, filled = window.start, 0  # buf[:filled] holds input bytes base .. base + filled
        own = window.start
        cursor = window.start  # the end of the last hit
        eof = False
        while True:
            keep = max(base, own - self.before)
            if keep > base:  # move what is still needed to the front (memmove, no copy)
                with memoryview(buf) as mv:
                    mv[:filled - (keep - base)] = mv[keep - base:filled]
                filled -= keep - base
                base = keep
            while not eof and filled < len(buf):
                want = len(buf) - filled
                if end is not None:
                    want = min(want, end - base - filled)
                if want <= 0:
                    break
                with memoryview(buf) as mv:
                    got = f.readinto(mv[filled:filled + want])  # type: ignore[attr-defined]
                if not got:
                    eof = True
                    break
                filled += got
            final = eof or (end is not None and base + filled >= end)
            own_end = min(own + self.chunk, base + filled)
            if own_end <= own:
                return
            with memoryview(buf) as mv, mv[:filled] as view:
                found_here = list(self._window(view, base, own, own_end, final, cursor))
            for found in found_here:
                cursor = found.offset + found.length
                if found.confidence >= self.min_confidence:
                    yield found
            if self.progress is not None:
                self.progress(own_end - window.start)
            own = own_end

    def _window(self, view: memoryview, base: int, own: int, own_end: int, final: bool,
                cursor: int) -> Iterator[Found]:
        lo, hi = own - base, own_end - base
        cands = self.matcher.find(view, lo, hi, self.longest)
        for k, c in enumerate(self.carvers):
            if c in self.aligned:
                cands += [(p, k) for p in c.candidates(view, lo, hi, base)]
                cands.sort()
        work = self.work
        work.candidates += len(cands)
        for at, k in cands:
            if base + at < cursor:
                continue
            carver = self.carvers[k]
            work.confirms += 1
            found = (self.dump.confirm(view, at, base, work) if carver.module is None else
                     carver.confirm(view, at, final, work))
            if found is None or base + found.offset < cursor or found.length <= 0:
                continue
            found = self._nest(found, view, final)
            work.by_format[carver.name] = work.by_format.get(carver.name, 0) + 1
            found = found.shifted(base)
            cursor = found.offset + found.length
            yield found

    def _nest(self, found: Found, view: memoryview, final: bool) -> Found:
        """A hit whose payload the carver left open, with the structure found there."""
        at = found.payload_at
        if at < 0 or at >= len(view):
            return found._replace(payload_at=-1)
        for c in self.carvers:
            if c.name == DUMP:
                continue
            self.work.confirms += 1
            inner = c.confirm_start(view, at, final, self.work)
            if inner is not None and inner.offset == at:
                errors = found.errors + inner.errors
                return found._replace(
                    length=inner.offset + inner.length - found.offset,
                    chain=found.chain + inner.chain, payload_at=-1,
                    confidence=min(found.confidence, inner.confidence), errors=errors,
                    summary=f"{found.summary}; payload: {inner.summary}")
        return found._replace(payload_at=-1)


def scan(source: str | bytes, *, offset: str | int | None = None,
         length: str | int | None = None, formats: Sequence[str] | None = None,
         min_confidence: float = 0.0, chunk: int = CHUNK, max_length: int = MAX_LENGTH,
         work: Work | None = None,
         progress: Callable[[int], None] | None = None) -> Iterator[Found]:
    """Every structure found in ``source`` (a file path, or bytes), best-effort and in
    offset order; offsets absolute in the input. ``offset``/``length``: the window (xxd
    ``-s``/``-l`` meaning, ``io.window``). ``work``: counts what the scan spent;
    ``progress``: told how many bytes of the window were searched, after each piece."""
    options = Scan(formats, min_confidence, chunk, max_length, work or Work(), progress)
    if isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source)
        yield from options.stream(io.BytesIO(data), resolve(len(data), offset, length))
        return
    from mqtool.io.inputs import open_regular

    f = open_regular(source)
    try:
        size = os.fstat(f.fileno()).st_size
        yield from options.stream(f, resolve(size, offset, length))
    finally:
        f.close()


# --------------------------------------------------------------------------- carving


@dataclass(frozen=True)
class Carved:
    """One hit written out: the hit, its file (relative to the directory), size, SHA-256,
    and the image it was carved from."""

    hit: Found
    file: str
    size: int
    sha256: str
    source: str = ""

    def to_json(self) -> dict[str, Any]:
        return {**self.hit.to_json(), "file": self.file, "size": self.size, "sha256": self.sha256}


_CARVED = re.compile(r"[0-9]{6,}-[0-9a-f]{10,}-[a-z0-9-]+\.[a-z0-9]+")  # what file_name makes


def file_name(index: int, hit: Found) -> str:
    """``000001-0000000400-urb.urb``: order, offset (hex), format; nothing from the input."""
    slug = re.sub(r"[^a-z0-9]+", "-", hit.format.lower()).strip("-") or "hit"
    ext = re.sub(r"[^a-z0-9]+", "", hit.extension.lower()) or "bin"
    return f"{index:06d}-{hit.offset:010x}-{slug}.{ext}"


class CarveDir:
    """A directory the hits of one or more images are carved into: each hit its own file,
    written whole (``add``); then ``manifest.json`` (``finish``: every hit with its image,
    file, size and SHA-256, and the custody record, which gets the files as outputs).
    Names come from the hit's order, offset and format only, so nothing can leave the
    directory. A run that fails before ``finish`` removes the files it carved (``discard``):
    no set of carved files is left without its manifest."""

    def __init__(self, outdir: str, force: bool = False, custody: Custody | None = None,
                 names: Mapping[str, str] | None = None) -> None:
        from mqtool.io.outputs import OutputDir

        self.out = OutputDir(outdir, force)
        self.created = not Path(outdir).exists()
        self._previous(force)
        self.custody = custody
        self.names = dict(names or {})  # a spooled copy -> the name it stands for (stdin)
        self.sources: list[str] = []
        self.written: list[Carved] = []

    def _previous(self, force: bool) -> None:
        """A directory that holds a carve already: refused at once without ``force``; with
        it, the files its manifest lists go (a new carve is never mixed with an old one)."""
        from mqtool.errors import OutputExistsError

        old = self.out.root / MANIFEST
        if not old.is_file():
            return
        if not force:
            raise OutputExistsError(f"{old} exists: {self.out.root} holds a carve already "
                                    "(--force replaces it)")
        try:
            hits = json.loads(old.read_text(encoding="utf-8")).get("hits") or []
        except (OSError, ValueError, AttributeError):
            hits = []
        for h in hits:
            name = h.get("file") if isinstance(h, Mapping) else None
            if isinstance(name, str) and _CARVED.fullmatch(name):
                with contextlib.suppress(OSError):
                    (self.out.root / name).unlink()
        with contextlib.suppress(OSError):
            old.unlink()

    def add(self, source: str, hits: Iterable[Found],
            progress: Callable[[Carved], None] | None = None) -> Iterator[Carved]:
        """Carve each hit of the image ``source`` (a file) as it comes; yields what was
        written."""
        from mqtool.io.inputs import open_regular

        name = self.names.get(source, source)
        self.sources.append(name)
        with open_regular(source) as f:
            for hit in hits:
                carved = self._one(f, hit, name)
                self.written.append(carved)
                if self.custody is not None:
                    self.custody.add_output(carved.file, carved.size, carved.sha256)
                if progress is not None:
                    progress(carved)
                yield carved

    def _one(self, f: IO[bytes], hit: Found, source: str) -> Carved:
        name = file_name(len(self.written) + 1, hit)
        h = Hasher()
        with self.out.create(name) as dst:
            f.seek(hit.offset)
            left = hit.length
            while left > 0:
                block = f.read(min(left, 1 << 20))
                if not block:
                    break
                h.update(block)
                dst.write(block)
                left -= len(block)
        return Carved(hit, name, h.size, h.hexdigest(), source)

    def finish(self) -> list[Carved]:
        """Write ``manifest.json`` (whole or not at all); returns every hit carved."""
        several = len(self.sources) > 1
        doc: dict[str, Any] = ({"sources": self.sources} if several else
                               {"source": self.sources[0] if self.sources else ""})
        doc["hits"] = [{**({"source": c.source} if several else {}), **c.to_json()}
                       for c in self.written]
        if self.custody is not None:
            doc["custody"] = self.custody.finish().to_json()
        with self.out.create(MANIFEST, binary=False) as m:
            m.write(json.dumps(doc, indent=1) + "\n")
        return self.written

    def discard(self) -> None:
        """Remove the files this run carved (and the directory, when it made it)."""
        for c in self.written:
            with contextlib.suppress(OSError):
                (self.out.root / c.file).unlink()
        if self.created:
            with contextlib.suppress(OSError):
                self.out.root.rmdir()


def carve(source: str, outdir: str, hits: Iterable[Found], *, force: bool = False,
          custody: Custody | None = None,
          progress: Callable[[Carved], None] | None = None) -> list[Carved]:
    """Write each hit of ``source`` (a file) into ``outdir`` as its own file, whole or not at
    all, then ``manifest.json`` (``CarveDir``). Returns what was written."""
    out = CarveDir(outdir, force, custody)
    try:
        for _carved in out.add(source, hits, progress):
            pass
        return out.finish()
    except BaseException:
        out.discard()
        raise


def summary_heading() -> str:
    """The heading of ``summary_line``'s columns."""
    return (f"{'offset':<12} {'(decimal)':>12} {'length':>9} {'format':<14} {'conf':<4}  "
            "summary")


def summary_line(hit: Found) -> str:
    """One line per hit: offset (hex and decimal), length, format, confidence, summary."""
    return (f"0x{hit.offset:010x} {hit.offset:>12} {hit.length:>9} {hit.format:<14} "
            f"{hit.confidence:.2f}  {hit.summary}")


@lru_cache(maxsize=1)
def hyperscan_version() -> str:
    import hyperscan

    return str(getattr(hyperscan, "__version__", "")) or "unknown"


def carved_paths(outdir: str) -> list[Path]:
    """The carved files a manifest lists, in order (for ``decode auto`` / ``messages``)."""
    doc = json.loads((Path(outdir) / MANIFEST).read_text())
    return [Path(outdir) / h["file"] for h in doc.get("hits", [])]
