"""Decoding attachment messages: header detection (every sender variant is tried and the one
that parses the message exactly is kept; the MQMD's Encoding and CodedCharSetId, when the
dump has them, win over the heuristics; options force any of them), the subordinate
messages, and a queue dump's messages each in the role its header gives it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from mqtool.codepages import codec_name, is_ebcdic
from mqtool.compose import Repeat
from mqtool.compose.sized import count_of, end_of, items
from mqtool.errors import DecodeError, InputError
from mqtool.formats.sas.layout import (
    ATTACHMENT_TYPES,
    BINARY_FILE,
    DATASET,
    DATASET_MESSAGES,
    DSDEF,
    ENTRIES,
    FILE_SPECS,
    FLOAT_FORMATS,
    FORMAT,
    HEADER_MSGTYPE,
    INDEXES,
    INDEXES_RUN,
    MAX_ATTACHMENTS,
    MAX_HEADER,
    OBSERVATIONS,
    SUBORDINATE_MSGTYPE,
    TEXT_FILE,
    VARDEFS,
    VARIABLES,
    DatasetDef,
    Entry,
    Header,
    Layouts,
    Settings,
    Variable,
    g_of,
    int_struct,
    key_of,
    layout_named,
    layouts_for,
    readable,
    record_of,
    seq_raw,
    type_word,
)
from mqtool.layout import Layout
from mqtool.model import DATA, Decoded, Detection, Element, Problem, Span, shift_element


@dataclass(frozen=True)
class Hints:
    """What the dump or the user says about the sender (None: unknown / not forced)."""

    byte_order: str | None = None  # forced
    long: int | None = None
    codepage: str | None = None
    nul: bool | None = None
    float_format: str | None = None
    mqmd_byte_order: str | None = None  # from MQMD.Encoding
    mqmd_codepage: str | None = None  # from MQMD.CodedCharSetId
    mqmd_float: str | None = None

    @property
    def page(self) -> str | None:
        """The forced code page when SAS strings can be read in it (``layout.readable``)."""
        return self.codepage if self.codepage and readable(self.codepage) else None

    @property
    def mqmd_page(self) -> str | None:
        """The MQMD's code page when SAS strings can be read in it."""
        return self.mqmd_codepage if self.mqmd_codepage and readable(self.mqmd_codepage) \
            else None

    def page_problems(self) -> list[Problem]:
        """Code pages the hints name that decoding sets aside."""
        return [Problem("", 0, f"{what} code page {cp} has no one-byte blank and letters: SAS "
                        "strings and text records are read in cp037 or latin-1 instead")
                for what, cp in (("the forced", self.codepage), ("the MQMD's", self.mqmd_codepage))
                if cp and not readable(cp)]

    @classmethod
    def of(cls, options: dict[str, Any], encoding: int | None = None,
           ccsid: int | None = None) -> Hints:
        from mqtool.codepages import ccsid_codec
        from mqtool.formats.mq.mqmd import byte_order_of, float_format_of

        order, long, flt = options.get("byte_order"), options.get("long"), options.get("float_format")
        for name, value, allowed in (("byte_order", order, ("big", "little")), ("long", long, (4, 8)),
                                     ("float_format", flt, FLOAT_FORMATS)):
            if value is not None and value not in allowed:
                raise InputError(f"{FORMAT}: {name} {value!r}: use "
                                 f"{', '.join(str(a) for a in allowed)}")
        cp = options.get("codepage")
        try:
            page = codec_name(str(cp)) if cp else None
        except LookupError:
            raise InputError(f"{FORMAT}: unknown code page {cp!r}") from None
        return cls(order, long, page, options.get("nul"), flt, byte_order_of(encoding),
                   ccsid_codec(ccsid), float_format_of(encoding))


_SPECS = {cp: tuple(spec.encode(cp) for spec in FILE_SPECS) for cp in ("latin-1", "cp037")}


def header_tree(body: bytes, lay: Layouts, count: int, keep_cut: bool = True) -> Element:
    """The HEADER and, nested in it, ``count`` attachment entries (the composition
    ``HEADER_MESSAGE``: SAS Application Messaging, "Attachment Layout for WebSphere MQ and
    MSMQ", the header message); the HEADER spans its entries. Raises ``DecodeError`` when the header or
    an entry does not parse: ``partial`` is the HEADER with the entries before it (and the
    cut entry's fields, ``keep_cut``)."""
    head = lay.header.parse(body, 0, prefix="", fmt=FORMAT)
    start = head.end
    try:
        head.children.extend(items(ENTRIES, layout_named(lay, str(ENTRIES.item)), body, start, len(body),
                                   count=count, fmt=FORMAT, first=1))
    except DecodeError as e:
        cut = e.partial
        if keep_cut and isinstance(cut, Element) and cut.spans:
            cut.length = cut.spans[-1].end - cut.offset
            head.children.append(cut)
        e.partial = head
        raise
    finally:
        head.length = end_of(head.children, start) - head.offset
    return head


