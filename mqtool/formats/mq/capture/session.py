"""One MQ TCP connection: segments -> transmissions -> messages with their provenance.

Client flows (C and Java/JMS clients): MQOPEN and SPI OPEN name the queue behind an object
handle (from the reply's handle); MQPUT and MQPUT1 carry an MQMD, an MQPMO and the message,
and the put reply returns the MQMD as the queue manager completed it (the MsgId it made);
MQGET replies, SPI GET replies and ASYNC_MESSAGE deliveries carry the MQMD and message a
getter received. Channel MESSAGE_DATA carries an MQXQH whose MQMD and data are the message.

Requests and replies are paired by conversation and request id (TSHM) or in order (TSH).
Transmissions split over several segments (first / last control flags, asynchronous
segment indexes) are joined; one a gap cut is kept as far as it goes and marked cut.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from mqtool.formats.mq.capture import fap, mqi
from mqtool.formats.mq.capture.framing import MAX_TRANSMISSION, TshSegment
from mqtool.model import Problem

MQCC_FAILED = 2
MQRC_TRUNCATED_MSG_ACCEPTED = 2079
MAX_PENDING = 256  # puts waiting for their reply before the oldest is given up on
_BUFLEN = 4  # the MQLONG buffer length before the message of MQPUT / MQGET
_XQH_FIXED = 104  # MQXQH up to its embedded MQMD (StrucId, Version, RemoteQName, RemoteQMgrName)
_Q = 48  # MQ_Q_NAME_LENGTH


Ctx = tuple[str, str, TshSegment, tuple[int, int]]  # source, destination, first segment, frames


@dataclass
class Captured:
    """A message seen on the wire, before it becomes a queue-dump ``Message``."""

    mqmd: dict[str, Any]
    body: bytes
    verb: str  # "MQPUT", "MQPUT1", "MQGET", "ASYNC_MESSAGE", "SPI PUT", "SPI GET", "MESSAGE_DATA"
    queue: str
    src: str
    dst: str
    frames: tuple[int, int]
    conversation: int = 0
    request: int = 0
    reply_frame: int = 0  # the put reply that completed the MQMD
    problems: list[Problem] = field(default_factory=list)
    cut: bool = False  # a gap or the end of the capture cut the message


@dataclass
class _Assembly:
    dst: str
    first: TshSegment
    parts: list[bytes]
    size: int
    frames: tuple[int, int]


class _Pending:
    """Requests waiting for replies: by (conversation, request id), or in order."""

    def __init__(self) -> None:
        self.by_id: dict[tuple[int, int], Any] = {}
        self.fifo: dict[int, deque[Any]] = {}

    def put(self, conv: int, req: int, item: Any) -> None:
        if req:
            self.by_id[conv, req] = item
        else:
            self.fifo.setdefault(conv, deque()).append(item)

    def take(self, conv: int, req: int) -> Any:
        if req:
            return self.by_id.pop((conv, req), None)
        q = self.fifo.get(conv)
        return q.popleft() if q else None

    def __len__(self) -> int:
        return len(self.by_id) + sum(len(q) for q in self.fifo.values())

    def oldest(self) -> Any:
        for key in list(self.by_id):
            return self.by_id.pop(key)
        for q in self.fifo.values():
            if q:
                return q.popleft()
        return None

    def drain(self) -> Iterator[Any]:
        while len(self):
            yield self.oldest()


class Session:
    """The MQ conversation(s) of one TCP connection."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.handles: dict[tuple[int, int], str] = {}  # (conversation, hobj) -> queue
        self.opens = _Pending()
        self.puts = _Pending()
        self.assembling: dict[tuple[Any, ...], _Assembly] = {}
        self.problems: list[Problem] = []
        self.verbs: dict[str, int] = {}

    # -- segments -> transmissions --------------------------------------------------------

    def segment(self, src: str, dst: str, seg: TshSegment) -> list[Captured]:
        self.verbs[seg.name] = self.verbs.get(seg.name, 0) + 1
        if seg.partial:
            return self._partial(src, dst, seg)
        if seg.segtype == fap.ASYNC_MESSAGE:
            return self._async_segment(src, dst, seg)
        key: tuple[Any, ...] = (src, seg.conversation)
        single = (seg.first and seg.last) or (seg.segtype < fap.API_FIRST and not seg.first
                                            and key not in self.assembling)
        if single:
            self._abandon(key, seg)
            return self.transmission(src, dst, seg, seg.payload, seg.frames)
        if seg.first:
            self._abandon(key, seg)
            self.assembling[key] = _Assembly(dst, seg, [seg.payload], len(seg.payload), seg.frames)
            return []
        return self._continue(key, src, dst, seg, _continuation(seg))

    def _partial(self, src: str, dst: str, seg: TshSegment) -> list[Captured]:
        """The start of a segment a gap cut: the transmission it ends, marked cut."""
        seg.flags |= fap.TCF_LAST
        if seg.segtype != fap.ASYNC_MESSAGE and not seg.first and \
                (src, seg.conversation) not in self.assembling:
            seg.flags |= fap.TCF_FIRST
        got = self._async_segment(src, dst, seg) if seg.segtype == fap.ASYNC_MESSAGE else \
            self.segment(src, dst, _whole(seg))
        waiting = list(self.puts.drain())
        for c in waiting:  # a put cut short is not waited for
            if c.cut:
                got.append(c)
            else:
                self.puts.put(c.conversation, c.request, c)
        for c in got:
            c.cut = True
            c.problems.insert(0, Problem(c.src, len(c.body), f"message cut at body offset "
                                         f"{len(c.body)}: the bytes after frame "
                                         f"{seg.frames[1]} were not captured"))
        return got

    def _continue(self, key: tuple[Any, ...], src: str, dst: str, seg: TshSegment,
                  data: bytes) -> list[Captured]:
        asm = self.assembling.get(key)
        if asm is None:
            self.problems.append(Problem(self.name, seg.offset, f"{src} → {dst}: {seg.name} "
                                         f"segment in frame {seg.frames[0]} continues a "
                                         "transmission whose start was not captured; skipped"))
            return []
        asm.parts.append(data)
        asm.size += len(data)
        asm.frames = (asm.frames[0], seg.frames[1])
        if asm.size > MAX_TRANSMISSION:
            del self.assembling[key]
            self.problems.append(Problem(self.name, seg.offset, f"{src} → {dst}: {seg.name} "
                                         f"transmission from frame {asm.frames[0]} exceeds "
                                         f"{MAX_TRANSMISSION} bytes; dropped"))
            return []
        if not seg.last:
            return []
        del self.assembling[key]
        return self.transmission(src, dst, asm.first, b"".join(asm.parts), asm.frames)

    def _async_segment(self, src: str, dst: str, seg: TshSegment) -> list[Captured]:
        head = mqi.async_header(seg.payload, False, seg.big)
        if head is None:
            self.problems.append(Problem(self.name, seg.offset, f"{src} → {dst}: "
                                         f"ASYNC_MESSAGE in frame {seg.frames[0]} too short"))
            return []
        values, _size = head
        key = (src, seg.conversation, values["hobj"], values["globalmsgindex"])
        if values["segmentindex"] == 0:
            self._abandon(key, seg)
            if seg.last:
                return self.transmission(src, dst, seg, seg.payload, seg.frames)
            self.assembling[key] = _Assembly(dst, seg, [seg.payload], len(seg.payload), seg.frames)
            return []
        return self._continue(key, src, dst, seg, seg.payload[_size:])

    def _abandon(self, key: tuple[Any, ...], seg: TshSegment) -> None:
        asm = self.assembling.pop(key, None)
        if asm is not None:
            self.problems.append(Problem(self.name, seg.offset, f"{asm.first.name} "
                                         f"transmission from frame {asm.frames[0]} never got "
                                         f"its last segment (a new one starts in frame "
                                         f"{seg.frames[0]}); dropped"))

    def cut(self, src: str, reason: str) -> list[Captured]:
        """A gap in ``src``'s stream (or the end): transmissions being joined are cut."""
        out: list[Captured] = []
        for key in [k for k in self.assembling if k[0] == src]:
            asm = self.assembling.pop(key)
            got = self.transmission(src, asm.dst, asm.first, b"".join(asm.parts), asm.frames)
            for c in got:
                c.cut = True
                c.problems.append(Problem(c.src, len(c.body), f"message cut at body offset "
                                          f"{len(c.body)}: {reason} after frame "
                                          f"{asm.frames[1]}"))
            out += got
        return out

    def finish(self) -> list[Captured]:
        out = []
        for c in self.puts.drain():
            c.problems.append(Problem(c.src, 0, f"no {c.verb} reply captured: the MQMD is "
                                      "the one the application sent (no MsgId the queue "
                                      "manager made)"))
            out.append(c)
        return out

    # -- transmissions -> messages ------------------------------------------------------

    def transmission(self, src: str, dst: str, seg: TshSegment, data: bytes,
                     frames: tuple[int, int]) -> list[Captured]:
        t = seg.segtype
        ctx: Ctx = (src, dst, seg, frames)
        if t == fap.MESSAGE_DATA:
            return self._channel(data, ctx)
        if t == fap.ASYNC_MESSAGE:
            return self._async(data, ctx)
        if not fap.API_FIRST <= t <= fap.API_LAST:
            return []
        api = fap.api_header(seg.big)
        if len(data) < (api.size or 0):
            return []
        head = api.values(data, 0)
        pos = api.size or 0
        handler = {fap.MQOPEN: self._open, fap.MQOPEN_REPLY: self._open_reply,
                   fap.MQPUT: self._put, fap.MQPUT1: self._put,
                   fap.MQPUT_REPLY: self._put_reply, fap.MQPUT1_REPLY: self._put_reply,
                   fap.MQGET_REPLY: self._get_reply, fap.SPI: self._spi,
                   fap.SPI_REPLY: self._spi}.get(t)
        return handler(data, pos, head, ctx) if handler else []

    def _queue(self, seg: TshSegment, hobj: int) -> str:
        return self.handles.get((seg.conversation, hobj), "")

    def _open(self, data: bytes, pos: int, head: dict[str, Any], ctx: Ctx) -> list[Captured]:
        seg = ctx[2]
        found = mqi.od(data, pos, seg.big)
        self.opens.put(seg.conversation, seg.request, _od_name(found.values) if found else "")
        return []

    def _open_reply(self, data: bytes, pos: int, head: dict[str, Any],
                    ctx: Ctx) -> list[Captured]:
        seg = ctx[2]
        asked = self.opens.take(seg.conversation, seg.request) or ""
        found = mqi.od(data, pos, seg.big)
        name = (_od_name(found.values) if found else "") or asked
        if head["compcode"] != MQCC_FAILED and name:
            self.handles[seg.conversation, head["hobj"]] = name
        return []

    def _put(self, data: bytes, pos: int, head: dict[str, Any], ctx: Ctx) -> list[Captured]:
        seg = ctx[2]
        queue = self._queue(seg, head["hobj"])
        if seg.segtype == fap.MQPUT1:
            found = mqi.od(data, pos, seg.big)
            if found is None:
                return self._bad(ctx, "no MQOD where MQPUT1 has one", pos)
            queue, pos = _od_name(found.values), pos + found.size
        c = self._message(data, pos, ctx, queue, mqi.pmo, fap.SEGMENT_TYPES[seg.segtype])
        if c is None:
            return []
        if len(self.puts) >= MAX_PENDING:
            return self._queue_put(c, seg)
        self.puts.put(seg.conversation, seg.request, c)
        return []

    def _queue_put(self, c: Captured, seg: TshSegment) -> list[Captured]:
        old = self.puts.oldest()
        self.puts.put(seg.conversation, seg.request, c)
        old.problems.append(Problem(old.src, 0, f"no {old.verb} reply among the next "
                                    f"{MAX_PENDING} requests: the MQMD is the one the "
                                    "application sent"))
        return [old]

    def _put_reply(self, data: bytes, pos: int, head: dict[str, Any],
                   ctx: Ctx) -> list[Captured]:
        seg = ctx[2]
        c = self.puts.take(seg.conversation, seg.request)
        if c is None:
            return []
        if head["compcode"] == MQCC_FAILED:
            return []  # the put failed: nothing reached the queue
        if seg.segtype == fap.MQPUT1_REPLY:
            found = mqi.od(data, pos, seg.big)
            pos += found.size if found else 0
        reply = mqi.md(data, pos)
        if reply is not None:
            c.mqmd = reply.values
            c.reply_frame = ctx[3][0]
        return [c]

    def _get_reply(self, data: bytes, pos: int, head: dict[str, Any],
                   ctx: Ctx) -> list[Captured]:
        if head["compcode"] == MQCC_FAILED:
            return []
        seg = ctx[2]
        c = self._message(data, pos, ctx, self._queue(seg, head["hobj"]), mqi.gmo, "MQGET")
        if c is not None and head["reason"] == MQRC_TRUNCATED_MSG_ACCEPTED:
            c.cut = True
            c.problems.append(Problem(c.src, len(c.body), "MQRC_TRUNCATED_MSG_ACCEPTED: the "
                                      "getter took only the first bytes of the message"))
        return [c] if c is not None else []

    def _message(self, data: bytes, pos: int, ctx: Ctx, queue: str, options: Any,
                 verb: str) -> Captured | None:
        """MQMD, MQPMO / MQGMO, buffer length, message."""
        src, dst, seg, frames = ctx
        desc = mqi.md(data, pos)
        if desc is None:
            self._bad(ctx, f"no MQMD where {verb} has one", pos)
            return None
        pos += desc.size
        opts = options(data, pos, seg.big)
        if opts is None:
            self._bad(ctx, f"no {options.__name__.upper()} after the MQMD", pos)
            return None
        pos += opts.size
        if len(data) < pos + _BUFLEN:
            self._bad(ctx, "no buffer length after the options", pos)
            return None
        n = int.from_bytes(data[pos:pos + _BUFLEN], "big" if seg.big else "little", signed=True)
        pos += _BUFLEN
        body = data[pos:pos + max(n, 0)]
        queue = queue or str(opts.values.get("resolvedqname") or "")
        c = Captured(desc.values, body, verb, queue, src, dst, frames, seg.conversation,
                     seg.request)
        if len(body) < n:
            c.cut = True
            c.problems.append(Problem(src, len(body), f"{verb}: buffer length {n}, "
                                      f"{len(body)} bytes there"))
        return c

    def _bad(self, ctx: Ctx, reason: str, pos: int) -> list[Captured]:
        src, dst, seg, frames = ctx
        self.problems.append(Problem(self.name, seg.offset, f"{src} → {dst}: {seg.name} "
                                     f"in frames {_frames(frames)}: {reason} (transmission "
                                     f"offset {pos})"))
        return []

    def _async(self, data: bytes, ctx: Ctx) -> list[Captured]:
        src, dst, seg, frames = ctx
        got = mqi.async_header(data, True, seg.big)
        if got is None:
            return self._bad(ctx, "asynchronous-message header cut", 0)
        head, pos = got
        desc = mqi.md(data, pos)
        if desc is None:
            return self._bad(ctx, "no MQMD after the asynchronous-message header", pos)
        pos += desc.size
        opts = mqi.gmo(data, pos, seg.big)
        pos += opts.size if opts else 0
        queue = head.get("resolvedqname") or self._queue(seg, head["hobj"])
        c = Captured(desc.values, data[pos:], "ASYNC_MESSAGE", queue, src, dst, frames,
                     seg.conversation, seg.request)
        total, actual = head["totalmsglength"], head["actualmsglength"]
        if actual < total:
            c.cut = True
            c.problems.append(Problem(src, len(c.body), f"asynchronous delivery of {actual} "
                                      f"of the message's {total} bytes"))
        return [c]

    def _channel(self, data: bytes, ctx: Ctx) -> list[Captured]:
        src, dst, seg, frames = ctx
        pos = 0
        if mqi.strucid(data, 0) == "MSH ":
            pos = fap.msh(seg.big).size or 0
        if mqi.strucid(data, pos) != "XQH ":
            return self._bad(ctx, "no MQXQH in the message data", pos)
        page = mqi.EBCDIC_PAGE if data[pos] >= 0xC1 else mqi.ASCII_PAGE
        name = pos + 8  # after StrucId and Version
        rq = data[name:name + _Q].decode(page, errors="replace").rstrip(" \x00")
        rqm = data[name + _Q:name + 2 * _Q].decode(page, errors="replace").rstrip(" \x00")
        desc = mqi.md(data, pos + _XQH_FIXED)
        if desc is None:
            return self._bad(ctx, "no MQMD in the MQXQH", pos + _XQH_FIXED)
        body = data[pos + _XQH_FIXED + desc.size:]
        return [Captured(desc.values, body, "MESSAGE_DATA", f"{rq}@{rqm}" if rqm else rq,
                         src, dst, frames, seg.conversation, seg.request)]

    def _spi(self, data: bytes, pos: int, head: dict[str, Any], ctx: Ctx) -> list[Captured]:
        seg = ctx[2]
        got = mqi.spi(data, pos, seg.big)
        if got is None:
            return []
        verb, pos = got
        reply = seg.segtype == fap.SPI_REPLY
        if verb["verb"] == fap.SPI_OPEN:
            return self._spi_open(data, pos, head, seg, reply)
        if verb["verb"] not in (fap.SPI_PUT, fap.SPI_GET):
            return []
        name = f"SPI {fap.SPI_VERBS[verb['verb']]}"
        if reply and verb["verb"] == fap.SPI_PUT:
            return self._put_reply(data, pos, head, ctx)
        if not reply and verb["verb"] == fap.SPI_GET:
            return []
        return self._spi_message(data, pos, head, ctx, name)

    def _spi_open(self, data: bytes, pos: int, head: dict[str, Any], seg: TshSegment,
                  reply: bool) -> list[Captured]:
        found = mqi.lpoo(data, pos, seg.big)
        name = _od_name(found.values.get("mqod") or {}) if found else ""
        if not reply:
            self.opens.put(seg.conversation, seg.request, name)
            return []
        name = name or self.opens.take(seg.conversation, seg.request) or ""
        if head["compcode"] != MQCC_FAILED and name:
            self.handles[seg.conversation, head["hobj"]] = name
        return []

    def _spi_message(self, data: bytes, pos: int, head: dict[str, Any], ctx: Ctx,
                     verb: str) -> list[Captured]:
        src, dst, seg, frames = ctx
        desc = mqi.md(data, pos)
        if desc is None:
            return self._bad(ctx, f"no MQMD in {verb}", pos)
        pos += desc.size
        opts = mqi.pmo(data, pos, seg.big) or mqi.gmo(data, pos, seg.big)
        pos += opts.size if opts else 0
        sp = mqi.spi_data(data, pos, seg.big)
        if sp is None or sp[2] < 0:
            return self._bad(ctx, f"no SPPI / SPGO with the message length in {verb}", pos)
        pos += sp[1]
        body = data[pos:pos + sp[2]]
        c = Captured(desc.values, body, verb, self._queue(seg, head["hobj"]), src, dst, frames,
                     seg.conversation, seg.request)
        if len(body) < sp[2]:
            c.cut = True
            c.problems.append(Problem(src, len(body), f"{verb}: message length {sp[2]}, "
                                      f"{len(body)} bytes there"))
        if verb == "SPI PUT":
            self.puts.put(seg.conversation, seg.request, c)
            return []
        return [c]


def _whole(seg: TshSegment) -> TshSegment:
    """The segment as if it were whole (``partial`` cleared)."""
    from dataclasses import replace

    return replace(seg, partial=False)


def _continuation(seg: TshSegment) -> bytes:
    """The data of a continuation segment (channel data may repeat its MSH)."""
    if seg.segtype == fap.MESSAGE_DATA and mqi.strucid(seg.payload, 0) == "MSH ":
        return seg.payload[fap.msh(seg.big).size or 0:]
    return seg.payload


def _od_name(values: dict[str, Any]) -> str:
    name = str(values.get("objectname") or "")
    qmgr = str(values.get("objectqmgrname") or "")
    return f"{name}@{qmgr}" if name and qmgr else name


def _frames(frames: tuple[int, int]) -> str:
    return str(frames[0]) if frames[0] == frames[1] else f"{frames[0]}–{frames[1]}"
