"""Decoding OSB exit structures: parameter lists, redolog headers and entries, intent lists
(format 1 and 2), USREXTPL and the Parameter Setting block, unit by unit; and the bulk path
over consecutive redolog entries."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mqtool.codepages import codec_name
from mqtool.compose.prefixed import items
from mqtool.errors import DecodeError, InputError
from mqtool.formats.osb.compose import (
    ENTRY,
    ENTRY_LENGTH,
    FORMAT2_LENGTH,
    INTENT_LENGTH,
    REDOLOG,
    SEGMENTS,
    intent_format,
)
from mqtool.formats.osb.detect import eyecatcher_at, guess_part
from mqtool.formats.osb.layout import (
    BODY_BASES,
    DECLARED,
    EXIT_RLTYPES,
    EYECATCHER,
    F1_HEADER_LEN,
    FORMAT,
    KEYNAME_LEN,
    LIST_ID_LEN,
    LOCK,
    MOVTAB,
    PAREA_LEN,
    PARMSET_LEN,
    PARTS,
    POINTER_LEN,
    R2_BODY,
    R2_FIXED,
    RLHDR_LEN,
    SCAN_BUDGET,
    SEQ_MAX,
    TRAILER_LEN,
    USREXTPL_MAX,
    Layouts,
    decode_length,
    exit_state,
    field_int,
    gloss,
    layouts,
    usrextpl_layout,
    usrextpl_names,
)
from mqtool.layout import Layout
from mqtool.model import HEX, Decoded, Element, Problem, Span

# --------------------------------------------------------------------------- decoding


@dataclass
class _Context:
    """What one decode run carries from unit to unit (cross-checks and chaining)."""

    lay: Layouts
    synthetic: bool = False
    params: int | None = None
    fields: int | None = None
    names: tuple[str, ...] | None = None
    auto: bool = False
    prev_header: dict[str, Any] | None = None
    prev_parmlist: dict[str, Any] | None = None

    def unit(self, part: str, offset: int) -> Decoded:
        attrs: dict[str, Any] = {"part": part, "codepage": self.lay.codepage}
        return Decoded(FORMAT, offset, 0, attrs=attrs)


def decode(data: bytes, *, part: str = "auto", codepage: str = "cp037", synthetic: bool = False,
           params: int | None = None, fields: int | None = None,
           names: Sequence[str] | None = None) -> Iterator[Decoded]:
    """Decode OSB exit structures in ``data``, one unit after the other.

    ``part``: parmlist, header (a redolog entry: the header and, when present, its intent
    list), intent, usrextpl, parmset, or auto (recognised unit by unit). ``synthetic``:
    read format-1 segments with mqtool's SYNTHETIC v0 layout. ``params`` / ``fields``: the
    table definition (parameter and field counts) that guides the format-1 scan. ``names``:
    the USREXTPL field map.
    """
    if part not in (*PARTS, "auto"):
        raise InputError(f"unknown part {part!r}; one of: {', '.join((*PARTS, 'auto'))}")
    try:
        cp = codec_name(codepage)
    except LookupError as e:
        raise InputError(str(e).strip("'\"")) from None
    for name, n in (("params", params), ("fields", fields)):
        if n is not None and n < 0:
            raise InputError(f"{name} must not be negative")
    if not data:
        raise DecodeError(FORMAT, part, 0, "no bytes to decode")
    ctx = _Context(layouts(cp), synthetic, params, fields, tuple(names) if names else None,
                   auto=part == "auto")
    pos, n = 0, len(data)
    while pos < n:
        kind = part if part != "auto" else guess_part(data, pos, cp)
        if kind is None:
            yield _unrecognised(data, pos, ctx)
            return
        unit = _DECODERS[kind](data, pos, ctx)
        yield unit
        if unit.errors or unit.length <= 0:
            return
        pos += unit.length


def _unrecognised(data: bytes, pos: int, ctx: _Context) -> Decoded:
    unit = ctx.unit("unknown", pos)
    unit.length = len(data) - pos
    unit.errors.append(Problem("", pos, f"{unit.length} bytes are neither a parameter list, a "
                                        "redolog header nor an intent list (use --part)"))
    return unit


def _parse(unit: Decoded, layout: Layout, buf: bytes, off: int, prefix: str, title: str,
           limit: int | None = None) -> Element | None:
    """Parse one element into ``unit``; on failure keep the partial element and the error."""
    try:
        el = layout.parse(buf, off, prefix=prefix, fmt=FORMAT, limit=limit)
    except DecodeError as e:
        if isinstance(e.partial, Element) and e.partial.spans:
            e.partial.title = title + " (partial)"
            e.partial.offset = off
            e.partial.length = e.partial.spans[-1].end - off
            unit.elements.append(e.partial)
        unit.errors.append(Problem(e.path, e.offset, e.reason))
        return None
    el.title = title
    unit.elements.append(el)
    return el


def _index(el: Element, name: str) -> int:
    """Position of field ``name`` among ``el``'s spans (paths end in ``.name``)."""
    tail = "." + name
    for i, s in enumerate(el.spans):
        if s.path.endswith(tail):
            return i
    raise KeyError(name)