def _structure_ok(body: bytes, s: Settings) -> tuple[bool, list[Element], str]:
    """Does the variant parse the header exactly and plausibly: ``num_attachments`` entries
    of a known type, ending where the message ends, every string's NUL a NUL?"""
    lay = layouts_for(s)
    try:
        head = lay.header.parse(body, 0, prefix="", fmt=FORMAT)
    except DecodeError as e:
        return False, [], e.reason
    n = count_of(ENTRIES, head.fields)
    if n is None or not 1 <= n <= MAX_ATTACHMENTS:
        return False, [head], f"{head.value(ENTRIES.count or '')} attachments"
    try:
        head = header_tree(body, lay, n, keep_cut=False)
    except DecodeError as e:
        assert isinstance(e.partial, Element)
        return False, [e.partial], e.reason
    if head.end != len(body):
        return False, [head], f"{len(body) - head.end} bytes left over"
    for el in head.children:
        if el.value("type") not in ATTACHMENT_TYPES:
            return False, [head], f"attachment type {el.value('type')}"
        for sp in el.spans:
            if sp.kind == "reserved" and any(sp.raw):
                return False, [head], f"{sp.path} is X'{sp.raw.hex().upper()}', not a NUL"
    return True, [head], ""


def _parsed(elements: list[Element]) -> int:
    """How far a header parsed: the HEADER and its entries."""
    return len(elements) + len(_entries_of(elements))


def _entries_of(elements: list[Element]) -> list[Element]:
    """The attachment entries of a header's elements (nested in the HEADER)."""
    return elements[0].children if elements else []


def _charset_from(elements: list[Element]) -> str | None:
    """``ascii`` / ``ebcdic`` when an external file's qualifier 1 says FILENAME/FILEREF."""
    for el in _entries_of(elements):
        if el.value("type") in (TEXT_FILE, BINARY_FILE):
            raw = next((sp.raw for sp in el.spans if sp.name == "qualifier1"), b"")
            if raw in _SPECS["latin-1"]:
                return "ascii"
            if raw in _SPECS["cp037"]:
                return "ebcdic"
    return None


def _charset_guess(elements: list[Element]) -> str:
    """EBCDIC letters and digits sit at X'81'-X'F9', ASCII ones below X'80'."""
    text = b"".join(sp.raw for el in _entries_of(elements) for sp in el.spans if sp.kind == "text")
    high = sum(1 for c in text if c >= 0x80)
    return "ebcdic" if high * 2 > len(text) else "ascii"


def settings_for(charset: str, hints: Hints, s: Settings) -> Settings:
    cp = hints.page or (hints.mqmd_page if hints.mqmd_page and
                        is_ebcdic(hints.mqmd_page) == (charset == "ebcdic") else None)
    cp = cp or ("cp037" if charset == "ebcdic" else "latin-1")
    flt = hints.float_format or hints.mqmd_float or (
        "ibm-hfp" if is_ebcdic(cp) else ("ieee-be" if s.big else "ieee-le"))
    return replace(s, codepage=cp, float_format=flt)


def detect_header(body: bytes, hints: Hints = Hints()) -> tuple[Settings | None, str, list[Element]]:
    """The variant that parses ``body`` as a header, why, and the elements of the best try.

    Tries {big, little} x {long 4, 8} x {NUL, no NUL}; forced options narrow the search;
    among parses that fit, MQMD hints win, then big-endian / long 4 / NUL.
    """
    if len(body) > MAX_HEADER:
        return None, f"{len(body)} bytes, more than any header ({MAX_HEADER})", []
    orders = [hints.byte_order == "big"] if hints.byte_order else [True, False]
    longs = [hints.long] if hints.long else [4, 8]
    nuls = [hints.nul] if hints.nul is not None else [True, False]
    fits: list[tuple[tuple[int, ...], Settings, list[Element]]] = []
    first_failure: tuple[str, list[Element]] | None = None
    for big in orders:
        for long in longs:
            for nul in nuls:
                s = Settings(big, long, "latin-1", nul)
                ok, elements, why = _structure_ok(body, s)
                if not ok:
                    if first_failure is None or _parsed(elements) > _parsed(first_failure[1]):
                        first_failure = (f"{s.byte_order}-endian long {long} "
                                         f"{'NUL' if nul else 'no NUL'}: {why}", elements)
                    continue
                charset = _charset_from(elements)
                rank = (0 if charset else 1,
                        0 if hints.mqmd_byte_order in (None, s.byte_order) else 1,
                        0 if big else 1, 0 if long == 4 else 1, 0 if nul else 1)
                fits.append((rank, s, elements))
    if not fits:
        why, elements = first_failure or ("no variant tried", [])
        return None, why, elements
    fits.sort(key=lambda t: t[0])
    _rank, s, elements = fits[0]
    charset = _charset_from(elements)
    how = "qualifier 1 FILENAME/FILEREF"
    if charset is None:
        if hints.mqmd_page:
            charset = "ebcdic" if is_ebcdic(hints.mqmd_page) else "ascii"
            how = "MQMD CodedCharSetId"
        else:
            charset, how = _charset_guess(elements), "byte values of the names"
    s = settings_for(charset, hints, s)
    reasons = [f"{s.describe()} ({len(fits)} of {len(orders) * len(longs) * len(nuls)} "
               f"variants parse the header exactly; character set from {how})"]
    if hints.mqmd_byte_order and hints.mqmd_byte_order != s.byte_order:
        reasons.append(f"MQMD Encoding says {hints.mqmd_byte_order}-endian but the header only "
                       f"parses {s.byte_order}-endian")
    return s, "; ".join(reasons), elements


