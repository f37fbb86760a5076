"""How records compose into a unit, declared once: the vocabulary every walker and builder reads.

A layout (``mqtool.layout.dsect``) says what one record holds. This vocabulary says how
records follow and nest: which record comes next and what selects it, how long each one is,
what trails its fixed part, what repeats and how often, and which choices are a format's own
judgement. It is construct's and Kaitai Struct's idea (``Switch`` / ``switch-on``,
``Rebuild``, ``RepeatUntil`` / ``repeat-until``, ``repeat-expr``, ``size-eos``) written as
plain data over layout *names*, so one declaration serves every variant (byte order x code
page) of a format.

From one declaration come:

* the span tree (``mqtool.compose.walk``: one walker, its sinks make ``model.Element``
  trees with nested children, or the fast JSON values and listing lines without spans);
* the columnar walker (``mqtool.compose.columns``: every unit of a stream at once, numpy);
* the builder (``mqtool.compose.build``: computed lengths, offsets and counts filled in,
  given ones checked);
* the documentation and the Kaitai Struct spec (``mqtool.catalog``).

The words
---------

``Chain``
    Elements back to back up to an enclosing end. ``key`` selects each element's ``Record``
    (an eyecatcher read with ``At``; for the MQ header chain, the previous header's Format
    read with ``Previous``), ``length`` its length.
``Envelope``
    A header record whose fields give its own size and the length of the whole unit, then a
    ``Chain`` (URBH + elements; the MQMD + headers).
``Record``
    One element type: its layout (or one layout per generation, chosen by the length), the
    field holding its length, whether the length is fixed, what trails it, named hooks.
``Trailing``
    The bytes after a record's fixed part, placed by two fields (offset, length), and what
    they hold (``content``).
``Repeat``
    Items one after the other: ``count`` times (a field), each ``size`` bytes (a field), to
    the end of the enclosing data, or ``until`` an item whose key has a value.
``Switch``
    A layout chosen by a key: ``At`` (a field read where the record starts), ``Own`` (a field
    of the record that holds the data), ``Previous`` (a field of the element before).
``Nest``
    One record at the start of the data, then more content after it (a URBSU and its detail).
``When``
    Content present only when a field of the owner has one of some values.
``Hook``
    A choice no declaration can make (is a URBI's data an ISN list or selection data?): the
    format names it and supplies the function; the walker asks it, never copies the walk.
``Count``
    A field of one element counting the elements of another type that follow it (URBTRCNT
    counts URBRs up to the URBE).

A worked example: URB's format table (``URBF``: a header, then ``urbfcntg`` URBG entries of
``urbfleng`` bytes each, placed by ``urbflenh`` / ``urbflend``), a status element whose data
holds a URBSU when the status is AUTI, and the message around them::

    URBF = Record("URBF", "urbflen", ("URBF",), fixed=False,
                  trailing=Trailing("urbgs", "urbflenh", "urbflend",
                                    content=Repeat("urbg", "URBG", count="urbfcntg",
                                                   size="urbfleng",
                                                   title="URBG {index} at offset X'{offset:04X}'")))
    URBS = Record("URBS", "urbslen", ("URBS",), fixed=False,
                  trailing=Trailing("urbsdata", "urbslenh", "urbslend", tolerated=(0,),
                                    content=When("urbsst", ("AUTI",),
                                                 Nest("urbsu", "URBSU", then=Switch(...)))))
    MESSAGE = Envelope("URBH", size="urbhlen", total="urbhlent",
                       constants={"urbhvers": "01", "urbhbord": 1},
                       chain=Chain(key=At("ELEMENT", "eye"), length=At("ELEMENT", "len"),
                                   records={r.type: r for r in (URBF, URBS, ...)}))

Walking a message, the walker reads the eyecatcher and length at each element, finds
``URBF``, parses its layout, reads ``urbflenh`` / ``urbflend`` to place the URBG bytes
(``Trailing.faults`` says when they do not fit), and makes ``urbfcntg`` URBG children of
``urbfleng`` bytes each. Building one, ``mqtool.compose.build`` writes the URBGs, then sets
``urbfcntg``, ``urbfleng``, ``urbflenh``, ``urbflend`` and ``urbflen`` from what it wrote
(or refuses given values that disagree), and ``urbhlent`` from the whole message.

How the other formats say their composition in these words:

* MQ header chain (``mqtool.formats.mq.compose``): ``Chain(key=Previous("format"),
  length=At("MQRFH.v1", "struclength"))``, one ``Record`` per header keyed by its Format name
  (``Record("MQDLH", "", ("MQDLH.v1",), key="MQDEAD")``), ``variant="mq_inherit"`` (a hook:
  each header's Encoding and CodedCharSetId give the next one's byte order and code page)
  and ``sniff="mq_strucid"`` (a hook: the StrucId's code page when the CCSID does not say);
  the MQMD inside an MQXQH is a ``Nest``; the application data is what follows the chain.
* PCF: ``Repeat("parameter", Switch(At("MQCFH", "type"), {MQCFT_STRING: "MQCFST", ...}),
  count="parametercount")``; an MQCFGR's parameters are a ``Repeat`` with
  ``count="parametercount"`` nested under it.
* SAS attachment header: ``Repeat("attachment", "ATTACHMENT", count="num_attachments")``;
  runs of a data set: ``Repeat("run", Switch(At("RUN", "kind"), ...), until=END_MARKER)``.
* MATQMSG receiver: ``Repeat("message", "MESSAGE", count="messages_available")`` after the
  RECEIVER header (its K and T are layout parameters of the variant).
* OSB redolog intents: ``Repeat("intent", Switch(Own("rl_format"), {1: "R1REQ", 2: "R2HDR"}))``
  inside ``Trailing("intents", None, "rl_intent_len")``.
* CSQ1LOGP: ``Trailing("csvardata", None, "ldatalen")`` after ``CSQ4LOGD``, the optional CSBORA
  a ``Hook("csbora", Nest("csbora", "CSBORA"))`` (present when the RDW length says so).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from mqtool.layout import Layout

# --------------------------------------------------------------------------- keys


@dataclass(frozen=True)
class At:
    """A field of a declared layout, read where the next record starts, before the record is
    known (construct's ``Peek``; a Kaitai value instance at ``_io.pos``): URB eyecatchers and
    element lengths, an MQ StrucId, the ISN-list range marker."""

    layout: str
    field: str


@dataclass(frozen=True)
class Own:
    """A field of the record that owns the data being read (Kaitai: ``switch-on: field``)."""

    field: str


@dataclass(frozen=True)
class Previous:
    """A field of the element before (the MQ header chain: the Format of one header names the
    next)."""

    field: str


Key: TypeAlias = At | Own | Previous


# --------------------------------------------------------------------------- content


@dataclass(frozen=True, eq=False)  # holds mappings: compared and hashed by identity
class Switch:
    """One layout chosen by ``on`` from ``cases`` (value -> layout name), ``default`` when no
    case matches (None: nothing is declared for that value; the bytes stay bytes).

    As the content of data, ``name`` is the chosen record's path component and ``title`` its
    heading (``{key}``, ``{meaning}`` of the key field, ``{offset}``, ``{length}``)."""

    on: Key
    cases: Mapping[Any, str]
    default: str | None = None
    name: str = ""
    title: str = ""

    def choose(self, value: Any) -> str | None:
        try:
            return self.cases.get(value, self.default)
        except TypeError:  # an unhashable value selects nothing
            return self.default


@dataclass(frozen=True)
class Repeat:
    """Items one after the other inside some data (Kaitai ``repeat``).

    ``count``: a field of the owner holds the number of items (``repeat-expr``); ``size``: a
    field holds each item's size (else the item layout's size); ``until``: an item whose
    switch key has this value is the last (``repeat-until``); none of them: to the end of
    the data (``repeat: eos``). ``gather``: the element type one element of all items has
    (the ISN list: its fields are every item's; JSON lists the items' values under
    ``<name>s``); empty: each item is a child element titled ``title``."""

    name: str
    item: str | Switch
    count: str | None = None
    size: str | None = None
    until: Any = None
    gather: str = ""
    title: str = ""

    @property
    def key_field(self) -> str | None:
        """The field whose value chooses each item (left out of a gathered item's value)."""
        if isinstance(self.item, Switch) and isinstance(self.item.on, At):
            return self.item.on.field
        return None


@dataclass(frozen=True)
class Nest:
    """A record at the start of the data, then ``then`` after it inside the same data; the
    nested element spans all of it. When ``then`` declares nothing for the bytes after the
    record, they stay bytes named ``rest``. Data too short for the record is not one."""

    name: str
    record: str
    then: Content | None = None
    rest: str = "data"
    title: str = ""


@dataclass(frozen=True)
class When:
    """Content present only when field ``field`` of the owner is one of ``values``."""

    field: str
    values: tuple[Any, ...]
    content: Content


@dataclass(frozen=True)
class Hook:
    """A format's own judgement whether ``content`` describes the data: the walker calls
    the function the format registered under ``name`` (see ``mqtool.compose.walk.Hooks``).
    Without ``content`` the hook reads the data itself (the MQRFH2 folders: length-prefixed
    XML, not records)."""

    name: str
    content: Content | None = None


Content: TypeAlias = Repeat | Switch | Nest | When | Hook


# --------------------------------------------------------------------------- records


@dataclass(frozen=True)
class Trailing:
    """The bytes after a record's fixed part, placed by two fields of the record: ``start``
    holds their offset from the record's start, ``length`` their length (both computed on
    build: the fixed part's size, the data's length). With ``tolerated`` values the data is
    always read from the fixed part's end, and ``start`` may hold one of them instead (URBS:
    URBSLENH may be 0). Bytes after the data up to the record's end are alignment filler
    and must be zero. ``content`` says what the data holds; ``codepage`` names the hook
    giving its character set (the URBT's code page for URBD images); ``kept_empty``: the
    record carries its data even when there is none (a record image of 0 bytes)."""

    name: str
    start: str
    length: str
    tolerated: tuple[int, ...] = ()
    content: Content | None = None
    codepage: str = ""
    kept_empty: bool = False

    @staticmethod
    def faults(start: Any, length: Any, record: Any, size: Any) -> tuple[Any, Any]:
        """Whether ``start`` and ``length`` place the data outside a record of ``record``
        bytes with a fixed part of ``size``: (start is wrong, length is wrong). The one
        statement of the rule; works on ints and on numpy arrays alike."""
        bad_start = (start < size) | (start > record)
        bad_length = (length < 0) | (start + length > record)
        return bad_start, bad_length

    def tolerates(self, start: Any, size: Any) -> Any:
        """Whether ``start`` is a value the data's offset may hold (ints or numpy arrays)."""
        ok = start == size
        for t in self.tolerated:
            ok = ok | (start == t)
        return ok


@dataclass(frozen=True)
class Record:
    """One element type. ``length`` is the field holding the element's whole length
    (computed on build). ``layouts``: one layout, or one per generation, chosen by the
    length (URBT of 112 and 128 bytes; the first is used when none fits). ``fixed``: the
    length must be one of the layouts' sizes; otherwise the size is a minimum and the rest
    is ``trailing`` data. ``key``: what selects the record in its chain (None: its layout's
    eyecatcher). ``hooks``: the format's checks run on each such element."""

    type: str
    length: str
    layouts: tuple[str, ...]
    fixed: bool = True
    trailing: Trailing | None = None
    key: Any = None
    hooks: tuple[str, ...] = ()

    def layout(self, resolve: Callable[[str], Layout], length: int | None = None) -> Layout:
        """The layout for an element of ``length`` bytes (the first when none fits)."""
        if len(self.layouts) > 1 and length is not None:
            for name in self.layouts:
                layout = resolve(name)
                if layout.size == length:
                    return layout
        return resolve(self.layouts[0])

    def sizes(self, resolve: Callable[[str], Layout]) -> tuple[int, ...]:
        return tuple(resolve(n).size or 0 for n in self.layouts)


@dataclass(frozen=True)
class Count:
    """``field`` of each ``parent`` counts the ``child`` elements after it, up to the next
    parent or a ``closers`` element. While the parent's ``continued`` field is Y the count
    runs on in the next unit; a ``breaks`` element (a continuation) makes it uncheckable.
    ``words`` says a wrong count (``{want}``: the field, ``{n}``: the elements)."""

    field: str
    parent: str
    child: str
    closers: tuple[str, ...]
    continued: str | None = None
    breaks: tuple[str, ...] = ()
    words: str = "{field} says {want}, {n} follow"


@dataclass(frozen=True, eq=False)  # holds mappings: compared and hashed by identity
class Chain:
    """Elements back to back up to an enclosing end. ``key`` selects each element's record,
    ``length`` is read where the element starts; ``unknown`` is the layout an element with an
    unknown key is shown as; a ``stops`` key ends the chain quietly (the next unit starts);
    ``finish`` names a hook run when the chain ends (to judge what record hooks remembered);
    ``counts`` are checked across it. ``variant`` names the hook giving each element's
    variant (byte order, code page) from the element before (the MQ header chain's
    Encoding / CodedCharSetId inheritance); ``sniff`` the hook finding the first element
    when nothing before it names it (the MQ StrucId in ASCII or EBCDIC)."""

    key: Key
    length: At
    records: Mapping[str, Record]
    unknown: str = ""
    stops: tuple[Any, ...] = ()
    counts: tuple[Count, ...] = ()
    finish: str = ""
    variant: str = ""
    sniff: str = ""


@dataclass(frozen=True, eq=False)  # holds mappings: compared and hashed by identity
class Envelope:
    """A unit: the ``header`` record, whose ``size`` field holds its own size and ``total``
    field the unit's length from the header's start, then the ``chain``. ``constants`` are
    header fields with one right value (the builder writes them)."""

    header: str
    size: str
    total: str
    chain: Chain
    constants: Mapping[str, Any] = field(default_factory=dict)
    unit: str = "unit"  # what one is called in messages and docs (a message)


# --------------------------------------------------------------------------- reading it


def contents(content: Content | None) -> list[Content]:
    """``content`` and everything nested in it, outermost first."""
    out: list[Content] = []
    todo = [content]
    while todo:
        c = todo.pop(0)
        if c is None:
            continue
        out.append(c)
        if isinstance(c, When | Hook):
            todo.append(c.content)
        elif isinstance(c, Nest):
            todo.append(c.then)
        elif isinstance(c, Repeat) and isinstance(c.item, Switch):
            todo.append(c.item)
    return out


def layouts_of(content: Content | None) -> list[str]:
    """Every layout name ``content`` may read."""
    names: list[str] = []
    for c in contents(content):
        if isinstance(c, Repeat) and isinstance(c.item, str):
            names.append(c.item)
        elif isinstance(c, Switch):
            names += [*c.cases.values(), *([c.default] if c.default else [])]
        elif isinstance(c, Nest):
            names.append(c.record)
    return names


def key_text(rec: Record, resolve: Callable[[str], Layout]) -> Any:
    """What selects ``rec`` in its chain: its ``key``, else its layout's eyecatcher text."""
    if rec.key is not None:
        return rec.key
    for f in resolve(rec.layouts[0]).fields:
        expected = getattr(f.con, "expected", None)
        if isinstance(expected, str):
            return expected
    raise TypeError(f"{rec.type}: no key and no eyecatcher to select it by")


def counted(rec: Record) -> Repeat | None:
    """The counted repeat in a record's data (a URBF's URBGs): built from its items."""
    t = rec.trailing
    found = [c for c in contents(t.content if t else None) if isinstance(c, Repeat) and c.count]
    return found[0] if found else None


def describe(content: Content | None) -> str:
    """What ``content`` says the data holds, in words (for the docs)."""
    if content is None:
        return ""
    if isinstance(content, Hook):
        if content.content is None:
            return f"read by the format's own judgement ({content.name})"
        return f"{describe(content.content)}; when the format's judgement ({content.name}) says so"
    if isinstance(content, When):
        values = " or ".join(map(str, content.values))
        return f"when {content.field} is {values}: {describe(content.content)}"
    if isinstance(content, Nest):
        then = f", then {describe(content.then)}" if content.then is not None else ""
        return f"a {content.record}{then}"
    if isinstance(content, Switch):
        on = content.on.field
        if len(content.cases) > 3:
            return f"a record chosen by {on} ({len(content.cases)} declared)"
        cases = [f"{name} when {on} is {value}" for value, name in content.cases.items()]
        return ", ".join(cases) + (f", else {content.default}" if content.default else "")
    item = content.item if isinstance(content.item, str) else describe(content.item)
    if content.count:
        size = f", each {content.size} bytes" if content.size else ""
        return f"{content.count} items of {item}{size}"
    return f"items to the end: {item}"


def computed(envelope: Envelope) -> dict[str, str]:
    """Every field the builder computes unless given, and from what (for refusals, docs)."""
    out = {envelope.size: f"the {envelope.header} size", envelope.total: "the unit length",
           **{k: "constant" for k in envelope.constants}}
    for r in envelope.chain.records.values():
        out[r.length] = "the element length"
        t = r.trailing
        if t is None:
            continue
        out[t.start] = "the fixed part's size"
        out[t.length] = "the data length"
        for c in contents(t.content):
            if isinstance(c, Repeat) and c.count:
                out[c.count] = "the number of items"
            if isinstance(c, Repeat) and c.size:
                out[c.size] = "the item size"
    out.update({c.field: f"the number of {c.child}s" for c in envelope.chain.counts})
    return out
