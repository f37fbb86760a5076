"""URB messages: detection and the forensic span walk (elements by their length fields,
messages back to back by URBHLENT). The declarations are in ``layout.py``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from mqtool.codepages import codec_name
from mqtool.errors import DecodeError
from mqtool.formats.urb.layout import (
    BORD_LEN,
    COUNTS,
    DEFAULT_ASCII,
    DEFAULT_EBCDIC,
    ELEMENT_HEAD,
    ELEMENT_LEN_AT,
    ELEMENTS,
    EYE_LEN,
    FORMAT,
    HEADER_CONSTANTS,
    ISN_LIST,
    RAW_SHOWN,
    URBG_TABLE,
    URBHBORD_AT,
    URBHLEN_AT,
    URBHLENT_AT,
    URBHVERS_AT,
    WORD,
    Count,
    ElementRule,
    Urb,
    _at,
    _element_charset,
    byte_order_of,
    charset_of,
    layouts,
)
from mqtool.formats.urb.meanings import (
    REQUEST_TYPES,
    SINGLE_BYTE,
    UTILITY_FUNCTIONS,
    ecs_codec,
)
from mqtool.layout import Layout
from mqtool.model import STCK, Decoded, Detection, Element, Problem
from mqtool.tod import Tod


def detect(data: bytes) -> Detection | None:
    """A URB message: URBH eyecatcher (EBCDIC or ASCII) and a plausible URBHBORD/URBHLEN."""
    head = bytes(data[:EYE_LEN])
    cs = charset_of(head)
    if cs is None:
        ecs = _element_charset(head)
        if ecs is None:
            return None
        eye = head.decode(DEFAULT_EBCDIC if ecs == "ebcdic" else DEFAULT_ASCII)
        return Detection(FORMAT, 0.5, f"{eye} eyecatcher in {ecs.upper()} without a URBH "
                                      "(ADARPE extract?)", {"codepage": _default_cp(ecs)})
    bord = bytes(data[URBHBORD_AT:URBHBORD_AT + BORD_LEN])
    order = byte_order_of(bord)
    if order is None:
        bord = bord.hex().upper()
        return Detection(FORMAT, 0.4, f"URBH eyecatcher in {cs.upper()}, but urbhbord "
                                      f"X'{bord}' is neither 0001 nor 0100")
    bo = "big" if order == "big" else "little"
    hlen = int.from_bytes(data[URBHLEN_AT:URBHLEN_AT + WORD], bo, signed=True)
    lent = int.from_bytes(data[URBHLENT_AT:URBHLENT_AT + WORD], bo)
    reason = (f"URBH eyecatcher in {cs.upper()}, urbhbord {order}-endian, urbhlen {hlen}, "
              f"urbhlent {lent}")
    options = {"codepage": _default_cp(cs), "byte_order": order}
    size = layouts().URBH.size
    if hlen == size and lent >= size:
        return Detection(FORMAT, 0.95 if lent <= len(data) else 0.8, reason, options)
    return Detection(FORMAT, 0.6, reason + " (implausible)", options)


def _default_cp(charset: str) -> str:
    return DEFAULT_EBCDIC if charset == "ebcdic" else DEFAULT_ASCII


# --------------------------------------------------------------------------- decoding


def decode(data: bytes, codepage: str | None = None, byte_order: str | None = None,
           urbi_data: str = "auto", leap_seconds: int = 0, **_: object) -> Iterator[Decoded]:
    """Decode every message in ``data`` (back to back, walked by URBHLENT).

    ``codepage`` forces the character set of every message (``037``, ``500``, ``1047``,
    ``ascii``...; default: EBCDIC 037 or latin-1, from the URBH eyecatcher); ``byte_order``
    (``big`` / ``little``; ``auto`` or None: from URBHBORD) forces the byte order.
    ``urbi_data`` says what follows an INST URBI: ``isn`` list, ``selection`` data, or
    ``auto`` (an ISN list when it parses as one and is not printable text).
    ``leap_seconds``: the TOD clock counts leap seconds (steered to TAI-like time, 27 since
    2017); times are shown that many seconds earlier, the raw values (``_hex``) unchanged.
    """
    if not isinstance(leap_seconds, int) or not 0 <= leap_seconds <= 60:
        raise ValueError(f"leap seconds must be 0..60, not {leap_seconds!r}")
    if byte_order == "auto":
        byte_order = None
    if byte_order not in (None, "big", "little"):
        raise ValueError(f"byte order must be big, little or auto, not {byte_order!r}")
    if urbi_data not in ("auto", "isn", "selection"):
        raise ValueError(f"urbi_data must be auto, isn or selection, not {urbi_data!r}")
    cp = codec_name(codepage) if codepage else None
    data = bytes(data)
    off = 0
    while off < len(data):
        unit, nxt = _message(data, off, cp, byte_order, urbi_data)
        if leap_seconds:
            _leap(unit, leap_seconds)
        yield unit
        if nxt is None or nxt <= off:
            return
        off = nxt


@lru_cache(maxsize=61)
def leap_tod(seconds: int) -> type[Tod]:
    """A ``Tod`` whose times are ``seconds`` earlier (its raw value unchanged)."""

    class LeapTod(Tod):
        __slots__ = ()

        def datetime(self, leap_seconds: int = 0):  # type: ignore[no-untyped-def,override]
            return Tod.datetime(self, leap_seconds + seconds)

    return LeapTod


def _leap(unit: Decoded, seconds: int) -> None:
    cls = leap_tod(seconds)
    for el in unit.elements:
        el.spans = [s._replace(value=cls(s.value)) if s.kind == STCK and isinstance(s.value, Tod) else s
                    for s in el.spans]
    unit.attrs["leap_seconds"] = seconds


def _raw_unit(data: bytes, off: int, reason: str, path: str = "urbh.urbheye") -> Decoded:
    n = len(data) - off
    unit = Decoded(FORMAT, off, n)
    shown = data[off:off + RAW_SHOWN]
    more = f", first {len(shown)} shown" if n > len(shown) else ""
    unit.elements.append(Element("RAW", off, n, data=shown, data_offset=off, data_name="bytes",
                                 title=f"unrecognised bytes at offset X'{off:04X}' ({n} bytes{more})"))
    unit.errors.append(Problem(path, off, reason))
    return unit


def _message(data: bytes, off: int, cp: str | None, order: str | None,
             urbi_data: str) -> tuple[Decoded, int | None]:
    head = data[off:off + EYE_LEN]
    cs = charset_of(head)
    if cs is None and cp is None:
        ecs = _element_charset(head)
        if ecs is not None and len(data) - off >= ELEMENT_HEAD:
            return _headerless(data, off, _default_cp(ecs), order, urbi_data)
        what = "the input is" if off == 0 else f"the {len(data) - off} bytes after the last message are"
        return _raw_unit(data, off, f"{what} not a URB message: X'{head.hex().upper()}' is "
                                    "neither 'URBH' in EBCDIC (X'E4D9C2C8') nor in ASCII "
                                    "(X'55524248')"), None
    cp = cp or _default_cp(cs or "ebcdic")
    bord = data[off + URBHBORD_AT:off + URBHBORD_AT + BORD_LEN]
    bad_bord = None
    if order is None:
        order = byte_order_of(bord)
        if order is None and len(bord) == BORD_LEN:
            bad_bord = (f"urbhbord X'{bord.hex().upper()}' is neither X'0001' (big-endian) nor "
                        "X'0100' (little-endian); the URBH is shown big-endian")
            order = "big"
        order = order or "big"
    lay = layouts(order == "big", cp)
    hsize = lay.URBH.size
    unit = Decoded(FORMAT, off, min(len(data) - off, hsize),
                   attrs={"codepage": cp, "byte_order": order})
    try:
        urbh = lay.URBH.parse(data, off, prefix="urbh", fmt=FORMAT)
    except DecodeError as e:
        unit.elements.append(e.partial)
        unit.errors.append(Problem(e.path, e.offset, e.reason))
        return unit, None
    unit.elements.append(urbh)
    if bad_bord:
        unit.errors.append(Problem("urbh.urbhbord", off + URBHBORD_AT, bad_bord))
        return unit, None
    v = _values(lay.URBH, urbh)
    if v["urbhbord"] != 1:
        unit.problems.append(Problem("urbh.urbhbord", off + URBHBORD_AT,
                                     f"urbhbord reads {v['urbhbord']} {order}-endian, not 1 "
                                     "(byte order forced)"))
    if v["urbhvers"] != HEADER_CONSTANTS["urbhvers"]:
        unit.problems.append(Problem("urbh.urbhvers", off + URBHVERS_AT,
                                     f"urbhvers {v['urbhvers']!r} is not "
                                     f"{HEADER_CONSTANTS['urbhvers']!r}"))
    if v["urbhlen"] != hsize:
        unit.problems.append(Problem("urbh.urbhlen", off + URBHLEN_AT,
                                     f"urbhlen {v['urbhlen']} is not {hsize}; elements read from "
                                     f"+{hsize}"))
    lent = v["urbhlent"]
    if lent < hsize:
        unit.errors.append(Problem("urbh.urbhlent", off + URBHLENT_AT,
                                   f"urbhlent {lent} is shorter than the {hsize}-byte URBH"))
        return unit, None
    end = off + lent
    avail = min(end, len(data))
    unit.length = avail - off
    walk = _Walk(data, lay, unit, urbi_data)
    walk.run(off + hsize, end, avail)
    if not unit.errors and avail < end:
        unit.errors.append(Problem("urbh.urbhlent", len(data),
                                   f"message truncated: urbhlent is {lent}, the input ends "
                                   f"{avail - off} bytes into the message"))
    return unit, (end if end <= len(data) else None)


def _headerless(data: bytes, off: int, cp: str, order: str | None,
                urbi_data: str) -> tuple[Decoded, int | None]:
    """URB elements without a URBH (ADARPE extract records); EBCDIC/ASCII from the eyecatcher,
    big-endian unless forced (as ADARPE writes them)."""
    order = order or "big"
    lay = layouts(order == "big", cp)
    unit = Decoded(FORMAT, off, len(data) - off, attrs={"codepage": cp, "byte_order": order},
                   title=f"URB elements without a URBH at offset X'{off:04X}' (ADARPE extract)")
    walk = _Walk(data, lay, unit, urbi_data, stop_at_urbh=True)
    pos = walk.run(off, len(data), len(data))
    unit.length = pos - off
    return unit, (pos if pos < len(data) and not unit.errors else None)


class _Walk:
    """Walks the elements of one message by their own length fields, as ``ELEMENTS`` says."""

    def __init__(self, data: bytes, lay: Urb, unit: Decoded, urbi_data: str,
                 stop_at_urbh: bool = False) -> None:
        self.data, self.lay, self.unit, self.urbi_data = data, lay, unit, urbi_data
        self.cp = lay.variant.codepage
        self.bo = "big" if lay.variant.big else "little"
        self.stop_at_urbh = stop_at_urbh
        self.counts: Counter[str] = Counter()
        self.acod = 0  # urbtacod of the current URBT: code page of the URBD images
        self.open: dict[str, _Open] = {}  # count field -> the parent counting
        self.request_types: list[tuple[str, int]] = []

    # -- helpers --------------------------------------------------------------------

    def error(self, path: str, offset: int, reason: str) -> None:
        self.unit.errors.append(Problem(path, offset, reason))

    def problem(self, path: str, offset: int, reason: str) -> None:
        self.unit.problems.append(Problem(path, offset, reason))

    def s4(self, pos: int) -> int:
        return int.from_bytes(self.data[pos:pos + WORD], self.bo, signed=True)

    def parse(self, layout: Layout, pos: int, length: int, prefix: str,
              lenfield: str) -> Element:
        """Parse ``layout`` inside an element of ``length`` bytes; fields that do not fit are
        reported (a problem) and left out."""
        try:
            el = layout.parse(self.data, pos, prefix=prefix, fmt=FORMAT, limit=pos + length)
        except DecodeError as e:
            el = e.partial
            self.problem(e.path, e.offset, f"{layout.name} is {length} bytes ({lenfield}), shorter "
                                           f"than its {layout.size}: fields from "
                                           f"{e.path.rsplit('.', 1)[-1]} on are missing")
        el.length = length
        return el

    # -- the walk -------------------------------------------------------------------

    def run(self, pos: int, end: int, avail: int) -> int:
        """Walk from ``pos`` to ``end`` (declared) / ``avail`` (present); returns where it stopped."""
        data = self.data
        while pos < avail:
            if avail - pos < ELEMENT_HEAD:
                self._rest(pos, end, avail)
                return avail
            eye = data[pos:pos + EYE_LEN]
            etype = eye.decode(self.cp)
            length = self.s4(pos + ELEMENT_LEN_AT)
            rule = ELEMENTS.get(etype)
            if rule is None:
                if self.stop_at_urbh and etype == "URBH":
                    return pos
                if not self._unknown(pos, eye, length, avail):
                    return pos
                pos += length
                continue
            k = self.counts[etype]
            self.counts[etype] += 1
            prefix = f"{etype.lower()}[{k}]"
            lenpath = f"{prefix}.{rule.length}"
            at = pos + ELEMENT_LEN_AT
            if length < ELEMENT_HEAD:
                what = "negative" if length < 0 else "zero" if length == 0 else f"less than {ELEMENT_HEAD}"
                self._cut(rule, pos, min(ELEMENT_HEAD, avail - pos), prefix)
                self.error(lenpath, at, f"{rule.length} {length} is {what}: the walk cannot go on")
                return pos
            if pos + length > end:
                self._cut(rule, pos, min(length, avail - pos), prefix)
                self.error(lenpath, at,
                           f"{rule.length} {length} runs past the end of the message "
                           f"(X'{pos + length:04X}' > urbhlent end X'{end:04X}')")
                return pos
            if pos + length > avail:
                self._cut(rule, pos, avail - pos, prefix)
                self.error(lenpath, at,
                           f"message truncated: the {etype} needs {length} bytes, the input ends "
                           f"after {avail - pos}")
                return avail
            self._element(rule, pos, length, prefix)
            pos += length
        self._finish()
        return pos

    def _rest(self, pos: int, end: int, avail: int) -> None:
        n = avail - pos
        self.unit.elements.append(Element("RAW", pos, n, data=self.data[pos:avail], data_offset=pos,
                                          data_name="bytes", title=f"{n} bytes at offset X'{pos:04X}'"))
        if avail < end:
            self.error("urbh.urbhlent", avail, f"message truncated: urbhlent says {end - self.unit.offset} "
                                               f"bytes, the input ends after {avail - self.unit.offset}")
        else:
            self.error("element.eye", pos, f"{n} bytes left at the end of the message, too few for "
                                           f"an element (eyecatcher and length: {ELEMENT_HEAD} bytes)")

    def _cut(self, rule: ElementRule, pos: int, length: int, prefix: str) -> None:
        """The fields of a damaged element that are present, for the partial listing."""
        layout = rule.layout(self.lay)
        try:
            el = layout.parse(self.data, pos, prefix=prefix, fmt=FORMAT, limit=pos + length)
        except DecodeError as e:
            el = e.partial
        el.length = length
        self.unit.elements.append(el)

    def _unknown(self, pos: int, eye: bytes, length: int, avail: int) -> bool:
        """An element with an unknown eyecatcher: shown raw; True when the walk can skip it."""
        k = self.counts["?"]
        self.counts["?"] += 1
        plausible = ELEMENT_HEAD <= length <= avail - pos
        el = self.lay.ELEMENT.parse(self.data, pos, prefix=f"unknown[{k}]", fmt=FORMAT)
        text = eye.decode(self.cp)
        shown = repr(text) if text.isprintable() else "not text"
        el.title = f"unknown element X'{eye.hex().upper()}' ({shown}) at offset X'{pos:04X}'"
        head = pos + ELEMENT_HEAD
        stop = pos + length if plausible else min(avail, head + RAW_SHOWN)
        el.data, el.data_offset, el.data_name = self.data[head:stop], head, "bytes"
        el.length = stop - pos
        el.type = "UNKNOWN"
        self.unit.elements.append(el)
        tail = "; skipped by its length" if plausible else "; its length is implausible, the walk stops"
        self.error(f"unknown[{k}].eye", pos,
                   f"unknown eyecatcher X'{eye.hex().upper()}' ({shown}){tail}")
        return plausible

    def _element(self, rule: ElementRule, pos: int, length: int, prefix: str) -> None:
        """One known element: its layout, extra bytes or trailing data, then its handler."""
        layout = rule.layout(self.lay, length)
        size = layout.size or 0
        sizes = rule.sizes(self.lay)
        if rule.fixed and len(sizes) > 1 and length not in sizes:
            self.problem(f"{prefix}.{rule.length}", pos + ELEMENT_LEN_AT,
                         f"{rule.length} {length} is neither {' nor '.join(map(str, sizes))}; the "
                         f"fields of the {size}-byte {rule.type} that fit are shown")
        el = self.parse(layout, pos, length, prefix, rule.length)
        self.unit.elements.append(el)
        v = _values(layout, el)
        where = None
        if rule.fixed:
            if length > size:
                self._extra(el, pos + size, pos + length, f"{prefix}.{rule.length}")
        elif rule.trailing is not None and rule.trailing.length in v and length >= size:
            where = self._trailing(el, prefix, rule, v, size)
        self._count(rule.type, el, layout)
        handler = getattr(self, f"_{rule.type.lower()}", None)
        if handler is not None:
            handler(el, v, where, prefix)

    def _extra(self, el: Element, start: int, stop: int, path: str) -> None:
        el.data, el.data_offset, el.data_name = self.data[start:stop], start, "extra"
        self.problem(path, start, f"{stop - start} bytes follow the {start - el.offset}-byte {el.type}")

    def _trailing(self, el: Element, prefix: str, rule: ElementRule, v: dict,
                  size: int) -> tuple[int, int] | None:
        """Where the data after an element's fixed part is, checked against its lengths."""
        t = rule.trailing
        assert t is not None
        pos, length = el.offset, el.length
        lenh, lend = v.get(t.start), v[t.length]
        if t.tolerated:
            if lenh not in (size, *t.tolerated):
                self.problem(f"{prefix}.{t.start}", _at(el, t.start),
                             f"{t.start} {lenh} is neither {' nor '.join(map(str, (size, *t.tolerated)))}; "
                             f"{t.name} read from +{size}")
            lenh = size
        if lenh < size or lenh > length:
            self.error(f"{prefix}.{t.start}", _at(el, t.start),
                       f"{t.start} {lenh} is outside {size}..{rule.length} ({length})")
            return None
        if lend < 0 or lenh + lend > length:
            self.error(f"{prefix}.{t.length}", _at(el, t.length),
                       f"{t.length} {lend} does not fit: {t.start} {lenh} + {lend} > {rule.length} {length}")
            return None
        start = pos + lenh
        filler = self.data[start + lend:pos + length]
        if any(filler):
            self.problem(f"{prefix}.filler", start + lend,
                         f"{len(filler)} bytes of alignment filler are not zero")
        if lend and not (rule.repeat and rule.repeat.count):  # a counted repeat: its items
            el.data, el.data_offset, el.data_name = self.data[start:start + lend], start, t.name
        return start, start + lend

    # -- element handlers -----------------------------------------------------------

    def _urbi(self, el: Element, v: dict, where: tuple[int, int] | None, prefix: str) -> None:
        rt = v.get("urbirt")
        if rt is not None:
            at = _at(el, "urbirt")
            self.request_types.append((rt, at))
            if rt not in REQUEST_TYPES:
                self.problem(f"{prefix}.urbirt", at,
                             f"urbirt {rt!r} is not a request type ({', '.join(REQUEST_TYPES)}); "
                             "the server answers response 131 subcode 56")
        if where is None or where[0] == where[1]:
            el.data = None
            return
        start, stop = where
        body = el.data or b""
        acodec = ecs_codec(v["urbiacod"])
        textcp = acodec if acodec in SINGLE_BYTE else self.cp
        isns = None
        if self.urbi_data == "isn":
            isns = self._isn_list(start, stop, prefix, strict=True)
        elif self.urbi_data == "auto" and rt == "INST" and not _printable(body, textcp):
            isns = self._isn_list(start, stop, prefix, strict=False)
        if isns is not None:
            el.data = None
            el.extra["data"] = body.hex().upper()
            self.unit.elements.append(isns)
        else:
            el.data_codepage = textcp if textcp != self.cp else None

    def _isn_list(self, start: int, stop: int, prefix: str, strict: bool) -> Element | None:
        """The ISN list in one pass (``ISN_LIST``: single ISNs, and ranges marked by their
        first fullword). Not ``strict``: None when the bytes are not one (selection data)."""
        single, ranged = (getattr(self.lay, n) for n in ISN_LIST.layouts)
        marker = ISN_LIST.marker.to_bytes(single.size, self.bo)  # type: ignore[union-attr]
        word = single.size
        el = Element("ISNLIST", start, stop - start,
                     title=f"ISN list at offset X'{start:04X}' ({stop - start} bytes)")
        items: list[int | list[int]] = []
        data, pos, j = self.data, start, 0
        parse_single, parse_range = single.parse, ranged.parse
        while pos < stop:
            ipre = f"{prefix}.{ISN_LIST.name}[{j}]"
            left = stop - pos
            is_range = data[pos:pos + word] == marker
            need = ranged.size if is_range else word
            if left < need:
                if not strict:
                    return None
                self.error(ipre, pos, f"ISN list: range cut short, {left} bytes left of {need}"
                           if is_range else f"ISN list: {left} bytes left, an ISN needs {need}")
                break
            if is_range:
                item = parse_range(data, pos, prefix=ipre, fmt=FORMAT)
                _marker, first, last = (sp.value for sp in item.spans)
                items.append([first, last])
            else:
                item = parse_single(data, pos, prefix=ipre, fmt=FORMAT)
                items.append(item.spans[0].value)
            el.spans += item.spans
            pos += need
            j += 1
        el.extra["fields"] = {"isns": items}
        return el

    def _urbs(self, el: Element, v: dict, where: tuple[int, int] | None, prefix: str) -> None:
        if where is None or where[0] == where[1] or v["urbsst"] != "AUTI":
            return
        start, stop = where
        su_layout = self.lay.URBSU
        if stop - start < su_layout.size:
            return
        su = su_layout.parse(self.data, start, prefix=f"{prefix}.urbsu", fmt=FORMAT)
        su.title = f"URBSU utility detail at offset X'{start:04X}'"
        detail = start + su_layout.size
        su.length = detail - start
        el.data = None
        el.extra["data"] = self.data[start:stop].hex().upper()
        self.unit.elements.append(su)
        if detail >= stop:
            return
        utyp = _values(su_layout, su).get("urbsutyp")
        layout = self.lay.URBSUD.get(utyp) if isinstance(utyp, int) else None
        if layout is None:  # no detail declared for this function: shown as bytes
            su.data, su.data_offset, su.data_name = self.data[detail:stop], detail, "detail"
            su.length = stop - start
            return
        d = self.parse(layout, detail, stop - detail, f"{prefix}.urbsu.detail", "urbslend")
        name = UTILITY_FUNCTIONS.get(utyp, "")
        d.title = f"URBSU function detail (X'{utyp:02X}' {name}) at offset X'{detail:04X}'"
        if stop - detail > layout.size:
            tail = detail + layout.size
            d.data, d.data_offset, d.data_name = self.data[tail:stop], tail, "extra"
        self.unit.elements.append(d)

    def _urbt(self, el: Element, v: dict, where: tuple[int, int] | None, prefix: str) -> None:
        self.acod = v.get("urbtacod") or 0

    def _urbd(self, el: Element, v: dict, where: tuple[int, int] | None, prefix: str) -> None:
        if where is None:
            return
        if el.data is None:
            el.data, el.data_offset, el.data_name = b"", where[0], ELEMENTS["URBD"].trailing.name  # type: ignore[union-attr]
        acodec = ecs_codec(self.acod)
        if acodec in SINGLE_BYTE and acodec != self.cp:
            el.data_codepage = acodec

    def _urbf(self, el: Element, v: dict, where: tuple[int, int] | None, prefix: str) -> None:
        if where is None or URBG_TABLE.size not in v:
            return
        start, stop = where
        rep = URBG_TABLE
        layout = getattr(self.lay, rep.layouts[0])
        count, size = v[rep.count], v[rep.size]
        lend = ELEMENTS["URBF"].trailing.length  # type: ignore[union-attr]
        if count * size != stop - start:
            self.problem(f"{prefix}.{lend}", _at(el, lend),
                         f"{lend} {stop - start} is not {rep.count} {count} x {rep.size} {size}")
        least = layout.fields[1].start  # an item holds at least its index and field name
        if count and size < least:
            self.error(f"{prefix}.{rep.size}", _at(el, rep.size),
                       f"{rep.size} {size} is too small for a {layout.name}")
            return
        for j in range(count):
            gpos = start + j * size
            gpre = f"{prefix}.{rep.name}[{j}]"
            if gpos + size > stop:
                self.error(gpre, gpos, f"{layout.name} {j} of {count} does not fit in {lend} {stop - start}")
                return
            g = self.parse(layout, gpos, size, gpre, rep.size)
            if size > layout.size:
                g.data, g.data_offset, g.data_name = (self.data[gpos + layout.size:gpos + size],
                                                      gpos + layout.size, "extra")
            g.title = f"{layout.name} {j} at offset X'{gpos:04X}'"
            self.unit.elements.append(g)

    # -- the counts parents keep (COUNTS) ---------------------------------------------

    def _count(self, etype: str, el: Element, layout: Layout) -> None:
        for c in COUNTS:
            state = self.open.get(c.field)
            if etype in c.breaks and state is not None:
                state.n = -1
            if etype == c.parent or etype in c.closers:
                self._close(c, ended=etype in c.closers)
            elif etype == c.child and state is not None and state.n >= 0:
                state.n += 1
            if etype == c.parent:
                self.open[c.field] = _Open(el, layout)

    def _close(self, c: Count, ended: bool = False) -> None:
        state = self.open.pop(c.field, None)
        if state is None:
            return
        el, layout, n = state.el, state.layout, state.n
        if n < 0:
            return
        v = _values(layout, el)
        want = v.get(c.field)
        if not isinstance(want, int) or want == n:
            return
        if c.continued and v.get(c.continued) == "Y" and not ended:
            return
        self.problem(f"{self._path(el)}.{c.field}", _at(el, c.field),
                     COUNT_WORDS[c.field].format(want=want, n=n))

    def _path(self, el: Element) -> str:
        return el.spans[0].path.rsplit(".", 1)[0] if el.spans else el.type.lower()

    def _finish(self) -> None:
        for c in COUNTS:
            self._close(c)
        kinds = {rt for rt, _ in self.request_types}
        if len(kinds) > 1:
            _rt, at = self.request_types[0]
            self.problem("urbi.urbirt", at, f"the URBIs mix request types ({', '.join(sorted(kinds))}); "
                                            "the server answers response 131 subcode 57")


@dataclass
class _Open:
    """A parent element whose count (COUNTS) is running: ``n`` children so far, -1 when a
    continuation made it uncheckable."""

    el: Element
    layout: Layout
    n: int = 0


COUNT_WORDS = {"urbrdcnt": "urbrdcnt says {want} URBDs, {n} follow",
               "urbtrcnt": "urbtrcnt says {want} records, the transaction holds {n}"}


def _values(layout: Layout, el: Element) -> dict:
    """Field values of an element by name (spans are in declaration order; partial ones short)."""
    return dict(zip(layout.names, [s.value for s in el.spans], strict=False))


def _printable(body: bytes, codepage: str) -> bool:
    """Is ``body`` text in ``codepage`` (selection values usually are; ISN lists are not)?"""
    try:
        return body.decode(codepage).isprintable()
    except (UnicodeDecodeError, LookupError):
        return False