def header_of(elements: list[Element], s: Settings, reason: str) -> Header:
    head = elements[0]
    entries = []
    for i, el in enumerate(_entries_of(elements), 1):
        q1 = next((sp.raw for sp in el.spans if sp.name == "qualifier1"), b"")
        entries.append(Entry(i, el.value_as("type", int), el.value_as("correlid", bytes),
                             str(el.value("qualifier1")), str(el.value("qualifier2")),
                             str(el.value("description")), el.value_as("minor_version", int),
                             el.value_as("major_version", int), q1))
    return Header(head.value_as("header_correlid", bytes), head.value_as("original_msgtype", int),
                  head.value_as("original_correlid", bytes),
                  head.value_as("message_correlid", bytes), entries, s, reason)


def decode_header(body: bytes, hints: Hints = Hints(), correlid: bytes | None = None
                  ) -> tuple[Decoded, Header | None]:
    """The listing unit of a header message and, when it decoded, the ``Header``."""
    unit = Decoded(FORMAT, 0, len(body), attrs={"part": "header"})
    s, reason, _ = detect_header(body, hints)
    if s is None:
        forced = Settings(hints.byte_order != "little", hints.long or 4, hints.page or "cp037",
                          True if hints.nul is None else hints.nul)
        _partial_header(unit, body, forced)
        unit.errors.append(Problem("header", unit.elements[-1].offset + unit.elements[-1].length
                                   if unit.elements else 0,
                                   f"not an attachment header in any byte order, long size or "
                                   f"NUL convention (closest: {reason})"))
        return unit, None
    try:
        unit.elements[:] = _header_elements(body, s)
    except DecodeError as e:  # a string the page lacks (cp1252 X'81'): read them as latin-1
        unit.problems.append(Problem(e.path, e.offset, f"{e.reason}: the strings are read as "
                                     "latin-1"))
        reason = reason.replace(s.codepage, "latin-1", 1)
        s = replace(s, codepage="latin-1")
        unit.elements[:] = _header_elements(body, s)
    unit.attrs.update(s.attrs())
    unit.attrs["detected"] = reason
    header = header_of(unit.elements, s, reason)
    if correlid is not None and key_of(correlid) != key_of(header.header_correlid):
        header.problems.append(f"the MQMD CorrelId {correlid.hex().upper()} is not the header "
                               f"correlid {header.header_correlid.hex().upper()}")
    for i, entry in enumerate(header.entries, 1):
        if any(seq_raw(entry.correlid)):
            header.problems.append(f"attachment {i} correlid has sequence bytes "
                                   f"{seq_raw(entry.correlid).hex().upper()}, expected 00000000")
    if "MQMD Encoding says" in reason:
        header.problems.append(reason.split("; ", 1)[1])
    for p in header.problems:
        unit.problems.append(Problem("header", 0, p))
    return unit, header


def _header_elements(body: bytes, s: Settings) -> list[Element]:
    lay = layouts_for(s)
    head = lay.header.parse(body, 0, prefix="", fmt=FORMAT)
    return [header_tree(body, lay, head.value_as(ENTRIES.count or "", int))]


def _partial_header(unit: Decoded, body: bytes, s: Settings) -> None:
    """What a header that parses in no variant shows in ``s``: the HEADER, and the entries
    (and the cut one) nested in it when num_attachments is plausible."""
    lay = layouts_for(s)
    try:
        head = lay.header.parse(body, 0, prefix="", fmt=FORMAT)
        n = count_of(ENTRIES, head.fields)
        if n is not None and 0 < n <= MAX_ATTACHMENTS:
            head = header_tree(body, lay, n)
        unit.elements.append(head)
    except DecodeError as e:
        if isinstance(e.partial, Element) and (e.partial.spans or e.partial.children):
            unit.elements.append(e.partial)


# --------------------------------------------------------------------------- subordinates


def decode_count(body: bytes, s: Settings) -> Decoded:
    return _fixed(body, s, layouts_for(s).count, "count")


def decode_fileinfo(body: bytes, s: Settings) -> Decoded:
    return _fixed(body, s, layouts_for(s).fileinfo, "file-info")


def _fixed(body: bytes, s: Settings, layout: Layout, part: str) -> Decoded:
    unit = Decoded(FORMAT, 0, len(body), attrs={"part": part, **s.attrs()})
    try:
        el = layout.parse(body, 0, prefix="", fmt=FORMAT)
        unit.elements.append(el)
        if el.length != len(body):
            unit.problems.append(Problem(part, el.length, f"{len(body) - el.length} bytes after the "
                                         f"{layout.size}-byte {part} message"))
    except DecodeError as e:
        _error(unit, e)
    return unit


def _error(unit: Decoded, e: DecodeError) -> None:
    if isinstance(e.partial, Element) and e.partial.spans:
        unit.elements.append(e.partial)
    unit.errors.append(Problem(e.path, e.offset, e.reason))


