"""URB messages: detection and the forensic span walk (elements by their length fields,
messages back to back by URBHLENT). The declarations are in ``layout.py``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from mqtool.codepages import codec_name
from mqtool.errors import DecodeError
from mqtool.formats.urb.layout import (
    DEFAULT_ASCII,
    DEFAULT_EBCDIC,
    ELEMENT_TYPES,
    FORMAT,
    ISN_LEN,
    ISN_RANGE_LEN,
    RAW_SHOWN,
    URBDL,
    URBFL,
    URBGL,
    URBHBORD_AT,
    URBHL,
    URBHLEN_AT,
    URBHLENT_AT,
    URBHVER1,
    URBIL,
    URBSL,
    URBSUL,
    URBTL,
    URBTL_112,
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
    ecs_codec,
)
from mqtool.layout import Layout
from mqtool.model import Decoded, Detection, Element, Problem


def detect(data: bytes) -> Detection | None:
    """A URB message: URBH eyecatcher (EBCDIC or ASCII) and a plausible URBHBORD/URBHLEN."""
    head = bytes(data[:4])
    cs = charset_of(head)
    if cs is None:
        ecs = _element_charset(head)
        if ecs is None:
            return None
        eye = head.decode(DEFAULT_EBCDIC if ecs == "ebcdic" else DEFAULT_ASCII)
        return Detection(FORMAT, 0.5, f"{eye} eyecatcher in {ecs.upper()} without a URBH "
                                      "(ADARPE extract?)", {"codepage": _default_cp(ecs)})
    order = byte_order_of(bytes(data[URBHBORD_AT:URBHBORD_AT + 2]))
    if order is None:
        bord = bytes(data[URBHBORD_AT:URBHBORD_AT + 2]).hex().upper()
        return Detection(FORMAT, 0.4, f"URBH eyecatcher in {cs.upper()}, but urbhbord "
                                      f"X'{bord}' is neither 0001 nor 0100")
    bo = "big" if order == "big" else "little"
    hlen = int.from_bytes(data[URBHLEN_AT:URBHLEN_AT + 4], bo, signed=True)
    lent = int.from_bytes(data[URBHLENT_AT:URBHLENT_AT + 4], bo)
    reason = (f"URBH eyecatcher in {cs.upper()}, urbhbord {order}-endian, urbhlen {hlen}, "
              f"urbhlent {lent}")
    options = {"codepage": _default_cp(cs), "byte_order": order}
    if hlen == URBHL and lent >= URBHL:
        return Detection(FORMAT, 0.95 if lent <= len(data) else 0.8, reason, options)
    return Detection(FORMAT, 0.6, reason + " (implausible)", options)


def _default_cp(charset: str) -> str:
    return DEFAULT_EBCDIC if charset == "ebcdic" else DEFAULT_ASCII


# --------------------------------------------------------------------------- decoding


def decode(data: bytes, codepage: str | None = None, byte_order: str | None = None,
           urbi_data: str = "auto", **_: object) -> Iterator[Decoded]:
    """Decode every message in ``data`` (back to back, walked by URBHLENT).

    ``codepage`` forces the character set of every message (``037``, ``500``, ``1047``,
    ``ascii``...; default: EBCDIC 037 or latin-1, from the URBH eyecatcher); ``byte_order``
    (``big`` / ``little``; ``auto`` or None: from URBHBORD) forces the byte order.
    ``urbi_data`` says what follows an INST URBI: ``isn`` list, ``selection`` data, or
    ``auto`` (an ISN list when it parses as one and is not printable text).
    """
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
        yield unit
        if nxt is None or nxt <= off:
            return
        off = nxt


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
    head = data[off:off + 4]
    cs = charset_of(head)
    if cs is None and cp is None:
        ecs = _element_charset(head)
        if ecs is not None and len(data) - off >= 8:
            return _headerless(data, off, _default_cp(ecs), order, urbi_data)
        what = "the input is" if off == 0 else f"the {len(data) - off} bytes after the last message are"
        return _raw_unit(data, off, f"{what} not a URB message: X'{head.hex().upper()}' is "
                                    "neither 'URBH' in EBCDIC (X'E4D9C2C8') nor in ASCII "
                                    "(X'55524248')"), None
    cp = cp or _default_cp(cs or "ebcdic")
    bord = data[off + URBHBORD_AT:off + URBHBORD_AT + 2]
    bad_bord = None
    if order is None:
        order = byte_order_of(bord)
        if order is None and len(bord) == 2:
            bad_bord = (f"urbhbord X'{bord.hex().upper()}' is neither X'0001' (big-endian) nor "
                        "X'0100' (little-endian); the URBH is shown big-endian")
            order = "big"
        order = order or "big"
    lay = layouts(order == "big", cp)
    unit = Decoded(FORMAT, off, min(len(data) - off, URBHL),
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
    if v["urbhvers"] != URBHVER1:
        unit.problems.append(Problem("urbh.urbhvers", off + 8,
                                     f"urbhvers {v['urbhvers']!r} is not '01'"))
    if v["urbhlen"] != URBHL:
        unit.problems.append(Problem("urbh.urbhlen", off + 4,
                                     f"urbhlen {v['urbhlen']} is not 64; elements read from +64"))
    lent = v["urbhlent"]
    if lent < URBHL:
        unit.errors.append(Problem("urbh.urbhlent", off + URBHLENT_AT,
                                   f"urbhlent {lent} is shorter than the 64-byte URBH"))
        return unit, None
    end = off + lent
    avail = min(end, len(data))
    unit.length = avail - off
    walk = _Walk(data, lay, unit, urbi_data)
    walk.run(off + URBHL, end, avail)
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
    """Walks the elements of one message by their own length fields."""

    def __init__(self, data: bytes, lay: Urb, unit: Decoded, urbi_data: str,
                 stop_at_urbh: bool = False) -> None:
        self.data, self.lay, self.unit, self.urbi_data = data, lay, unit, urbi_data
        self.cp = lay.variant.codepage
        self.bo = "big" if lay.variant.big else "little"
        self.stop_at_urbh = stop_at_urbh
        self.counts: Counter[str] = Counter()
        self.acod = 0  # urbtacod of the current URBT: code page of the URBD images
        self.urbt: Element | None = None
        self.records = 0
        self.urbr: Element | None = None
        self.images = 0
        self.request_types: list[tuple[str, int]] = []

    # -- helpers --------------------------------------------------------------------

    def error(self, path: str, offset: int, reason: str) -> None:
        self.unit.errors.append(Problem(path, offset, reason))

    def problem(self, path: str, offset: int, reason: str) -> None:
        self.unit.problems.append(Problem(path, offset, reason))

    def s4(self, pos: int) -> int:
        return int.from_bytes(self.data[pos:pos + 4], self.bo, signed=True)

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
            if avail - pos < 8:
                self._rest(pos, end, avail)
                return avail
            eye = data[pos:pos + 4]
            etype = eye.decode(self.cp)
            length = self.s4(pos + 4)
            if etype not in ELEMENT_TYPES:
                if self.stop_at_urbh and etype == "URBH":
                    return pos
                if not self._unknown(pos, eye, length, avail):
                    return pos
                pos += length
                continue
            k = self.counts[etype]
            self.counts[etype] += 1
            name = etype.lower()
            prefix = f"{name}[{k}]"
            lenpath = f"{prefix}.{name}len"
            if length < 8:
                what = "negative" if length < 0 else "zero" if length == 0 else "less than 8"
                self._cut(etype, pos, min(8, avail - pos), prefix)
                self.error(lenpath, pos + 4, f"{name}len {length} is {what}: the walk cannot go on")
                return pos
            if pos + length > end:
                self._cut(etype, pos, min(length, avail - pos), prefix)
                self.error(lenpath, pos + 4,
                           f"{name}len {length} runs past the end of the message "
                           f"(X'{pos + length:04X}' > urbhlent end X'{end:04X}')")
                return pos
            if pos + length > avail:
                self._cut(etype, pos, avail - pos, prefix)
                self.error(lenpath, pos + 4,
                           f"message truncated: the {etype} needs {length} bytes, the input ends "
                           f"after {avail - pos}")
                return avail
            getattr(self, f"_{name}")(pos, length, prefix)
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
                                           "an element (eyecatcher and length: 8 bytes)")

    def _cut(self, etype: str, pos: int, length: int, prefix: str) -> None:
        """The fields of a damaged element that are present, for the partial listing."""
        layout = {"URBT": self.lay.URBT112}.get(etype) or getattr(self.lay, etype)
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
        plausible = 8 <= length <= avail - pos
        el = self.lay.ELEMENT.parse(self.data, pos, prefix=f"unknown[{k}]", fmt=FORMAT)
        text = eye.decode(self.cp)
        shown = repr(text) if text.isprintable() else "not text"
        el.title = f"unknown element X'{eye.hex().upper()}' ({shown}) at offset X'{pos:04X}'"
        stop = pos + length if plausible else min(avail, pos + 8 + RAW_SHOWN)
        el.data, el.data_offset, el.data_name = self.data[pos + 8:stop], pos + 8, "bytes"
        el.length = stop - pos
        el.type = "UNKNOWN"
        self.unit.elements.append(el)
        tail = "; skipped by its length" if plausible else "; its length is implausible, the walk stops"
        self.error(f"unknown[{k}].eye", pos,
                   f"unknown eyecatcher X'{eye.hex().upper()}' ({shown}){tail}")
        return plausible

    def _fixed(self, layout: Layout, pos: int, length: int, prefix: str) -> Element:
        name = layout.name.lower()
        el = self.parse(layout, pos, length, prefix, f"{name}len")
        if layout.size is not None and length > layout.size:
            self._extra(el, pos + layout.size, pos + length, f"{prefix}.{name}len")
        self.unit.elements.append(el)
        return el

    def _extra(self, el: Element, start: int, stop: int, path: str) -> None:
        el.data, el.data_offset, el.data_name = self.data[start:stop], start, "extra"
        self.problem(path, start, f"{stop - start} bytes follow the {start - el.offset}-byte {el.type}")

    def _trailing(self, el: Element, prefix: str, name: str, lenh: int, lend: int,
                  minimum: int) -> tuple[int, int] | None:
        """Where the data after an element's fixed part is, checked against its lengths."""
        pos, length = el.offset, el.length
        if lenh < minimum or lenh > length:
            self.error(f"{prefix}.{name}lenh", _at(el, f"{name}lenh"),
                       f"{name}lenh {lenh} is outside {minimum}..{name}len ({length})")
            return None
        if lend < 0 or lenh + lend > length:
            self.error(f"{prefix}.{name}lend", _at(el, f"{name}lend"),
                       f"{name}lend {lend} does not fit: {name}lenh {lenh} + {lend} > {name}len {length}")
            return None
        start = pos + lenh
        filler = self.data[start + lend:pos + length]
        if any(filler):
            self.problem(f"{prefix}.filler", start + lend,
                         f"{len(filler)} bytes of alignment filler are not zero")
        return start, start + lend

    # -- element handlers -----------------------------------------------------------

    def _urbi(self, pos: int, length: int, prefix: str) -> None:
        el = self.parse(self.lay.URBI, pos, length, prefix, "urbilen")
        self.unit.elements.append(el)
        v = _values(self.lay.URBI, el)
        rt = v.get("urbirt")
        if rt is not None:
            self.request_types.append((rt, pos + 32))
            if rt not in REQUEST_TYPES:
                self.problem(f"{prefix}.urbirt", pos + 32,
                             f"urbirt {rt!r} is not a request type ({', '.join(REQUEST_TYPES)}); "
                             "the server answers response 131 subcode 56")
        if "urbilend" not in v or length < URBIL:
            return
        where = self._trailing(el, prefix, "urbi", v["urbilenh"], v["urbilend"], URBIL)
        if where is None or where[0] == where[1]:
            return
        start, stop = where
        body = self.data[start:stop]
        acodec = ecs_codec(v["urbiacod"])
        textcp = acodec if acodec in SINGLE_BYTE else self.cp
        if self.urbi_data == "isn" or (self.urbi_data == "auto" and rt == "INST"
                                       and _isn_shaped(body, self.bo) and not _printable(body, textcp)):
            el.extra["data"] = body.hex().upper()
            self._isn_list(body, start, prefix)
        else:
            el.data, el.data_offset, el.data_name = body, start, "urbidata"
            el.data_codepage = textcp if textcp != self.cp else None

    def _isn_list(self, body: bytes, start: int, prefix: str) -> None:
        el = Element("ISNLIST", start, len(body),
                     title=f"ISN list at offset X'{start:04X}' ({len(body)} bytes)")
        items: list[int | list[int]] = []
        j, pos, stop = 0, start, start + len(body)
        while pos < stop:
            ipre = f"{prefix}.isn[{j}]"
            if stop - pos < ISN_LEN:
                self.error(ipre, pos, f"ISN list: {stop - pos} bytes left, an ISN needs 4")
                break
            if self.data[pos:pos + 4] == b"\xff\xff\xff\xff":
                if stop - pos < ISN_RANGE_LEN:
                    self.error(ipre, pos, f"ISN list: range cut short, {stop - pos} bytes left of 12")
                    break
                item = self.lay.ISNRANGE.parse(self.data, pos, prefix=ipre, fmt=FORMAT)
                items.append([item.spans[1].value, item.spans[2].value])
                pos += ISN_RANGE_LEN
            else:
                item = self.lay.ISN.parse(self.data, pos, prefix=ipre, fmt=FORMAT)
                items.append(item.spans[0].value)
                pos += ISN_LEN
            el.spans += item.spans
            j += 1
        el.extra["fields"] = {"isns": items}
        self.unit.elements.append(el)

    def _urbs(self, pos: int, length: int, prefix: str) -> None:
        el = self.parse(self.lay.URBS, pos, length, prefix, "urbslen")
        self.unit.elements.append(el)
        v = _values(self.lay.URBS, el)
        if "urbslend" not in v:
            return
        if v["urbslenh"] not in (0, URBSL):
            self.problem(f"{prefix}.urbslenh", pos + 0x60,
                         f"urbslenh {v['urbslenh']} is neither 128 nor 0; urbsdata read from +128")
        where = self._trailing(el, prefix, "urbs", URBSL, v["urbslend"], URBSL)
        if where is None or where[0] == where[1]:
            return
        start, stop = where
        el.data, el.data_offset, el.data_name = self.data[start:stop], start, "urbsdata"
        if v["urbsst"] == "AUTI" and stop - start >= URBSUL:
            su = self.lay.URBSU.parse(self.data, start, prefix=f"{prefix}.urbsu", fmt=FORMAT)
            su.title = f"URBSU utility detail at offset X'{start:04X}'"
            if stop - start > URBSUL:
                su.data, su.data_offset, su.data_name = (self.data[start + URBSUL:stop],
                                                         start + URBSUL, "detail")
            su.length = stop - start
            el.data = None
            el.extra["data"] = self.data[start:stop].hex().upper()
            self.unit.elements.append(su)

    def _urbt(self, pos: int, length: int, prefix: str) -> None:
        if length == URBTL:
            layout = self.lay.URBT
        else:
            layout = self.lay.URBT112
            if length != URBTL_112:
                self.problem(f"{prefix}.urbtlen", pos + 4,
                             f"urbtlen {length} is neither 112 nor 128; the fields of the "
                             "112-byte URBT that fit are shown")
        el = self._fixed(layout, pos, length, prefix)
        self._close_record()
        self._close_transaction()
        self.urbt = el
        self.records = 0
        self.acod = _values(layout, el).get("urbtacod") or 0

    def _urbr(self, pos: int, length: int, prefix: str) -> None:
        self._close_record()
        self.urbr = self._fixed(self.lay.URBR, pos, length, prefix)
        self.records += 1
        self.images = 0

    def _urbd(self, pos: int, length: int, prefix: str) -> None:
        el = self.parse(self.lay.URBD, pos, length, prefix, "urbdlen")
        self.unit.elements.append(el)
        self.images += 1
        v = _values(self.lay.URBD, el)
        if "urbdlend" not in v:
            return
        where = self._trailing(el, prefix, "urbd", v["urbdlenh"], v["urbdlend"], URBDL)
        if where is None:
            return
        start, stop = where
        el.data, el.data_offset, el.data_name = self.data[start:stop], start, "urbddata"
        acodec = ecs_codec(self.acod)
        if acodec in SINGLE_BYTE and acodec != self.cp:
            el.data_codepage = acodec

    def _urbe(self, pos: int, length: int, prefix: str) -> None:
        self._close_record()
        self._close_transaction(ended=True)
        self._fixed(self.lay.URBE, pos, length, prefix)

    def _urbc(self, pos: int, length: int, prefix: str) -> None:
        self._fixed(self.lay.URBC, pos, length, prefix)
        self.records = -1  # a continuation: the record count cannot be checked

    def _urbu(self, pos: int, length: int, prefix: str) -> None:
        self._fixed(self.lay.URBU, pos, length, prefix)

    def _urbf(self, pos: int, length: int, prefix: str) -> None:
        el = self.parse(self.lay.URBF, pos, length, prefix, "urbflen")
        self.unit.elements.append(el)
        v = _values(self.lay.URBF, el)
        if "urbfleng" not in v:
            return
        where = self._trailing(el, prefix, "urbf", v["urbflenh"], v["urbflend"], URBFL)
        if where is None:
            return
        start, stop = where
        count, size = v["urbfcntg"], v["urbfleng"]
        if count * size != stop - start:
            self.problem(f"{prefix}.urbflend", _at(el, "urbflend"),
                         f"urbflend {stop - start} is not urbfcntg {count} x urbfleng {size}")
        if count and size < 4:
            self.error(f"{prefix}.urbfleng", pos + 0x52, f"urbfleng {size} is too small for a URBG")
            return
        for j in range(count):
            gpos = start + j * size
            if gpos + size > stop:
                self.error(f"{prefix}.urbg[{j}]", gpos,
                           f"URBG {j} of {count} does not fit in urbflend {stop - start}")
                return
            g = self.parse(self.lay.URBG, gpos, size, f"{prefix}.urbg[{j}]", "urbfleng")
            if size > URBGL:
                g.data, g.data_offset, g.data_name = (self.data[gpos + URBGL:gpos + size],
                                                      gpos + URBGL, "extra")
            g.title = f"URBG {j} at offset X'{gpos:04X}'"
            self.unit.elements.append(g)

    # -- consistency of data messages and requests -----------------------------------

    def _close_record(self) -> None:
        if self.urbr is None:
            return
        want = _values(self.lay.URBR, self.urbr).get("urbrdcnt")
        if isinstance(want, int) and want != self.images:
            self.problem(f"{self._path(self.urbr)}.urbrdcnt", _at(self.urbr, "urbrdcnt"),
                         f"urbrdcnt says {want} URBDs, {self.images} follow")
        self.urbr = None

    def _close_transaction(self, ended: bool = False) -> None:
        t = self.urbt
        if t is None or self.records < 0:
            return
        v = _values(self.lay.URBT112, t)
        want = v.get("urbtrcnt")
        cont = v.get("urbtcont") == "Y"
        if isinstance(want, int) and want != self.records and (ended or not cont):
            self.problem(f"{self._path(t)}.urbtrcnt", t.offset + 20,
                         f"urbtrcnt says {want} records, the transaction holds {self.records}")
        self.urbt = None

    def _path(self, el: Element) -> str:
        return el.spans[0].path.rsplit(".", 1)[0] if el.spans else el.type.lower()

    def _finish(self) -> None:
        self._close_record()
        if self.urbt is not None and _values(self.lay.URBT112, self.urbt).get("urbtcont") != "Y":
            self._close_transaction()
        kinds = {rt for rt, _ in self.request_types}
        if len(kinds) > 1:
            _rt, at = self.request_types[0]
            self.problem("urbi.urbirt", at, f"the URBIs mix request types ({', '.join(sorted(kinds))}); "
                                            "the server answers response 131 subcode 57")


def _values(layout: Layout, el: Element) -> dict:
    """Field values of an element by name (spans are in declaration order; partial ones short)."""
    return dict(zip(layout.names, [s.value for s in el.spans], strict=False))


def _isn_shaped(body: bytes, bo: str) -> bool:
    """Does ``body`` parse as an ISN list (fullwords, ranges complete)?"""
    if len(body) % 4:
        return False
    i = 0
    while i < len(body):
        if body[i:i + 4] == b"\xff\xff\xff\xff":
            if len(body) - i < ISN_RANGE_LEN:
                return False
            i += ISN_RANGE_LEN
        else:
            i += ISN_LEN
    return True


def _printable(body: bytes, codepage: str) -> bool:
    """Is ``body`` text in ``codepage`` (selection values usually are; ISN lists are not)?"""
    try:
        return body.decode(codepage).isprintable()
    except (UnicodeDecodeError, LookupError):
        return False