def _set_meaning(el: Element, name: str, meaning: str) -> None:
    i = _index(el, name)
    el.spans[i] = el.spans[i]._replace(meaning=meaning)


def _span(el: Element, name: str) -> Span:
    return el.spans[_index(el, name)]


def _values(el: Element) -> dict[str, Any]:
    """Field values of a parsed element by name (spans are in declaration order)."""
    return {s.path.rsplit(".", 1)[-1]: s.value for s in el.spans}


def _at(off: int) -> str:
    return f"offset X'{off:04X}'"


def _decode_parmlist(data: bytes, pos: int, ctx: _Context) -> Decoded:
    unit = ctx.unit("parmlist", pos)
    el = _parse(unit, ctx.lay.parmlist, data, pos, "parmlist",
                f"Redolog-1/Redolog-2/Recovery exit parameter list at {_at(pos)}")
    unit.length = (el.length if el else len(data) - pos)
    if el is not None:
        ctx.prev_parmlist = _values(el)
    return unit


def seq_delta(prev: int, cur: int) -> int:
    """RLSEQ# distance with the wrap rule of "Redolog header" (RLSEQ#) (``X'FFFFFE' -> 1`` is 1)."""
    return cur - prev if cur >= prev else (SEQ_MAX - prev) + cur


def _decode_header(data: bytes, pos: int, ctx: _Context) -> Decoded:
    """A redolog header and, when it is an entry, its intent list nested under it (the
    header's trailing data, ``compose.ENTRY``)."""
    unit = ctx.unit("header", pos)
    el = _parse(unit, ctx.lay.header, data, pos, "rlhdr", f"Redolog header at {_at(pos)}")
    if el is None:
        unit.length = len(data) - pos
        return unit
    unit.length = RLHDR_LEN
    f = _values(el)
    _check_header(unit, el, f, ctx)
    _chain(unit, el, f, ctx)
    ctx.prev_header = dict(f, offset=pos)
    start = pos + RLHDR_LEN
    rem = len(data) - start
    ilen = int(f[INTENT_LENGTH])
    next_is_header = rem >= RLHDR_LEN and eyecatcher_at(data, start, ctx.lay.codepage)
    if ctx.auto and rem < ilen and guess_part(data, start, ctx.lay.codepage) == "parmlist":
        return unit  # a parameter list follows, not this header's intent list
    if rem > 0 and not next_is_header:
        unit.attrs["part"] = "entry"
        end = start + min(ilen, rem)
        unit.length = el.length = end - pos
        if ilen == 0:
            return unit
        first = len(unit.elements)
        _decode_intent_into(unit, data, start, end, ctx, passed=ilen)
        nest(el, unit.elements, first)
        if rem < ilen and not unit.errors:
            unit.errors.append(Problem("intent", len(data), f"intent list truncated: "
                                       f"{INTENT_LENGTH} {ilen}, {rem} bytes present"))
    return unit


def _check_header(unit: Decoded, el: Element, f: Mapping[str, Any], ctx: _Context) -> None:
    probs = unit.problems
    if f[ENTRY_LENGTH] != RLHDR_LEN + f[INTENT_LENGTH]:
        s = _span(el, ENTRY_LENGTH)
        probs.append(Problem(s.path, s.start, f"{ENTRY_LENGTH} {f[ENTRY_LENGTH]} is not "
                                              f"{RLHDR_LEN} + {INTENT_LENGTH} {f[INTENT_LENGTH]}"))
    if f["rl_type"] not in EXIT_RLTYPES:
        s = _span(el, "rl_type")
        probs.append(Problem(s.path, s.start, f"RLTYPE X'{f['rl_type']:02X}' is not an intent-list "
                                              "entry (X'20' or X'60'), the only kind exits see"))
    if not 1 <= f["rl_seq"] <= SEQ_MAX:
        s = _span(el, "rl_seq")
        probs.append(Problem(s.path, s.start, f"RLSEQ# X'{f['rl_seq']:X}' is outside "
                                              "X'00000001'..X'00FFFFFE'"))
    if f["rl_eye"] != EYECATCHER:
        s = _span(el, "rl_eye")
        probs.append(Problem(s.path, s.start, f"eyecatcher X'{s.raw.hex().upper()}' is not "
                                              f"{EYECATCHER!r}"))
    pl = ctx.prev_parmlist
    if pl is not None:
        s = _span(el, "rl_intent_len")
        if pl["intent_len"] == f["rl_intent_len"]:
            _set_meaning(el, "rl_intent_len", "= intent_len of the parameter list before it")
        else:
            probs.append(Problem(s.path, s.start, f"rl_intent_len {f['rl_intent_len']} differs from "
                                                  f"the parameter list's intent_len {pl['intent_len']}"))
        ctx.prev_parmlist = None


