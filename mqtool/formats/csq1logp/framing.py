"""Record framing of z/OS variable-length data sets moved off the mainframe, as generators
over chunks (a file is never read whole to frame it).

Framings (z/OS DFSMS, "Record Descriptor Word (RDW)"): ``rdw`` (FTP ``quote site rdw``:
RDW + record), ``bdw`` (RECFM=U copies: BDW + RDW-framed records per block), ``none`` (FTP
binary without RDWs: boundaries recomputed from ``ldatalen``, resynchronised on the EBCDIC
``yyyy.ddd`` date that starts every record). A text-mode (ASCII) transfer is recognised and refused.

An RDW length is believed when it agrees with the record's own fixed part and ``ldatalen``
(199 or 200 + ``ldatalen``), or when the next record date follows where it ends — and never
when it covers the start of a confirmed record. A bad span (damaged or implausible
descriptor, no record date where one must be, truncated tail) becomes one ``Frame`` with
``error`` set; scanning resumes at the next *confirmed* record (``_record_ok``,
``_block_ok``): a valid descriptor, a record date, and a length the same checks believe.

Two ways to cut a file: ``sparse_index`` (one header pass, restart points at record
boundaries; the local ``extract``'s pool) and ``byte_ranges`` + ``range_frames`` (cut
anywhere, no pass: each range's reader starts at the first confirmed record at or after its
start and stops at the first one at or after its end; the Spark tasks). Both give exactly
what a whole-file scan gives.
"""

from __future__ import annotations

import itertools
import re
import struct
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import NamedTuple

from mqtool.errors import DecodeError
from mqtool.formats.csq1logp import layout as _lay
from mqtool.io.ranges import ByteRange as ByteRange
from mqtool.io.ranges import byte_ranges as byte_ranges
from mqtool.io.ranges import head_of as head_of
from mqtool.io.ranges import read_chunks as read_chunks

FRAMINGS = ("auto", "rdw", "bdw", "none")
FIXED = _lay.FIXED
MIN_REC = _lay.MIN_RECORD
MAX_RDW = _lay.MAX_RDW
MAX_DATA = _lay.MAX_DATA
DATE_LEN = _lay.DATE_LEN
RDW = _lay.RDW_LEN
BDW = _lay.BDW_LEN
HEAD = 256  # bytes of a bad span kept for its error row
KEEP = 40  # bytes kept across chunks while looking for a resync point
SNIFF = 65536  # bytes auto framing looks at
AFTER_END = 1 << 16  # read size past a split's end (the checks look a record ahead)
_HH = struct.Struct(_lay.layouts().rdw.format)  # RDW and BDW: length, then 2 bytes (zero)
_L = struct.Struct(">" + _lay.layouts().logd.field("ldatalen").fmt)  # type: ignore[operator]
LDATALEN_AT = _lay.layouts().logd.offset_of("ldatalen")
_LD_AT = RDW + LDATALEN_AT  # ldatalen after an RDW
_SPAN_AT = _lay.layouts().rdw.offset_of("spanning")  # RDW bytes 2-3: zero in CSQ1LOGP
_IN_BLOCK = BDW + RDW  # where the first record's date starts in a block
_NO_SPAN = bytes(RDW - _SPAN_AT)
_FIXED_SIZES = _lay.FIXED_SIZES

# error reasons (the summary counts by these)
BAD_RDW = "bad-rdw"
BAD_BDW = "bad-bdw"
NO_DATE = "no-record-date"
TRUNCATED = "truncated-record"
CROSSES = "record-crosses-block"
NOT_CSQ1LOGP = "not-csq1logp"
UNREADABLE = "unreadable-file"
REASONS = (BAD_RDW, BAD_BDW, NO_DATE, TRUNCATED, CROSSES, NOT_CSQ1LOGP, UNREADABLE)

date_pattern = _lay.date_pattern
ASCII_DATE = date_pattern("latin-1")


class _More:
    """The answer of a check that cannot tell yet: more data is needed (the buffer ends
    before what the check must see, and the data does not)."""

    __slots__ = ()


_MORE = _More()


class Frame(NamedTuple):
    """One record, or one bad span (``error`` set), of a framed file."""

    offset: int  # file offset of the record's RDW (unframed: its first byte) / of the span
    length: int  # rec_len: bytes incl. the RDW, BDWs not counted / span length
    hdr: int  # 4 with an RDW, 0 unframed
    rec_no: int  # 0-based, file order; bad spans count too
    buf: bytes  # buffer holding the record (bad spans: empty)
    pos: int  # position of the record in ``buf``
    block: int  # offset of the enclosing BDW, -1 when not blocked
    resume: int  # where a scan can restart to reproduce this frame, -1 if it cannot
    error: str = ""  # reason of a bad span
    detail: str = ""  # the reason in words
    path: str = ""  # field path of the descriptor at fault
    head: bytes = b""  # first HEAD bytes of a bad span