def decode_application(body: bytes, s: Settings | None) -> Decoded:
    unit = Decoded(FORMAT, 0, len(body), attrs={"part": "application"})
    cp = s.codepage if s else "cp037"
    unit.attrs["codepage"] = cp
    el = Element("APPLICATION", 0, len(body), title="APPLICATION message (the sender's own bytes)",
                 data=body, data_offset=0)
    try:
        text = body.decode(cp)
        if text.isprintable():
            el.spans.append(Span("text", 0, len(body), text.rstrip(" "), "", "text", "", body))
            el.data = None
    except UnicodeDecodeError:
        pass
    unit.elements.append(el)
    return unit


class RecordError(ValueError):
    """The record stream is broken: why, and where in the message."""

    def __init__(self, reason: str, offset: int) -> None:
        super().__init__(reason)
        self.reason, self.offset = reason, offset


class RecordStream:
    """The ``len|record`` stream of an external file, fed message by message in sequence
    order. Records and even the length field may straddle message boundaries."""

    def __init__(self, s: Settings, lrecl: int = 0) -> None:
        self.fmt = int_struct(s, long=True)
        self.size = self.fmt.size
        self.nul = s.record_nul
        self.lrecl = lrecl
        self.carry = b""  # partial length field
        self.left = 0  # bytes of the current record still to come
        self.nul_left = 0
        self.records = 0
        self.broken = False
        self.oversize = 0

    def reset(self) -> None:
        """After a gap: assume the next message starts with a record."""
        self.carry, self.left, self.nul_left, self.broken = b"", 0, 0, False

    def pieces(self, body: bytes) -> Iterator[tuple[str, int, int, int]]:
        """``(kind, start, end, value)``: ``len`` (value = length), ``data`` (value 1 when it
        ends its record), ``nul``, ``cont`` (continued record data); raises ``ValueError``
        with the offset on a negative length."""
        pos, n = 0, len(body)
        if self.left:
            take = min(self.left, n)
            self.left -= take
            yield "cont", 0, take, int(self.left == 0)
            pos = take
            if self.left == 0 and self.nul:
                self.nul_left = 1
        if self.nul_left and pos < n:
            yield "nul", pos, pos + 1, body[pos]
            self.nul_left = 0
            pos += 1
        unpack = self.fmt.unpack_from
        size = self.size
        while pos < n:
            if self.carry:
                need = size - len(self.carry)
                got = body[pos:pos + need]
                self.carry += got
                start = pos
                pos += len(got)
                if len(self.carry) < size:
                    return
                (length,) = self.fmt.unpack(self.carry)
                self.carry = b""
                yield "len", start, pos, length
            elif pos + size > n:
                self.carry = body[pos:]
                yield "partial-len", pos, n, 0
                return
            else:
                (length,) = unpack(body, pos)
                yield "len", pos, pos + size, length
                pos += size
            if length < 0:
                self.broken = True
                raise RecordError(f"record length {length} is negative", pos - size)
            if self.lrecl and length > self.lrecl:
                self.oversize += 1
            self.records += 1
            take = min(length, n - pos)
            self.left = length - take
            yield "data", pos, pos + take, int(self.left == 0)
            pos += take
            if self.left == 0 and self.nul:
                if pos < n:
                    yield "nul", pos, pos + 1, body[pos]
                    pos += 1
                else:
                    self.nul_left = 1

    @property
    def at_boundary(self) -> bool:
        return not self.carry and not self.left and not self.nul_left


def detect_record_nul(body: bytes, s: Settings, lrecl: int) -> bool:
    """Are external-file records followed by a NUL? Decided on the first records message: a
    convention fits when its lengths are plausible and (with NULs) every NUL byte is zero;
    the one that ends exactly on a record boundary is preferred; otherwise no NUL."""
    verdicts = {}
    for nul in (False, True):
        rs = RecordStream(replace(s, record_nul=nul), lrecl)
        limit = lrecl if lrecl > 0 else (1 << 27)
        try:
            ok = all(not (k == "len" and v > limit) and not (k == "nul" and v != 0)
                     for k, _a, _b, v in rs.pieces(body))
        except RecordError:
            ok = False
        verdicts[nul] = (ok, ok and rs.at_boundary)
    if verdicts[True][1] and not verdicts[False][1]:
        return True
    return verdicts[True][0] and not verdicts[False][0]


