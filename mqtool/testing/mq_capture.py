"""IBM MQ client and channel conversations written as TCP captures, for tests.

``Conversation`` builds the transmissions of one MQ TCP connection in the shapes the C
client, the Java/JMS classes and a message channel send (see ``mqtool.formats.mq.capture.fap``
for the framing): MQOPEN and SPI OPEN, MQPUT / MQPUT1 with the put reply that returns the
MsgId, MQGET replies, REQUEST_MSGS and ASYNC_MESSAGE deliveries, channel MESSAGE_DATA with
an MQXQH; transmissions larger than ``max_segment`` are split (first / last control flags,
asynchronous segment indexes). Every message it sends is listed in ``expected`` in the
order a reader completes them. ``tcp_frames`` turns a conversation into IP packets with
optional damage (reordering, retransmission, overlap, loss, a start not captured), and
``capture`` writes them as a pcap or pcapng file of any link type.
"""

from __future__ import annotations

import random
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mqtool.formats.mq.capture import fap
from mqtool.formats.mq.mqmd import build_mqmd
from mqtool.testing import pcap_writer as pw

EBCDIC_PAGE = "cp037"
MQCC_OK = 0
MQOT_Q = 1
ENC_BE, ENC_LE = 0x111, 0x222  # MQENC_NATIVE of big- and little-endian IEEE platforms
ENC_ZOS = 0x311


@dataclass
class Expected:
    """A message the capture carries, as a reader should report it."""

    mqmd: dict[str, Any]
    body: bytes
    verb: str
    queue: str
    frames: tuple[int, int] = (0, 0)