def sniff(head: bytes, codepage: str = "cp037", final: bool = True) -> tuple[str, str] | None:
    """Guess the framing from the first bytes: ``(framing, reason)`` or None.

    Raises DecodeError for an ASCII (text-mode) transfer: binary fields are corrupted.
    """
    pat = date_pattern(codepage)
    _PATTERN_CP[pat] = codepage
    for at in (0, RDW, _IN_BLOCK):
        if ASCII_DATE.match(head, at) and not pat.match(head, at):
            raise DecodeError(
                "csq1logp", "csrecorddate", at,
                "text-mode-transfer: ASCII date "
                f"{head[at:at + DATE_LEN].decode('latin-1')!r} where an EBCDIC one belongs; "
                "binary fields are corrupted. Transfer the data set again in binary mode "
                "(FTP: 'binary' and 'quote site rdw')")
    if pat.match(head, _IN_BLOCK):
        blen, rlen = _bdw_len(head, 0), _rdw_len(head, BDW)
        if blen and rlen and blen >= rlen + BDW:
            return "bdw", (f"BDW X'{head[:BDW].hex().upper()}' ({blen}) >= RDW "
                           f"X'{head[BDW:_IN_BLOCK].hex().upper()}' ({rlen}) + {BDW}, "
                           f"record date at +{_IN_BLOCK}")
    if pat.match(head, RDW) and _rdw_len(head, 0):
        return "rdw", (f"RDW X'{head[:RDW].hex().upper()}' ({_rdw_len(head, 0)}), record date "
                       f"at +{RDW}")
    if pat.match(head, 0):
        return "none", "record date at +0 and no descriptor: boundaries recomputed from ldatalen"
    return _sniff_later(head, pat, final)


def _sniff_later(head: bytes, pat: re.Pattern[bytes], final: bool) -> tuple[str, str] | None:
    """A damaged first record: the framings under which the first record date further on
    starts a confirmed record; when several fit, the one that frames most records."""
    found: dict[str, str] = {}
    for k, m in enumerate(pat.finditer(head, 1)):
        if k >= 64 or "bdw" in found:
            break
        at = m.start()
        where = f"first record damaged; record date at +{at}"
        if at >= RDW + BDW and _block_ok(head, at - RDW - BDW, pat, final) is True:
            found.setdefault("bdw", f"{where} after a BDW and an RDW")
        if at >= RDW and _rdw_len(head, at - RDW) and _record_ok(head, at - RDW, pat, final) is True:
            found.setdefault("rdw", f"{where} after a valid RDW")
        if _unframed_ok(head, at, pat, final) is True:
            found.setdefault("none", f"{where}, no descriptor, ldatalen leads to the next record")
    if "rdw" in found:  # a valid RDW before the date: the data is framed
        found.pop("none", None)
    if len(found) > 1:
        def score(framing: str) -> tuple[int, int, bool]:
            got = [bool(f.error) for f in frames([head], framing, codepage_of(pat))]
            return -sum(got), len(got) - sum(got), framing == "rdw"

        best = max(found, key=score)  # fewest bad spans, then most records
        return best, found[best]
    return next(iter(found.items()), None)


_PATTERN_CP: dict[re.Pattern[bytes], str] = {}


def codepage_of(pat: re.Pattern[bytes]) -> str:
    return _PATTERN_CP.get(pat, "cp037")


def resolve_framing(head: bytes, framing: str, codepage: str, final: bool = True) -> tuple[str, str]:
    """The framing to use: forced, or sniffed; DecodeError when nothing fits."""
    if framing not in FRAMINGS:
        raise ValueError(f"framing must be one of {', '.join(FRAMINGS)}")
    if framing != "auto":
        if framing == "none" or not head:
            return framing, "forced"
        sniff(head, codepage, final)  # still refuse text-mode transfers
        return framing, "forced"
    found = sniff(head, codepage, final)
    if found is None:
        if not head:
            return "rdw", "empty input"
        raise DecodeError("csq1logp", "rdw", 0,
                          "not a CSQ1LOGP extract: no EBCDIC yyyy.ddd hh:mm:ss.thm record date at "
                          f"offset 0, 4 or 8 (first bytes X'{head[:12].hex().upper()}'); "
                          "try --framing or --codepage")
    return found


def _rdw_len(b: bytes, at: int) -> int:
    """Length of a valid RDW at ``at`` (bytes 2-3 zero, 203..32760), else 0."""
    if len(b) < at + 4:
        return 0
    n, z = _HH.unpack_from(b, at)
    return n if z == 0 and MIN_REC <= n <= MAX_RDW else 0


def _bdw_len(b: bytes, at: int) -> int:
    """Length of a valid BDW at ``at`` (2-byte form, or 4-byte extended form), else 0."""
    if len(b) < at + 4:
        return 0
    if b[at] & _lay.EXTENDED_BDW:
        n = int.from_bytes(b[at:at + BDW], "big") & 0x7FFFFFFF
        return n if _lay.MIN_BLOCK <= n <= _lay.MAX_BLOCK else 0
    n, z = _HH.unpack_from(b, at)
    return n if z == 0 and _lay.MIN_BLOCK <= n <= MAX_RDW else 0


# --------------------------------------------------------------------------- record checks


def _fits_ldatalen(buf: bytes, at: int, rlen: int) -> bool:
    """The RDW length agrees with the record's own fixed part and ``ldatalen`` (199/200 rule)."""
    (ld,) = _L.unpack_from(buf, at + _LD_AT)
    return _lay.fits_ldatalen(rlen - RDW, ld)