def decode_records(body: bytes, s: Settings, text: bool, stream: RecordStream | None = None,
                   *, base: int = 0, more: bool = False) -> Decoded:
    """External-file records (sequenced messages 2..N): one element per record. ``base`` is
    where ``body`` starts in a larger input read in pieces, ``more`` says another piece
    follows (a record running on into it is then no problem)."""
    unit = Decoded(FORMAT, base, len(body), attrs={"part": "records", **s.attrs()})
    rs = stream or RecordStream(s)
    lenf = layouts_for(s).record.field("len")
    el: Element | None = None
    bad = 0
    try:
        for kind, a, b, value in rs.pieces(body):
            raw = body[a:b]
            a, b = a + base, b + base
            if kind == "cont":
                el = Element("RECORD", a, b - a, title=f"RECORD[{rs.records}] (continued) element at "
                             f"offset X'{a:04X}'")
                bad += _record_span(el, raw, a, s, text, "record")
                unit.elements.append(el)
                if not value and not more:
                    unit.problems.append(Problem("record", b, "the record continues in the next "
                                                 "message"))
            elif kind == "len":
                el = Element("RECORD", a, b - a,
                             title=f"RECORD[{rs.records + 1}] element at offset X'{a:04X}'")
                el.spans.append(Span("len", a, b, value, "", "int", "", raw))
                unit.elements.append(el)
            elif kind == "partial-len":
                el = Element("RECORD", a, b - a, title=f"RECORD[{rs.records + 1}] (length split) "
                             f"element at offset X'{a:04X}'")
                el.spans.append(Span("len", a, b, f"{b - a} of {lenf.size} bytes", "", DATA, "", raw))
                unit.elements.append(el)
                if not more:
                    unit.problems.append(Problem("len", a, "the length field continues in the "
                                                 "next message"))
            elif kind == "data" and el is not None:
                bad += _record_span(el, raw, a, s, text, "record")
                el.length = b - el.offset
                if not value and not more:
                    unit.problems.append(Problem("record", b, f"the record continues in the next "
                                                 f"message ({rs.left} bytes to come)"))
            elif kind == "nul" and el is not None:
                el.spans.append(Span("record_nul", a, b, raw, "", "reserved", "", raw))
                el.length = b - el.offset
    except RecordError as e:
        unit.errors.append(Problem("len", max(e.offset, 0) + base, e.reason))
    if bad:
        unit.problems.append(Problem("record", base, f"{bad} bytes are no character of code page "
                                     f"{s.codepage}: shown as U+FFFD"))
    return unit


def _record_span(el: Element, raw: bytes, start: int, s: Settings, text: bool, name: str) -> int:
    """Add a record's bytes to its element; returns how many bytes the code page lacks."""
    if text:
        value = raw.decode(s.codepage, errors="replace")
        el.spans.append(Span(name, start, start + len(raw), value, "", "text", "", raw))
        return value.count("\ufffd") - raw.decode(s.codepage, errors="ignore").count("\ufffd")
    el.spans.append(Span(name, start, start + len(raw), f"{len(raw)} bytes", "", DATA, "", raw))
    el.data = (el.data or b"") + raw
    el.data_offset = start if el.data_offset is None else el.data_offset
    return 0


# --------------------------------------------------------------------------- data sets


def dataset_type(body: bytes, s: Settings) -> int | None:
    if len(body) < type_word(s):
        return None
    kind: int = int_struct(s).unpack_from(body, 0)[0]
    return kind


def parse_dsdef(body: bytes, s: Settings, start: int | None = None) -> Element:
    start = type_word(s) if start is None else start
    return layouts_for(s).dsdef.parse(body, start, prefix="dsdef", fmt=FORMAT)


def parse_vardefs(stream: bytes, s: Settings, start: int = 0, first: int = 1
                  ) -> tuple[list[Element], DecodeError | None]:
    """Variable definitions until the stream ends (a partial one is returned as the error);
    ``first`` numbers them when earlier messages held some."""
    return _run(VARIABLES, stream, s, start, first)


def parse_indexes(stream: bytes, s: Settings, start: int = 0) -> tuple[list[Element], DecodeError | None]:
    return _run(INDEXES_RUN, stream, s, start, 1)


def _run(rep: Repeat, stream: bytes, s: Settings, start: int, first: int
         ) -> tuple[list[Element], DecodeError | None]:
    """The definitions of a data set message (SAS Application Messaging, "Attachment Layout
    for WebSphere MQ and MSMQ", data set messages type 2 and 4: ``rep`` to the end),
    numbered from ``first``; the error of the one that does not parse (it may continue in
    the next message)."""
    out: list[Element] = []
    try:
        out.extend(items(rep, layout_named(layouts_for(s), str(rep.item)), stream, start, len(stream),
                         fmt=FORMAT, first=first))
    except DecodeError as e:
        return out, e
    return out, None


def variable_of(el: Element, s: Settings) -> Variable:
    return record_of(Variable, el, layouts_for(s).vardef)  # type: ignore[no-any-return]


def dsdef_of(el: Element, s: Settings) -> DatasetDef:
    return record_of(DatasetDef, el, layouts_for(s).dsdef)  # type: ignore[no-any-return]


@dataclass
class DatasetContext:
    """What earlier messages of a data set attachment said (for decoding the later ones)."""

    dsdef: DatasetDef | None = None
    variables: list[Variable] = field(default_factory=list)
    pending: bytes = b""  # variable-definition bytes not yet parsed (spanning messages)
    obs_carry: bytes = b""
    obs_count: int = 0
    layout: str = "definition"


