"""URB messages: detection and the forensic span walk (elements by their length fields,
messages back to back by URBHLENT). The declarations are in ``layout.py``."""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any, Literal, cast

from mqtool.codepages import codec_name
from mqtool.compose import Content
from mqtool.compose.walk import RAW_SHOWN, Owner, Sink, TreeSink, Walk
from mqtool.errors import DecodeError
from mqtool.formats.urb.layout import (
    ADARPE_CHAIN,
    BORD_LEN,
    CHAIN,
    DEFAULT_ASCII,
    DEFAULT_EBCDIC,
    ELEMENT_HEAD,
    EYE_LEN,
    FORMAT,
    HEADER_CONSTANTS,
    MESSAGE,
    URBHBORD_AT,
    URBHLEN_AT,
    URBHLENT_AT,
    URBHVERS_AT,
    WORD,
    Urb,
    _element_charset,
    byte_order_of,
    charset_of,
    layouts,
    plan,
)
from mqtool.formats.urb.meanings import REQUEST_TYPES, SINGLE_BYTE, ecs_codec
from mqtool.model import STCK, Decoded, Detection, Element, Problem, unit_json
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
        return Detection(FORMAT, 0.4, f"URBH eyecatcher in {cs.upper()}, but urbhbord "
                                      f"X'{bord.hex().upper()}' is neither 0001 nor 0100")
    bo: Literal["big", "little"] = "big" if order == "big" else "little"
    hlen = int.from_bytes(data[URBHLEN_AT:URBHLEN_AT + WORD], bo, signed=True)
    lent = int.from_bytes(data[URBHLENT_AT:URBHLENT_AT + WORD], bo)
    reason = (f"URBH eyecatcher in {cs.upper()}, urbhbord {order}-endian, urbhlen {hlen}, "
              f"urbhlent {lent}")
    options: dict[str, object] = {"codepage": _default_cp(cs), "byte_order": order}
    size = layouts().URBH.size
    if hlen == size and lent >= size:
        return Detection(FORMAT, 0.95 if lent <= len(data) else 0.8, reason, options)
    return Detection(FORMAT, 0.6, reason + " (implausible)", options)


def _default_cp(charset: str) -> str:
    return DEFAULT_EBCDIC if charset == "ebcdic" else DEFAULT_ASCII


# --------------------------------------------------------------------------- decoding