def _record_ok(buf: bytes, at: int, pat: re.Pattern[bytes], final: bool,
               limit: int | None = None) -> bool | _More:
    """Is the RDW length of the record at ``at`` (valid RDW, record date at +4) confirmed?

    True when it agrees with ``ldatalen`` (199/200 + ldatalen), or when the record ends at
    the end of the data / of its block, or where the next record date follows; False when
    none holds (a plausible but wrong length); ``_MORE`` when more data is needed. A record
    running past the end of complete data is confirmed too (a truncated tail).
    """
    rlen = _rdw_len(buf, at)
    end = at + rlen
    if end > len(buf):
        return True if final else _MORE
    if _fits_ldatalen(buf, at, rlen) or end == limit:
        return True
    (ld,) = _L.unpack_from(buf, at + _LD_AT)
    for size in _FIXED_SIZES:  # a record where ldatalen says this one ends: the RDW is wrong
        inner = at + RDW + size + ld
        if ld >= 0 and inner + MIN_REC <= end and pat.match(buf, inner + RDW):
            return False
    lead = RDW + BDW if limit is not None and end == limit else RDW
    if end == len(buf):
        return True if final else _MORE
    if end + lead + DATE_LEN > len(buf):
        return True if final else _MORE  # a short tail: reported on its own
    return pat.match(buf, end + RDW) is not None


def _block_ok(buf: bytes, at: int, pat: re.Pattern[bytes], final: bool) -> bool | _More:
    """A block at ``at`` whose first record is confirmed (``_record_ok`` within the block)."""
    if len(buf) < at + BDW + RDW + DATE_LEN:
        return False if final else _MORE
    blen, rlen = _bdw_len(buf, at), _rdw_len(buf, at + BDW)
    if not (blen and rlen and rlen + BDW <= blen):
        return False
    if len(buf) < at + BDW + RDW + DATE_LEN:
        return False if final else _MORE
    if not pat.match(buf, at + BDW + RDW):
        return False
    return _record_ok(buf, at + BDW, pat, final, at + blen)


def _unframed_ok(buf: bytes, at: int, pat: re.Pattern[bytes], final: bool) -> bool | _More:
    """An unframed record at ``at`` whose ``ldatalen`` leads to the next record date (or to
    the end of the data)."""
    left = len(buf) - at
    if left < FIXED:
        return False if final else _MORE
    if not pat.match(buf, at):
        return False
    (ld,) = _L.unpack_from(buf, at + LDATALEN_AT)
    if not 0 <= ld <= MAX_DATA:
        return False
    for size in _FIXED_SIZES:
        cand = size + ld
        if cand == left and final:
            return True
        if cand + DATE_LEN <= left:
            if pat.match(buf, at + cand):
                return True
        elif not final:
            return _MORE
    return False


def _covers(buf: bytes, at: int, length: int, framing: str, pat: re.Pattern[bytes],
            final: bool) -> int | _More | None:
    """Where a confirmed record (block) starts inside ``at+1 .. at+length`` when what follows
    the record (block) is not the start of another; else None (``_MORE``: need more data).
    A record shortened by lost bytes must not swallow the start of the next one."""
    end = at + length
    lead = RDW + (BDW if framing == "bdw" else 0)
    if end + lead + DATE_LEN > len(buf):
        if not final:
            return _MORE
        if end >= len(buf):
            return None
    elif pat.match(buf, end + lead) and buf[end + lead - RDW + _SPAN_AT:end + lead] == _NO_SPAN:
        return None
    q = _resync(buf, at + 1, framing, pat, final, stop=end)
    return q if not isinstance(q, tuple) else _MORE


def _sync_ok(buf: bytes, at: int, framing: str, pat: re.Pattern[bytes],
             final: bool) -> bool | _More:
    """Does a confirmed record (``bdw``: block) start at ``at``? The test a byte-range reader
    uses to find its first record and to stop after its last; ``_resync`` finds the same
    positions, so every reader agrees with a whole-file scan."""
    if framing == "rdw":
        if len(buf) - at < RDW + DATE_LEN:
            return False if final else _MORE
        if not _rdw_len(buf, at) or not pat.match(buf, at + RDW):
            return False
        return _record_ok(buf, at, pat, final)
    if framing == "bdw":
        return _block_ok(buf, at, pat, final)
    return _unframed_ok(buf, at, pat, final)


# --------------------------------------------------------------------------- scanning

@dataclass
class _Bad:
    start: int
    head: bytes
    reason: str
    detail: str
    path: str


def frames(chunks: Iterable[bytes], framing: str, codepage: str = "cp037", *, base: int = 0,
           rec_no: int = 0, end: int | None = None, block: int = -1,
           sync_end: bool = False) -> Iterator[Frame]:
    """Frames of a stream of chunks that starts at file offset ``base``.

    ``framing`` is ``rdw``, ``bdw`` or ``none`` (resolve ``auto`` first). Stops at file
    offset ``end`` (a restart point from ``sparse_index``) or at the end of the data; with
    ``sync_end`` at the first confirmed record start at or after ``end`` (``_sync_ok``: where
    the next byte range's reader starts). ``rec_no`` -1: record numbers unknown (all -1).
    """
    if framing not in _STRATEGIES:
        raise ValueError(f"frames() needs a resolved framing, not {framing!r}")
    scan = _Scan(_Cursor(chunks, base), framing, date_pattern(codepage), rec_no, end, block,
                 sync_end)
    return _STRATEGIES[framing](scan).run()