def _chain(unit: Decoded, el: Element, f: Mapping[str, Any], ctx: _Context) -> None:
    """RLSEQ# and log-offset chaining with the header before ("Redolog header": RLSEQ#, RLLOGOFF)."""
    prev = ctx.prev_header
    if prev is None:
        return
    d = seq_delta(prev["rl_seq"], f["rl_seq"])
    unit.attrs["seq_delta"] = d
    s = _span(el, "rl_seq")
    if d == 0:
        unit.problems.append(Problem(s.path, s.start, f"RLSEQ# X'{f['rl_seq']:X}' repeats the "
                                                      "previous entry's"))
        return
    if d > 1:
        _set_meaning(el, "rl_seq", f"RLSEQ# X'{f['rl_seq']:X}': gap, +{d} since the previous "
                                   f"entry's X'{prev['rl_seq']:X}' (informational)")
        return
    _set_meaning(el, "rl_seq", f"RLSEQ# X'{f['rl_seq']:X}' = previous + 1")
    expected = prev["rl_log_offset"] + prev["rl_len"]
    unit.attrs["follows_previous"] = expected == f["rl_log_offset"]
    o = _span(el, "rl_log_offset")
    if expected == f["rl_log_offset"]:
        _set_meaning(el, "rl_log_offset", f"X'{f['rl_log_offset']:X}' = previous X'"
                     f"{prev['rl_log_offset']:X}' + {prev['rl_len']}; next entry at "
                     f"X'{f['rl_log_offset'] + f['rl_len']:X}'")
    else:
        unit.problems.append(Problem(o.path, o.start, f"rl_log_offset X'{f['rl_log_offset']:X}' "
                                     f"does not follow the previous entry (X'{prev['rl_log_offset']:X}'"
                                     f" + {prev['rl_len']} = X'{expected:X}')"))


def _decode_intent(data: bytes, pos: int, ctx: _Context) -> Decoded:
    unit = ctx.unit("intent", pos)
    passed = None
    if ctx.prev_parmlist is not None:
        passed = int(ctx.prev_parmlist["intent_len"])
        ctx.prev_parmlist = None
    end = _decode_intent_into(unit, data, pos, len(data), ctx, passed=passed)
    unit.length = max(end - pos, 0) if not unit.errors else len(data) - pos
    return unit


def _decode_intent_into(unit: Decoded, data: bytes, lo: int, limit: int, ctx: _Context,
                        passed: int | None) -> int:
    """Decode the intent list at ``lo`` (format by its first halfword); returns its end."""
    if limit - lo < LIST_ID_LEN:
        unit.errors.append(Problem("intent", lo, f"intent list truncated: {limit - lo} byte(s), "
                                                 f"the format halfword needs {LIST_ID_LEN}"))
        return limit
    if intent_format(data, lo, ctx.lay.codepage) == 1:
        unit.attrs["intent_format"] = 1
        if ctx.synthetic:
            unit.attrs["synthetic"] = True
        return _format1(unit, data, lo, limit, ctx, passed)
    unit.attrs["intent_format"] = 2
    return _format2(unit, data, lo, limit, ctx, passed)


# --------------------------------------------------------------------------- format 2


@dataclass
class _ParmRun:
    prefixed: bool
    entries: list[tuple[int, int]]  # (offset of the length byte, length)
    end: int
    bad: tuple[int, int] | None = None  # (offset, byte) of a length byte with X'80' on


def param_run(buf: bytes, start: int, end: int, count: int | None = None,
              prefixed: bool | None = None) -> _ParmRun | None:
    """Parameters in variable format (1-byte length <= 127 + data) from ``start``.

    Tries a halfword length prefix first (the $CLRTAB reading), then plain
    entries up to ``end``, a zero length byte or ``count`` entries. None when nothing fits.
    """
    if prefixed is not False and start + PAREA_LEN <= end:
        n = field_int(buf, DECLARED.r2parea, "r2b_parm_area_len", start)
        first = start + PAREA_LEN
        if 0 < n <= end - first:
            run = _entries(buf, first, first + n, count)
            if run is not None and run.end == first + n and run.bad is None and run.entries:
                run.prefixed = True
                return run
    if prefixed is True:
        return None
    return _entries(buf, start, end, count)