def decode_dataset(body: bytes, s: Settings, ctx: DatasetContext | None = None) -> Decoded:
    """A data set message (type 1..5) with everything known from the earlier ones."""
    unit = Decoded(FORMAT, 0, len(body), attrs={"part": "dataset", **s.attrs()})
    lay = layouts_for(s)
    try:
        tid = lay.typeid.parse(body, 0, prefix="", fmt=FORMAT)
    except DecodeError as e:
        _error(unit, e)
        return unit
    unit.elements.append(tid)
    kind = tid.value_as("type", int)
    unit.attrs["dataset_message"] = DATASET_MESSAGES.get(kind, f"unknown type {kind}")
    ctx = ctx if ctx is not None else DatasetContext()
    tw = tid.length
    if kind == DSDEF:
        try:
            el = parse_dsdef(body, s)
            unit.elements.append(el)
            ctx.dsdef = dsdef_of(el, s)
            if tw + el.length != len(body):
                unit.problems.append(Problem("dsdef", tw + el.length, f"{len(body) - tw - el.length}"
                                             " bytes after the definition"))
        except DecodeError as e:
            _error(unit, e)
    elif kind == VARDEFS:
        stream = ctx.pending + body[tw:]
        base = tw - len(ctx.pending)
        els, err = parse_vardefs(stream, s, first=len(ctx.variables) + 1)
        for el in els:
            _shift(el, base)
            unit.elements.append(el)
            ctx.variables.append(variable_of(el, s))
        ctx.pending = b""
        if err is not None:
            ctx.pending = stream[sum(e.length for e in els):]
            off, before = _here(err.offset + base)
            unit.problems.append(Problem(err.path, off, f"{err.reason}{before} (the definition "
                                         "may continue in the next message)"))
    elif kind == OBSERVATIONS:
        _observations(unit, body, s, ctx)
    elif kind == INDEXES:
        els, err = parse_indexes(body, s, tw)
        unit.elements.extend(els)
        if err is not None:
            _error(unit, err)
    else:
        unit.elements.append(Element("DATA", tw, len(body) - tw, data=body[tw:], data_offset=tw,
                                     title=f"DATA element at offset X'{tw:04X}' (layout not "
                                     "published)"))
    return unit


def _here(offset: int) -> tuple[int, str]:
    """An offset in this message: bytes carried from earlier messages sit before its start,
    so a position among them is reported at 0 and said to be there."""
    if offset >= 0:
        return offset, ""
    return 0, f" ({-offset} bytes before this message, in the part carried from the previous one)"


def _shift(el: Element, delta: int) -> None:
    """Move a definition parsed from carried + new bytes to this message's offsets; what
    lies in the carried part is reported at 0 and said to be begun earlier."""
    shift_element(el, delta)
    el.spans[:] = [sp._replace(start=max(sp.start, 0), end=max(sp.end, 0)) for sp in el.spans]
    el.title = el.title.rsplit(" at offset", 1)[0] + f" at offset X'{max(el.offset, 0):04X}'" + (
        " (begun in the previous message)" if el.offset < 0 else "")
    el.offset = max(el.offset, 0)


def _observations(unit: Decoded, body: bytes, s: Settings, ctx: DatasetContext) -> None:
    tw = type_word(s)
    if not ctx.variables or ctx.dsdef is None:
        unit.elements.append(Element("OBSERVATIONS", tw, len(body) - tw, data=body[tw:],
                                     data_offset=tw, title=f"OBSERVATIONS element at offset "
                                     f"X'{tw:04X}' (no variable definitions seen: not decoded)"))
        return
    from mqtool.formats.sas.datasets import Observations

    obs = Observations(ctx.variables, ctx.dsdef.obslen, s.float_format, s.codepage, ctx.layout)
    for p in obs.problems:
        unit.problems.append(Problem("observations", tw, p))
    if obs.problems and obs.unusable:
        unit.errors.append(Problem("observations", tw, "the variable definitions give no usable "
                                   "observation layout: observations not decoded"))
        ctx.obs_carry = b""
        return
    stream = ctx.obs_carry + body[tw:]
    base = tw - len(ctx.obs_carry)
    whole = len(stream) // obs.obslen * obs.obslen
    for k, row in enumerate(obs.row_values(stream[:whole])):
        a = base + k * obs.obslen
        ctx.obs_count += 1
        el = Element("OBS", max(a, 0), obs.obslen, title=f"OBSERVATION[{ctx.obs_count}] element at "
                     f"offset X'{max(a, 0):04X}'" + (" (begun in the previous message)" if a < 0
                                                     else ""))
        for var, off, value in zip(obs.variables, obs.offsets, row, strict=True):
            off = min(off, obs.obslen)  # a variable the observation length leaves out: empty
            start, width = a + off, max(0, min(var.length, obs.obslen - off))
            raw = stream[start - base:start - base + width]
            shown = value if isinstance(value, str) else float(value)
            el.spans.append(Span(var.name, max(start, 0), max(start + width, 0), shown,
                                 "missing" if isinstance(value, str) and var.numeric else "",
                                 "text" if not var.numeric else "int", "", raw))
        unit.elements.append(el)
    ctx.obs_carry = stream[whole:]
    if ctx.obs_carry:
        unit.problems.append(Problem("observations", max(len(body) - len(ctx.obs_carry), 0),
                                     f"{len(ctx.obs_carry)} bytes of an observation continue in "
                                     "the next message"))