class _Cursor:
    """Where a scan is: ``buf`` holds the data from file offset ``bstart`` on, ``pos`` is the
    scan's place in it; ``more()`` appends the next chunk, dropping what lies before ``pos``
    (so positions in ``buf`` change: keep file offsets across it)."""

    __slots__ = ("bstart", "buf", "final", "it", "pos")

    def __init__(self, chunks: Iterable[bytes], base: int) -> None:
        self.it = iter(chunks)
        self.buf = b""
        self.bstart = base
        self.pos = 0
        self.final = False

    @property
    def here(self) -> int:
        """The file offset of the scan position."""
        return self.bstart + self.pos

    @property
    def left(self) -> int:
        return len(self.buf) - self.pos

    def more(self) -> None:
        """Read the next chunk; at the end of the data, mark the buffer final."""
        if self.final:
            return
        chunk = next(self.it, None)
        if chunk is None:
            self.final = True
            return
        keep = self.buf[self.pos:]
        self.bstart += self.pos
        self.pos = 0
        self.buf = keep + chunk if keep else bytes(chunk)


class _Scan:
    """What every framing's scan shares: the cursor, the record numbers, the bad span being
    collected, where to stop, and the enclosing block (``bdw``)."""

    def __init__(self, cur: _Cursor, framing: str, pat: re.Pattern[bytes], rec_no: int,
                 end: int | None, block: int, sync_end: bool) -> None:
        self.cur, self.framing, self.pat = cur, framing, pat
        self.n, self.step = rec_no, 0 if rec_no < 0 else 1
        self.end, self.sync_end = end, sync_end
        self.checked = -1  # the last position past ``end`` found not to be a sync point
        self.bad: _Bad | None = None
        self.block = block  # offset of the enclosing BDW
        self.block_end = -1  # file offset where the current block ends
        self.block_resume = -1  # restart point of the next record of the block (its BDW)

    def record(self, length: int, resume: int) -> Frame:
        """The next frame: the RDW-framed record at the cursor."""
        cur = self.cur
        fr = Frame(cur.here, length, RDW, self.n, cur.buf, cur.pos, self.block, resume)
        self.n += self.step
        return fr

    def rdw_span(self, length: int, resume: int, error: str, detail: str, head: int) -> Frame:
        """The next frame: a bad span at the cursor the RDW (or its block) accounts for,
        keeping its first ``head`` bytes."""
        cur = self.cur
        fr = Frame(cur.here, length, RDW, self.n, b"", 0, self.block, resume, error, detail,
                   "rdw.length", cur.buf[cur.pos:cur.pos + head])
        self.n += self.step
        return fr

    def begin_bad(self, reason: str, detail: str, path: str) -> None:
        """Start a bad span here; the scan resumes one byte on, looking for a record."""
        cur = self.cur
        self.bad = _Bad(cur.here, cur.buf[cur.pos:cur.pos + HEAD], reason, detail, path)
        cur.pos += 1

    def past_end(self) -> bool | None:
        """At a clean position at or past ``end``: True to stop; None when more data is needed
        to tell (read); False to go on (not at the end, or ``sync_end`` and no sync point)."""
        cur = self.cur
        here = cur.here
        if self.end is None or here < self.end or not self.at_boundary():
            return False
        if not self.sync_end:
            return True
        if self.checked == here:
            return False
        ok = _sync_ok(cur.buf, cur.pos, self.framing, self.pat, cur.final)
        if isinstance(ok, _More):
            return None
        if ok:
            return True
        self.checked = here
        return False

    def at_boundary(self) -> bool:
        """No bad span open and (``bdw``) not inside a block: a record (block) may start."""
        return self.bad is None and (self.framing != "bdw" or self.block_end < 0
                                     or self.cur.here == self.block_end)

    def close_bad(self) -> Frame | None:
        """Look for the record (block) that ends the open bad span: its frame, or None when
        more data is needed (read)."""
        bad, cur = self.bad, self.cur
        assert bad is not None
        if len(bad.head) < HEAD:  # the span started near the end of a buffer
            k = bad.start + len(bad.head) - cur.bstart
            bad.head += cur.buf[k:k + HEAD - len(bad.head)]
        q = _resync(cur.buf, cur.pos, self.framing, self.pat, cur.final)
        if isinstance(q, tuple):
            cur.pos = max(cur.pos, q[1])  # drop what was searched, keep what is still needed
            cur.more()
            return None
        stop = len(cur.buf) if q is None else q
        fr = _span(bad, cur.bstart + stop, self.n)
        self.n += self.step
        self.bad = None
        cur.pos = stop
        self.block_end = -1
        return fr


class _Framing:
    """One framing's scan: the loop every framing shares (stop at ``end``, the end of the
    data, bad spans and resynchronisation) around the framing's own ``records`` step."""

    def __init__(self, scan: _Scan) -> None:
        self.scan = scan

    def run(self) -> Iterator[Frame]:
        scan, cur = self.scan, self.scan.cur
        while True:
            stop = scan.past_end()
            if stop is None:
                cur.more()
                continue
            if stop:
                return
            if cur.left == 0:
                if not cur.final:
                    cur.more()
                    continue
                if scan.bad is not None:
                    yield _span(scan.bad, cur.here, scan.n)
                return
            if scan.bad is not None:
                fr = scan.close_bad()
                if fr is not None:
                    yield fr
                continue
            yield from self.records()

    def records(self) -> Iterable[Frame]:
        """Frame what starts at the cursor (one record or more), or read more data."""
        raise NotImplementedError