def _entries(buf: bytes, start: int, end: int, count: int | None) -> _ParmRun | None:
    pos = start
    entries: list[tuple[int, int]] = []
    while pos < end and (count is None or len(entries) < count):
        n = buf[pos]
        if n == 0:
            break
        if n & 0x80:
            return _ParmRun(False, entries, pos, (pos, n))
        if pos + 1 + n > end:
            return None
        entries.append((pos, n))
        pos += 1 + n
    return _ParmRun(False, entries, pos)


def _keyname_ok(buf: bytes, off: int, end: int, codepage: str) -> bool:
    if off + KEYNAME_LEN > end:
        return False
    text = buf[off:off + KEYNAME_LEN].decode(codepage, errors="replace")
    return text[0] != " " and all(c.isprintable() for c in text)


def resolve_body_base(buf: bytes, lo: int, end: int, parm: int, misc: int, movtab: bool,
                      codepage: str = "cp037") -> tuple[int, list[int], bool]:
    """Base of the R2BOPARM / R2BOMISC offsets ("Redolog Entries", format 2): ``(base, bases that validate,
    tested)``. Each candidate must put the key name on 16 printable characters and the
    parameter offset on a well-formed run, both after the fixed body and inside the list."""
    targets = [] if movtab or not parm else [("parm", parm)]
    if misc:
        targets.append(("misc", misc))
    if not targets:
        return R2_BODY, [], False
    ok = []
    for base in BODY_BASES:
        good = True
        for kind, rel in targets:
            at = lo + base + rel
            if at < lo + R2_FIXED or at >= end:
                good = False
            elif kind == "misc":
                good = good and _keyname_ok(buf, at, end, codepage)
            else:
                run = param_run(buf, at, end)
                good = good and run is not None and bool(run.entries) and run.bad is None
        if good:
            ok.append(base)
    return (ok[0] if ok else R2_BODY), ok, True


def _format2(unit: Decoded, data: bytes, lo: int, limit: int, ctx: _Context,
             passed: int | None) -> int:
    """A format-2 list: its header spans the list length (``FORMAT2_LENGTH``), the body,
    parameter data, key name and unparsed bytes nested under it; the trailer after it."""
    first = len(unit.elements)
    pos = _format2_parts(unit, data, lo, limit, ctx, passed)
    hdr = unit.elements[first] if len(unit.elements) > first else None
    if hdr is not None and hdr.type == FORMAT2_LENGTH.layout and hdr.spans[-1].end == lo + R2_BODY:
        stop = min(lo + hdr.value_as(FORMAT2_LENGTH.field, int), limit)
        last = first + 1
        while last < len(unit.elements) and unit.elements[last].end <= stop:
            last += 1
        if last > first + 1:
            hdr.length = stop - lo
            nest(hdr, unit.elements, first + 1, last)
    return pos


