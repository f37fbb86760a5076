"""TCP reassembly, one byte stream per direction of a connection.

Segments are put in sequence order: retransmissions and the copies ``tcpdump -i any``
records twice are dropped (an overlapping copy whose bytes differ from the first is
reported, the first kept), out-of-order segments wait until the bytes before them arrive.
A hole is never bridged silently: when the bytes before waiting segments have not come
after ``MAX_WAITING`` bytes (or at the end of the capture), or a frame was cut by the snap
length, the stream carries a ``Gap`` naming its size and the frames either side of it.
A connection whose SYN was not captured starts at its first data segment.

Source: RFC 9293 (Transmission Control Protocol), sequence-number arithmetic modulo 2**32.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mqtool.formats.mq.capture.packets import Segment

SEQ_MOD = 1 << 32
MAX_WAITING = 4 * 1024 * 1024  # out-of-order bytes held per direction before a gap is declared
RECENT = 64 * 1024  # delivered bytes kept to compare overlapping retransmissions
SYN, FIN, RST = 0x02, 0x01, 0x04


@dataclass(frozen=True, slots=True)
class Chunk:
    """Bytes in stream order and the frame that carried them."""

    data: bytes
    frame: int
    at: int = 0  # file offset of the frame


@dataclass(frozen=True, slots=True)
class Gap:
    """Bytes the capture lacks between two frames (``before`` 0: at the end)."""

    size: int
    after: int  # last frame delivered before the hole (0: none)
    before: int  # first frame after it
    why: str = "not captured"
    at: int = 0  # file offset of the frame after the hole (of the cut frame)


Event = Chunk | Gap


def _rel(seq: int, base: int) -> int:
    """``seq - base`` in sequence space, signed."""
    d = (seq - base) % SEQ_MOD
    return d - SEQ_MOD if d >= SEQ_MOD // 2 else d


@dataclass
class Direction:
    """One direction of a TCP connection: ``add`` segments, get its bytes in order."""

    name: str  # "10.0.0.5:51000 → 10.0.0.9:1414"
    next_seq: int | None = None
    syn_seen: bool = False
    last_frame: int = 0
    waiting: dict[int, Segment] = field(default_factory=dict)  # by sequence number
    waiting_bytes: int = 0
    recent: bytearray = field(default_factory=bytearray)
    retransmitted: int = 0
    differing: list[tuple[int, int, int]] = field(default_factory=list)  # frame, at, how many

    def add(self, seg: Segment) -> list[Event]:
        if seg.flags & SYN:
            self.syn_seen = True
            if self.next_seq is None:
                self.next_seq = (seg.seq + 1) % SEQ_MOD
        if seg.length == 0:
            return []
        if self.next_seq is None:
            self.next_seq = seg.seq
        rel = _rel(seg.seq, self.next_seq)
        if rel + seg.length <= 0:
            self._overlap(seg, rel)
            return []
        if rel > 0:
            return self._wait(seg)
        out = self._deliver(seg, -rel)
        return out + self._drain()

    def acked(self, ack: int) -> list[Event]:
        """The other side acknowledged bytes up to ``ack``: a hole before waiting segments
        that it acknowledged was received, just not captured; it will not be filled."""
        if not self.waiting or self.next_seq is None or _rel(ack, self.next_seq) <= 0:
            return []
        return self._skip_to_first_waiting() + self._drain()

    def finish(self) -> list[Event]:
        """The end of the capture: waiting segments are delivered after a gap each."""
        out: list[Event] = []
        while self.waiting:
            out += self._skip_to_first_waiting()
            out += self._drain()
        return out

    def _overlap(self, seg: Segment, rel: int) -> None:
        """A retransmission or a duplicate: compare with what was delivered, drop it."""
        self.retransmitted += 1
        start = len(self.recent) + rel  # where seg.seq sits in ``recent``
        if start < 0:
            return
        old = self.recent[start:start + len(seg.data)]
        new = seg.data[:len(old)]
        if old != new:
            self.differing.append((seg.frame, seg.at,
                                   sum(a != b for a, b in zip(old, new, strict=True))))

    def _wait(self, seg: Segment) -> list[Event]:
        prev = self.waiting.get(seg.seq)
        if prev is None or seg.length > prev.length:
            self.waiting_bytes += seg.length - (prev.length if prev else 0)
            self.waiting[seg.seq] = seg
        else:
            self.retransmitted += 1
        if self.waiting_bytes <= MAX_WAITING:
            return []
        out = self._skip_to_first_waiting()
        return out + self._drain()

    def _skip_to_first_waiting(self) -> list[Event]:
        assert self.next_seq is not None
        seq = min(self.waiting, key=lambda s: _rel(s, self.next_seq or 0))
        size = _rel(seq, self.next_seq)
        first = self.waiting[seq]
        self.next_seq = seq
        self.recent.clear()
        return [Gap(size, self.last_frame, first.frame, at=first.at)] if size > 0 else []

    def _drain(self) -> list[Event]:
        out: list[Event] = []
        while self.waiting:
            assert self.next_seq is not None
            ready = [s for s in self.waiting if _rel(s, self.next_seq) <= 0]
            if not ready:
                break
            for s in ready:
                seg = self.waiting.pop(s)
                self.waiting_bytes -= seg.length
                rel = _rel(s, self.next_seq)
                if rel + seg.length <= 0:
                    self.retransmitted += 1
                    continue
                out += self._deliver(seg, -rel)
        return out

    def _deliver(self, seg: Segment, skip: int) -> list[Event]:
        """Bytes of ``seg`` from ``skip`` on; the part the snap length cut is a gap."""
        data = seg.data[skip:]
        out: list[Event] = []
        if skip and seg.data[:skip] != bytes(self.recent[len(self.recent) - skip:]):
            self._overlap(Segment(seg.frame, 0.0, "", 0, "", 0, seg.seq, 0, seg.data[:skip],
                                  skip, seg.at), -skip)
        if data:
            out.append(Chunk(data, seg.frame, seg.at))
            self.recent += data
            if len(self.recent) > 2 * RECENT:  # trimmed now and then, not per segment
                del self.recent[:-RECENT]
        missing = seg.length - skip - len(data)
        self.next_seq = (seg.seq + seg.length) % SEQ_MOD
        self.last_frame = seg.frame
        if missing > 0:
            self.recent.clear()
            out.append(Gap(missing, seg.frame, seg.frame, "cut by the snap length", seg.at))
        return out