class _Unframed(_Framing):
    """``none``: no descriptors; a record ends where ``ldatalen`` says (``_unframed``)."""

    def records(self) -> Iterator[Frame]:
        scan, cur = self.scan, self.scan.cur
        buf, pos, bstart, final, n = cur.buf, cur.pos, cur.bstart, cur.final, scan.n
        pat, end, step, checked = scan.pat, scan.end, scan.step, scan.checked
        got: tuple[int, str, str] | _More | None = None
        try:
            while pos < len(buf):
                here = bstart + pos
                if end is not None and here >= end and here != checked:
                    break  # the loop decides: stop, or look for a sync point
                got = _unframed(buf, pos, pat, final)
                if isinstance(got, _More):
                    break
                length, err, _detail = got
                if err:
                    break
                yield Frame(here, length, 0, n, buf, pos, -1, here)
                n += step
                pos += length
                got = None
        finally:
            cur.pos, scan.n = pos, n
        if isinstance(got, _More):
            cur.more()
        elif got is not None:
            _length, err, detail = got
            scan.begin_bad(err, detail, "csrecorddate")


class _Rdw(_Framing):
    """``rdw``: RDW + record. Clean runs take the tight loop (``records``); anything it
    does not believe goes through ``record`` (which says why)."""

    def records(self) -> Iterable[Frame]:
        """Valid RDW + record date + a length ``ldatalen`` confirms + the next record's RDW
        and date, wholly in the buffer: the common case, tight; then ``record`` for the one
        this loop did not believe."""
        scan, cur = self.scan, self.scan.cur
        buf, pos, bstart, end = cur.buf, cur.pos, cur.bstart, scan.end
        match, unpack, unpack_l, step = scan.pat.match, _HH.unpack_from, _L.unpack_from, scan.step
        size, n = len(buf), scan.n
        try:
            while pos + RDW + DATE_LEN <= size:
                rlen, spanning = unpack(buf, pos)
                nxt = pos + rlen
                if (spanning or rlen < MIN_REC or rlen > MAX_RDW or nxt + RDW + DATE_LEN > size
                        or not match(buf, pos + RDW)
                        or rlen - RDW - unpack_l(buf, pos + _LD_AT)[0] not in _FIXED_SIZES
                        or buf[nxt + _SPAN_AT:nxt + RDW] != _NO_SPAN or not match(buf, nxt + RDW)):
                    break
                here = bstart + pos
                if end is not None and here >= end:
                    break
                yield Frame(here, rlen, RDW, n, buf, pos, -1, here)
                n += step
                pos = nxt
        finally:
            cur.pos, scan.n = pos, n
        at_end = end is not None and cur.here >= end
        if at_end and (not scan.sync_end or scan.checked != cur.here):
            return  # back to the loop: it stops, or checks for a sync point
        if cur.left:
            yield from self.record(cur.here, None)

    def record(self, here: int, limit: int | None, resume: int | None = None) -> Iterator[Frame]:
        """The record at the cursor, checked field by field: a frame, a bad span, or a read
        when more data is needed. ``limit``: the end of the enclosing block."""
        scan, cur = self.scan, self.scan.cur
        resume = here if resume is None else resume
        if limit is not None and limit - here < RDW:
            yield from self.block_tail(here, limit, resume)
            return
        found = self.check(here, limit) if cur.left >= RDW + DATE_LEN or cur.final else None
        if found is None:
            scan.block_resume = resume if limit is not None else -1
            cur.more()
            return
        err, detail = found
        if not err:
            rlen = _HH.unpack_from(cur.buf, cur.pos)[0]
            yield scan.record(rlen, resume)
            cur.pos += rlen
            return
        yield from self.reject(here, limit, resume, err, detail)

    def block_tail(self, here: int, limit: int, resume: int) -> Iterator[Frame]:
        """Too little left in the block for an RDW: a bad span to the block end."""
        scan, cur = self.scan, self.scan.cur
        if cur.left < limit - here and not cur.final:
            scan.block_resume = resume
            cur.more()
            return
        stop = min(limit - here, cur.left)
        yield scan.rdw_span(stop, resume, BAD_RDW,
                            f"{stop} bytes left in the block, too few for an RDW", stop)
        cur.pos += stop

    def check(self, here: int, limit: int | None) -> tuple[str, str] | None:
        """``("", "")`` for a record to frame, ``(reason, detail)`` for one to reject, None
        when more data is needed to tell."""
        cur, pat = self.scan.cur, self.scan.pat
        buf, pos, left = cur.buf, cur.pos, cur.left
        if left < RDW:
            return TRUNCATED, f"{left} bytes at the end, too few for an RDW"
        rlen, spanning = _HH.unpack_from(buf, pos)
        if spanning != 0 or not MIN_REC <= rlen <= MAX_RDW:
            return BAD_RDW, _rdw_detail(buf, pos, rlen, spanning)
        if left < RDW + DATE_LEN:
            return TRUNCATED, f"RDW length {rlen}, only {left} bytes left in the file"
        if not pat.match(buf, pos + RDW):
            return NO_DATE, (f"RDW X'{buf[pos:pos + RDW].hex().upper()}' ({rlen}) is not "
                             "followed by a yyyy.ddd record date")
        if limit is not None and here + rlen > limit:
            return CROSSES, f"RDW length {rlen} runs past the block end at X'{limit:X}'"
        if left < rlen:
            return self.short(rlen, limit) if cur.final else None
        return self.confirm(rlen, limit)

    def short(self, rlen: int, limit: int | None) -> tuple[str, str]:
        """A record longer than the rest of the data: a wrong length when a record starts
        inside it, else a truncated tail."""
        cur = self.scan.cur
        inner = _resync(cur.buf, cur.pos + 1, "rdw", self.scan.pat, True) if limit is None else None
        if isinstance(inner, int):  # final data: never "more needed"
            return BAD_RDW, (f"{_rdw_text(cur.buf, cur.pos, rlen)} runs past the end of the "
                             f"file; a record starts at X'{cur.bstart + inner:X}'")
        return TRUNCATED, f"RDW length {rlen}, only {cur.left} bytes left in the file"

    def confirm(self, rlen: int, limit: int | None) -> tuple[str, str] | None:
        """A whole record with a plausible RDW: is its length confirmed (``_record_ok``) and
        does it not cover the start of a confirmed record (``_covers``)?"""
        cur, pat = self.scan.cur, self.scan.pat
        buf, pos = cur.buf, cur.pos
        ok = _record_ok(buf, pos, pat, cur.final, None if limit is None else limit - cur.bstart)
        if isinstance(ok, _More):
            return None
        inner = _covers(buf, pos, rlen, "rdw", pat, cur.final) if ok and limit is None else None
        if isinstance(inner, _More):
            return None
        if inner is not None:
            return BAD_RDW, (f"{_rdw_text(buf, pos, rlen)} covers the start of a record at "
                             f"X'{cur.bstart + inner:X}'")
        if ok:
            return "", ""
        (ld,) = _L.unpack_from(buf, pos + _LD_AT)
        ends = (pos + RDW + size + ld for size in _FIXED_SIZES)  # where ldatalen says it ends
        inside = [q for q in ends if ld >= 0 and pat.match(buf, q + RDW)]
        if inside:
            return BAD_RDW, (f"{_rdw_text(buf, pos, rlen)} disagrees with ldatalen {ld}: a record "
                             f"starts at X'{cur.bstart + inside[0]:X}' where ldatalen says this "
                             "one ends")
        return BAD_RDW, (f"{_rdw_text(buf, pos, rlen)} is {_lay.neither_fixed(ld)} and no record "
                         f"date follows at X'{cur.here + rlen:X}'")

    def reject(self, here: int, limit: int | None, resume: int, err: str,
               detail: str) -> Iterator[Frame]:
        """A record not believed: a truncated tail is one frame; anything else opens a bad
        span that resynchronisation closes."""
        scan, cur = self.scan, self.scan.cur
        if err == TRUNCATED:
            yield scan.rdw_span(cur.left, resume, err, detail, HEAD)
            cur.pos = len(cur.buf)
            return
        scan.begin_bad(err, detail, "rdw.length" if err == BAD_RDW else "csrecorddate")