def _format2_parts(unit: Decoded, data: bytes, lo: int, limit: int, ctx: _Context,
                   passed: int | None) -> int:
    lay = ctx.lay
    hdr = _parse(unit, lay.r2hdr, data, lo, "r2", f"Format-2 intent list header at {_at(lo)}", limit)
    if hdr is None:
        return limit
    hv = _values(hdr)
    r2_len = int(hv["r2_len"])
    end = lo + r2_len
    s_len = _span(hdr, "r2_len")
    if passed is not None and passed != r2_len + TRAILER_LEN:
        unit.problems.append(Problem(s_len.path, s_len.start, f"r2_len {r2_len} + 2 is not the "
                                                              f"passed length {passed}"))
    if r2_len < R2_FIXED:
        unit.errors.append(Problem(s_len.path, s_len.start, f"r2_len {r2_len} is shorter than the "
                                   f"{R2_FIXED}-byte fixed header and body (inferred layout)"))
        return limit
    _lock_check(unit, hdr, "r2_hdr_lock")
    body = _parse(unit, lay.r2body, data, lo + R2_BODY, "r2",
                  f"Format-2 intent body at {_at(lo + R2_BODY)}", min(limit, end))
    if body is None:
        if end > limit:
            unit.errors[-1] = Problem(unit.errors[-1].path, unit.errors[-1].offset,
                                      f"intent list truncated: r2_len {r2_len}, "
                                      f"{limit - lo} bytes present")
        return limit
    _lock_check(unit, body, "r2b_lock")
    bv = _values(body)
    if bv["unk_10"] == hv["unk_04"]:
        _set_meaning(body, "unk_10", "same value as unk_04")
    present_end = min(end, limit)
    req = bv["r2b_req"]
    parm, misc = int(bv["r2boparm"]), int(bv["r2bomisc"])
    movtab = req == MOVTAB
    base, fits, tested = resolve_body_base(data, lo, present_end, parm, misc, movtab, lay.codepage)
    unit.attrs["body_base"] = base
    if not tested:
        why = "primary; no offsets to test"
    elif base in fits:
        others = [f"X'{b:02X}'" for b in fits if b != base]
        why = ("primary" if base == R2_BODY else "alternative") + " base, validated" + (
            f"; {', '.join(others)} also fit{'s' if len(others) == 1 else ''}" if others else "")
    else:
        why = "primary; no candidate base validates"
        s = _span(body, "r2bomisc" if misc else "r2boparm")
        unit.problems.append(Problem(s.path, s.start, "no body base (X'0A', X'0C', X'08') puts "
                                     "R2BOPARM/R2BOMISC on well-formed data"))
    body.title += f" (offset base X'{base:02X}': {why})"
    covered: list[tuple[int, int]] = []
    if parm and not movtab:
        _r2_params(unit, data, lo, base, parm, present_end, ctx, covered)
    if misc:
        at = lo + base + misc
        if at + KEYNAME_LEN <= present_end:
            el = _parse(unit, lay.keyname, data, at, "r2",
                        f"R2BOMISC key name at {_at(at)} (base X'{base:02X}' + X'{misc:04X}')",
                        present_end)
            if el is not None:
                covered.append((at, at + KEYNAME_LEN))
        else:
            s = _span(body, "r2bomisc")
            unit.problems.append(Problem(s.path, s.start, f"R2BOMISC X'{misc:04X}' points outside "
                                                          "the list"))
    _unparsed(unit, data, lo + R2_FIXED, present_end, covered, lay.codepage, "r2")
    if end > limit:
        unit.errors.append(Problem("r2", limit, f"intent list truncated: r2_len {r2_len}, "
                                                f"{limit - lo} bytes present"))
        return limit
    if limit - end >= TRAILER_LEN:
        _parse(unit, lay.trailer, data, end, "r2",
               f"Trailer at {_at(end)} (passed length = r2_len + {TRAILER_LEN})", limit)
        return end + TRAILER_LEN
    unit.problems.append(Problem("r2.r2_trailer", end, f"trailer ({TRAILER_LEN} bytes) not present "
                                 f"in input (passed length = r2_len + {TRAILER_LEN})"))
    return end


def _r2_params(unit: Decoded, data: bytes, lo: int, base: int, parm: int, end: int,
               ctx: _Context, covered: list[tuple[int, int]]) -> None:
    at = lo + base + parm
    if not lo + R2_FIXED <= at < end:
        unit.problems.append(Problem("r2.r2boparm", lo + R2_BODY + ctx.lay.r2body.offset_of("r2boparm"),
                                     f"R2BOPARM X'{parm:04X}' points outside the variable area"))
        return
    run = param_run(data, at, end, ctx.params)
    title = f"R2BOPARM parameter data at {_at(at)} (base X'{base:02X}' + X'{parm:04X}')"
    el = Element("R2PARMS", at, 0, title=title)
    if run is None:
        unit.problems.append(Problem("r2.parameters", at, "no well-formed parameter run at "
                                                          "R2BOPARM"))
        return
    _param_spans(el, data, at, run, "r2", "r2parm", ctx.lay)
    if el.spans:
        el.length = el.spans[-1].end - at
        unit.elements.append(el)
        covered.append((at, el.spans[-1].end))
    if run.bad is not None:
        bad_at, bad_byte = run.bad
        unit.problems.append(Problem("r2.parameters", bad_at, f"parameter length X'{bad_byte:02X}'"
                                     " has the high-order bit on (parameters take 1 byte, <= 127)"))


def _param_spans(el: Element, data: bytes, at: int, run: _ParmRun, prefix: str, stem: str,
                 lay: Layouts) -> None:
    """Spans of a parameter run: the optional halfword prefix, then ``<stem>{i}l`` / ``v``."""
    if run.prefixed:
        el.spans += lay.r2parea.parse(data, at, prefix=prefix, fmt=FORMAT).spans
    for i, (off, _n) in enumerate(run.entries, 1):
        e = lay.parm.parse(data, off, prefix=prefix, fmt=FORMAT)
        ln, val = e.spans
        el.spans.append(ln._replace(path=f"{prefix}.{stem}{i}l"))
        el.spans.append(val._replace(path=f"{prefix}.{stem}{i}v", meaning=gloss(val.raw, lay.codepage)))


