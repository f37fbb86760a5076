"""Which layout decodes which image: the stream's global format field tables, the user's
format buffers, FDTs — their precedence, and what disagrees, reported per file.

Precedence (``prefer="stream"``, the default): a GFFT seen in the input before an image is
what the server used for it, so it wins; a format buffer given for the file is used where
no GFFT came first; an FDT that lays out the whole file (MU/PE occurrences given) is used
where neither is. ``prefer="user"`` puts the format buffer first. An FDT also names the
columns of format buffers (long names, standard lengths and formats). A GFFT replaces the
previous one of its file from its position on (a refreshed table).

Disagreements are reported, never resolved silently: a format buffer and a GFFT of the same
file that lay out different values, a file whose stream carries two global format ids.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from mqtool.formats.urb.fdt import Fdt
from mqtool.formats.urb.formatbuffer import Given, layout_for
from mqtool.formats.urb.typed.gfft import Gfft
from mqtool.formats.urb.typed.layout import SHORT_NAME, LayoutError, RecordLayout

Key = tuple[int, int]  # (database id, file number)
Position = tuple[int, int]  # (input file's index, byte offset)


@dataclass
class _FileSources:
    stream: list[tuple[Position, Gfft]] = field(default_factory=list)
    user: RecordLayout | None = None
    fdt: Fdt | None = None
    fdt_layout: RecordLayout | None = None
    used: dict[str, int] = field(default_factory=dict)  # layout source -> images decoded


@dataclass
class Layouts:
    """Every layout source, by file; ``for_image`` picks one, ``report`` tells."""

    prefer: str = "stream"
    files: dict[Key, _FileSources] = field(default_factory=dict)
    fdts: list[Fdt] = field(default_factory=list)  # FDTs without dbid/fnr: every file
    problems: list[str] = field(default_factory=list)  # GFFTs that gave no layout, ...

    @classmethod
    def of(cls, gffts: Iterable[tuple[Position, Gfft | LayoutError]] = (), given: Iterable[Given] = (),
           fdts: Iterable[Fdt] = (), prefer: str = "stream") -> Layouts:
        if prefer not in ("stream", "user"):
            raise LayoutError("layouts", f"prefer {prefer!r}: stream or user")
        self = cls(prefer)
        for f in fdts:
            if f.dbid is None or f.fnr is None:
                self.fdts.append(f)
            else:
                self._file((f.dbid, f.fnr)).fdt = f
        for g in given:
            fs = self._file((g.dbid, g.fnr))
            if fs.user is not None:
                raise LayoutError(g.source, "a second format buffer for the same file")
            fs.user = layout_for(g, fs.fdt or self._any_fdt())
        for key, fs in self.files.items():
            if fs.fdt is not None and fs.user is None:
                try:
                    fs.fdt_layout = fs.fdt.layout()
                except LayoutError as e:
                    self.problems.append(f"file {key[0]}:{key[1]}: {e.reason} (the FDT names columns only)")
        for pos, table in gffts:
            self.add(pos, table)
        return self

    def _file(self, key: Key) -> _FileSources:
        return self.files.setdefault(key, _FileSources())

    def _any_fdt(self) -> Fdt | None:
        return self.fdts[0] if self.fdts else None

    def add(self, pos: Position, g: Gfft | LayoutError) -> None:
        """A GFFT met in the input at ``pos`` (in input order), or why it gave no layout."""
        if isinstance(g, LayoutError):
            self.problems.append(str(g).removeprefix("urb: "))
            return
        fs = self._file((g.dbid, g.fnr))
        fs.stream.append((pos, g))
        fs.stream.sort(key=lambda pg: pg[0])

    def for_image(self, key: Key, pos: Position) -> RecordLayout | None:
        """The layout of an image of file ``key`` at ``pos``."""
        fs = self.files.get(key)
        if fs is None:
            return None
        stream = None
        if fs.stream:
            k = bisect_right([p for p, _ in fs.stream], pos) - 1
            stream = fs.stream[k][1].layout if k >= 0 else None
        order = (stream, fs.user) if self.prefer == "stream" else (fs.user, stream)
        return next((x for x in (*order, fs.fdt_layout) if x is not None), None)

    def assign(self, key: Key, files: np.ndarray, offsets: np.ndarray) -> list[RecordLayout | None]:
        """``for_image`` for many images of one file at once (input file indices, offsets)."""
        fs = self.files.get(key)
        if fs is None:
            return [None] * len(files)
        at = np.zeros(len(files), np.int64) - 1
        if fs.stream:
            marks = np.array([p for p, _ in fs.stream], np.int64).reshape(-1, 2)
            at = np.searchsorted(marks[:, 0] * (1 << 40) + marks[:, 1],
                                 files.astype(np.int64) * (1 << 40) + offsets, side="right") - 1
        choices = [self.for_image(key, p) for p, _ in fs.stream] + [self.for_image(key, (-1, -1))]
        return [choices[int(k)] for k in at]

    def count(self, layout: RecordLayout, n: int) -> None:
        key = (layout.dbid or 0, layout.fnr or 0)
        fs = self.files.get(key)
        if fs is not None:
            fs.used[layout.source] = fs.used.get(layout.source, 0) + n

    def report(self) -> list[str]:
        """One line per file: its sources, what was used, what disagrees."""
        lines = list(self.problems)
        for (dbid, fnr), fs in sorted(self.files.items()):
            have = [f"GFFT {g.gfid} at {g.file or 'input'} offset {g.offset}" for _, g in fs.stream]
            if fs.user is not None:
                have.append(fs.user.source)
            if fs.fdt is not None:
                have.append(fs.fdt.source)
            used = ", ".join(f"{src}: {n} image{'s' if n != 1 else ''}" for src, n in fs.used.items())
            lines.append(f"file {dbid}:{fnr}: sources {'; '.join(have) or 'none'}"
                         f"{'; used ' + used if used else ''}")
            lines += [f"file {dbid}:{fnr}: {c}" for c in self.conflicts(fs)]
        return lines

    def conflicts(self, fs: _FileSources) -> list[str]:
        out = []
        gfids = sorted({g.gfid for _, g in fs.stream})
        if len(gfids) > 1:
            out.append(f"the stream carries {len(gfids)} global formats ({', '.join(gfids)}); each "
                       f"image takes the last table before it")
        if fs.user is not None:
            for _, g in fs.stream:
                if g.layout.signature() != fs.user.signature():
                    winner = "the GFFT" if self.prefer == "stream" else "the format buffer"
                    out.append(f"GFFT {g.gfid} at offset {g.offset} and {fs.user.source} lay out "
                               f"different values ({_difference(g.layout, fs.user)}); {winner} is used")
                    break
        if fs.fdt is not None and fs.user is not None:
            unknown = [s[0] for s in fs.user.signature() if s[1] not in ("X",) and
                       fs.fdt.get(s[0].removesuffix("C")[:SHORT_NAME]) is None]
            if unknown:
                out.append(f"{fs.user.source} names fields the {fs.fdt.source} does not have: "
                           f"{', '.join(sorted(set(unknown)))}")
        return out


def _difference(a: RecordLayout, b: RecordLayout) -> str:
    sa, sb = a.signature(), b.signature()
    for k, (x, y) in enumerate(zip(sa, sb, strict=False)):
        if x != y:
            (na, fa, la, _), (nb, fb, lb, _) = x, y
            return f"value {k + 1}: {na} {fa}{la} vs {nb} {fb}{lb}"
    return f"{len(sa)} vs {len(sb)} values"
