"""Inputs as lazy lists of units: what the unit list shows and the other panes load.

Three kinds, one small protocol (``len``, ``row``, ``load``, ``advance``, ``locate``):

* ``BlobSource``: one message or record, or a small file of several units (binary or dump
  text), decoded at once with the codec the registry picks (or ``--format``).
* ``ExtractSource``: a CSQ1LOGP extract file, framed a slice at a time by
  ``formats.csq1logp.framing`` (offsets in compact arrays) and decoded one record at a time
  from a memory map, so a 1 GB file opens at once and scrolls without decoding everything.
* ``QueueDumpSource``: a queue dump read message by message through
  ``registry.decode_messages`` (SAS headers give later messages their role); decoded units
  are cached up to a byte budget, an evicted one is decoded again from the start.

Offsets are those the decoders give: absolute in the input for blobs and extracts, within
the message body for queue dumps. A unit's line in the list (``Row``) says where it is,
its length and what it is: ``api.unit_info``, the fields its codec names (Wireshark's Info
column); an extract's records are decoded for it only when their line is shown.
"""

from __future__ import annotations

import bisect
import io
import mmap
import os
import time
from array import array
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from mqtool.errors import EmptyInputError, InputError, MqtoolError
from mqtool.model import Decoded, Problem, shift_unit

if TYPE_CHECKING:
    from mqtool.io.inputs import Input
    from mqtool.io.window import WindowRequest

CACHE_BYTES = 64 << 20  # decoded queue-dump units kept in memory
TEXT_LIMIT = 64 << 20  # larger files are only looked at for a CSQ1LOGP extract


@dataclass(frozen=True)
class Row:
    """One line of the unit list: ``mark`` (``!`` errors, ``?`` problems, blank), where the
    unit is (its offset, or its message in a queue dump), its length, what it is."""

    mark: str
    where: str
    length: int
    info: str


@dataclass
class Loaded:
    """One unit ready to show: the decoded unit, its own bytes, their code page."""

    unit: Decoded
    data: bytes
    codepage: str = "cp037"

    @property
    def origin(self) -> int:
        """The offset of ``data[0]`` in the decoders' coordinates."""
        return self.unit.offset


class Source(Protocol):
    description: str
    done: bool  # every unit is known
    where_title: str  # what Row.where is: "Offset" or "Message"
    where_width: int  # the longest Row.where

    def __len__(self) -> int: ...
    def row(self, i: int) -> Row: ...
    def load(self, i: int) -> Loaded: ...
    def advance(self, seconds: float) -> None: ...
    def locate(self, offset: int) -> int | None: ...


def mark(unit: Decoded) -> str:
    """``!`` a unit with errors, ``?`` one with problems, blank otherwise."""
    return "!" if unit.errors else "?" if unit.problems else " "


def unit_row(unit: Decoded, where: str, length: int | None = None) -> Row:
    """The list line of a decoded unit."""
    from mqtool import api

    return Row(mark(unit), where, unit.length if length is None else length, api.unit_info(unit))


def offset_text(offset: int, digits: int = 4) -> str:
    return f"X'{offset:0{digits}X}'"


def unit_codepage(unit: Decoded, default: str = "cp037") -> str:
    cp = unit.attrs.get("codepage")
    return str(cp) if cp else default


def failed_unit(fmt: str, offset: int, length: int, error: MqtoolError) -> Decoded:
    """A unit standing for bytes a decoder gave up on, with the error it raised."""
    unit = Decoded(fmt, offset, length, title=f"not decoded: {fmt} at offset X'{offset:04X}'")
    where = getattr(error, "offset", offset)
    unit.errors.append(Problem(getattr(error, "path", ""), int(where), getattr(error, "reason", str(error))))
    return unit


# --------------------------------------------------------------------------- blobs