class _Bdw(_Rdw):
    """``bdw``: BDW + RDW-framed records per block. The block descriptor is trusted once
    confirmed: a record it cannot frame makes the rest of the block one bad span."""

    def records(self) -> Iterable[Frame]:
        scan, cur = self.scan, self.scan.cur
        if scan.block_end < 0 or cur.here == scan.block_end:
            self.block_header(cur.here)
            return ()
        return self.block_records()

    def block_records(self) -> Iterator[Frame]:
        """Records of the block, wholly in the buffer, with a valid RDW, a record date and a
        length ``ldatalen`` (or the block end) confirms: the common case, tight; then
        ``record`` for the one this loop did not believe."""
        scan, cur = self.scan, self.scan.cur
        buf, pos, bstart, n, step = cur.buf, cur.pos, cur.bstart, scan.n, scan.step
        match, unpack, unpack_l = scan.pat.match, _HH.unpack_from, _L.unpack_from
        lim, size, block, resume = scan.block_end - bstart, len(buf), scan.block, scan.block_resume
        try:
            while pos + RDW + DATE_LEN <= size:
                rlen, spanning = unpack(buf, pos)
                nxt = pos + rlen
                if (spanning or rlen < MIN_REC or rlen > MAX_RDW or nxt > lim or nxt > size
                        or not match(buf, pos + RDW)
                        or (rlen - RDW - unpack_l(buf, pos + _LD_AT)[0] not in _FIXED_SIZES
                            and nxt != lim)):
                    break
                yield Frame(bstart + pos, rlen, RDW, n, buf, pos, block, resume)
                resume = -1
                n += step
                pos = nxt
        finally:
            cur.pos, scan.n, scan.block_resume = pos, n, resume
        if cur.left and cur.here != scan.block_end:
            resume, scan.block_resume = scan.block_resume, -1
            yield from self.record(cur.here, scan.block_end, resume)

    def block_header(self, here: int) -> None:
        """Enter the block at the cursor, or open a bad span when its BDW is not believed."""
        scan, cur = self.scan, self.scan.cur
        buf, pos = cur.buf, cur.pos
        if cur.left < BDW + RDW + DATE_LEN and not cur.final:
            cur.more()
            return
        blen, rlen = _bdw_len(buf, pos), _rdw_len(buf, pos + BDW)
        bdw = f"BDW X'{buf[pos:pos + BDW].hex().upper()}'"
        if not (blen and rlen and rlen + BDW <= blen and scan.pat.match(buf, pos + BDW + RDW)):
            what = "is not a block descriptor" if not blen else \
                "is not followed by an RDW and a record date"
            scan.begin_bad(BAD_BDW, f"{bdw} {what}", "bdw.length")
            return
        inner = _covers(buf, pos, blen, "bdw", scan.pat, cur.final)
        if isinstance(inner, _More):
            cur.more()
            return
        if inner is not None:
            scan.begin_bad(BAD_BDW, f"{bdw} ({blen}) covers the start of a block at "
                           f"X'{cur.bstart + inner:X}'", "bdw.length")
            return
        scan.block = scan.block_resume = here
        scan.block_end = here + blen
        cur.pos += BDW

    def reject(self, here: int, limit: int | None, resume: int, err: str,
               detail: str) -> Iterator[Frame]:
        """The rest of the block is one bad span (the descriptor is trusted)."""
        if err not in (BAD_RDW, NO_DATE, CROSSES):
            yield from super().reject(here, limit, resume, err, detail)
            return
        scan, cur = self.scan, self.scan.cur
        assert limit is not None
        if cur.left < limit - here and not cur.final:
            scan.block_resume = resume
            cur.more()
            return
        stop = min(limit - here, cur.left)
        yield scan.rdw_span(stop, resume, err, detail, min(stop, HEAD))
        cur.pos += stop