def decode(data: bytes | memoryview, codepage: str | None = None, byte_order: str | None = None,
           urbi_data: str = "auto", leap_seconds: int = 0, **_: object) -> Iterator[Decoded]:
    """Decode every message in ``data`` (back to back, walked by URBHLENT).

    ``codepage`` forces the character set of every message (``037``, ``500``, ``1047``,
    ``ascii``...; default: EBCDIC 037 or latin-1, from the URBH eyecatcher); ``byte_order``
    (``big`` / ``little``; ``auto`` or None: from URBHBORD) forces the byte order.
    ``urbi_data`` says what follows an INST URBI: ``isn`` list, ``selection`` data, or
    ``auto`` (an ISN list when it parses as one and is not printable text).
    ``leap_seconds``: the TOD clock counts leap seconds (steered to TAI-like time, 27 since
    2017); times are shown that many seconds earlier, the raw values (``_hex``) unchanged.
    ``data`` may be a mapped input (``io.inputs.Input.view``): it is read in place, a
    record image kept as a slice of it (``LargeUrb``), never copied.
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
    blob = cast(bytes, data)  # a mapped input is read as bytes are, in place
    off = 0
    while off < len(blob):
        unit, nxt = _message(blob, off, cp, byte_order, urbi_data)
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

        def datetime(self, leap_seconds: int = 0) -> datetime | None:
            return Tod.datetime(self, leap_seconds + seconds)

    return LeapTod


def _leap(unit: Decoded, seconds: int) -> None:
    cls = leap_tod(seconds)
    for el in unit.walk():
        el.spans = [s._replace(value=cls(s.value)) if s.kind == STCK and isinstance(s.value, Tod) else s
                    for s in el.spans]
    unit.attrs["leap_seconds"] = seconds


def _raw_unit(data: bytes, off: int, reason: str, path: str = "urbh.urbheye") -> Decoded:
    n = len(data) - off
    unit = Decoded(FORMAT, off, n)
    shown = bytes(data[off:off + RAW_SHOWN])
    more = f", first {len(shown)} shown" if n > len(shown) else ""
    unit.elements.append(Element("RAW", off, n, data=shown, data_offset=off, data_name="bytes",
                                 title=f"unrecognised bytes at offset X'{off:04X}' ({n} bytes{more})"))
    unit.errors.append(Problem(path, off, reason))
    return unit


def _message(data: bytes, off: int, cp: str | None, order: str | None,
             urbi_data: str) -> tuple[Decoded, int | None]:
    head = bytes(data[off:off + EYE_LEN])
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
    bord = bytes(data[off + URBHBORD_AT:off + URBHBORD_AT + BORD_LEN])
    bad_bord = None
    if order is None:
        order = byte_order_of(bord)
        if order is None and len(bord) == BORD_LEN:
            bad_bord = (f"urbhbord X'{bord.hex().upper()}' is neither X'0001' (big-endian) nor "
                        "X'0100' (little-endian); the URBH is shown big-endian")
            order = "big"
        order = order or "big"
    lay = layouts(order == "big", cp)
    hsize = lay.URBH.fixed_size
    unit = Decoded(FORMAT, off, min(len(data) - off, hsize),
                   attrs={"codepage": cp, "byte_order": order})
    try:
        urbh = lay.URBH.parse(data, off, prefix="urbh", fmt=FORMAT)
    except DecodeError as e:
        if isinstance(e.partial, Element):  # what Layout.parse read before the error
            unit.elements.append(e.partial)
        unit.errors.append(Problem(e.path, e.offset, e.reason))
        return unit, None
    unit.elements.append(urbh)
    if bad_bord:
        unit.errors.append(Problem("urbh.urbhbord", off + URBHBORD_AT, bad_bord))
        return unit, None
    v = dict(zip(lay.URBH.names, [s.value for s in urbh.spans], strict=False))
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
    lent = cast(int, v["urbhlent"])  # a binary field
    if lent < hsize:
        unit.errors.append(Problem("urbh.urbhlent", off + URBHLENT_AT,
                                   f"urbhlent {lent} is shorter than the {hsize}-byte URBH"))
        return unit, None
    end = off + lent
    avail = min(end, len(data))
    unit.length = avail - off
    walker(data, lay, TreeSink(data, unit, FORMAT), off, urbi_data).run(off + hsize, end, avail)
    if not unit.errors and avail < end:
        unit.errors.append(Problem("urbh.urbhlent", len(data),
                                   f"message truncated: urbhlent is {lent}, the input ends "
                                   f"{avail - off} bytes into the message"))
    return bounded(unit), (end if end <= len(data) else None)


def _headerless(data: bytes, off: int, cp: str, order: str | None,
                urbi_data: str) -> tuple[Decoded, int | None]:
    """URB elements without a URBH (ADARPE extract records); EBCDIC/ASCII from the eyecatcher,
    big-endian unless forced (as ADARPE writes them)."""
    order = order or "big"
    lay = layouts(order == "big", cp)
    unit = Decoded(FORMAT, off, len(data) - off, attrs={"codepage": cp, "byte_order": order},
                   title=f"URB elements without a URBH at offset X'{off:04X}' (ADARPE extract)")
    pos = walker(data, lay, TreeSink(data, unit, FORMAT), off, urbi_data, adarpe=True).run(
        off, len(data), len(data))
    unit.length = pos - off
    return bounded(unit), (pos if pos < len(data) and not unit.errors else None)


# --------------------------------------------------------------------------- large data


@dataclass(slots=True)
class LargeUrb(Decoded):
    """A message with a data field (a record image, selection data) too large to list
    whole: the listing shows its first ``LISTED`` bytes, as an MQ payload's
    (``formats.mq.decode``); ``to_json`` and ``json_chunks`` give every byte, read from
    ``whole`` (slices of the input, a mapped one not copied)."""

    whole: list[tuple[Element, bytes | memoryview]] = field(default_factory=list)

    def to_json(self, raw: bool = False) -> dict[str, object]:
        return self._json(raw, lambda i: bytes(self.whole[i][1]).hex().upper())

    def json_chunks(self, raw: bool = False) -> Iterator[bytes]:
        """``to_json`` as compact JSON (``json.dumps(..., ensure_ascii=False,
        separators=(",", ":"))``, UTF-8), each large data field's hex written a piece at a
        time: an image of hundreds of MiB is never held whole, nor its hex."""
        from mqtool.formats.mq.chain import PIECE

        hole = f"\x00{secrets.token_hex(16)}\x00"  # no input can spell it
        rest = json.dumps(self._json(raw, lambda i: f"{hole}{i}"), ensure_ascii=False,
                          separators=(",", ":"))
        for i, (_el, whole) in enumerate(self.whole):  # document order, as in the JSON
            head, _found, tail = rest.partition(json.dumps(f"{hole}{i}"))
            yield head.encode("utf-8", "surrogatepass") + b'"'
            for at in range(0, len(whole), PIECE):
                yield whole[at:at + PIECE].hex().upper().encode("ascii")
            rest = '"' + tail
        yield rest.encode("utf-8", "surrogatepass")

    def _json(self, raw: bool, data: Callable[[int], str]) -> dict[str, object]:
        """The unit as ``--json`` gives it, the data of large field ``i`` ``data(i)``."""
        d = unit_json(self, raw)
        cut = {id(el): i for i, (el, _w) in enumerate(self.whole)}

        def put(els: list[Element], dicts: object) -> None:
            assert isinstance(dicts, list)
            for el, ed in zip(els, dicts, strict=True):
                if id(el) in cut:
                    ed["data"] = data(cut[id(el)])
                put(el.children, ed.get("children", []))

        put(self.elements, d["elements"])
        return d


def bounded(unit: Decoded) -> Decoded:
    """``unit``, or when a data field of it is longer than a listing shows (``LISTED``) a
    ``LargeUrb`` whose listing shows the first ``LISTED`` bytes and says how many there are."""
    from mqtool.model import LISTED, listed_note

    large = [el for el in unit.walk() if el.data is not None and len(el.data) > LISTED]
    if not large:
        return unit
    out = LargeUrb(unit.format, unit.offset, unit.length, unit.elements, unit.attrs,
                   unit.errors, unit.problems, unit.title)
    for el in large:
        assert el.data is not None
        out.whole.append((el, el.data))
        el.data_name = f"{el.data_name} ({listed_note(len(el.data))})"
        el.data = bytes(el.data[:LISTED])
    return out


# --------------------------------------------------------------------------- the format's judgement
#
# What no declaration says, as hooks the one walker asks (``mqtool.compose.walk``).


def _urbi(walk: Walk, owner: Owner) -> None:
    """The request type of a URBI: one the server knows, and one per message (``urb_finish``)."""
    rt = owner.values.get("urbirt")
    if rt is None:
        return
    at = owner.pos + owner.layout.offset_of("urbirt")
    walk.memo.setdefault("request_types", []).append((rt, at))
    if rt not in REQUEST_TYPES:
        walk.problem(f"{owner.path}.urbirt", at,
                     f"urbirt {rt!r} is not a request type ({', '.join(REQUEST_TYPES)}); "
                     "the server answers response 131 subcode 56")


def _urbi_codepage(walk: Walk, values: Mapping[str, Any]) -> str:
    """Selection data is in the URBI's alpha code page when it is a single-byte one."""
    acodec = ecs_codec(values.get("urbiacod") or 0)
    return acodec if acodec in SINGLE_BYTE else walk.plan.codepage