@dataclass
class Conversation:
    """The MQ transmissions of one TCP connection, client and server side."""

    big: bool = False
    ebcdic: bool = False
    tshm: bool = True
    max_segment: int = 32768
    conversation: int = 1
    tsh_kind: str = ""  # "TSH", "TSHC" or "TSHM" (default: TSHM when ``tshm``)
    sends: list[tuple[str, bytes]] = field(default_factory=list)  # ("c2s" / "s2c", segment)
    expected: list[Expected] = field(default_factory=list)
    request: int = 0
    msgids: int = 0

    # -- structures ---------------------------------------------------------------------

    @property
    def page(self) -> str:
        return EBCDIC_PAGE if self.ebcdic else "latin-1"

    @property
    def encoding(self) -> int:
        return ENC_ZOS if self.big and self.ebcdic else ENC_BE if self.big else ENC_LE

    @property
    def ccsid(self) -> int:
        return 500 if self.ebcdic else 819

    def _i(self, v: int) -> bytes:
        return struct.pack(">i" if self.big else "<i", v)

    def mqmd(self, **values: Any) -> bytes:
        base = {"format": "MQSTR", "encoding": self.encoding, "codedcharsetid": self.ccsid,
                "persistence": 1, "priority": 4, "msgtype": 8}
        return build_mqmd({**base, **values}, big=self.big, ebcdic=self.ebcdic)

    def od(self, queue: str, version: int = 1, qmgr: str = "") -> bytes:
        return fap.mqod(self.big, self.page, version).build(
            {"strucid": "OD  ", "version": version, "objecttype": MQOT_Q, "objectname": queue,
             "objectqmgrname": qmgr})

    def pmo(self, version: int = 1) -> bytes:
        return fap.mqpmo(self.big, self.page, version).build({"strucid": "PMO ",
                                                              "version": version})

    def gmo(self, version: int = 2, queue: str = "") -> bytes:
        return fap.mqgmo(self.big, self.page, version).build(
            {"strucid": "GMO ", "version": version, "resolvedqname": queue})

    def api(self, hobj: int, compcode: int = MQCC_OK, reason: int = 0, length: int = 0) -> bytes:
        return fap.api_header(self.big).build({"replylength": struct.pack(">I", length),
                                               "compcode": compcode, "reason": reason,
                                               "hobj": hobj})

    # -- segments -----------------------------------------------------------------------

    def tsh(self, segtype: int, flags: int, payload: bytes, request: int) -> bytes:
        kind = self.tsh_kind or ("TSHM" if self.tshm else "TSH")
        eye = kind.ljust(4).encode(EBCDIC_PAGE if self.ebcdic else "latin-1")
        rest = fap.tsh_rest(self.big).build({
            "byteorder": fap.BYTE_ORDER_BIG if self.big else fap.BYTE_ORDER_LITTLE,
            "segmenttype": segtype, "controlflags1": flags, "luwid": bytes(8),
            "encoding": self.encoding, "ccsid": self.ccsid})
        mpx = struct.pack(">II", self.conversation, request) if kind == "TSHM" else b""
        size = 8 + len(mpx) + len(rest) + len(payload)
        return eye + struct.pack(">I", size) + mpx + rest + payload

    def _header_size(self) -> int:
        kind = self.tsh_kind or ("TSHM" if self.tshm else "TSH")
        return 36 if kind == "TSHM" else 28

    def send(self, way: str, segtype: int, data: bytes, request: int,
             continuation: Callable[[int], bytes] | None = None) -> None:
        """One transmission, split into segments of at most ``max_segment`` bytes."""
        room = self.max_segment - self._header_size()
        chunks = [data[i:i + room] for i in range(0, len(data), room)] or [b""]
        for k, chunk in enumerate(chunks):
            flags = (fap.TCF_FIRST if k == 0 else 0) | (fap.TCF_LAST if k == len(chunks) - 1
                                                         else 0)
            extra = continuation(k) if continuation and k else b""
            self.sends.append((way, self.tsh(segtype, flags, extra + chunk, request)))

    def _next_request(self) -> int:
        self.request += 1
        return self.request if self.tshm else 0

    def new_msgid(self) -> bytes:
        self.msgids += 1
        return b"AMQ QM1         " + struct.pack(">Q", 0x5F00000000000000 + self.msgids)

    # -- client flows -------------------------------------------------------------------

    def mqopen(self, queue: str, hobj: int, version: int = 1) -> None:
        req = self._next_request()
        self.send("c2s", fap.MQOPEN, self.api(0) + self.od(queue, version) + self._i(0x2010), req)
        self.send("s2c", fap.MQOPEN_REPLY, self.api(hobj) + self.od(queue, version) +
                  self._i(0x2010), req)

    def mqput(self, hobj: int, queue: str, body: bytes, *, reply: bool = True,
              verb: str = "MQPUT", **md: Any) -> None:
        req = self._next_request()
        sent = self.mqmd(**md)
        data = self.api(hobj) + sent + self.pmo() + self._i(len(body)) + body
        if verb == "MQPUT1":
            data = self.api(0) + self.od(queue) + sent + self.pmo() + self._i(len(body)) + body
        segtype = fap.MQPUT1 if verb == "MQPUT1" else fap.MQPUT
        self.send("c2s", segtype, data, req)
        done = {**md, "msgid": md.get("msgid") or self.new_msgid()}
        if reply:
            back = self.mqmd(**done)
            head = self.api(0 if verb == "MQPUT1" else hobj)
            if verb == "MQPUT1":
                head += self.od(queue)
            self.send("s2c", segtype | fap.REPLY_BIT, head + back + self.pmo() + self._i(0), req)
        self.expected.append(Expected(_md_values(done if reply else md, self), body, verb,
                                      queue))

    def mqget(self, hobj: int, queue: str, body: bytes, **md: Any) -> None:
        req = self._next_request()
        self.send("c2s", fap.MQGET, self.api(hobj) + self.mqmd() + self.gmo() +
                  self._i(len(body) + 100), req)
        md = {**md, "msgid": md.get("msgid") or self.new_msgid()}
        self.send("s2c", fap.MQGET_REPLY, self.api(hobj) + self.mqmd(**md) +
                  self.gmo(queue=queue) + self._i(len(body)) + body, req)
        self.expected.append(Expected(_md_values(md, self), body, "MQGET", queue))

    def spi_open(self, queue: str, hobj: int, qprotect: bool = False) -> None:
        req = self._next_request()
        lpoo = fap.lpoo(self.big).build({"strucid": "LPOO".encode(self.page), "version": 1,
                                         "options": 0x2010})
        body = lpoo + (bytes(fap.LPOO_QPROTECT) if qprotect else b"") + self.od(queue, 2)
        for way, segtype, hdl in (("c2s", fap.SPI, 0), ("s2c", fap.SPI_REPLY, hobj)):
            self.send(way, segtype, self.api(hdl) + self._spi(fap.SPI_OPEN, "SPOU", len(body))
                      + body, req)

    def _spi(self, verb: int, inout: str, length: int) -> bytes:
        return (fap.spi_header(self.big).build({"verb": verb, "version": 1,
                                                "length": 24 + length}) +
                fap.spi_struct(self.big).build({"strucid": inout.encode(self.page),
                                                "version": 1, "length": 12}))

    def spi_put(self, hobj: int, queue: str, body: bytes, **md: Any) -> None:
        req = self._next_request()
        sppi = fap.spi_data(self.big).build({"strucid": "SPPI".encode(self.page), "version": 1,
                                             "length": 20, "options": 0, "msglength": len(body)})
        data = self.mqmd(**md) + self.pmo() + sppi + body
        self.send("c2s", fap.SPI, self.api(hobj) + self._spi(fap.SPI_PUT, "SPPU", len(data)) +
                  data, req)
        done = {**md, "msgid": md.get("msgid") or self.new_msgid()}
        back = self.mqmd(**done) + self.pmo()
        self.send("s2c", fap.SPI_REPLY, self.api(hobj) + self._spi(fap.SPI_PUT, "SPPU",
                                                                    len(back)) + back, req)
        self.expected.append(Expected(_md_values(done, self), body, "SPI PUT", queue))

    def async_message(self, hobj: int, queue: str, body: bytes, index: int = 1, **md: Any) -> None:
        """REQUEST_MSGS, then the message delivered asynchronously (several segments when
        it does not fit one)."""
        req = self._next_request()
        self.send("c2s", fap.BY_NAME["REQUEST_MSGS"], fap.request_msgs(self.big).build(
            {"version": 1, "hobj": hobj, "maxmsglength": len(body) + 1000,
             "globalmsgindex": index}), req)
        md = {**md, "msgid": md.get("msgid") or self.new_msgid()}
        data = self.mqmd(**md) + self.gmo(queue=queue) + body
        name = queue.encode(self.page)
        room = self.max_segment - self._header_size() - 24
        first_room = room - 31 - len(name) - (-(55 + len(name)) % 4)
        parts = [data[:first_room]] + [data[i:i + room] for i in range(first_room, len(data),
                                                                         room)]
        for k, part in enumerate(parts):
            head = fap.async_header(self.big).build(
                {"version": 1, "hobj": hobj, "msgindex": k, "globalmsgindex": index,
                 "segmentlength": len(part), "segmentindex": k, "selectionindex": 0})
            if k == 0:
                head += fap.async_first(self.big).build(
                    {"reason": 0, "totalmsglength": len(body), "actualmsglength": len(body),
                     "msgtoken": bytes(16), "status": 0, "qnamelength": len(name)})
                head += name + bytes(-(55 + len(name)) % 4)
            flags = (fap.TCF_FIRST if k == 0 else 0) | (fap.TCF_LAST if k == len(parts) - 1
                                                         else 0)
            self.sends.append(("s2c", self.tsh(fap.ASYNC_MESSAGE, flags, head + part, req)))
        self.expected.append(Expected(_md_values(md, self), body, "ASYNC_MESSAGE", queue))

    # -- channel flows ------------------------------------------------------------------

    def channel_message(self, queue: str, qmgr: str, body: bytes, msh: bool = True,
                        **md: Any) -> None:
        md = {**md, "msgid": md.get("msgid") or self.new_msgid()}
        xqh = ("XQH ".encode(self.page) + self._i(1) + queue.encode(self.page).ljust(
            48, " ".encode(self.page)) + qmgr.encode(self.page).ljust(48, " ".encode(self.page)))
        inner = xqh + build_mqmd({"format": "MQSTR", "encoding": self.encoding,
                                  "codedcharsetid": self.ccsid, **md}, big=self.big,
                                 ebcdic=self.ebcdic, version=1) + body
        data = inner
        if msh:
            data = fap.msh(self.big).build({"strucid": "MSH ".encode(self.page), "seqnum": 1,
                                            "datalength": len(inner), "msglength": len(inner)
                                            }) + inner
        self.send("c2s", fap.MESSAGE_DATA, data, 0)
        self.expected.append(Expected(_md_values(md, self), body, "MESSAGE_DATA",
                                      f"{queue}@{qmgr}"))