class BlobSource:
    """All units of one blob, decoded at once (the input is small)."""

    done = True
    where_title = "Offset"

    def __init__(self, data: bytes, fmt: str | None, options: dict[str, Any], description: str,
                 base: int = 0) -> None:
        self.data = data
        self.base = base  # where ``data`` starts in the input (--offset): units are shifted by it
        self.description = description
        self.units = self._decoded(data, fmt, options)
        for u in self.units:
            shift_unit(u, base)
        self._starts = [u.offset for u in self.units]
        digits = max(4, len(f"{base + len(data):X}"))
        self.rows = [unit_row(u, offset_text(u.offset, digits)) for u in self.units]
        self.where_width = max(len(r.where) for r in self.rows)

    @staticmethod
    def _decoded(data: bytes, fmt: str | None, options: dict[str, Any]) -> list[Decoded]:
        """The units of ``data``: a failed unit where the decoder gave up, a unit with a
        problem where there is no codec or no unit."""
        if fmt is None:
            unit = Decoded("unknown", 0, len(data), title="no codec recognises these bytes")
            unit.problems.append(Problem("", 0, f"no codec recognises these {len(data)} bytes"))
            return [unit]
        from mqtool import registry

        units: list[Decoded] = []
        end = 0
        try:
            for unit in registry.codec(fmt).decode(data, **options):
                units.append(unit)
                end = max(end, unit.offset + unit.length)
        except MqtoolError as e:  # partial units kept, the rest is one failed unit
            units.append(failed_unit(fmt, end, len(data) - end, e))
        if not units:
            unit = Decoded(fmt, 0, len(data), title=f"{fmt}: no units")
            unit.problems.append(Problem("", 0, f"the {fmt} decoder found no unit in {len(data)} bytes"))
            units.append(unit)
        return units

    def __len__(self) -> int:
        return len(self.units)

    def row(self, i: int) -> Row:
        return self.rows[i]

    def load(self, i: int) -> Loaded:
        u = self.units[i]
        at = u.offset - self.base
        return Loaded(u, self.data[at:at + u.length], unit_codepage(u))

    def advance(self, seconds: float) -> None:
        return None

    def locate(self, offset: int) -> int | None:
        k = bisect.bisect_right(self._starts, offset) - 1
        for j in range(max(k, 0), len(self.units)):
            u = self.units[j]
            if u.offset <= offset < u.offset + max(u.length, 1):
                return j
            if u.offset > offset:
                break
        return None


# --------------------------------------------------------------------------- CSQ1LOGP extracts


class ExtractSource:
    """A CSQ1LOGP extract file: framed lazily, each record decoded when shown (its list
    line too: the lines of the last ``ROWS_KEPT`` records shown are kept)."""

    where_title = "Offset"
    ROWS_KEPT = 4096

    def __init__(self, path: str, framing: str = "auto", codepage: str = "cp037",
                 initial: float = 0.05) -> None:
        from mqtool import api

        self.path, self.codepage = path, codepage
        self.size = os.path.getsize(path)
        self.framing, reason, self._frames = api.csq1logp_frames(path, framing, codepage)
        self.description = f"{path}: CSQ1LOGP extract, {self.framing.upper()} framing ({reason})"
        self._file = open(path, "rb")  # noqa: SIM115 - held for the memory map's lifetime
        self._map = mmap.mmap(self._file.fileno(), 0, access=mmap.ACCESS_READ) if self.size else b""
        self.offsets = array("q")  # about 17 bytes a record (25 with BDW framing)
        self.lengths = array("q")
        self.hdrs = array("b")
        self.blocks = array("q")  # BDW framing only
        self.bad: dict[int, Any] = {}  # index -> Frame of a bad span (its buffer dropped)
        self.rows: OrderedDict[int, Row] = OrderedDict()
        self.digits = max(4, len(f"{self.size:X}"))
        self.where_width = self.digits + 3
        self.done = False
        self.advance(initial)

    def __len__(self) -> int:
        return len(self.offsets)

    @property
    def scanned(self) -> int:
        """Bytes of the file framed so far."""
        if self.done or not self.offsets:
            return self.size if self.done else 0
        return self.offsets[-1] + self.lengths[-1]

    def advance(self, seconds: float) -> None:
        """Frame records for about ``seconds`` (at least one batch)."""
        if self.done:
            return
        stop = time.perf_counter() + seconds
        offs, lens, hdrs, blocks = self.offsets, self.lengths, self.hdrs, self.blocks
        blocked = self.framing == "bdw"
        while True:
            for _ in range(512):
                fr = next(self._frames, None)
                if fr is None:
                    self.done = True
                    return
                if fr.error:
                    self.bad[len(offs)] = fr._replace(buf=b"")
                offs.append(fr.offset)
                lens.append(fr.length)
                hdrs.append(fr.hdr)
                if blocked:
                    blocks.append(fr.block)
            if time.perf_counter() >= stop:
                return

    def row(self, i: int) -> Row:
        kept = self.rows.get(i)
        if kept is not None:
            self.rows.move_to_end(i)
            return kept
        where = offset_text(self.offsets[i], self.digits)
        fr = self.bad.get(i)
        made = (Row("!", where, self.lengths[i], f"{fr.error}: {fr.detail}") if fr is not None
                else unit_row(self.load(i).unit, where))
        self.rows[i] = made
        if len(self.rows) > self.ROWS_KEPT:
            self.rows.popitem(last=False)
        return made

    def load(self, i: int) -> Loaded:
        from mqtool import api

        off, n = self.offsets[i], self.lengths[i]
        fr = self.bad.get(i)
        if fr is not None:
            unit = Decoded("csq1logp", off, n, attrs={"framing": self.framing, "rec_no": i,
                                                      "codepage": self.codepage},
                           title=f"Bad span {i} at offset X'{off:04X}', {n} bytes")
            unit.errors.append(Problem(fr.path, fr.offset, f"{fr.error}: {fr.detail}"))
        else:
            try:
                unit = api.csq1logp_record(self._map, off, n, self.hdrs[i], self.codepage,
                                           framing=self.framing, rec_no=i,
                                           block=self.blocks[i] if self.blocks else -1)
            except MqtoolError as e:
                unit = failed_unit("csq1logp", off, n, e)
        return Loaded(unit, bytes(self._map[off:off + n]), self.codepage)

    def locate(self, offset: int) -> int | None:
        """The record holding ``offset``, among those framed so far (``scanned``)."""
        k = bisect.bisect_right(self.offsets, offset) - 1
        if k >= 0 and offset < self.offsets[k] + max(self.lengths[k], 1):
            return k
        return None

    def close(self) -> None:
        if isinstance(self._map, mmap.mmap):
            self._map.close()
        self._file.close()


