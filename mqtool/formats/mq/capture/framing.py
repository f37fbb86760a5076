"""One direction's byte stream -> MQ transmission segments (TSH / TSHC / TSHM), and
segments -> transmissions (the ``MQ_TCF_FIRST`` ... ``MQ_TCF_LAST`` series).

The stream is cut at each TSH's SegmentLength. Where the stream does not start with a TSH
(the connection's start was not captured, or a gap lost bytes) the framer looks for the
next TSH StrucId and says how many bytes it skipped and where; a SegmentLength smaller than
the TSH or larger than ``MAX_SEGMENT`` is not believed (the framer resynchronises after it).

Source: the Wireshark MQ dissector (packet-mq.c) for the TSH layouts and control flags;
see ``fap``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from mqtool.formats.mq.capture import fap
from mqtool.formats.mq.capture.tcp import Event, Gap
from mqtool.model import Problem

MAX_SEGMENT = 4 * 1024 * 1024  # no MQ channel negotiates a larger transmission size
MAX_TRANSMISSION = 100 * 1024 * 1024 + 65536  # MQ's largest message and its headers
TSH_SIZE = fap.tsh_start().size or 0
TSHM_SIZE = TSH_SIZE + (fap.tsh_mpx().size or 0)
TSH_REST = fap.tsh_rest(True).size or 0
_ID_SIZE = fap.tsh_start().field("strucid").size or 0


@dataclass
class TshSegment:
    """One transmission segment: its TSH fields and the bytes after the TSH."""

    kind: str  # "TSH", "TSHC", "TSHM"
    ebcdic: bool
    big: bool
    segtype: int
    flags: int
    encoding: int
    ccsid: int
    conversation: int
    request: int
    payload: bytes
    frames: tuple[int, int]  # first and last frame of its bytes
    offset: int  # file offset of the first frame that carried it
    partial: bool = False  # a gap cut it: ``payload`` is its start only

    @property
    def first(self) -> bool:
        return bool(self.flags & fap.TCF_FIRST)

    @property
    def last(self) -> bool:
        return bool(self.flags & fap.TCF_LAST)

    @property
    def name(self) -> str:
        return fap.SEGMENT_TYPES.get(self.segtype, f"segment type X'{self.segtype:02X}'")


def header_size(strucid: bytes) -> int:
    return TSHM_SIZE + TSH_REST if fap.TSH_IDS.get(strucid) == "TSHM" else TSH_SIZE + TSH_REST


def find_tsh(buf: bytes | bytearray, start: int = 0) -> int:
    """The offset of the first plausible TSH at or after ``start``, -1 when none."""
    best = -1
    for eye in fap.TSH_IDS:
        at = buf.find(eye, start)
        while at >= 0 and not _plausible(buf, at):
            at = buf.find(eye, at + 1)
        if at >= 0 and (best < 0 or at < best):
            best = at
    return best


def _plausible(buf: bytes | bytearray, at: int) -> bool:
    """A TSH StrucId at ``at`` with a believable length and byte order (when there)."""
    eye = bytes(buf[at:at + _ID_SIZE])
    if len(buf) < at + TSH_SIZE:
        return True  # cannot tell yet
    length = int.from_bytes(buf[at + _ID_SIZE:at + TSH_SIZE], "big")
    size = header_size(eye)
    if not size <= length <= MAX_SEGMENT:
        return False
    order_at = at + size - TSH_REST
    return len(buf) <= order_at or buf[order_at] in (fap.BYTE_ORDER_BIG, fap.BYTE_ORDER_LITTLE)


@dataclass
class Framer:
    """TSH segments from one direction's stream events; ``problems`` names what it skipped."""

    name: str  # "10.0.0.5:51000 → 10.0.0.9:1414"
    buf: bytearray = field(default_factory=bytearray)
    base: int = 0  # stream offset of buf[0]
    marks: list[tuple[int, int, int]] = field(default_factory=list)  # (stream offset, frame, at)
    synced: bool = True  # False after a gap and at an unknown start
    problems: list[Problem] = field(default_factory=list)
    segments: int = 0
    lost: list[tuple[int, int, int]] = field(default_factory=list)  # (frame, frame, bytes)
    bad: bool = False  # the bytes at buf[0] are not a believable TSH
    skipping: int = -1  # index in ``problems`` of the skip being counted, -1: none

    def feed(self, event: Event) -> Iterator[TshSegment]:
        if isinstance(event, Gap):
            partial = self._partial()
            self._gap(event)
            if partial is not None:
                yield partial
            return
        self.marks.append((self.base + len(self.buf), event.frame, event.at))
        self.buf += event.data
        yield from self._segments()

    def _partial(self) -> TshSegment | None:
        """What a gap leaves of the segment being read: its start, marked partial."""
        if not self.synced or len(self.buf) < TSHM_SIZE + TSH_REST:
            return None
        eye = bytes(self.buf[:_ID_SIZE])
        if eye not in fap.TSH_IDS or not _plausible(self.buf, 0):
            return None
        if len(self.buf) < header_size(eye):
            return None
        seg = parse_tsh(bytes(self.buf), self._frames_of(self.base, self.base + len(self.buf)),
                        self._frame_at(self.base)[1])
        seg.partial = True
        return seg

    def _gap(self, gap: Gap) -> None:
        pending = len(self.buf)
        where = f"after frame {gap.after}" if gap.after else "at the start"
        what = (f"{pending} bytes of a segment before it lost" if pending else "")
        self.problems.append(Problem(self.name, gap.at, f"{self.name}: {gap.size} bytes "
                                     f"{gap.why} {where}" + (f" (frame {gap.before})"
                                     if gap.before and gap.before != gap.after else "") +
                                     (f"; {what}" if what else "")))
        self.lost.append((gap.after, gap.before, gap.size))
        self.base += len(self.buf) + gap.size
        self.buf.clear()
        self.marks.clear()
        self.synced = False

    def _segments(self) -> Iterator[TshSegment]:
        while True:
            if not self.synced and not self._resync():
                return
            if len(self.buf) < TSH_SIZE:
                return
            eye = bytes(self.buf[:_ID_SIZE])
            if eye not in fap.TSH_IDS or not _plausible(self.buf, 0):
                self.synced, self.bad = False, True
                continue
            length = int.from_bytes(self.buf[_ID_SIZE:TSH_SIZE], "big")
            if len(self.buf) < length:
                return
            yield self._cut(eye, length)

    def _resync(self) -> bool:
        at = find_tsh(self.buf, 1 if self.bad else 0)
        if at < 0:
            keep = _ID_SIZE - 1
            if len(self.buf) > keep:
                self._skip(len(self.buf) - keep, final=False)
                self.bad = False
            return False
        self._skip(at, final=True)
        self.synced, self.bad = True, False
        return True

    def _skip(self, n: int, final: bool) -> None:
        """Skip ``n`` bytes that hold no TSH; one problem counts a run of them."""
        if n > 0:
            first, at = self._frame_at(self.base)
            if self.skipping < 0:
                self.skipping = len(self.problems)
                self.problems.append(Problem(self.name, at, f"{self.name}: {n} bytes from "
                                             f"frame {first} on skipped: no TSH there"))
            else:
                last = self.problems[self.skipping]
                self.problems[self.skipping] = Problem(last.path, last.offset,
                                                       _grow(last.reason, n))
            self._consume(n)
        if final:
            self.skipping = -1

    def _cut(self, eye: bytes, length: int) -> TshSegment:
        frames = self._frames_of(self.base, self.base + length)
        data = bytes(self.buf[:length])
        offset = self._frame_at(self.base)[1]
        self._consume(length)
        self.segments += 1
        return parse_tsh(data, frames, offset)

    def _consume(self, n: int) -> None:
        del self.buf[:n]
        self.base += n
        while len(self.marks) > 1 and self.marks[1][0] <= self.base:
            self.marks.pop(0)

    def _frames_of(self, start: int, end: int) -> tuple[int, int]:
        """The first and last frame (by number) that carried bytes of [start, end)."""
        numbers = [f for k, (at, f, _) in enumerate(self.marks) if at < end and
                   (k + 1 == len(self.marks) or self.marks[k + 1][0] > start)]
        return (min(numbers), max(numbers)) if numbers else (0, 0)

    def _frame_at(self, offset: int) -> tuple[int, int]:
        """The frame that carried the byte at stream ``offset``, and its file offset."""
        found = self.marks[0][1:] if self.marks else (0, 0)
        for at, f, file_at in self.marks:
            if at > offset:
                break
            found = (f, file_at)
        return found


def _grow(reason: str, n: int) -> str:
    head, _, tail = reason.partition(" bytes from ")
    count = head.rsplit(" ", 1)
    return f"{count[0]} {int(count[1]) + n} bytes from {tail}" if len(count) == 2 else reason


def parse_tsh(data: bytes, frames: tuple[int, int], offset: int) -> TshSegment:
    """The TSH fields of one whole segment."""
    eye = data[:_ID_SIZE]
    kind = fap.TSH_IDS[eye]
    pos = TSH_SIZE
    conv = req = 0
    if kind == "TSHM":
        ids = fap.tsh_mpx().values(data, pos)
        conv, req = ids["conversationid"], ids["requestid"]
        pos = TSHM_SIZE
    big = data[pos] != fap.BYTE_ORDER_LITTLE
    rest: dict[str, Any] = fap.tsh_rest(big).values(data, pos)
    return TshSegment(kind, eye in fap.EBCDIC_TSH_IDS, big, rest["segmenttype"],
                      rest["controlflags1"], rest["encoding"], rest["ccsid"], conv, req,
                      data[pos + TSH_REST:], frames, offset)