# --------------------------------------------------------------------------- protocol API


def guess_settings(body: bytes, hints: Hints) -> Settings:
    """Settings for a lone subordinate message: forced / MQMD hints, else the byte order in
    which its first word is the smaller non-negative number."""
    if hints.byte_order or hints.mqmd_byte_order:
        big = (hints.byte_order or hints.mqmd_byte_order) == "big"
    elif len(body) >= (w := type_word(Settings())):
        be, le = (int.from_bytes(body[:w], "big", signed=True),
                  int.from_bytes(body[:w], "little", signed=True))
        big = not (0 <= le < be or be < 0 <= le)
    else:
        big = True
    cp = hints.page or hints.mqmd_page or "cp037"
    s = Settings(big, hints.long or 4, cp, True if hints.nul is None else hints.nul)
    return settings_for("ebcdic" if is_ebcdic(cp) else "ascii", hints, s)


def decode_part(body: bytes, part: str, hints: Hints = Hints(), **options: Any) -> Decoded:
    """One message body as ``part`` (``auto`` tries header, then the subordinate shapes and
    refuses a body that fits none: ``unrecognised``)."""
    unit = _decode_part(body, part, hints, **options)
    unit.problems[:0] = hints.page_problems()
    return unit


def _decode_part(body: bytes, part: str, hints: Hints, **options: Any) -> Decoded:
    if part in ("auto", "header"):
        unit, header = decode_header(body, hints, options.get("correlid"))
        if header is not None or part == "header":
            return unit
    s = guess_settings(body, hints)
    count, fileinfo = (layouts_for(s).count.size, layouts_for(s).fileinfo.size)
    if part == "application":
        return decode_application(body, s)
    if part == "count" or (part == "auto" and len(body) == count):
        unit = decode_count(body, s)
        if part == "auto":
            unit.problems.append(Problem("count", 0, f"taken as a count message for its {count} "
                                         "bytes; --part names the message kind"))
        return unit
    if part == "file-info" or (part == "auto" and len(body) == fileinfo):
        unit = decode_fileinfo(body, s)
        if part == "auto":
            unit.problems.append(Problem("file-info", 0, "taken as external-file message 1 "
                                         f"(lrecl, filesize) for its {fileinfo} bytes; --part "
                                         "names the message kind"))
        return unit
    if part == "dataset":
        return decode_dataset(body, s)
    if part == "records":
        return decode_records(body, s, text=options.get("text", False))
    if dataset_type(body, s) in DATASET_MESSAGES:
        unit = decode_dataset(body, s)
        exact = dataset_type(body, s) not in (DSDEF, INDEXES) or not unit.problems
        if unit.ok and exact:
            return unit
    rs = RecordStream(s)
    unit = decode_records(body, s, text=False, stream=rs)
    if unit.ok and unit.elements and rs.at_boundary and rs.records:
        return unit
    return unrecognised(body, "not an attachment header, and no subordinate message shape fits "
                        "(records would run past the end of the message); --part names the "
                        "message kind")


SHOWN = 256  # bytes of an unrecognised body shown in its listing


def unrecognised(body: bytes | memoryview, reason: str, size: int | None = None) -> Decoded:
    """The unit of a body that is no attachment message: its first bytes and the error."""
    size = len(body) if size is None else size
    head = bytes(body[:SHOWN])
    unit = Decoded(FORMAT, 0, size, attrs={"part": "unrecognised"})
    unit.elements.append(Element("DATA", 0, len(head), data=head, data_offset=0,
                                 title="not recognised as any attachment message" + (
                                     f" (first {len(head)} of {size} bytes)"
                                     if len(head) < size else "")))
    unit.errors.append(Problem("", 0, reason))
    return unit


def decode(data: bytes, **options: Any) -> Iterator[Decoded]:
    """Registry protocol: ``data`` is one message body. Options: ``part``, ``byte_order``,
    ``long``, ``codepage``, ``nul``, ``float_format``, ``encoding`` / ``ccsid`` (MQMD)."""
    hints = Hints.of(options, options.get("encoding"), options.get("ccsid"))
    yield decode_part(data, options.get("part") or "auto", hints,
                      correlid=options.get("correlid"))


def detect(data: bytes) -> Detection | None:
    """An attachment header (exact parse in some variant) or a data set definition message."""
    if len(data) < 80 or len(data) > 32 << 20:
        return _detect_dsdef(data)
    s, reason, elements = detect_header(data)
    if s is None:
        return _detect_dsdef(data)
    named = _charset_from(elements) is not None
    n = len(_entries_of(elements))
    return Detection(FORMAT, 0.95 if named else 0.7,
                     f"SAS attachment header, {n} attachment{'s' * (n != 1)}: {reason}",
                     {"part": "header", **s.attrs()})


def _detect_dsdef(data: bytes) -> Detection | None:
    for big in (True, False):
        for cp in ("cp037", "latin-1"):
            s = Settings(big, 4, cp, True)
            if dataset_type(data, s) != 1:
                continue
            try:
                el = parse_dsdef(data, s)
            except DecodeError:
                continue
            if el.value("dstype") in ("DATA", "VIEW") and 4 + el.length == len(data):
                return Detection(FORMAT, 0.6, f"SAS attachment data set definition message "
                                 f"({s.byte_order}-endian, {cp})", {"part": "dataset"})
    return None