_STRATEGIES: dict[str, type[_Framing]] = {"rdw": _Rdw, "bdw": _Bdw, "none": _Unframed}


def _span(bad: _Bad, stop: int, n: int) -> Frame:
    return Frame(bad.start, stop - bad.start, 0, n, b"", 0, -1, bad.start, bad.reason, bad.detail,
                 bad.path, bad.head[:stop - bad.start])


def _rdw_text(buf: bytes, pos: int, rlen: int) -> str:
    return f"RDW X'{buf[pos:pos + RDW].hex().upper()}' ({rlen})"


def _rdw_detail(buf: bytes, pos: int, rlen: int, spanning: int) -> str:
    rdw = buf[pos:pos + RDW].hex().upper()
    if spanning:
        return (f"RDW X'{rdw}': bytes {_SPAN_AT}-{RDW - 1} not zero (a spanned-record segment; "
                "CSQ1LOGP writes none)")
    return f"RDW X'{rdw}': length {rlen} outside {MIN_REC}..{MAX_RDW}"


def _resync(buf: bytes, pos: int, framing: str, pat: re.Pattern[bytes], final: bool,
            strict: bool = False, stop: int | None = None) -> int | tuple[_More, int] | None:
    """Next position at or after ``pos`` where a confirmed record (``rdw``: ``_record_ok``;
    ``bdw``: ``_block_ok``; ``none``: any record date, or with ``strict`` one whose
    ``ldatalen`` leads to the next) starts; None at the end of the data; ``(_MORE, keep)``
    when more data is needed to tell, ``keep`` the first byte still needed."""
    lead = {"rdw": RDW, "bdw": RDW + BDW, "none": 0}[framing]
    at = pos + lead
    while True:
        m = pat.search(buf, at)
        if m is None:
            return None if final else (_MORE, max(pos, len(buf) - KEEP))
        q = m.start() - lead
        at = m.start() + 1
        if stop is not None and q >= stop:
            return None
        if q < pos:
            continue
        if framing == "rdw":
            ok = _record_ok(buf, q, pat, final) if _rdw_len(buf, q) else False
        elif framing == "bdw":
            ok = _block_ok(buf, q, pat, final)
        else:
            ok = _unframed_ok(buf, q, pat, final) if strict else True
        if isinstance(ok, _More):
            return _MORE, q
        if ok:
            return q


def _unframed(buf: bytes, pos: int, pat: re.Pattern[bytes],
              final: bool) -> tuple[int, str, str] | _More:
    """``(length, error, detail)`` of an unframed record at ``pos``, or ``_MORE``."""
    left = len(buf) - pos
    if left < DATE_LEN and not final:
        return _MORE
    if left < DATE_LEN:
        return 0, TRUNCATED, f"{left} bytes at the end, too few for a record"
    if not pat.match(buf, pos):
        return 0, NO_DATE, "no yyyy.ddd record date where a record must start"
    if left < FIXED:
        if not final:
            return _MORE
        return 0, TRUNCATED, f"{left} bytes at the end, the fixed part needs {FIXED}"
    (ld,) = _L.unpack_from(buf, pos + LDATALEN_AT)
    plausible = 0 <= ld <= MAX_DATA
    if plausible:
        for size in reversed(_FIXED_SIZES):
            cand = size + ld
            if cand == left and final:
                return cand, "", ""
            if cand + DATE_LEN <= left:
                if pat.match(buf, pos + cand):
                    return cand, "", ""
            elif not final:
                return _MORE
        for size in reversed(_FIXED_SIZES):
            if final and size + ld < left < size + ld + DATE_LEN:
                return size + ld, "", ""  # a tail too short for a record follows
    # ldatalen does not lead to the next record: resynchronise on the next record date
    m = pat.search(buf, pos + DATE_LEN)
    if m is not None and m.start() - pos < FIXED:
        return 0, TRUNCATED, (f"{m.start() - pos} bytes before the next record date, the fixed "
                              f"part needs {FIXED}")
    if m is None:
        if not final:
            return _MORE
        for size in reversed(_FIXED_SIZES):
            if plausible and size + ld < left:
                return size + ld, "", ""  # what follows is no record: a bad span
        return left, "", ""
    return m.start() - pos, "", ""