def _unparsed(unit: Decoded, data: bytes, start: int, end: int, covered: list[tuple[int, int]],
              codepage: str, prefix: str) -> None:
    """Bytes of ``[start, end)`` no field explains: hex spans named by their offset."""
    gaps, pos = [], start
    for a, b in sorted(covered):
        if a > pos:
            gaps.append((pos, min(a, end)))
        pos = max(pos, b)
    if pos < end:
        gaps.append((pos, end))
    gaps = [(a, b) for a, b in gaps if b > a]
    if not gaps:
        return
    (first, _), (_, last) = gaps[0], gaps[-1]
    el = Element("UNPARSED", first, 0, title=f"Unparsed bytes at {_at(first)}")
    base = unit.offset
    for a, b in gaps:
        raw = bytes(data[a:b])
        el.spans.append(Span(f"{prefix}.unk_{a - base:02x}", a, b, raw, gloss(raw, codepage), HEX,
                             "unknown", raw))
    el.length = last - first
    unit.elements.append(el)
    unit.attrs["unparsed_bytes"] = sum(b - a for a, b in gaps)


def _lock_check(unit: Decoded, el: Element, name: str) -> None:
    s = _span(el, name)
    if s.value not in LOCK:
        unit.problems.append(Problem(s.path, s.start, f"lock flag X'{s.value:02X}' is neither "
                                                      "X'40' (retain) nor X'D9' (release)"))


# --------------------------------------------------------------------------- format 1


@dataclass
class RowParse:
    """Where a format-1 segment's row starts and what its pieces are ("Redolog Entries", format 1)."""

    p: int  # offset of R1BROWL
    rowl: int
    counts: str  # "pairs" (lengths + values) or "values"
    pairs: list[tuple[int, int, int]]  # (offset, length-field size, value length)
    q: int  # offset of R1PARMS
    params: list[tuple[int, int]]


def scan_segment(buf: bytes, start: int, end: int, *, nparams: int | None = None,
                 nfields: int | None = None, q: int | None = None,
                 budget: list[int] | None = None) -> RowParse | None:
    """Find R1BROWL + N (R1BF1L, R1BF1V) pairs ending exactly at ``end`` and P parameters
    ending exactly where R1BROWL starts. ``q`` fixes where the parameters
    start (the synthetic layout knows it). None when no consistent parse exists."""
    budget = budget if budget is not None else [SCAN_BUDGET]
    lo = start if q is None else q
    for counts in ("pairs", "values"):  # R1BROWL counting lengths + values first (as built)
        for p in range(lo, end):
            budget[0] -= 1
            if budget[0] < 0:
                return None
            got = decode_length(buf, p, end)
            if got is None:
                continue
            rowl, size = got
            after = p + size
            span = end - after
            if (rowl != span) if counts == "pairs" else (rowl >= span):
                continue
            pairs = _pairs(buf, after, end, nfields, budget)
            if pairs is None or (counts == "values" and rowl != sum(n for _, _, n in pairs)):
                continue
            params = _params_to(buf, lo, p, nparams, q is not None, budget)
            if params is None:
                continue
            qq, entries = params
            return RowParse(p, rowl, counts, pairs, qq, entries)
    return None


def _pairs(buf: bytes, pos: int, end: int, nfields: int | None,
           budget: list[int]) -> list[tuple[int, int, int]] | None:
    pairs: list[tuple[int, int, int]] = []
    while pos < end:
        budget[0] -= 1
        if budget[0] < 0 or (nfields is not None and len(pairs) >= nfields):
            return None
        got = decode_length(buf, pos, end)
        if got is None:
            return None
        n, size = got
        if pos + size + n > end:
            return None
        pairs.append((pos, size, n))
        pos += size + n
    if not pairs or (nfields is not None and len(pairs) != nfields):
        return None
    return pairs


def _params_to(buf: bytes, start: int, p: int, nparams: int | None, fixed: bool,
               budget: list[int]) -> tuple[int, list[tuple[int, int]]] | None:
    """The first ``q`` from ``start`` whose 1-byte-length entries end exactly at ``p``."""
    for q in ([start] if fixed else range(start, p + 1)):
        budget[0] -= 1
        if budget[0] < 0:
            return None
        pos, entries = q, []
        while pos < p:
            n = buf[pos]
            if n & 0x80 or n == 0 or pos + 1 + n > p:
                break
            entries.append((pos, n))
            pos += 1 + n
        if pos == p and (nparams is None or len(entries) == nparams):
            return q, entries
    return None


