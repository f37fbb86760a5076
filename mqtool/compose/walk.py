"""The one walker over a ``Chain``: elements by their keys and lengths, trailing data placed by
its fields, repeats, switches and nested records, counts checked, a format's hooks asked.

What the walk finds goes to a ``Sink``. ``TreeSink`` makes the span tree (``model.Element``
with nested children, problems and errors on the ``Decoded``); a format's fast sinks make
JSON values or listing lines straight from generated per-layout builders and give up
(``Decline``) at the first thing the tree would report, so a unit is either regular and
fast or decoded by the tree sink. Both read the same declaration through the same walk.

Hooks are the format's judgement, registered by name (``Hooks``):

* record hooks (``Record.hooks``): ``f(walk, owner)``, after the record is read (``Owner``:
  its sink handle, values, path, layout and offset);
* content hooks (``Hook``): ``f(walk, values, start, stop) -> bool | None``: None when the
  content does not describe the data, True when it must (its faults are errors), False
  when it may (data it does not fit stays bytes);
* code-page hooks (``Trailing.codepage``): ``f(walk, values) -> codec | None``;
* the chain's ``finish`` hook: ``f(walk)`` when the chain ends, when other hooks remembered
  something (``walk.memo``) to judge.

``walk.memo`` keeps what hooks remember between elements (the current transaction's code page).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from mqtool.compose import (
    At,
    Chain,
    Content,
    Count,
    Hook,
    Nest,
    Own,
    Record,
    Repeat,
    Switch,
    Trailing,
    When,
    key_text,
)
from mqtool.errors import DecodeError
from mqtool.layout import Layout, meaning_of
from mqtool.model import Decoded, Element, Problem

RAW_SHOWN = 256  # bytes of unrecognised input kept in a RAW / UNKNOWN element
new = tuple.__new__  # a NamedTuple made without its Python-level __new__ (the hot path)

Resolve = Callable[[str], Layout]
Hooks = Mapping[str, Callable[..., Any]]


class Decline(Exception):  # noqa: N818 - a signal, not an error
    """A fast sink gives up on a unit: the tree sink decodes it and says why."""


class Sink(Protocol):
    """Where a walk puts what it finds. ``parent`` / ``handle`` are the sink's own objects
    (None: the unit's top level); ``values`` are field values by name. ``paths``: the sink
    needs each element's path (a fast sink, which declines every problem, does not);
    ``codepages``: it needs the data's code page."""

    paths: bool
    codepages: bool

    def record(self, parent: Any, etype: str, layout: Layout, pos: int, length: int, path: str,
               title: str = "") -> tuple[Any, Mapping[str, Any]]: ...

    def cut(self, layout: Layout, pos: int, length: int, path: str) -> None: ...

    def data(self, handle: Any, name: str, start: int, stop: int, codepage: str | None) -> None: ...

    def unknown(self, layout: Layout, pos: int, head: int, stop: int, path: str,
                title: str) -> None: ...

    def rest(self, pos: int, stop: int, title: str) -> None: ...

    def gather(self, parent: Any, etype: str, start: int, stop: int, path: str, title: str) -> Any: ...

    def item(self, gathered: Any, layout: Layout, pos: int, path: str) -> Mapping[str, Any]: ...

    def attach(self, parent: Any, gathered: Any, summary: Mapping[str, Any]) -> None: ...

    def problem(self, path: str, offset: int, reason: str) -> None: ...

    def error(self, path: str, offset: int, reason: str) -> None: ...


# --------------------------------------------------------------------------- the plan


@dataclass(frozen=True)
class Planned:
    """A record of a chain in one variant: its layouts and their sizes."""

    record: Record
    layouts: tuple[Layout, ...]
    sizes: tuple[int, ...]
    prefix: str  # the path component (``urbi``)
    by_size: Mapping[int, Layout]  # the layout of each generation by its size
    data_length: str  # the field the length of its data is in (its own length field if none)
    counted: bool  # a count looks at it
    opens: bool  # it opens a count
    type: str
    generations: bool  # more than one layout, chosen by the length


class Plan:
    """A chain's declaration resolved for one variant (``resolve`` names its layouts)."""

    def __init__(self, chain: Chain, resolve: Resolve, codepage: str) -> None:
        if not isinstance(chain.key, At):
            raise TypeError("a walked chain's key is read with At (a Previous key: a later port)")
        self.chain, self.resolve, self.codepage = chain, resolve, codepage
        head = resolve(chain.key.layout)
        key = head.field(chain.key.field)
        self.key_at, self.key_len = head.offset_of(chain.key.field), key.size or 0
        lenf = resolve(chain.length.layout).field(chain.length.field)
        self.len_at = lenf.start or 0
        self.len_unpack = struct.Struct(f"{lenf.endian}{lenf.fmt}").unpack_from
        self.head = head.size or 0
        self.unknown = resolve(chain.unknown) if chain.unknown else head
        self.actions = tally_actions(chain.counts)
        self.by_key: dict[Any, Planned] = {}
        for rec in chain.records.values():
            layouts = tuple(resolve(n) for n in rec.layouts)
            sizes = tuple(x.size or 0 for x in layouts)
            planned = Planned(rec, layouts, sizes, rec.type.lower(),
                              {z: x for z, x in reversed(list(zip(sizes, layouts, strict=True)))},
                              rec.trailing.length if rec.trailing else rec.length,
                              rec.type in self.actions,
                              any(op == "open" for _c, op in self.actions.get(rec.type, ())),
                              rec.type, len(layouts) > 1)
            self.by_key[self.encoded(key_text(rec, resolve))] = planned
        self.stops = {self.encoded(s) for s in chain.stops}

    def encoded(self, key: Any) -> Any:
        """A key as the walk reads it: text in the variant's code page."""
        return key.encode(self.codepage) if isinstance(key, str) else key

    def peek(self, at: At, data: bytes, pos: int, stop: int) -> Any:
        """The value of ``at`` read at ``pos``; None when it does not fit before ``stop``."""
        f = self.resolve(at.layout).field(at.field)
        a = pos + (f.start or 0)
        if f.size is None or a + f.size > stop:
            return None
        raw = bytes(data[a:a + f.size])
        if f.fmt and f.endian:
            return f.convert(struct.unpack(f.endian + f.fmt, raw)[0])
        return f.convert(raw)


# --------------------------------------------------------------------------- counts


class Open(NamedTuple):
    """A parent whose count is running."""

    handle: Any
    values: Mapping[str, Any]
    path: str
    at: int  # where the parent starts
    layout: Layout | None


def tally_actions(counts: tuple[Count, ...]) -> dict[str, tuple[tuple[Count, str], ...]]:
    """What each element type does to each count, in order: ``break`` it (uncheckable),
    ``close`` it (a new parent), ``end`` it (a closer), ``count`` one child, ``open`` it."""
    types = {t for c in counts for t in (c.parent, c.child, *c.closers, *c.breaks)}
    out: dict[str, tuple[tuple[Count, str], ...]] = {}
    for t in sorted(types):
        ops: list[tuple[Count, str]] = []
        for c in counts:
            if t in c.breaks:
                ops.append((c, "break"))
            if t == c.parent or t in c.closers:
                ops.append((c, "end" if t in c.closers else "close"))
            elif t == c.child:
                ops.append((c, "count"))
            if t == c.parent:
                ops.append((c, "open"))
        out[t] = tuple(ops)
    return out


class Tally:
    """The counts of a chain (``Count``), kept element by element: the one statement of
    which element opens, closes, counts and breaks a count, for the walker and the builder."""

    __slots__ = ("actions", "counts", "n", "open")

    def __init__(self, counts: tuple[Count, ...],
                 actions: Mapping[str, tuple[tuple[Count, str], ...]] | None = None) -> None:
        self.counts = counts
        self.actions = tally_actions(counts) if actions is None else actions
        self.open: dict[str, Open] = {}  # count field -> its running parent
        self.n: dict[str, int] = {}  # count field -> children so far (-1: uncheckable)

    def see(self, etype: str, state: Open | None) -> list[tuple[Count, Open, int, bool]]:
        """Account for one element (``state``: it, when it opens a count); returns the counts
        it closes: (count, parent, children, ended by a closer)."""
        closed = []
        n, running = self.n, self.open
        for c, op in self.actions.get(etype, ()):
            f = c.field
            if op == "count":
                if f in running and n[f] >= 0:
                    n[f] += 1
            elif op == "open":
                running[f], n[f] = state, 0  # type: ignore[assignment]
            elif f in running:
                if op == "break":
                    n[f] = -1
                else:
                    closed.append((c, running.pop(f), n[f], op == "end"))
        return closed

    def end(self) -> list[tuple[Count, Open, int, bool]]:
        return [(c, self.open.pop(c.field), self.n[c.field], False) for c in self.counts
                if c.field in self.open]


# --------------------------------------------------------------------------- the walk


class Owner(NamedTuple):
    """The record whose data is being read, for content and its messages."""

    handle: Any
    values: Mapping[str, Any]
    path: str
    layout: Layout
    pos: int
    trailing_length: str  # the field the data's length is in (named in messages)


class Walk:
    """One walk of a chain over ``data`` into ``sink``. ``bound`` is the path of the field
    that sets where the chain ends (``urbh.urbhlent``), ``unit`` what the chain is in."""

    __slots__ = ("bound", "counts", "data", "hooks", "memo", "options", "origin", "paths", "plan",
                 "previous", "sink", "tally", "unit")

    def __init__(self, plan: Plan, data: bytes, sink: Sink, hooks: Hooks | None = None,
                 options: Mapping[str, Any] | None = None, bound: str = "", unit: str = "unit",
                 origin: int = 0) -> None:
        self.plan, self.data, self.sink, self.paths = plan, data, sink, sink.paths
        self.hooks: Hooks = hooks or {}
        self.options: Mapping[str, Any] = options or {}
        self.bound, self.unit, self.origin = bound, unit, origin
        self.memo: dict[Any, Any] = {}  # what hooks remember between elements
        self.counts: dict[str, int] = {}  # elements of each type so far
        self.previous: Mapping[str, Any] = {}  # the element before's values
        self.tally: Tally | None = None  # made when an element a count looks at comes

    def again(self, data: bytes, origin: int = 0) -> Walk:
        """This walk, ready for another unit (its plan, sink, hooks and options kept)."""
        self.data, self.origin = data, origin
        self.memo, self.counts, self.previous, self.tally = {}, {}, {}, None
        return self

    def problem(self, path: str, offset: int, reason: str) -> None:
        self.sink.problem(path, offset, reason)

    def error(self, path: str, offset: int, reason: str) -> None:
        self.sink.error(path, offset, reason)

    def run(self, pos: int, end: int, avail: int) -> int:
        """Walk from ``pos`` to ``end`` (declared) / ``avail`` (present); returns where it stopped."""
        p, data = self.plan, self.data
        head, key_at, key_end, len_at = p.head, p.key_at, p.key_at + p.key_len, p.len_at
        unpack, by_key, element = p.len_unpack, p.by_key, self._element
        while pos < avail:
            if avail - pos < head:
                self._rest(pos, end, avail)
                return avail
            key = bytes(data[pos + key_at:pos + key_end])  # a mapped input gives a view
            length = unpack(data, pos + len_at)[0]
            planned = by_key.get(key)
            if planned is None:
                if key in p.stops or not self._unknown(pos, key, length, avail):
                    return pos
                pos += length
                continue
            if length < head or pos + length > avail or pos + length > end:
                return self._cut(planned, pos, length, end, avail)
            element(planned, pos, length)
            pos += length
        self._finish()
        return pos

    def _count(self, etype: str) -> int:
        """The index of the next element of ``etype`` (counted)."""
        k = self.counts.get(etype, 0)
        self.counts[etype] = k + 1
        return k

    def _cut(self, planned: Planned, pos: int, length: int, end: int, avail: int) -> int:
        """An element whose length does not let the walk read it: its fields that are there
        are shown, with the error; returns where the walk stops."""
        rec = planned.record
        prefix = f"{planned.prefix}[{self._count(rec.type)}]"
        lenpath, at = f"{prefix}.{rec.length}", pos + self.plan.len_at
        if length < self.plan.head:
            what = "negative" if length < 0 else "zero" if length == 0 else f"less than {self.plan.head}"
            self.sink.cut(planned.layouts[0], pos, min(self.plan.head, avail - pos), prefix)
            self.error(lenpath, at, f"{rec.length} {length} is {what}: the walk cannot go on")
            stop = pos
        elif pos + length > end:
            self.sink.cut(planned.layouts[0], pos, min(length, avail - pos), prefix)
            self.error(lenpath, at, f"{rec.length} {length} runs past the end of the {self.unit} "
                                    f"(X'{pos + length:04X}' > {self._bound_name()} end X'{end:04X}')")
            stop = pos
        elif pos + length > avail:
            self.sink.cut(planned.layouts[0], pos, avail - pos, prefix)
            self.error(lenpath, at, f"{self.unit} truncated: the {rec.type} needs {length} bytes, "
                                    f"the input ends after {avail - pos}")
            stop = avail
        return stop

    def _bound_name(self) -> str:
        return self.bound.rsplit(".", 1)[-1]

    def _rest(self, pos: int, end: int, avail: int) -> None:
        n = avail - pos
        self.sink.rest(pos, avail, f"{n} bytes at offset X'{pos:04X}'")
        if avail < end:
            self.error(self.bound, avail, f"{self.unit} truncated: {self._bound_name()} says "
                                          f"{end - self.origin} bytes, the input ends after "
                                          f"{avail - self.origin}")
        else:
            self.error("element.eye", pos, f"{n} bytes left at the end of the {self.unit}, too "
                                           f"few for an element (eyecatcher and length: "
                                           f"{self.plan.head} bytes)")

    def _unknown(self, pos: int, key: bytes, length: int, avail: int) -> bool:
        """An element with an unknown key: shown raw; True when the walk can skip it."""
        k = self._count("?")
        plausible = self.plan.head <= length <= avail - pos
        text = key.decode(self.plan.codepage)
        shown = repr(text) if text.isprintable() else "not text"
        head = pos + self.plan.head
        stop = pos + length if plausible else min(avail, head + RAW_SHOWN)
        self.sink.unknown(self.plan.unknown, pos, head, stop, f"unknown[{k}]",
                          f"unknown element X'{key.hex().upper()}' ({shown}) at offset X'{pos:04X}'")
        tail = "; skipped by its length" if plausible else "; its length is implausible, the walk stops"
        self.error(f"unknown[{k}].eye", pos, f"unknown eyecatcher X'{key.hex().upper()}' ({shown}){tail}")
        return plausible

    # -- one element ----------------------------------------------------------------

    def _element(self, planned: Planned, pos: int, length: int) -> None:
        """One known element: its layout, extra bytes or trailing data, counts, hooks, content."""
        rec, counts, etype = planned.record, self.counts, planned.type
        k = counts.get(etype, 0)
        counts[etype] = k + 1
        prefix = f"{planned.prefix}[{k}]" if self.paths else planned.prefix
        layout = planned.by_size.get(length) or planned.layouts[0]
        size = layout.size or 0
        if length < size or (planned.generations and length not in planned.by_size):
            self._short(planned, layout, pos, length, prefix)
        handle, values = self.sink.record(None, etype, layout, pos, length, prefix)
        where = trailing = None
        if rec.fixed:
            if length > size:
                self._extra(rec, handle, prefix, pos, size, length)
        elif (trailing := rec.trailing) is not None and trailing.length in values and length >= size:
            where = self._trailing(rec, layout, values, prefix, pos, length)
        if planned.counted:
            tally = self.tally or self._tally()
            opened = new(Open, (handle, values, prefix, pos, layout)) if planned.opens else None
            for c, state, n, ended in tally.see(etype, opened):
                if state.values.get(c.field) != n:
                    self._judge(c, state, n, ended)
        owner = None
        if rec.hooks:
            owner = new(Owner, (handle, values, prefix, layout, pos, planned.data_length))
            for name in rec.hooks:
                self.hooks[name](self, owner)
        if where is not None and trailing is not None:
            self._data(planned, trailing, owner, handle, values, prefix, layout, pos, where)
        self.previous = values

    def _data(self, planned: Planned, trailing: Trailing, owner: Owner | None, handle: Any,
              values: Mapping[str, Any], prefix: str, layout: Layout, pos: int,
              where: tuple[int, int]) -> None:
        """An element's trailing data (after its hooks ran): its content walked, the bytes kept."""
        start, stop = where
        if trailing.content is not None:
            owner = owner or new(Owner, (handle, values, prefix, layout, pos, planned.data_length))
            self.content(trailing.content, owner, start, stop)
        if stop > start or trailing.kept_empty:
            cp = self._codepage(trailing, values) if trailing.codepage and self.sink.codepages else None
            self.sink.data(handle, trailing.name, start, stop, cp)

    def _extra(self, rec: Record, handle: Any, prefix: str, pos: int, size: int, length: int) -> None:
        """Bytes after a fixed record, up to its length: kept, and said."""
        self.sink.data(handle, "extra", pos + size, pos + length, None)
        self.problem(f"{prefix}.{rec.length}", pos + size,
                     f"{length - size} bytes follow the {size}-byte {rec.type}")

    def _short(self, planned: Planned, layout: Layout, pos: int, length: int, prefix: str) -> None:
        """An element of another generation's length, or shorter than its layout: said."""
        rec, size = planned.record, layout.size or 0
        if planned.generations and length not in planned.by_size:
            self.problem(f"{prefix}.{rec.length}", pos + self.plan.len_at,
                         f"{rec.length} {length} is neither {' nor '.join(map(str, planned.sizes))}; "
                         f"the fields of the {size}-byte {rec.type} that fit are shown")
        if length < size:
            self._missing(layout, pos, length, prefix, rec.length)

    def _missing(self, layout: Layout, pos: int, length: int, path: str, lenfield: str) -> None:
        missing = next(f for f in layout.fields if (f.start or 0) + (f.size or 0) > length)
        self.problem(f"{path}.{missing.name}", pos + (missing.start or 0),
                     f"{layout.name} is {length} bytes ({lenfield}), shorter than its "
                     f"{layout.size}: fields from {missing.name} on are missing")

    def read(self, parent: Any, etype: str, layout: Layout, pos: int, length: int, path: str,
             lenfield: str, title: str = "") -> tuple[Any, Mapping[str, Any]]:
        """Read ``layout`` in ``length`` bytes; fields that do not fit are reported and left out."""
        if length < (layout.size or 0):
            self._missing(layout, pos, length, path, lenfield)
        return self.sink.record(parent, etype, layout, pos, length, path, title)

    def _trailing(self, rec: Record, layout: Layout, values: Mapping[str, Any], prefix: str,
                  pos: int, length: int) -> tuple[int, int] | None:
        """Where the data after an element's fixed part is, checked against its lengths."""
        t = rec.trailing
        assert t is not None
        size = layout.size or 0
        lenh, lend = values.get(t.start) or 0, values[t.length]
        if t.tolerated:
            if not t.tolerates(lenh, size):
                self.problem(f"{prefix}.{t.start}", pos + layout.offset_of(t.start),
                             f"{t.start} {lenh} is neither {' nor '.join(map(str, (size, *t.tolerated)))}; "
                             f"{t.name} read from +{size}")
            lenh = size
        bad_start, bad_length = t.faults(lenh, lend, length, size)
        if bad_start:
            self.error(f"{prefix}.{t.start}", pos + layout.offset_of(t.start),
                       f"{t.start} {lenh} is outside {size}..{rec.length} ({length})")
            return None
        if bad_length:
            self.error(f"{prefix}.{t.length}", pos + layout.offset_of(t.length),
                       f"{t.length} {lend} does not fit: {t.start} {lenh} + {lend} > {rec.length} {length}")
            return None
        start = pos + lenh
        if pos + length > start + lend and any(self.data[start + lend:pos + length]):
            self.problem(f"{prefix}.filler", start + lend,
                         f"{pos + length - start - lend} bytes of alignment filler are not zero")
        return start, start + lend

    def _tally(self) -> Tally:
        self.tally = Tally(self.plan.chain.counts, self.plan.actions)
        return self.tally

    def _codepage(self, t: Trailing, values: Mapping[str, Any]) -> str | None:
        """The data's code page when it is not the unit's (the hook ``t.codepage`` says)."""
        cp = self.hooks[t.codepage](self, values)
        return cp if cp != self.plan.codepage else None

    def _judge(self, c: Count, state: Open, n: int, ended: bool) -> None:
        want = state.values.get(c.field)
        if n < 0 or not isinstance(want, int) or want == n:
            return
        if c.continued and state.values.get(c.continued) == "Y" and not ended:
            return
        at = state.at + (state.layout.offset_of(c.field) if state.layout is not None else 0)
        self.problem(f"{state.path}.{c.field}", at, c.words.format(field=c.field, want=want, n=n))

    def _finish(self) -> None:
        if self.tally is not None:
            for c, state, n, ended in self.tally.end():
                self._judge(c, state, n, ended)
        if self.memo and self.plan.chain.finish:
            self.hooks[self.plan.chain.finish](self)

    # -- content --------------------------------------------------------------------

    def content(self, content: Content, owner: Owner, start: int, stop: int, strict: bool = True) -> bool:
        """Read ``content`` from the data ``start..stop`` of ``owner``; False when it does not
        describe the data (then nothing was added)."""
        if isinstance(content, When):
            if owner.values.get(content.field) not in content.values:
                return False
            return self.content(content.content, owner, start, stop, strict)
        if isinstance(content, Hook):
            choice = self.hooks[content.name](self, owner.values, start, stop)
            inner = content.content
            return choice is not None and inner is not None and self.content(inner, owner, start, stop,
                                                                              choice)
        if isinstance(content, Nest):
            return self._nest(content, owner, start, stop)
        if isinstance(content, Repeat):
            if content.count:
                return self._counted(content, owner, start, stop)
            return self._gathered(content, owner, start, stop, strict)
        return self._one(content, owner, start, stop, owner.path) is not None

    def _one(self, sw: Switch, owner: Owner, start: int, stop: int, path: str) -> Any:
        """The one record ``sw`` chooses for the data (the rest of it its ``extra``)."""
        key = self._key(sw, owner, start, stop)
        name = sw.choose(key)
        if name is None:
            return None
        layout = self.plan.resolve(name)
        meaning = ""
        if isinstance(sw.on, Own) and sw.on.field in owner.layout.names:
            meaning = meaning_of(owner.layout.field(sw.on.field).meaning, key, owner.values)
        title = sw.title.format(key=key, meaning=meaning, offset=start, length=stop - start)
        handle, _ = self.read(owner.handle, layout.name, layout, start, stop - start,
                              f"{path}.{sw.name}", owner.trailing_length, title)
        size = layout.size or 0
        if stop - start > size:
            self.sink.data(handle, "extra", start + size, stop, None)
        return handle

    def _key(self, sw: Switch, owner: Owner, start: int, stop: int) -> Any:
        on = sw.on
        if isinstance(on, At):
            return self.plan.peek(on, self.data, start, stop)
        if isinstance(on, Own):
            return owner.values.get(on.field)
        return self.previous.get(on.field)

    def _nest(self, nest: Nest, owner: Owner, start: int, stop: int) -> bool:
        layout = self.plan.resolve(nest.record)
        size = layout.size or 0
        if stop - start < size:
            return False
        path = f"{owner.path}.{nest.name}"
        title = nest.title.format(offset=start, length=stop - start)
        handle, values = self.sink.record(owner.handle, layout.name, layout, start, stop - start, path, title)
        after = start + size
        if after >= stop:
            return True
        inner = Owner(handle, values, path, layout, start, owner.trailing_length)
        done = None
        if isinstance(nest.then, Switch):
            done = self._one(nest.then, inner, after, stop, path)
        elif nest.then is not None:
            done = self.content(nest.then, inner, after, stop) or None
        if done is None:
            self.sink.data(handle, nest.rest, after, stop, None)
        return True

    def _counted(self, rep: Repeat, owner: Owner, start: int, stop: int) -> bool:
        """``count`` items of ``size`` bytes (fields of the owner), each a child element."""
        assert isinstance(rep.item, str) and rep.count
        layout = self.plan.resolve(rep.item)
        v = owner.values
        if rep.size and rep.size not in v:
            return False
        count, size = v[rep.count], v[rep.size] if rep.size else (layout.size or 0)
        lend = owner.trailing_length

        def at(name: str) -> int:
            return owner.pos + owner.layout.offset_of(name)

        if count * size != stop - start:
            self.problem(f"{owner.path}.{lend}", at(lend),
                         f"{lend} {stop - start} is not {rep.count} {count} x {rep.size} {size}")
        least = layout.fields[1].start or 0  # an item holds at least its first field
        if count and size < least:
            self.error(f"{owner.path}.{rep.size}", at(rep.size or rep.count),
                       f"{rep.size} {size} is too small for a {layout.name}")
            return True
        for j in range(count):
            pos = start + j * size
            path = f"{owner.path}.{rep.name}[{j}]"
            if pos + size > stop:
                self.error(path, pos, f"{layout.name} {j} of {count} does not fit in {lend} {stop - start}")
                return True
            title = rep.title.format(index=j, offset=pos, length=size)
            handle, _ = self.read(owner.handle, layout.name, layout, pos, size, path, rep.size or lend, title)
            if size > (layout.size or 0):
                self.sink.data(handle, "extra", pos + (layout.size or 0), pos + size, None)
        return True

    def _gathered(self, rep: Repeat, owner: Owner, start: int, stop: int, strict: bool) -> bool:
        """Items to the end of the data (or ``until`` one), gathered in one element. Not
        ``strict``: False, and nothing added, when the data is not such items."""
        if start >= stop:
            return False
        sw = rep.item if isinstance(rep.item, Switch) else Switch(Own(""), {}, rep.item)
        title = rep.title.format(offset=start, length=stop - start)
        gathered = self.sink.gather(owner.handle, rep.gather, start, stop, f"{owner.path}.{rep.name}", title)
        items: list[Any] = []
        pos, j = start, 0
        while pos < stop:
            key = self._key(sw, owner, pos, stop)
            layout = self.plan.resolve(sw.choose(key) or "")
            need, left = layout.size or 0, stop - pos
            if left < need:
                if not strict:
                    return False
                self.error(f"{owner.path}.{rep.name}[{j}]", pos,
                           f"{title or rep.gather}: {left} bytes left for item {j}, "
                           f"{layout.name} needs {need}")
                break
            values = self.sink.item(gathered, layout, pos, f"{owner.path}.{rep.name}[{j}]")
            shown = [values[n] for n in layout.names if n != rep.key_field]
            items.append(shown[0] if len(shown) == 1 else shown)
            pos += need
            j += 1
            if rep.until is not None and key == rep.until:
                break
        self.sink.attach(owner.handle, gathered, {f"{rep.name}s": items})
        return True


# --------------------------------------------------------------------------- the tree sink


class TreeSink:
    """Makes the span tree: ``model.Element``s with their spans and children, problems and
    errors on ``unit``. Top-level elements go to ``unit.elements``."""

    paths = codepages = True

    def __init__(self, data: bytes, unit: Decoded, fmt: str) -> None:
        self.buf, self.unit, self.fmt = data, unit, fmt

    def _add(self, parent: Element | None, el: Element) -> None:
        (self.unit.elements if parent is None else parent.children).append(el)

    def _parse(self, layout: Layout, pos: int, length: int, path: str) -> Element:
        try:
            el = layout.parse(self.buf, pos, prefix=path, fmt=self.fmt, limit=pos + length)
        except DecodeError as e:
            assert isinstance(e.partial, Element)
            el = e.partial
        el.length, el.path = length, path
        return el

    def record(self, parent: Element | None, etype: str, layout: Layout, pos: int, length: int,
               path: str, title: str = "") -> tuple[Element, dict[str, Any]]:
        el = self._parse(layout, pos, length, path)
        el.type, el.title = etype, title
        self._add(parent, el)
        return el, dict(zip(layout.names, [s.value for s in el.spans], strict=False))

    def cut(self, layout: Layout, pos: int, length: int, path: str) -> None:
        self._add(None, self._parse(layout, pos, length, path))

    def data(self, handle: Element, name: str, start: int, stop: int, codepage: str | None) -> None:
        handle.data, handle.data_offset, handle.data_name = self.buf[start:stop], start, name
        handle.data_codepage = codepage

    def unknown(self, layout: Layout, pos: int, head: int, stop: int, path: str, title: str) -> None:
        el = layout.parse(self.buf, pos, prefix=path, fmt=self.fmt)
        el.title, el.type, el.path = title, "UNKNOWN", path
        el.data, el.data_offset, el.data_name = self.buf[head:stop], head, "bytes"
        el.length = stop - pos
        self._add(None, el)

    def rest(self, pos: int, stop: int, title: str) -> None:
        self._add(None, Element("RAW", pos, stop - pos, data=self.buf[pos:stop], data_offset=pos,
                                data_name="bytes", title=title))

    def gather(self, parent: Element | None, etype: str, start: int, stop: int, path: str,
               title: str) -> Element:
        return Element(etype, start, stop - start, title=title, path=path)

    def item(self, gathered: Element, layout: Layout, pos: int, path: str) -> dict[str, Any]:
        spans = layout.parse(self.buf, pos, prefix=path, fmt=self.fmt).spans
        gathered.spans += spans
        return {s.name: s.value for s in spans}

    def attach(self, parent: Element | None, gathered: Element, summary: Mapping[str, Any]) -> None:
        gathered.extra["fields"] = dict(summary)
        self._add(parent, gathered)

    def problem(self, path: str, offset: int, reason: str) -> None:
        self.unit.problems.append(Problem(path, offset, reason))

    def error(self, path: str, offset: int, reason: str) -> None:
        self.unit.errors.append(Problem(path, offset, reason))


class FlatSink:
    """The base of fast sinks: one entry per top-level element, nothing nested, and the
    first thing the tree sink would report, or any nesting, declines the unit."""

    paths = codepages = False

    def __init__(self) -> None:
        self.out: list[list[Any]] = []

    def cut(self, layout: Layout, pos: int, length: int, path: str) -> None:
        raise Decline

    def data(self, handle: Any, name: str, start: int, stop: int, codepage: str | None) -> None:
        if handle is None:
            raise Decline
        entry = self.out[handle]
        entry[4], entry[5] = (start, stop, name), codepage

    def unknown(self, layout: Layout, pos: int, head: int, stop: int, path: str, title: str) -> None:
        raise Decline

    def rest(self, pos: int, stop: int, title: str) -> None:
        raise Decline

    def gather(self, parent: Any, etype: str, start: int, stop: int, path: str, title: str) -> Any:
        raise Decline

    def item(self, gathered: Any, layout: Layout, pos: int, path: str) -> Mapping[str, Any]:
        raise Decline

    def attach(self, parent: Any, gathered: Any, summary: Mapping[str, Any]) -> None:
        raise Decline

    def problem(self, path: str, offset: int, reason: str) -> None:
        raise Decline

    def error(self, path: str, offset: int, reason: str) -> None:
        raise Decline