# --------------------------------------------------------------------------- splits


@dataclass(frozen=True)
class Split:
    """A byte range of one file that frames on its own: start at a restart point."""

    path: str
    start: int
    end: int
    rec_no: int
    framing: str

    @property
    def size(self) -> int:
        return self.end - self.start


@dataclass
class Index:
    """What one header pass over a file learned: splits and counts."""

    path: str
    size: int
    framing: str
    framing_reason: str
    splits: list[Split]
    records: int
    errors: dict[str, int]
    first_error: Frame | None


class IndexPass:
    """The header pass of one file as a generator of splits, so decoding can start while
    it runs; counts and the first bad span are known once ``splits()`` is exhausted."""

    def __init__(self, path: str, framing: str = "auto", codepage: str = "cp037",
                 split_size: int = 64 << 20) -> None:
        import os

        self.path, self.codepage, self.split_size = path, codepage, split_size
        self.size = os.path.getsize(path)
        head = head_of(path)
        self.framing, self.reason = resolve_framing(head, framing, codepage,
                                                    final=len(head) == self.size)
        self.records = 0
        self.errors: dict[str, int] = {}
        self.first_error: Frame | None = None

    def splits(self) -> Iterator[Split]:
        start, rec_no = 0, 0
        boundary = self.split_size
        for fr in frames(read_chunks(self.path), self.framing, self.codepage):
            if fr.resume >= boundary and fr.resume > start:
                yield Split(self.path, start, fr.resume, rec_no, self.framing)
                start, rec_no = fr.resume, fr.rec_no
                boundary = fr.resume + self.split_size
            if fr.error:
                self.errors[fr.error] = self.errors.get(fr.error, 0) + 1
                if self.first_error is None:
                    self.first_error = fr._replace(buf=b"")
            else:
                self.records += 1
        yield Split(self.path, start, self.size, rec_no, self.framing)

    def index(self, splits: list[Split]) -> Index:
        return Index(self.path, self.size, self.framing, self.reason, splits, self.records,
                     self.errors, self.first_error)


def sparse_index(path: str, framing: str = "auto", codepage: str = "cp037",
                 split_size: int = 64 << 20) -> Index:
    """One header pass: a restart point about every ``split_size`` bytes, record and error
    counts. Splits together cover the file; each frames exactly as the whole file does."""
    ip = IndexPass(path, framing, codepage, split_size)
    return ip.index(list(ip.splits()))


def split_frames(split: Split, codepage: str = "cp037", chunk: int = 4 << 20) -> Iterator[Frame]:
    """The frames of one split: its byte range, then, in small reads, as far past its end as
    the last frame's checks look (a damaged record's reason can depend on what follows), so
    every split frames exactly what the whole-file scan frames there."""
    inside = read_chunks(split.path, split.start, split.end, chunk)
    after = read_chunks(split.path, split.end, None, AFTER_END)
    return frames(itertools.chain(inside, after), split.framing, codepage, base=split.start,
                  rec_no=split.rec_no, end=split.end)


# --------------------------------------------------------------------------- byte ranges


def range_frames(chunks: Iterable[bytes], framing: str, codepage: str = "cp037", *, start: int,
                 end: int) -> Iterator[Frame]:
    """The frames a byte range ``[start, end)`` owns, reading ``chunks`` (the file from
    ``start`` on, as far as needed): from the first confirmed record start at or after
    ``start`` (the file's first byte when ``start`` is 0) up to, not including, the first
    confirmed record start at or after ``end``; the bad spans between included. Ranges that
    cover a file yield together exactly what a whole-file scan yields, each frame once (as
    Hadoop's line reader does for lines). Record numbers are unknown (``rec_no`` -1)."""
    if framing not in ("rdw", "bdw", "none"):
        raise ValueError(f"range_frames() needs a resolved framing, not {framing!r}")
    it = iter(chunks)
    if start == 0:
        yield from frames(it, framing, codepage, base=0, rec_no=-1, end=end, sync_end=True)
        return
    pat = date_pattern(codepage)
    buf, bstart, final = b"", start, False
    while True:
        q = _resync(buf, 0, framing, pat, final, strict=True)
        if not isinstance(q, tuple):
            break
        keep = q[1]
        chunk = next(it, None)
        final = chunk is None
        buf = buf[keep:] + (chunk or b"")
        bstart += keep
    if q is None or bstart + q >= end:
        return
    rest = itertools.chain([buf[q:]], it)
    yield from frames(rest, framing, codepage, base=bstart + q, rec_no=-1, end=end, sync_end=True)


def read_range_frames(rng: ByteRange, codepage: str = "cp037",
                      options: Mapping[str, str] | None = None) -> Iterator[Frame]:
    """``range_frames`` of a ``ByteRange``, read by ranged reads from its file or URI."""
    chunk = max(1 << 16, min(4 << 20, rng.end - rng.start + (1 << 16)))
    return range_frames(read_chunks(rng.path, rng.start, None, chunk, options), rng.framing,
                        codepage, start=rng.start, end=rng.end)