def _md_values(md: dict[str, Any], conv: Conversation) -> dict[str, Any]:
    return {"format": "MQSTR", "encoding": conv.encoding, "codedcharsetid": conv.ccsid,
            "msgid": bytes(24), **md}


# ------------------------------------------------------------------------------ TCP


@dataclass
class Packet:
    way: str  # "c2s" / "s2c"
    seq: int
    ack: int
    flags: int
    payload: bytes
    note: str = ""


@dataclass
class Endpoints:
    client: str = "10.0.0.5"
    cport: int = 51000
    server: str = "10.0.0.9"
    sport: int = 1414


def tcp_packets(conv: Conversation, mss: int = 1460, handshake: bool = True,
                coalesce: bool = False) -> list[Packet]:
    """The TCP segments of a conversation (each MQ segment cut at ``mss``)."""
    seq = {"c2s": 1000, "s2c": 50000}
    out: list[Packet] = []
    if handshake:
        out += [Packet("c2s", seq["c2s"] - 1, 0, pw.SYN, b""),
                Packet("s2c", seq["s2c"] - 1, seq["c2s"], pw.SYN | pw.ACK, b""),
                Packet("c2s", seq["c2s"], seq["s2c"], pw.ACK, b"")]
    sends = conv.sends
    if coalesce:  # consecutive segments of one direction in one stream
        merged: list[tuple[str, bytes]] = []
        for way, data in sends:
            if merged and merged[-1][0] == way:
                merged[-1] = (way, merged[-1][1] + data)
            else:
                merged.append((way, data))
        sends = merged
    for way, data in sends:
        other = "s2c" if way == "c2s" else "c2s"
        for i in range(0, len(data), mss):
            chunk = data[i:i + mss]
            out.append(Packet(way, seq[way], seq[other], pw.ACK | pw.PSH, chunk))
            seq[way] += len(chunk)
    out += [Packet("c2s", seq["c2s"], seq["s2c"], pw.FIN | pw.ACK, b""),
            Packet("s2c", seq["s2c"], seq["c2s"] + 1, pw.FIN | pw.ACK, b"")]
    return out