def message_settings(header: Header | None, hints: Hints) -> Settings:
    """Settings for the subordinate messages of a header (forced options still win)."""
    if header is None:
        return Settings()
    s = header.settings
    if hints.float_format:
        s = replace(s, float_format=hints.float_format)
    return s


# --------------------------------------------------------------------------- a dump, decoded


@dataclass
class _Att:
    entry: Entry
    settings: Settings
    order: str | None = None
    stream: RecordStream | None = None
    expected: int = 2
    lrecl: int = 0
    dataset: DatasetContext = field(default_factory=DatasetContext)


class MessageDecoder:
    """Decodes the messages of a queue dump one at a time, each in the role the headers seen
    so far give it (``io.queue_dump.Message`` in, ``(Decoded, body)`` out)."""

    def __init__(self, hints: Hints = Hints(), obs_layout: str = "definition") -> None:
        self.hints, self.obs_layout = hints, obs_layout
        self.apps: dict[bytes, Header] = {}
        self.atts: dict[bytes, _Att] = {}

    def decode(self, msg: Any) -> tuple[Decoded, bytes]:
        from mqtool.codepages import ccsid_codec
        from mqtool.formats.mq.mqmd import byte_order_of, float_format_of

        hints, apps, atts = self.hints, self.apps, self.atts
        cid, mtype, body = msg.correlid, msg.msgtype, msg.body
        h = replace(hints, mqmd_byte_order=byte_order_of(msg.encoding),
                    mqmd_codepage=ccsid_codec(msg.ccsid), mqmd_float=float_format_of(msg.encoding))
        role, unit = "", None
        if mtype == HEADER_MSGTYPE:
            unit, header = decode_header(body, h, cid)
            role = "attachment header"
            if header is not None:
                apps[key_of(header.message_correlid)] = header
                for e in header.entries:
                    atts[g_of(e.correlid)] = _Att(e, message_settings(header, hints))
        elif mtype == SUBORDINATE_MSGTYPE and cid is not None and key_of(cid) in apps:
            unit, role = (decode_application(body, apps[key_of(cid)].settings),
                          "application message")
        elif mtype == SUBORDINATE_MSGTYPE and cid is not None and g_of(cid) in atts:
            unit, role = _decode_piece(atts[g_of(cid)], cid, body)
        elif mtype in (HEADER_MSGTYPE, SUBORDINATE_MSGTYPE) or mtype is None:
            unit = decode_part(body, "auto", h, correlid=cid)
            role = "no header seen for this correlid" if mtype else "role unknown"
            if mtype is None:
                unit.problems.append(Problem("", 0, "the dump gives no MsgType/CorrelId for this "
                                             f"message ({', '.join(msg.missing_fields())} "
                                             "missing): decoded on its own"))
        else:
            unit = Decoded(FORMAT, 0, len(body), attrs={"part": "other"})
            unit.problems.append(Problem("", 0, f"MsgType {mtype} is not a SAS attachment message "
                                         "(100000 / 100001); not decoded"))
            role = "not an attachment message"
        from mqtool.formats.mq.dumps.read import label_unit

        return label_unit(unit, msg, role), body


def decode_messages(messages: Iterator[Any], hints: Hints = Hints(),
                    obs_layout: str = "definition") -> Iterator[tuple[Decoded, bytes]]:
    """Each message of a queue dump (``io.queue_dump.Message``) decoded in its role, known
    from the headers seen so far; messages whose header comes later are decoded alone."""
    decoder = MessageDecoder(hints, obs_layout)
    for msg in messages:
        yield decoder.decode(msg)


def _decode_piece(att: _Att, cid: bytes, body: bytes) -> tuple[Decoded, str]:
    raw = seq_raw(cid)
    if not any(raw):
        return decode_count(body, att.settings), f"attachment {att.entry.index} count"
    if att.order is None:
        att.order = "big" if int.from_bytes(raw, "big") <= int.from_bytes(raw, "little") else "little"
    seq = int.from_bytes(raw, att.order)  # type: ignore[arg-type]
    role = f"attachment {att.entry.index} message {seq}"
    s = att.settings
    if att.entry.type == DATASET:
        return decode_dataset(body, s, att.dataset), role
    if seq == 1:
        unit = decode_fileinfo(body, s)
        if unit.ok and unit.elements:
            att.lrecl = unit.elements[0].value_as("lrecl", int)
        return unit, role
    if att.stream is None:
        att.settings = s = replace(s, record_nul=detect_record_nul(body, s, att.lrecl))
        att.stream = RecordStream(s, att.lrecl)
    problems = []
    if seq != att.expected:
        problems.append(Problem("", 0, f"expected message {att.expected}: records decoded as if "
                                "this message began with one"))
        att.stream.reset()
    att.expected = seq + 1
    unit = decode_records(body, s, att.entry.type == TEXT_FILE, att.stream)
    unit.problems[:0] = problems
    return unit, role