def _urbi_data(walk: Walk, values: Mapping[str, Any], start: int, stop: int) -> bool | None:
    """Is a URBI's data an ISN list (True: it must be; False: it may be) or selection data
    (None)? ``urbi_data`` ``isn`` / ``selection`` say; ``auto``: an INST request's data that
    is not printable text in its code page may be an ISN list."""
    mode = walk.options.get("urbi_data", "auto")
    if mode == "isn":
        return True
    if mode == "auto" and values.get("urbirt") == "INST" and \
            not _printable(bytes(walk.data[start:stop]), _urbi_codepage(walk, values)):
        return False
    return None


def _urbt(walk: Walk, owner: Owner) -> None:
    walk.memo["acod"] = owner.values.get("urbtacod") or 0  # code page of the URBD images


def _urbd_codepage(walk: Walk, values: Mapping[str, Any]) -> str | None:
    acodec = ecs_codec(walk.memo.get("acod") or 0)
    return acodec if acodec in SINGLE_BYTE else None


def _finish(walk: Walk) -> None:
    seen = walk.memo.get("request_types")
    if not seen:
        return
    kinds = {rt for rt, _ in seen}
    if len(kinds) > 1:
        _rt, at = seen[0]
        walk.problem("urbi.urbirt", at, f"the URBIs mix request types ({', '.join(sorted(kinds))}); "
                                        "the server answers response 131 subcode 57")


HOOKS: dict[str, Callable[..., Any]] = {
    "urbi": _urbi, "urbi_data": _urbi_data, "urbi_codepage": _urbi_codepage, "urbt": _urbt,
    "urbd_codepage": _urbd_codepage, "urb_finish": _finish}


def walker(data: bytes, lay: Urb, sink: Sink, origin: int, urbi_data: str = "auto",
           adarpe: bool = False) -> Walk:
    """The walk of one message's elements (or of URB elements without a URBH) into ``sink``."""
    big, cp = lay.variant.big, lay.variant.codepage
    return Walk(plan(big, cp, ADARPE_CHAIN if adarpe else CHAIN), data, sink, HOOKS,
                {"urbi_data": urbi_data}, bound=f"urbh.{MESSAGE.total}", unit=MESSAGE.unit, origin=origin)


def read_data(data: bytes, lay: Urb, content: Content, path: str) -> Decoded:
    """``content`` read from ``data`` on its own (the ISN list of a decoded request's data):
    a unit holding what it made, and its errors."""
    unit = Decoded(FORMAT, 0, len(data))
    walk = walker(data, lay, TreeSink(data, unit, FORMAT), 0)
    walk.content(content, Owner(None, {}, path, lay.URBI, 0, "urbilend"), 0, len(data))
    return unit


def _printable(body: bytes, codepage: str) -> bool:
    """Is ``body`` text in ``codepage`` (selection values usually are; ISN lists are not)?"""
    try:
        return body.decode(codepage).isprintable()
    except (UnicodeDecodeError, LookupError):
        return False