# --------------------------------------------------------------------------- queue dumps


class QueueDumpSource:
    """The messages of a queue dump, decoded one at a time as the list grows."""

    where_title = "Message"
    where_width = len("msg 99999")

    def __init__(self, path: str, kind: str | None = None, data: bytes | None = None) -> None:
        self.path, self.kind, self.stdin = path, kind, data
        self.entries: list[Row] = []  # the list line of each unit
        self.cache: OrderedDict[int, Loaded] = OrderedDict()
        self.cached_bytes = 0
        self.done = False
        self._gen = self._units()
        self.description = f"{path}: queue dump"
        self.advance(0.05)
        if self.dump.format:
            self.description = f"{path}: {self.dump.format} queue dump"

    def _open(self) -> Any:
        from mqtool import api

        stream = io.BytesIO(self.stdin) if self.stdin is not None else None
        return api.messages(self.path, self.kind, stream=stream)

    def _units(self) -> Iterator[Loaded]:
        """Every unit of the dump in order; a reader error ends the list with an error unit."""
        from mqtool import api, registry

        self.dump = dump = self._open()
        current: list[Any] = [None]

        def messages() -> Iterator[Any]:
            for msg in dump:
                current[0] = msg
                yield msg

        try:
            for unit, body in registry.decode_messages(messages()):
                msg = current[0]
                cp = unit.attrs.get("codepage") or api.body_codepage(
                    msg.ccsid if msg else None, msg.encoding if msg else None)
                yield Loaded(unit, body, str(cp))
        except MqtoolError as e:
            yield Loaded(failed_unit("queue-dump", 0, 0, e), b"")
            return
        if dump.count == 0:
            unit = Decoded("queue-dump", 0, 0, title=f"no messages in this {dump.format} dump")
            unit.errors.append(Problem("", 0, f"{self.path}: no messages in this {dump.format} dump"))
            yield Loaded(unit, b"")

    def __len__(self) -> int:
        return len(self.entries)

    def advance(self, seconds: float) -> None:
        if self.done:
            return
        stop = time.perf_counter() + seconds
        while True:
            loaded = next(self._gen, None)
            if loaded is None:
                self.done = True
                return
            i = len(self.entries)
            msg = loaded.unit.attrs.get("message")
            self.entries.append(unit_row(loaded.unit, f"msg {msg}" if msg is not None else "dump",
                                         len(loaded.data)))
            self._keep(i, loaded)
            if time.perf_counter() >= stop:
                return

    def _keep(self, i: int, loaded: Loaded) -> None:
        self.cache[i] = loaded
        self.cache.move_to_end(i)
        self.cached_bytes += len(loaded.data)
        while self.cached_bytes > CACHE_BYTES and len(self.cache) > 1:
            _, old = self.cache.popitem(last=False)
            self.cached_bytes -= len(old.data)

    def row(self, i: int) -> Row:
        return self.entries[i]

    def load(self, i: int) -> Loaded:
        while i >= len(self.entries) and not self.done:
            self.advance(0.05)
        hit = self.cache.get(i)
        if hit is not None:
            self.cache.move_to_end(i)
            return hit
        for k, loaded in enumerate(self._units_again()):  # evicted: decode again from the start
            if k == i:
                self._keep(i, loaded)
                return loaded
        raise InputError(f"{self.path}: unit {i + 1} is no longer in the dump")

    def _units_again(self) -> Iterator[Loaded]:
        saved = self.dump
        try:
            yield from self._units()
        finally:
            self.dump = saved

    def locate(self, offset: int) -> int | None:
        return None  # offsets are per message body