def _format1(unit: Decoded, data: bytes, lo: int, limit: int, ctx: _Context,
             passed: int | None) -> int:
    """A format-1 list: its header, the update segments nested under it (``SEGMENTS``)."""
    lay = ctx.lay
    hdr = _parse(unit, lay.r1hdr, data, lo, "r1",
                 f"Format-1 intent list header at {_at(lo)}" + (" (synthetic layout)" if ctx.synthetic
                                                                 else ""), limit)
    if hdr is None:
        return limit
    _lock_check(unit, hdr, "r1_lock")
    end = limit if passed is None else min(limit, lo + passed)
    first = len(unit.elements)
    pos = _segments(unit, data, lo + F1_HEADER_LEN, end, ctx)
    nest(hdr, unit.elements, first)
    if pos is None:
        return limit
    if passed is not None and limit >= lo + passed and pos != lo + passed:
        unit.problems.append(Problem("r1", pos, f"segments end at {pos - lo}, the passed length is "
                                                f"{passed}"))
    return pos


def nest(parent: Element, elements: list[Element], first: int, last: int | None = None) -> None:
    """``elements[first:last]`` become ``parent``'s children; it spans them."""
    parent.children, elements[first:last] = elements[first:last], []
    if parent.children:
        parent.length = max(parent.length, max(c.end for c in parent.children) - parent.offset)


def _segments(unit: Decoded, data: bytes, pos: int, end: int, ctx: _Context) -> int | None:
    """The update segments of ``data[pos:end]``; where they end (None: the walk broke off)."""
    lay, budget, n = ctx.lay, [SCAN_BUDGET], 0
    for item in items(SEGMENTS, lay.r1seg, data, pos, end):
        prefix = f"{SEGMENTS.name}[{item.index + 1}]"
        title = SEGMENTS.title.format(number=item.index + 1, offset=item.pos)
        seg = _parse(unit, lay.r1seg, data, item.pos, prefix, title, end)
        if seg is None:
            return None
        if item.stop > end:
            s = seg.spans[0]
            unit.errors.append(Problem(s.path, s.start, f"segment length {s.value} runs past the "
                                                        f"intent list's end ({end - item.start} bytes left)"))
            return None
        _segment(unit, seg, data, item.start, item.stop, ctx, prefix, budget)
        seg.length = item.stop - item.pos
        pos, n = item.stop, n + 1
    unit.attrs["segments"] = n
    return pos


def _segment(unit: Decoded, seg: Element, data: bytes, start: int, end: int, ctx: _Context,
             prefix: str, budget: list[int]) -> None:
    lay = ctx.lay
    q = None
    if ctx.synthetic:
        if end - start < lay.r1req.size:  # type: ignore[operator]
            unit.problems.append(Problem(prefix, start, "segment shorter than the synthetic "
                                                        "request prefix (17 bytes)"))
        else:
            seg.spans += lay.r1req.parse(data, start, prefix=prefix, fmt=FORMAT).spans
            q = start + lay.r1req.size  # type: ignore[operator]
    row = scan_segment(data, start, end, nparams=ctx.params, nfields=ctx.fields, q=q, budget=budget)
    if row is None:
        raw = bytes(data[q or start:end])
        seg.spans.append(Span(f"{prefix}.unk_{(q or start) - unit.offset:02x}", q or start, end, raw,
                              gloss(raw, lay.codepage), HEX, "unknown", raw))
        why = ("the scan gave up (step budget spent)" if budget[0] < 0 else
               "no consistent R1PARMS / R1BROWL / R1BF parse (give --params/--fields?)")
        unit.problems.append(Problem(prefix, start, f"{why}; segment shown as hex"))
        return
    if q is None and row.q > start:
        raw = bytes(data[start:row.q])
        seg.spans.append(Span(f"{prefix}.unk_{start - unit.offset:02x}", start, row.q, raw,
                              ("request prefix " + gloss(raw, lay.codepage)).rstrip(), HEX,
                              "unknown", raw))
    run = _ParmRun(False, row.params, row.p)
    _param_spans(seg, data, row.q, run, prefix, "r1parm", lay)
    browl = lay.r1browl.parse(data, row.p, prefix=prefix, fmt=FORMAT).spans[0]
    what = (f"= byte length of the {len(row.pairs)} field pairs" if row.counts == "pairs"
            else f"= byte length of the {len(row.pairs)} field values")
    seg.spans.append(browl._replace(meaning=what + _canonical(browl), note="inferred"))
    for k, (off, _size, _n) in enumerate(row.pairs, 1):
        ln, val = lay.r1bf.parse(data, off, prefix=prefix, fmt=FORMAT).spans
        seg.spans.append(ln._replace(path=f"{prefix}.r1bf{k}l", meaning=_canonical(ln).lstrip("; ")))
        seg.spans.append(val._replace(path=f"{prefix}.r1bf{k}v", meaning=gloss(val.raw, lay.codepage)))


