"""CSQ1LOGP records: the forensic decoder (spans, field problems) and detection."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, cast

from mqtool.compose import Nest
from mqtool.errors import DecodeError
from mqtool.formats.csq1logp.layout import (
    BAD_DATE,
    BAD_DELTA,
    BAD_ENUM,
    BAD_SEGMENT,
    BORA,
    DATA,
    DATA_LENGTH,
    ENUMS,
    FIXED_BORA,
    FORMAT,
    HOOKS,
    NEG_LEN,
    RECORD,
    TRAILING,
    VARIABLE,
    data_slice,
    layouts,
    parse_recorddate,
    parse_timedelta,
    resolve_fixed,
    resolver,
)
from mqtool.model import Decoded, Detection, Element, Problem, shift_unit
from mqtool.tod import Tod

# ------------------------------------------------------------------ decoding


def decode(data: bytes, framing: str = "auto", codepage: str = "cp037", *,
           leap_seconds: int = 0, **_: Any) -> Iterator[Decoded]:
    """Decode every record (and every bad span) of an extract held in ``data``.

    Framing ``auto|rdw|bdw|none`` (``framing``). A bad span becomes a unit with one error;
    decoding resumes at the next valid record. An ASCII-mode transfer raises DecodeError.
    """
    from mqtool.formats.csq1logp.framing import frames, resolve_framing

    chosen, _reason = resolve_framing(data[:65536], framing, codepage, final=True)
    for fr in frames([data], chosen, codepage):
        if fr.error:
            yield _bad_unit(fr, chosen, codepage)
        else:
            yield decode_record(data, fr.pos, fr.length, fr.hdr, codepage, framing=chosen,
                                rec_no=fr.rec_no, block=fr.block, leap_seconds=leap_seconds)


def decode_stream(chunks: Iterable[bytes], head: bytes, framing: str = "auto",
                  codepage: str = "cp037", *, leap_seconds: int = 0,
                  final: bool = True) -> Iterator[tuple[Decoded, bytes]]:
    """``decode`` of a stream of chunks (a file of any size, read piece by piece): each unit
    with its own bytes, offsets in the input. ``head`` is the first bytes (for ``auto``)."""
    from mqtool.formats.csq1logp.framing import frames, resolve_framing

    chosen, _reason = resolve_framing(head, framing, codepage, final=final)
    for fr in frames(chunks, chosen, codepage):
        if fr.error:
            yield _bad_unit(fr, chosen, codepage), bytes(fr.head)
            continue
        base = fr.offset - fr.pos  # file offset of the framer's buffer
        unit = decode_record(fr.buf, fr.pos, fr.length, fr.hdr, codepage, framing=chosen,
                             rec_no=fr.rec_no, block=fr.block, leap_seconds=leap_seconds,
                             base=base)
        yield shift_unit(unit, base), bytes(fr.buf[fr.pos:fr.pos + fr.length])


def _bad_unit(fr: Any, framing: str, codepage: str) -> Decoded:
    unit = Decoded(FORMAT, fr.offset, fr.length,
                   attrs={"framing": framing, "rec_no": fr.rec_no, "codepage": codepage,
                          "raw_hex": bytes(fr.head).hex().upper()},
                   title=f"Bad span {fr.rec_no} at offset X'{fr.offset:04X}', {fr.length} bytes")
    unit.errors.append(Problem(fr.path, fr.offset, f"{fr.error}: {fr.detail}"))
    return unit


def decode_record(buf: bytes, pos: int, rec_len: int, hdr: int, codepage: str = "cp037", *,
                  framing: str = "rdw", rec_no: int = 0, block: int = -1,
                  leap_seconds: int = 0, base: int = 0) -> Decoded:
    """One framed record at ``buf[pos:pos+rec_len]`` (``hdr`` = 4 with an RDW, else 0);
    ``buf`` starts ``base`` bytes into the input (titles say input offsets; ``shift_unit``
    moves the rest)."""
    lay = layouts(codepage)
    unit = Decoded(FORMAT, pos, rec_len,
                   attrs={"framing": framing, "rec_no": rec_no, "rec_len": rec_len,
                          "codepage": lay.codepage})
    if block >= 0:
        unit.attrs["block"] = block
    title = f"Record {rec_no} at offset X'{base + pos:04X}', {rec_len} bytes"
    if hdr:
        unit.elements.append(lay.rdw.parse(buf, pos, prefix="rdw", fmt=FORMAT))
    start = pos + hdr
    end = pos + rec_len
    try:
        el = lay.logd.parse(buf, start, prefix="", fmt=FORMAT, limit=end)
    except DecodeError as e:
        if isinstance(e.partial, Element):
            unit.elements.append(e.partial)
        unit.errors.append(Problem(e.path, e.offset, e.reason))
        unit.title = title
        return unit
    el.title = f"{RECORD.type} fixed part at offset X'{base + start:04X}'"
    unit.elements.append(el)
    f = el.fields
    ld = cast(int, f[DATA_LENGTH])  # a binary field
    avail = rec_len - hdr
    fixed, why = resolve_fixed(avail, ld)
    take, reading = data_slice(avail, fixed, ld)
    unit.attrs.update(fixed_len=fixed, fixed_reason=why, reading=reading)
    _variable(el, buf, start + (lay.logd.size or 0), take, lay.codepage, avail, ld, base)
    el.length = fixed + take
    bora = el.children[0].value("csbora") if el.children else None
    rows = field_problems(f, bool(fixed == FIXED_BORA), bora, reading)
    where = {s.name: s.start for s in unit.spans()} | {DATA: start + fixed}
    for name, reason in rows:
        unit.problems.append(Problem(name, where[name], reason))
    if reading == "B":
        unit.problems.append(Problem(DATA_LENGTH, start + lay.logd.offset_of(DATA_LENGTH),
                                     f"reading B: ldatalen {ld} is the message total, "
                                     f"this record holds {take} bytes"))
    _dates(unit, f, leap_seconds)
    in_block = f" in the block at X'{block:04X}'" if block >= 0 else ""
    unit.title = title + f", {framing.upper()} framing{in_block}, fixed part {fixed} ({why})"
    return unit


def _variable(el: Element, buf: bytes, at: int, take: int, codepage: str, avail: int,
              ldatalen: int, base: int) -> None:
    """The variable part after the fixed part at ``at`` (``VARIABLE``): when the format's
    judgement (its hook) says the record carries csbora, the CSBORA record nested under the
    fixed part, holding csvardata after it; else csvardata right after the fixed part."""
    nest = VARIABLE.content
    assert isinstance(nest, Nest)
    holder = el
    if HOOKS[VARIABLE.name](avail, ldatalen):
        layout = resolver(codepage)(nest.record)
        holder = layout.parse(buf, at, prefix="", fmt=FORMAT)
        holder.title = nest.title.format(offset=base + at, length=(layout.size or 0) + take)
        holder.path, holder.length = nest.name, (layout.size or 0) + take
        el.children.append(holder)
        at += layout.size or 0
    holder.data, holder.data_offset = bytes(buf[at:at + take]), at
    holder.data_name = nest.rest


def field_problems(f: Mapping[str, Any], has_bora: bool, bora: Any, reading: str,
                   ) -> list[tuple[str, str]]:
    """Field-level problems of one record: ``(field, reason)``; the bulk path mirrors this."""
    out: list[tuple[str, str]] = []
    try:
        parse_recorddate(str(f["csrecorddate"]))
    except ValueError:
        out.append(("csrecorddate", BAD_DATE))
    try:
        parse_timedelta(str(f["cstimedelta"]))
    except ValueError:
        out.append(("cstimedelta", BAD_DELTA))
    for name in ("cscnty", "csstatus"):
        if f[name] not in ENUMS[name]:
            out.append((name, BAD_ENUM))
    if int(f["ldatalen"]) < 0:
        out.append(("ldatalen", NEG_LEN))
    for name in ("csverb", "cscmitstatus", "csshunt"):
        if f[name] not in ENUMS[name]:
            out.append((name, BAD_ENUM))
    if int(f["lsegment"]) < 1:
        out.append(("lsegment", BAD_SEGMENT))
    if has_bora and f["csverb"] == "ALTER" and bora not in BORA:
        out.append(("csbora", BAD_ENUM))
    if reading == "trailing-bytes":
        out.append(("csvardata", TRAILING))
    return out


def _dates(unit: Decoded, f: Mapping[str, Any], leap_seconds: int) -> None:
    try:
        local = parse_recorddate(str(f["csrecorddate"]))
    except ValueError:
        return
    unit.attrs["csrecorddate_ts"] = local.isoformat(timespec="milliseconds")
    tod = f["dtodout"]
    when = tod.datetime(leap_seconds) if isinstance(tod, Tod) else None  # None: not set
    if when is not None:
        utc = when.replace(tzinfo=None)
        minutes = round((local - utc).total_seconds() / 900) * 15
        sign = "-" if minutes < 0 else "+"
        unit.attrs["csrecorddate_offset"] = f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
    if leap_seconds:
        unit.attrs["leap_seconds"] = leap_seconds


# ------------------------------------------------------------------ detection


def detect(data: bytes) -> Detection | None:
    """An RDW (or BDW+RDW, or none) followed by an EBCDIC ``yyyy.ddd hh:mm:ss.thm``."""
    from mqtool.formats.csq1logp.framing import sniff

    try:
        found = sniff(data[:65536], "cp037", final=len(data) <= 65536)
    except DecodeError:
        return Detection(FORMAT, 0.5, "ASCII yyyy.ddd date: a text-mode transfer of an extract")
    if found is None:
        return None
    framing, reason = found
    conf = 0.95 if framing in ("rdw", "bdw") else 0.8
    return Detection(FORMAT, conf, reason, {"framing": framing})