def reorder(packets: list[Packet], rng: random.Random, swaps: int = 3) -> list[Packet]:
    """Swap data packets with their successor (same direction): out of order."""
    out = list(packets)
    data = [i for i, p in enumerate(out[:-1]) if p.payload and out[i + 1].payload
            and out[i + 1].way == p.way]
    for i in rng.sample(data, min(swaps, len(data))):
        out[i], out[i + 1] = out[i + 1], out[i]
    return out


def retransmit(packets: list[Packet], rng: random.Random, count: int = 3) -> list[Packet]:
    """Send some data packets again a little later."""
    out = list(packets)
    data = [i for i, p in enumerate(out) if p.payload]
    for i in sorted(rng.sample(data, min(count, len(data))), reverse=True):
        p = out[i]
        out.insert(min(i + 2, len(out)), Packet(p.way, p.seq, p.ack, p.flags, p.payload,
                                                "retransmission"))
    return out


def overlap(packets: list[Packet], rng: random.Random, count: int = 2) -> list[Packet]:
    """Resend the tail of a data packet joined to the head of the next one."""
    out = list(packets)
    pairs = [i for i in range(len(out) - 1) if out[i].payload and out[i + 1].payload
             and out[i].way == out[i + 1].way
             and out[i + 1].seq == out[i].seq + len(out[i].payload)]
    for i in sorted(rng.sample(pairs, min(count, len(pairs))), reverse=True):
        a, b = out[i], out[i + 1]
        half = len(a.payload) // 2
        out.insert(i + 2, Packet(a.way, a.seq + half, a.ack, a.flags,
                                 a.payload[half:] + b.payload[:len(b.payload) // 2], "overlap"))
    return out


def ip_frames(packets: list[Packet], ends: Endpoints, start: float = 1_700_000_000.0,
              step: float = 0.001) -> list[tuple[float, bytes]]:
    """IP packets of the TCP segments, client and server by ``ends``."""
    out = []
    for k, p in enumerate(packets):
        if p.way == "c2s":
            src, dst, sp, dp = ends.client, ends.server, ends.cport, ends.sport
        else:
            src, dst, sp, dp = ends.server, ends.client, ends.sport, ends.cport
        seg = pw.tcp_segment(src, dst, sp, dp, p.seq, p.ack, p.flags, p.payload)
        out.append((start + k * step, pw.ip_packet(src, dst, seg, ident=k)))
    return out


def capture(frames: list[tuple[float, bytes]], link: int = pw.LINK_ETHERNET, *,
            pcapng: bool = False, big: bool = False, nano: bool = False,
            vlans: tuple[int, ...] = (), snaplen: int = 0, trailer: bytes = b"",
            any_duplicates: bool = False, null_big: bool = False) -> bytes:
    """The frames as a pcap or pcapng file; ``snaplen`` cuts frames; ``any_duplicates``
    records every packet twice as ``tcpdump -i any`` does for a forwarded packet."""
    out: list[pw.Frame] = []
    for t, packet in frames:
        copies = 2 if any_duplicates else 1
        for c in range(copies):
            data = pw.link_frame(link, packet, vlans=vlans, trailer=trailer, null_big=null_big,
                                 outgoing=bool(c), ifindex=2 + c)
            wire = len(data)
            if snaplen and len(data) > snaplen:
                data = data[:snaplen]
            out.append(pw.Frame(t + c * 1e-6, data, wire))
    if pcapng:
        return pw.pcapng_file([pw.PcapngSection([pw.Interface(link, tsresol=9 if nano else 6)],
                                                out, big=big)])
    return pw.pcap_file(out, link, big=big, nano=nano, snaplen=snaplen or 262144)


def pcf_command(big: bool, queue: str) -> bytes:
    """An MQADMIN PCF command: MQCMD_INQUIRE_Q with MQCA_Q_NAME (cmqcfc.h values)."""
    e = ">" if big else "<"
    name = queue.encode("latin-1")
    name += b" " * (-len(name) % 4)
    cfst = struct.pack(e + "iiiii", 4, 20 + len(name), 2016, 0, len(name)) + name
    cfin = struct.pack(e + "iiii", 3, 16, 20, 1)  # MQIA_Q_TYPE = MQQT_LOCAL
    return struct.pack(e + "iiiiiiiii", 1, 36, 3, 13, 1, 1, 0, 0, 2) + cfst + cfin


def rfh2_jms(big: bool, text: str, ccsid: int = 1208) -> bytes:
    """An MQRFH2 with the ``mcd`` and ``jms`` folders (a JMS TextMessage) and its text."""
    e = ">" if big else "<"
    folders = b""
    for xml in ("<mcd><Msd>jms_text</Msd></mcd>",
                "<jms><Dst>queue:///PAY.IN</Dst><Dlv>2</Dlv></jms>"):
        raw = xml.encode()
        raw += b" " * (-len(raw) % 4)
        folders += struct.pack(e + "i", len(raw)) + raw
    enc = ENC_BE if big else ENC_LE
    fixed = (b"RFH " + struct.pack(e + "iii", 2, 36 + len(folders), enc) +
             struct.pack(e + "i", ccsid) + b"MQSTR   " + struct.pack(e + "ii", 0, 1208))
    return fixed + folders + text.encode()


# ------------------------------------------------------------------------------ scenarios


@dataclass
class Scenario:
    """A capture file and the messages in it."""

    name: str
    data: bytes
    expected: list[Expected]
    port: int = fap.MQ_PORT
    suffix: str = ".pcap"


def c_client(conv: Conversation, big_body: int = 18000) -> Conversation:
    conv.mqopen("PAY.IN", 7)
    conv.mqput(7, "PAY.IN", b"payment 0001;EUR;12.50", correlid=b"C" * 24,
               replytoq="PAY.REPLY", putapplname="amqsput", useridentifier="app1")
    conv.mqget(7, "PAY.IN", bytes(range(256)) * (big_body // 256), msgtype=1, priority=7)
    conv.mqput(0, "SYSTEM.ADMIN.COMMAND.QUEUE", pcf_command(conv.big, "PAY.IN"), verb="MQPUT1",
               format="MQADMIN", replytoq="ADMIN.REPLY")
    return conv


def jms_client(conv: Conversation) -> Conversation:
    conv.spi_open("JMS.ORDERS", 9, qprotect=True)
    conv.spi_put(9, "JMS.ORDERS", rfh2_jms(conv.big, "<order id='1'/>"), format="MQHRF2")
    conv.mqput(9, "JMS.ORDERS", rfh2_jms(conv.big, "second"), format="MQHRF2")
    conv.async_message(9, "JMS.ORDERS", b"<order id='2'>" + b"x" * 70000 + b"</order>", index=1)
    conv.async_message(9, "JMS.ORDERS", b"short async", index=2)
    return conv


def channel_flow(conv: Conversation) -> Conversation:
    conv.channel_message("PAY.IN", "QM2", b"channel message one")
    conv.channel_message("PAY.OUT", "QM2", b"\x00\x01binary\xff" * 50)
    conv.channel_message("PAY.IN", "QM2", b"B" * 3000, correlid=b"\x01" * 24)
    return conv


def _file(conv: Conversation, rng: random.Random, *, damage: tuple[str, ...] = (),
          ends: Endpoints | None = None, **how: Any) -> bytes:
    packets = tcp_packets(conv, mss=int(how.pop("mss", 1460)),
                          coalesce=bool(how.pop("coalesce", False)))
    for d in damage:
        packets = {"reorder": reorder, "retransmit": retransmit, "overlap": overlap}[d](
            packets, rng)
    return capture(ip_frames(packets, ends or Endpoints()), **how)


def scenarios(seed: int = 0) -> list[Scenario]:
    """Every flow, byte order, code page, TSH form, link type and file format the capture
    reader supports, each as a capture whose messages tshark also shows."""
    rng = random.Random(seed)
    out: list[Scenario] = []

    def add(name: str, conv: Conversation, suffix: str = ".pcap", port: int = fap.MQ_PORT,
            **how: Any) -> None:
        ends = Endpoints(sport=port)
        if how.pop("v6", False):
            ends = Endpoints("fd00::5", 51000, "fd00::9", port)
        out.append(Scenario(name, _file(conv, rng, ends=ends, pcapng=suffix == ".pcapng", **how),
                            conv.expected, port, suffix))

    add("c-le-ethernet", c_client(Conversation()))
    add("c-be-ebcdic-tsh-vlan", c_client(Conversation(big=True, ebcdic=True, tshm=False)),
        big=True, nano=True, vlans=(100,))
    add("c-tshc-raw-trailer", c_client(Conversation(tsh_kind="TSHC", tshm=False)),
        link=pw.LINK_ETHERNET, trailer=b"\0" * 6, coalesce=True)
    add("c-segmented-be", c_client(Conversation(big=True, max_segment=4096), 20000),
        ".pcapng", big=True)
    add("jms-sll2", jms_client(Conversation()), ".pcapng", link=pw.LINK_SLL2)
    add("jms-be-ebcdic-null", jms_client(Conversation(big=True, ebcdic=True)),
        link=pw.LINK_NULL, null_big=True)
    add("channel-sll-v6", channel_flow(Conversation(tshm=False)), link=pw.LINK_SLL, v6=True)
    add("channel-be-ebcdic-loop", channel_flow(Conversation(big=True, ebcdic=True, tshm=False)),
        ".pcapng", link=pw.LINK_LOOP)
    add("c-damaged-order", c_client(Conversation()), ".pcapng",
        damage=("reorder", "retransmit", "overlap"), link=pw.LINK_RAW)
    add("c-any-duplicates", c_client(Conversation()), link=pw.LINK_SLL, any_duplicates=True)
    add("c-port-1500", c_client(Conversation()), port=1500, nano=True)
    return out


def write_large_capture(path: str, copies: int, size: int) -> None:
    """A pcap of ``copies`` connections, each putting one message of ``size`` bytes,
    streamed to ``path`` (for memory tests and benchmarks: one connection is built, the
    others are its frames with another client port; their TCP checksums are not redone)."""
    conv = Conversation()
    conv.mqopen("BIG.Q", 5)
    conv.mqput(5, "BIG.Q", bytes(range(256)) * (size // 256))
    records = [pw.link_frame(pw.LINK_ETHERNET, p)
               for _t, p in ip_frames(tcp_packets(conv), Endpoints())]
    client = bytes(int(x) for x in Endpoints().client.split("."))
    with open(path, "wb") as f:
        f.write(pw.pcap_file([], pw.LINK_ETHERNET))
        for k in range(copies):
            port = struct.pack(">H", 20000 + k % 40000)
            for rec in records:
                data = bytearray(rec)
                ip = 14  # Ethernet header, then a 20-byte IPv4 header: this writer's frames
                at = ip + 20 if data[ip + 12:ip + 16] == client else ip + 22
                data[at:at + 2] = port
                f.write(struct.pack("<IIII", 1_700_000_000 + k, 0, len(data), len(data)) + data)


# ------------------------------------------------------------------------------ documentation

DOC_DAY = "20261126"


def walkthrough(sas: list[tuple[dict[str, Any], bytes]]) -> Scenario:
    """The capture docs/captures.md reads (``testdata/mq/captures/payments.pcapng``): on one
    connection ``amqsput`` (user app1) opens PAY.IN, puts two payments and a consumer gets
    the first back; on another, SAS (user sasprod) opens SAS.IN and puts ``sas``, an
    attachment message set (each message's MQMD fields and body), one MQPUT per message."""
    pay = Conversation()
    who: dict[str, Any] = {"putapplname": "amqsput", "useridentifier": "app1", "putdate": DOC_DAY}
    pay.mqopen("PAY.IN", 7)
    pay.mqput(7, "PAY.IN", b"payment 0001;EUR;12.50", puttime="10151234", replytoq="PAY.REPLY",
              **who)
    pay.mqput(7, "PAY.IN", b"payment 0002;EUR;99.00", puttime="10154701", replytoq="PAY.REPLY",
              **who)
    pay.mqget(7, "PAY.IN", b"payment 0001;EUR;12.50", puttime="10151234", msgid=pay.new_msgid(),
              **who)
    sender = Conversation(conversation=3)
    sender.mqopen("SAS.IN", 8)
    for k, (md, body) in enumerate(sas):
        keep = {f: md[f] for f in ("msgtype", "correlid", "encoding", "codedcharsetid")
                if f in md}
        sender.mqput(8, "SAS.IN", body, format=str(md.get("format", "")).strip(),
                     putapplname="sas", useridentifier="sasprod", putdate=DOC_DAY,
                     puttime=f"101600{k:02d}", **keep)
    frames = ip_frames(tcp_packets(pay), Endpoints())
    frames += ip_frames(tcp_packets(sender), Endpoints("10.0.0.7", 51200),
                        start=frames[-1][0] + 1)
    return Scenario("payments", capture(frames, pcapng=True), pay.expected + sender.expected,
                    suffix=".pcapng")


def tls_channel() -> bytes:
    """A capture of a TLS-protected MQ channel (``testdata/mq/captures/tls.pcap``): the
    handshake's first records, nothing MQ can be read from."""
    hello = bytes([0x16, 3, 1, 0, 0x40]) + bytes(0x40)
    packets = [Packet("c2s", 999, 0, pw.SYN, b""), Packet("s2c", 4999, 1000, pw.SYN | pw.ACK, b""),
               Packet("c2s", 1000, 5000, pw.ACK | pw.PSH, hello),
               Packet("s2c", 5000, 1069, pw.ACK | pw.PSH, bytes([0x16, 3, 3, 0, 8]) + bytes(8))]
    return capture(ip_frames(packets, Endpoints("10.0.0.6", 52000)))