def _canonical(span: Span) -> str:
    if span.length == 2 and int(span.value) <= 0x7F:  # type: ignore[call-overload]
        return "; non-canonical 2-byte form"
    return "; 2-byte length" if span.length == 2 else ""


# --------------------------------------------------------------------------- other parts


def _decode_usrextpl(data: bytes, pos: int, ctx: _Context) -> Decoded:
    unit = ctx.unit("usrextpl", pos)
    count = (len(data) - pos) // POINTER_LEN
    limit = max(USREXTPL_MAX, len(ctx.names or ()))
    if count > limit:
        unit.errors.append(Problem("usrextpl", pos + limit * POINTER_LEN,
                                   f"{count} fullwords: more than the {limit} pointers a USREXTPL "
                                   "is read with (a shared-storage pointer and one per user "
                                   "exit); the first are shown, the rest not read (a field map "
                                   "with more names reads more)"))
        count = limit
    names = usrextpl_names(count, ctx.names)
    unit.length = len(data) - pos
    if ctx.names and len(names) != count:
        unit.problems.append(Problem("usrextpl", pos, f"the field map names {len(names)} pointers, "
                                                      f"the input holds {count}"))
        names = names[:count] + tuple(f"unk_{POINTER_LEN * i:02x}" for i in range(len(names), count))
    layout = usrextpl_layout(names, ctx.lay.codepage, not ctx.names)
    el = _parse(unit, layout, data, pos, "usrextpl", f"USREXTPL at {_at(pos)}", len(data))
    if el is not None:
        el.extra["exits"] = {s.name: exit_state(s.name, int(s.value)) for s in el.spans}  # type: ignore[call-overload]
        tail = pos + el.length
        if tail < len(data) and not unit.errors:
            unit.errors.append(Problem("usrextpl", tail, f"{len(data) - tail} byte(s) left over: "
                                                         "USREXTPL holds fullword pointers"))
    return unit


def _decode_parmset(data: bytes, pos: int, ctx: _Context) -> Decoded:
    unit = ctx.unit("parmset", pos)
    el = _parse(unit, ctx.lay.parmset, data, pos, "parmset",
                f"Data Object Broker Parameter Setting block at {_at(pos)}")
    unit.length = len(data) - pos
    if el is not None and pos + PARMSET_LEN < len(data):
        _unparsed(unit, data, pos + PARMSET_LEN, len(data), [], ctx.lay.codepage, "parmset")
        unit.problems.append(Problem("parmset", pos + PARMSET_LEN, f"{len(data) - pos - PARMSET_LEN}"
                                     " byte(s) after the 8-byte block"))
    return unit


_DECODERS = {
    "parmlist": _decode_parmlist,
    "header": _decode_header,
    "intent": _decode_intent,
    "usrextpl": _decode_usrextpl,
    "parmset": _decode_parmset,
}


# --------------------------------------------------------------------------- fast path


def iter_headers(data: bytes, codepage: str = "cp037") -> Iterator[dict[str, Any]]:
    """Bulk path: the header values of consecutive redolog entries (``compose.REDOLOG``:
    each entry's length in RLLEN, its REDODATA eyecatcher), no spans, from the same
    declaration as ``decode``. Each dict also has ``offset``. Raises ``DecodeError`` where
    an entry has no REDODATA eyecatcher, a length under 48, or runs past the end."""
    cp = codec_name(codepage)
    lay = layouts(cp).header
    eye, length = REDOLOG.key.field, REDOLOG.length.field
    pos, n = 0, len(data)
    while pos < n:
        if pos + RLHDR_LEN > n:
            raise DecodeError(FORMAT, "rlhdr", pos, f"redolog header truncated: {n - pos} bytes left")
        v = lay.values(data, pos)
        if v[eye] != ENTRY.key or v[length] < RLHDR_LEN:
            raise DecodeError(FORMAT, f"rlhdr.{eye}" if v[eye] != ENTRY.key else f"rlhdr.{length}",
                              pos, f"not a redolog entry (no {ENTRY.key} eyecatcher or {length} < "
                                   f"{RLHDR_LEN})")
        v["offset"] = pos
        yield v
        if pos + v[length] > n:
            raise DecodeError(FORMAT, "intent", n, f"entry at X'{pos:04X}' runs past the end: "
                                                   f"{length} {v[length]}, {n - pos} bytes left")
        pos += v[length]
