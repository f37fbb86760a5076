"""Finding CSQ1LOGP extract records inside arbitrary bytes (IBM MQ for z/OS, CSQ1LOGP
EXTRACT output, record layout): the EBCDIC ``yyyy.ddd hh:mm:ss.thm`` record date every
record starts with (``layout.date_pattern``), an RDW four bytes before it (or a BDW and an
RDW eight bytes before), and the framing's own confirmation (``framing._record_ok`` /
``_block_ok``). A hit is a chain of consecutive records; its first and last records are
decoded with the record decoder."""

from __future__ import annotations

from mqtool.formats.csq1logp import framing as fr
from mqtool.formats.csq1logp.decode import decode_record
from mqtool.formats.csq1logp.layout import FORMAT, date_pattern
from mqtool.io.carving import Found, Work
from mqtool.model import Decoded

CODEPAGE = "cp037"
_DATE = date_pattern(CODEPAGE)
SIGNATURES: tuple[bytes, ...] = ()
PATTERNS: tuple[bytes, ...] = (_DATE.pattern,)
BEFORE = fr.BDW + fr.RDW  # the date follows an RDW, or a BDW and an RDW


def confirm(view: bytes, at: int, final: bool, work: Work) -> Found | None:
    """The RDW (or BDW) chain whose first record date is at ``at``."""
    block = at - fr.RDW - fr.BDW
    if block >= 0 and fr._block_ok(view, block, _DATE, True) is True:
        return _chain(view, block, "bdw", work)
    start = at - fr.RDW
    if start >= 0 and fr._rdw_len(view, start) and fr._record_ok(view, start, _DATE, True) is True:
        return _chain(view, start, "rdw", work)
    return None


def _walk(view: bytes, start: int, framing: str) -> tuple[int, list[tuple[int, int]]]:
    """End of the chain and its records ``(offset, rec_len)``: records (blocks) follow one
    another while each is confirmed."""
    records: list[tuple[int, int]] = []
    pos = start
    while pos < len(view):
        if framing == "bdw":
            if fr._block_ok(view, pos, _DATE, True) is not True:
                break
            blen = min(fr._bdw_len(view, pos), len(view) - pos)
            inner = pos + fr.BDW
            while inner < pos + blen and fr._rdw_len(view, inner) and _DATE.match(view, inner + fr.RDW):
                n = fr._rdw_len(view, inner)
                records.append((inner, n))
                inner += n
            pos += blen
        else:
            n = fr._rdw_len(view, pos)
            if not n or not _DATE.match(view, pos + fr.RDW) or \
                    fr._record_ok(view, pos, _DATE, True) is not True:
                break
            records.append((pos, n))
            pos += n
    return min(pos, len(view)), records


def _decode(view: bytes, rec: tuple[int, int], framing: str, work: Work) -> Decoded:
    at, n = rec
    data = work.take(view, at, at + n)
    return decode_record(data, 0, len(data), fr.RDW, CODEPAGE, framing=framing)


def _chain(view: bytes, start: int, framing: str, work: Work) -> Found | None:
    end, records = _walk(view, start, framing)
    if not records:
        return None
    work.count(end - start)
    first = _decode(view, records[0], framing, work)
    last = _decode(view, records[-1], framing, work) if len(records) > 1 else first
    errors = tuple(p.describe() for u in (first, last) for p in u.errors)
    f = {s.name: s.value for s in first.spans()}
    g = {s.name: s.value for s in last.spans()}
    verb, queue = f.get("csverb", ""), f.get("csqueuename", "")
    dates = f"{f.get('csrecorddate', '')} .. {g.get('csrecorddate', '')}"
    n = len(records)
    summary = (f"{n} CSQ1LOGP record{'s' * (n != 1)}, {framing.upper()} framing, {dates}; "
               f"first: {verb} {queue}".rstrip())
    confidence = 0.5 if errors else (0.95 if n > 1 else 0.85)
    return Found(start, end - start, FORMAT, f"CSQ1LOGP {framing.upper()} chain", confidence,
                 summary, (FORMAT,), {"framing": framing}, errors, "csq1logp")
