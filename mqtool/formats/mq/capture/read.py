"""A capture of IBM MQ TCP traffic read as a queue dump: the messages on the wire, each a
``Message`` with its MQMD, body and provenance (file, frames, endpoints, verb, queue).

A TCP connection is MQ when one of its ports is an MQ port (1414 unless told otherwise:
``ports``, or ``mq_ports`` around the work for every reader made meanwhile, as the commands'
``--port`` does) or its data starts with a TSH. A TLS-protected channel is recognised by its
handshake and reported in one line (an error: there is nothing to decode without the keys).
The reader streams: it holds a connection's out-of-order bytes (up to ``tcp.MAX_WAITING``),
one segment being cut out of the stream, the transmissions being joined and the puts
waiting for their reply.

Use::

    reader = CaptureReader("capture.pcapng")
    with open("capture.pcapng", "rb") as f:
        for msg in reader.read(f.read(HEAD), f):
            print(msg.source, msg.mqmd["format"], len(msg.body))
    reader.errors, reader.problems, reader.summary()
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from mqtool.formats.mq.capture import fap
from mqtool.formats.mq.capture.framing import Framer, find_tsh
from mqtool.formats.mq.capture.packets import LINK_TYPES, CaptureFile, Segment, sniff_capture
from mqtool.formats.mq.capture.session import Captured, Session
from mqtool.formats.mq.capture.tcp import FIN, RST, Direction, Gap
from mqtool.formats.mq.dumps.message import Message
from mqtool.model import Problem

__all__ = ["HEAD", "CaptureReader", "CapturedMessage", "Provenance", "mq_ports",
           "read_capture", "sniff_capture"]

HEAD = 65536
PORTS: ContextVar[tuple[int, ...]] = ContextVar("mqtool_mq_ports", default=(fap.MQ_PORT,))
TLS_RECORD_TYPES = (0x14, 0x15, 0x16, 0x17)  # change_cipher_spec, alert, handshake, data
_TO = {"MQPUT": "to", "MQPUT1": "to", "SPI PUT": "to", "MESSAGE_DATA": "to"}


@dataclass(frozen=True)
class Provenance:
    """Where a captured message came from."""

    file: str
    frames: tuple[int, int]
    src: str  # "10.0.0.5:51000"
    dst: str
    verb: str  # MQPUT, MQPUT1, MQGET, ASYNC_MESSAGE, SPI PUT, SPI GET, MESSAGE_DATA
    queue: str  # "PAY.IN", "PAY.IN@QM2", "" when the capture does not say
    conversation: int = 0
    request: int = 0
    reply_frame: int = 0  # the put reply whose MQMD (MsgId) the message carries

    def describe(self) -> str:
        """``capture.pcapng: frames 12–15, 10.0.0.5:51000 → 10.0.0.9:1414, MQPUT to PAY.IN``"""
        return f"{self.file}: {self.where()}, {self.action()}"

    def where(self) -> str:
        """``frames 12–15, 10.0.0.5:51000 → 10.0.0.9:1414``"""
        a, b = self.frames
        frames = f"frame {a}" if a == b else f"frames {a}–{b}"
        return f"{frames}, {self.src} → {self.dst}"

    def action(self) -> str:
        """``MQPUT to PAY.IN``, ``MQGET from PAY.IN``, ``channel message to PAY.IN@QM2``"""
        way = _TO.get(self.verb, "from")
        verb = "channel message" if self.verb == "MESSAGE_DATA" else self.verb
        queue = f"{way} {self.queue}" if self.queue else f"{way} a queue opened before the capture"
        return f"{verb} {queue}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"file": self.file, "frames": list(self.frames), "src": self.src,
                               "dst": self.dst, "verb": self.verb, "queue": self.queue}
        if self.conversation or self.request:
            out.update(conversation=self.conversation, request=self.request)
        if self.reply_frame:
            out["reply_frame"] = self.reply_frame
        return out


@dataclass
class CapturedMessage(Message):
    """A queue-dump ``Message`` that came from a capture; ``source`` is its provenance in
    words, ``provenance`` the same as fields."""

    provenance: Provenance | None = None


@dataclass
class _Connection:
    name: str  # "10.0.0.5:51000 ↔ 10.0.0.9:1414"
    session: Session
    directions: dict[str, Direction] = field(default_factory=dict)
    framers: dict[str, Framer] = field(default_factory=dict)
    state: str = "new"  # new, mq, tls, other
    closed: set[str] = field(default_factory=set)


class CaptureReader:
    """Messages of a pcap / pcapng capture of IBM MQ traffic, streamed.

    ``ports``: the MQ ports (default: ``mq_ports``', else 1414); ``detect``: also take
    connections on other ports whose data starts with a TSH. ``errors`` collects what lost
    data (gaps, cut files, TLS channels: ``tls`` says those in words); ``problems`` the rest
    (skipped bytes, segments without their start).
    """

    def __init__(self, name: str, first: int = 0, advance: Callable[[int], None] | None = None,
                 problem: Callable[[Problem], None] | None = None,
                 ports: Iterable[int] | None = None, detect: bool = True) -> None:
        self.name = Path(name).name if name not in ("-", "stdin") else "stdin"
        self.position = first
        self.advance = advance
        self.report = problem
        self.ports = frozenset(PORTS.get() if ports is None else ports)
        self.detect = detect
        self.errors: list[Problem] = []
        self.problems: list[Problem] = []
        self.tls: list[str] = []
        self.connections: dict[tuple[Any, ...], _Connection] = {}
        self.mq_connections = 0
        self.capture: CaptureFile | None = None
        self._done = 0

    # -- the stream ---------------------------------------------------------------------

    def read(self, head: bytes, f: IO[bytes]) -> Iterator[Message]:
        cap = CaptureFile(self.name, head, f)
        self.capture = cap
        for seg in cap.segments():
            self._progress(cap)
            yield from self._messages(self._segment(seg))
        for conn in list(self.connections.values()):
            yield from self._messages(self._close(conn, "the end of the capture"))
        self._progress(cap)
        self._collect(cap)

    def _progress(self, cap: CaptureFile) -> None:
        if self.advance is not None and cap.guard.pos > self._done:
            self.advance(cap.guard.pos - self._done)
            self._done = cap.guard.pos

    def _collect(self, cap: CaptureFile) -> None:
        self.errors += cap.errors
        self.problems += cap.problems
        if cap.cut:
            self.problems.append(Problem(self.name, 0, f"{cap.cut} frames cut by the snap "
                                         "length inside TCP data"))
        if self.report is not None:
            for p in self.errors:
                self.report(p)

    def _segment(self, seg: Segment) -> list[Captured]:
        a, b = (seg.src, seg.sport), (seg.dst, seg.dport)
        key = (a, b) if a <= b else (b, a)
        conn = self.connections.get(key)
        src, dst = _endpoint(*a), _endpoint(*b)
        if conn is None:
            conn = _Connection(f"{src} ↔ {dst}", Session(f"{src} ↔ {dst}"))
            self.connections[key] = conn
        if conn.state in ("tls", "other"):
            return self._maybe_close(conn, key, seg, src)
        way = conn.directions.setdefault(src, Direction(f"{src} → {dst}"))
        out: list[Captured] = []
        back = conn.directions.get(dst)
        if back is not None and seg.ack >= 0 and conn.state == "mq":
            for ev in back.acked(seg.ack):
                out += self._event(conn, dst, src, ev)
        for ev in way.add(seg):
            if conn.state == "new" and not self._classify(conn, seg, ev):
                break
            out += self._event(conn, src, dst, ev)
        return out + self._maybe_close(conn, key, seg, src)

    def _classify(self, conn: _Connection, seg: Segment, ev: Any) -> bool:
        """Decide from a connection's first bytes whether it is MQ (True: go on)."""
        if isinstance(ev, Gap):
            return conn.state == "mq"
        on_port = seg.sport in self.ports or seg.dport in self.ports
        data = ev.data
        if on_port and _tls(data):
            conn.state = "tls"
            self.tls.append(f"{conn.name}: TLS-protected MQ channel (TLS record in frame "
                            f"{ev.frame}); nothing to decode without the keys")
            self.errors.append(Problem(self.name, ev.at, self.tls[-1]))
            return False
        if on_port or (self.detect and find_tsh(data) >= 0):
            conn.state = "mq"
            self.mq_connections += 1
            return True
        conn.state = "other"
        return False

    def _event(self, conn: _Connection, src: str, dst: str, ev: Any) -> list[Captured]:
        framer = conn.framers.setdefault(src, Framer(f"{src} → {dst}"))
        out: list[Captured] = []
        for tsh in framer.feed(ev):
            out += conn.session.segment(src, dst, tsh)
        if isinstance(ev, Gap):
            out += conn.session.cut(src, f"{ev.size} bytes {ev.why}")
        return out

    def _maybe_close(self, conn: _Connection, key: tuple[Any, ...], seg: Segment,
                     src: str) -> list[Captured]:
        if seg.flags & RST:
            conn.closed.update(conn.directions or {src})
            conn.closed.add(src)
        elif seg.flags & FIN:
            conn.closed.add(src)
        if not conn.closed or (len(conn.closed) < 2 and not seg.flags & RST):
            return []
        del self.connections[key]
        return self._close(conn, "the end of the connection")

    def _close(self, conn: _Connection, why: str) -> list[Captured]:
        out: list[Captured] = []
        for src, way in conn.directions.items():
            dst = way.name.split(" → ", 1)[1]
            if conn.state == "mq":
                for ev in way.finish():
                    out += self._event(conn, src, dst, ev)
                out += conn.session.cut(src, why)
            framer = conn.framers.get(src)
            if framer is not None:
                self._framer_problems(framer)
            for frame, at, differing in way.differing:
                self.problems.append(Problem(self.name, at, f"{way.name}: frame {frame} "
                                             f"repeats bytes already received with {differing} "
                                             "of them different; the first copy kept"))
        out += conn.session.finish()
        self.problems += [Problem(self.name, p.offset, p.reason) for p in conn.session.problems]
        return out

    def _framer_problems(self, framer: Framer) -> None:
        for p in framer.problems:
            lost = "not captured" in p.reason or "snap length" in p.reason
            (self.errors if lost else self.problems).append(Problem(self.name, p.offset,
                                                                    p.reason))

    # -- messages -----------------------------------------------------------------------

    def _messages(self, captured: list[Captured]) -> Iterator[Message]:
        for c in captured:
            self.position += 1
            prov = Provenance(self.name, c.frames, c.src, c.dst, c.verb, c.queue,
                              c.conversation, c.request, c.reply_frame)
            msg = CapturedMessage(self.position, c.body, c.mqmd, prov.describe(),
                                  provenance=prov)
            for p in c.problems:
                if c.cut:
                    msg.cut(p.reason, p.offset)
                else:
                    msg.problem(p.reason, p.offset)
            if c.cut and not c.problems:
                msg.cut("message cut", len(c.body))
            yield msg

    def summary(self) -> str:
        """One line: frames, link types, MQ connections, TLS channels."""
        cap = self.capture
        if cap is None:
            return ""
        links = ", ".join(f"{LINK_TYPES.get(k, k)}" for k in sorted(cap.linktypes))
        tls = f", {len(self.tls)} TLS-protected" if self.tls else ""
        return (f"{self.name}: {cap.kind}, {cap.frames} frames ({links or 'none'}), "
                f"{self.mq_connections} MQ connections{tls}, {self.position} messages")


    def nothing_found(self) -> str:
        """Why a capture gave no message, in words ("" when it had MQ traffic or errors)."""
        if self.mq_connections or self.errors or self.capture is None:
            return ""
        ports = ", ".join(str(p) for p in sorted(self.ports))
        return (f"no IBM MQ traffic in it: no TCP connection on port {ports} nor one starting "
                f"with a TSH ({self.capture.frames} frames; --port names other ports)")


@contextlib.contextmanager
def mq_ports(ports: Iterable[int]) -> Iterator[None]:
    """Every ``CaptureReader`` made inside takes ``ports`` as the MQ ports (none: 1414)."""
    token = PORTS.set(tuple(ports) or (fap.MQ_PORT,))
    try:
        yield
    finally:
        PORTS.reset(token)


def read_capture(path: str, ports: Iterable[int] | None = None,
                 detect: bool = True) -> Iterator[Message]:
    """The messages of a capture file (see ``CaptureReader`` for errors and options)."""
    reader = CaptureReader(path, ports=ports, detect=detect)
    with open(path, "rb") as f:
        yield from reader.read(f.read(HEAD), f)


def _endpoint(addr: str, port: int) -> str:
    return f"[{addr}]:{port}" if ":" in addr else f"{addr}:{port}"


def _tls(data: bytes) -> bool:
    """A TLS record header: content type, version 3.x, a plausible length."""
    return (len(data) >= 5 and data[0] in TLS_RECORD_TYPES and data[1] == 3 and data[2] <= 4
            and int.from_bytes(data[3:5], "big") <= 18432)
