"""Building OSB exit structures (the layouts of ``osb.layout``): parameter lists, redolog headers and entries,
format-2 intent lists with the inferred layout, format-1 lists in mqtool's SYNTHETIC v0
layout, USREXTPL and the Parameter Setting block."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mqtool.codepages import codec_name
from mqtool.compose import build as composer
from mqtool.compose.prefixed import build as build_items
from mqtool.errors import BuildError
from mqtool.formats.osb.compose import ENTRY, ENTRY_LENGTH, INTENT_LENGTH, SEGMENTS, resolver
from mqtool.formats.osb.layout import (
    F1_REQUEST_CODES,
    FORMAT,
    FORMAT1_ID,
    HEADER_DEFAULTS,
    PARMLIST_DEFAULTS,
    POINTER_LEN,
    R2_BODY,
    R2_DEFAULTS,
    R2_FIXED,
    RLHDR_LEN,
    TRAILER_LEN,
    exit_state,
    field_slice,
    layouts,
    usrextpl_layout,
    usrextpl_names,
)
from mqtool.layout import Layout

# --------------------------------------------------------------------------- builders


def _build(layout: Layout, values: Mapping[str, Any]) -> bytes:
    return layout.build(values, fmt=FORMAT)


def build_parmlist(values: Mapping[str, Any] | None = None, codepage: str = "cp037") -> bytes:
    """The 7-word Redolog exit parameter list; unknown words default to the
    sample values."""
    return _build(layouts(codepage).parmlist, {**PARMLIST_DEFAULTS, **(values or {})})


def build_header(values: Mapping[str, Any] | None = None, intent: bytes | None = None,
                 codepage: str = "cp037") -> bytes:
    """The 48-byte redolog header ("Redolog header"). With ``intent``, the entry's lengths
    (RLLEN and rl_intent_len, ``compose.ENTRY``) are computed from it, given ones checked;
    without, RLLEN follows rl_intent_len. Unset fields take the sample values."""
    if intent is not None:
        return build_entry(values, intent, codepage)[:RLHDR_LEN]
    v = {**HEADER_DEFAULTS, **(values or {})}
    if ENTRY_LENGTH not in v and INTENT_LENGTH in v:
        v[ENTRY_LENGTH] = RLHDR_LEN + int(v[INTENT_LENGTH])
    return _build(layouts(codepage).header, v)


def build_entry(values: Mapping[str, Any] | None, intent: bytes, codepage: str = "cp037") -> bytes:
    """A redolog entry: the header followed by its intent list, built by the composition's
    one builder from ``compose.ENTRY`` (RLLEN and rl_intent_len filled in)."""
    bad = composer.Refusals(FORMAT)
    el = composer.Element(ENTRY, {**HEADER_DEFAULTS, **(values or {})}, bytes(intent), "rlhdr")
    out = composer.build_element(el, resolver(codec_name(codepage)), bad)
    bad.raise_any()
    assert out is not None
    return out


def _bytes(value: Any, codepage: str) -> bytes:
    if isinstance(value, bytes | bytearray):
        return bytes(value)
    if isinstance(value, str):
        return value.encode(codec_name(codepage))
    raise BuildError(FORMAT, "value", f"{value!r} is neither bytes nor text")


def _lock(value: Any) -> int:
    if value in (None, "retain", " "):
        return 0x40
    if value in ("release", "R"):
        return 0xD9
    return int(value)


def build_params(params: Sequence[Any], codepage: str = "cp037", *, prefixed: bool = False) -> bytes:
    """Parameters in variable format: 1-byte length (<= 127) + data each."""
    lay = layouts(codepage)
    out = bytearray()
    for i, p in enumerate(params, 1):
        data = _bytes(p, codepage)
        if len(data) > 0x7F:
            raise BuildError(FORMAT, f"parameter {i}", f"{len(data)} bytes: a parameter holds at "
                                                       "most 127 (1-byte length)")
        out += _build(lay.parm, {"len": len(data), "value": data})
    if prefixed:
        return _build(lay.r2parea, {"r2b_parm_area_len": len(out)}) + bytes(out)
    return bytes(out)


def build_format2(values: Mapping[str, Any] | None = None, *, params: Sequence[Any] = (),
                  key: str | None = None, segment: int | None = None, trailer: bool = True,
                  codepage: str = "cp037") -> bytes:
    """A format-2 intent list with the inferred layout: body base X'0A',
    64-byte fixed body, then the parameter data (halfword-prefixed, as §8.5) and the key
    name; ``r2_len`` counts up to the end of that data; then the X'0000' trailer.

    ``segment`` (MOVTAB) goes into R2BOPARM; ``params`` and ``key`` set R2BOPARM/R2BOMISC
    to their offsets from the body base. Unknown words default to the MOVTAB sample's.
    """
    lay = layouts(codepage)
    v = {**R2_DEFAULTS, **(values or {})}
    v["r2_hdr_lock"], v["r2b_lock"] = _lock(v["r2_hdr_lock"]), _lock(v["r2b_lock"])
    tail = bytearray()
    if params:
        if segment is not None:
            raise BuildError(FORMAT, "r2boparm", "MOVTAB's segment number and parameter data "
                                                 "both need R2BOPARM")
        v["r2boparm"] = R2_FIXED - R2_BODY + len(tail)
        tail += build_params(params, codepage, prefixed=True)
    elif segment is not None:
        v["r2boparm"] = segment
    if key is not None:
        v["r2bomisc"] = R2_FIXED - R2_BODY + len(tail)
        tail += _build(lay.keyname, {"r2b_key": key})
    v["r2_len"] = R2_FIXED + len(tail)
    out = _build(lay.r2hdr, v) + _build(lay.r2body, v) + bytes(tail)
    return out + (bytes(TRAILER_LEN) if trailer else b"")


def build_format1(segments: Sequence[Mapping[str, Any]], *, lock: Any = "release",
                  token: int = 0x1E40, codepage: str = "cp037") -> bytes:
    """A format-1 intent list in mqtool's SYNTHETIC v0 layout — builder round
    trips and tests only, never presented as OSB data. Each segment: ``request``
    (add/delete/replace or a code), ``table``, ``params`` and ``fields`` (bytes, or text
    in ``codepage``). R1BROWL counts the field pairs; lengths use the 1-or-2-byte rule."""
    lay = layouts(codepage)
    out = _build(lay.r1hdr, {"r1_id": FORMAT1_ID, "unk_02": token, "r1_lock": _lock(lock)})
    bodies: list[bytes] = []
    for i, seg in enumerate(segments, 1):
        req = seg.get("request", "add")
        code = F1_REQUEST_CODES.get(req, req) if isinstance(req, str) else int(req)
        if not isinstance(code, int):
            raise BuildError(FORMAT, f"segment {i}.request", f"{req!r} is not add, delete, replace "
                                                             "or a code")
        body = bytearray(_build(lay.r1req, {"request": code, "table": seg.get("table", "")}))
        body += build_params(seg.get("params", ()), codepage)
        pairs = bytearray()
        for k, value in enumerate(seg.get("fields", ()), 1):
            data = _bytes(value, codepage)
            try:
                pairs += _build(lay.r1bf, {"r1bfl": len(data), "r1bfv": data})
            except BuildError as e:
                raise BuildError(FORMAT, f"segment {i}.r1bf{k}v", e.reason) from None
        body += _build(lay.r1browl, {"r1browl": len(pairs)}) + pairs
        if len(body) > 0xFFFF:
            raise BuildError(FORMAT, f"segment {i}", f"{len(body)} bytes do not fit the halfword "
                                                     "segment length")
        bodies.append(bytes(body))
    return bytes(out) + build_items(SEGMENTS, lay.r1seg, bodies, FORMAT)


def build_usrextpl(values: Mapping[str, int], names: Sequence[str] | None = None,
                   codepage: str = "cp037") -> bytes:
    """USREXTPL from a field map and pointer values (unset pointers 0 = disabled)."""
    names_t = tuple(names) if names else usrextpl_names(len(values), list(values) or None)
    unknown = set(values) - set(names_t)
    if unknown:
        raise BuildError(FORMAT, sorted(unknown)[0], "not in the USREXTPL field map")
    return _build(usrextpl_layout(names_t, codec_name(codepage), not names), values)


def set_enabled(data: bytes, name: str, enabled: bool, names: Sequence[str] | None = None) -> bytes:
    """USREXTPL with one exit switched by its pointer's high-order bit only ("USREXTPL Usage
    and Mapping": a pointer with the high-order bit on is not invoked)."""
    names_t = usrextpl_names(len(data) // POINTER_LEN, names)
    if name not in names_t:
        raise BuildError(FORMAT, name, "not in the USREXTPL field map")
    where = field_slice(usrextpl_layout(names_t), name)
    word = int.from_bytes(data[where])
    state = exit_state(name, word)
    if state in ("pointer", "n/a"):
        raise BuildError(FORMAT, name, "not switched by the high-order bit (only exit pointers "
                                       "other than the Initialization exit's are)")
    if word & 0x7FFFFFFF == 0:
        raise BuildError(FORMAT, name, "pointer is 0: no exit routine to enable or disable")
    word = word & 0x7FFFFFFF if enabled else word | 0x80000000
    return data[:where.start] + word.to_bytes(where.stop - where.start) + data[where.stop:]


def build_parmset(values: Mapping[str, int], codepage: str = "cp037") -> bytes:
    return _build(layouts(codepage).parmset, values)


def build(request: Mapping[str, Any], **options: Any) -> bytes:
    """``api.build("redolog", {"part": ..., ...})``: dispatch to the part's builder."""
    part = request.get("part")
    cp = options.get("codepage", request.get("codepage", "cp037"))
    values = {k: v for k, v in request.items() if k not in ("part", "codepage")}
    if part == "parmlist":
        return build_parmlist(values, cp)
    if part == "header":
        intent = values.pop("intent", None)
        return build_header(values, bytes.fromhex(intent) if isinstance(intent, str) else intent, cp)
    if part == "parmset":
        return build_parmset(values, cp)
    if part == "usrextpl":
        return build_usrextpl(values, codepage=cp)
    if part == "format1":
        return build_format1(values.get("segments", ()), lock=values.get("lock", "release"),
                             codepage=cp)
    if part == "format2":
        return build_format2(values, params=values.pop("params", ()), key=values.pop("key", None),
                             segment=values.pop("segment", None), codepage=cp)
    raise BuildError(FORMAT, "part", f"{part!r} is not parmlist, header, parmset, usrextpl, "
                                     "format1 or format2")