# --------------------------------------------------------------------------- opening


def open_source(path: str, *, hex_text: bool = False, fmt: str | None = None,
                framing: str = "auto", codepage: str = "cp037",
                window: WindowRequest | None = None) -> Source:
    """The input as a lazy unit list: queue dump, CSQ1LOGP extract, or a decoded blob.

    ``fmt`` forces a codec (``auto`` or None: the registry's best guess); ``window``
    (``--offset`` / ``--length``): those bytes of the input, as one blob whose units keep
    the input's offsets. Raises ``InputError`` for unreadable inputs.
    """
    from mqtool import registry
    from mqtool.io.inputs import missing_input, open_input

    forced = None if fmt in (None, "auto") else registry.codec(str(fmt)).name
    if window:
        from mqtool import api

        data = api.window_bytes(path, hex_text, "view", window)
        if not data:
            raise EmptyInputError("view", path)
        return _blob(path, data, forced, False, framing, codepage, window.start)
    if path != "-" and not os.path.exists(path):
        raise missing_input(path)
    inp = open_input(path)
    if inp.is_dir:
        if forced is not None or hex_text:
            raise InputError(f"{path}: is a directory (only queue dumps can be directories)")
        return QueueDumpSource(path)
    if inp.size == 0:
        inp.close()
        raise EmptyInputError("view", path)
    kind = None if hex_text or forced is not None else registry.sniff_dump(inp.head)
    if kind is not None:
        with inp:  # stdin's messages are held: an evicted unit is decoded again
            return QueueDumpSource(path, kind, inp.read() if inp.is_stdin else None)
    with inp:
        extract = _extract(inp, forced, hex_text, framing, codepage)
        if extract is not None:
            return extract
        data = inp.read()
    return _blob(path, data, forced, hex_text, framing, codepage)


def _extract(inp: Input, forced: str | None, hex_text: bool, framing: str,
             codepage: str) -> ExtractSource | None:
    """A regular file that is a CSQ1LOGP extract (or forced to be one, or too large to be
    anything else the view reads), framed lazily."""
    from mqtool import registry

    if inp.is_stdin or hex_text or forced not in (None, "csq1logp"):
        return None
    big = (inp.size or 0) > TEXT_LIMIT
    if not (forced or big or registry.codec("csq1logp").detect(inp.head) is not None):
        return None
    try:
        return ExtractSource(inp.path, framing, codepage)
    except MqtoolError:
        if forced or not big:
            raise
        raise InputError(f"{inp.path}: larger than {TEXT_LIMIT >> 20} MB and not a CSQ1LOGP "
                         "extract; mqtool view reads large inputs only as extracts or queue "
                         "dumps") from None


def _blob(path: str, data: bytes, forced: str | None, hex_text: bool, framing: str,
          codepage: str, base: int = 0) -> BlobSource:
    """A small input decoded at once with the codec forced or the one that recognises it."""
    from mqtool import registry
    from mqtool.io.inputs import as_text
    from mqtool.io.undump import undump

    if hex_text:
        data = undump(as_text(data) or data.decode("utf-8", "replace"))
    options: dict[str, Any] = {}
    name, how = forced, "forced"
    if forced is None:
        found = registry.identify(data, text_kinds=not hex_text)
        choice = registry.best_codec(found)
        name = choice.format if choice else None
        how = f"{choice.confidence:.2f}: {choice.reason}" if choice else "no codec recognises it"
        if choice is not None:
            options = dict(choice.options)
            if options.pop("hex", False):
                data = undump(data.decode("utf-8"))
        elif any(d.format == registry.DUMP_TEXT for d in found):  # dump text of unknown bytes
            data = undump(data.decode("utf-8"))
            how = "hex dump text; no codec recognises the bytes"
    if name == "csq1logp":
        options.setdefault("framing", framing)
        options.setdefault("codepage", codepage)
    desc = f"{'stdin' if path == '-' else path}: {name or 'unknown'} ({how})"
    return BlobSource(data, name, options, desc, base)
