"""Capture files -> frames -> TCP segments, with dpkt (pcap, link layers, IP, TCP) and
python-pcapng (pcapng sections, interfaces and packet blocks).

What ``tcpdump`` and Wireshark write: pcap in either byte order with micro- or nanosecond
time stamps, pcapng (several sections and interfaces, each with its own link type); link
types Ethernet (802.1Q / QinQ tags), Linux cooked capture v1 and v2 (``tcpdump -i any``),
BSD loopback / null (either byte order), OpenBSD loop and raw IPv4 / IPv6; IPv4 and IPv6.
A frame longer than its IP datagram (Ethernet padding, a trailer) is cut to the datagram;
a frame the snap length cut is passed on with its declared TCP length, so the bytes it lacks
become a gap. A file that ends inside a record, or a record length no capture writes, ends
the file with a problem naming the byte offset.

Sources: the libpcap file format (tcpdump.org, "pcap-savefile" and LINKTYPE values), the
pcapng specification (IETF draft "PCAP Next Generation Dump File Format").
"""

from __future__ import annotations

import ipaddress
import struct
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

from mqtool.errors import EnvError
from mqtool.model import Problem

PCAP_MAGICS = {b"\xa1\xb2\xc3\xd4", b"\xd4\xc3\xb2\xa1", b"\xa1\xb2\x3c\x4d", b"\x4d\x3c\xb2\xa1"}
PCAPNG_MAGIC = b"\x0a\x0d\x0d\x0a"
_PCAP_HEADER = struct.Struct("<IHHiIII")  # magic, version, zone, sigfigs, snaplen, link type
_PCAPNG_START = struct.Struct("4s4s4s")  # block type, block length, byte-order magic
MAX_RECORD = 16 * 1024 * 1024  # larger than any record a capture tool writes

# LINKTYPE_* values (tcpdump.org link-layer header types)
LINK_NULL, LINK_ETHERNET, LINK_RAW, LINK_LOOP = 0, 1, 101, 108
LINK_RAW_ALT = (12, 14)  # DLT_RAW on OpenBSD / BSD/OS, as some pcap files carry it
LINK_SLL, LINK_SLL2, LINK_IPV4, LINK_IPV6 = 113, 276, 228, 229
LINK_TYPES = {LINK_NULL: "BSD loopback", LINK_ETHERNET: "Ethernet", LINK_RAW: "raw IP",
              12: "raw IP", 14: "raw IP", LINK_LOOP: "OpenBSD loopback",
              LINK_SLL: "Linux cooked v1", LINK_SLL2: "Linux cooked v2",
              LINK_IPV4: "raw IPv4", LINK_IPV6: "raw IPv6"}
TCP_PROTO = 6
_ACK = 0x10
_BLOCK_TYPE = 4  # a pcapng block starts with its 4-byte type: 0 of them is the end


def sniff_capture(head: bytes) -> str | None:
    """``pcap`` or ``pcapng`` for the first bytes of a capture file, else None."""
    if len(head) < _PCAP_HEADER.size:
        return None
    magic, _length, order = _PCAPNG_START.unpack_from(head)
    if magic in PCAP_MAGICS:
        return "pcap"
    if magic == PCAPNG_MAGIC and order in (b"\x1a\x2b\x3c\x4d", b"\x4d\x3c\x2b\x1a"):
        return "pcapng"
    return None


@dataclass(frozen=True, slots=True)
class Segment:
    """One TCP segment of a frame."""

    frame: int  # 1-based frame number, as Wireshark counts
    time: float
    src: str  # "10.0.0.5" / "fe80::1"
    sport: int
    dst: str
    dport: int
    seq: int
    flags: int  # TCP flags (SYN 0x02, FIN 0x01, RST 0x04)
    data: bytes  # the payload bytes captured
    length: int  # the payload length the IP header declares (> len(data): cut frame)
    at: int = 0  # byte offset of the frame's record in the capture file
    ack: int = -1  # the acknowledgement number (-1: no ACK flag)


class CaptureFormatError(Exception):
    """The capture file itself is damaged: where and why (our own, from the guard)."""

    def __init__(self, offset: int, reason: str) -> None:
        self.offset, self.reason = offset, reason
        super().__init__(reason)


class _Guard:
    """The capture stream as the libraries read it: serves the head already read, counts
    the offset, refuses record lengths no capture writes and remembers a short read."""

    def __init__(self, head: bytes, f: IO[bytes]) -> None:
        self.head, self.f, self.pos = head, f, 0
        self.short: tuple[int, int, int] | None = None  # (offset, wanted, got)

    def read(self, n: int = -1) -> bytes:
        if n is None or n < 0:
            raise CaptureFormatError(self.pos, "a reader asked for the whole file")
        if n > MAX_RECORD:
            raise CaptureFormatError(self.pos, f"record length {n} is larger than any "
                                               f"capture tool writes ({MAX_RECORD})")
        data = b""
        if self.pos < len(self.head):
            data = self.head[self.pos:self.pos + n]
        if len(data) < n:
            data += self.f.read(n - len(data))
        if len(data) < n and n:
            self.short = (self.pos, n, len(data))
        self.pos += len(data)
        return data

    def tell(self) -> int:
        return self.pos

    def seek(self, *args: Any) -> int:  # the libraries never need it; refuse clearly
        raise CaptureFormatError(self.pos, "the capture reader cannot seek")


def _libraries() -> tuple[Any, Any]:
    try:
        import dpkt
        import pcapng

        # python-pcapng warns about its own option declarations while reading
        warnings.filterwarnings("ignore", category=DeprecationWarning, module="pcapng")
    except ImportError:
        raise EnvError("reading pcap / pcapng captures needs dpkt and python-pcapng: "
                       "pip install 'mqtool[pcap]'") from None
    return dpkt, pcapng


class CaptureFile:
    """The frames of one pcap or pcapng file as TCP segments, streamed.

    ``problems`` says what was skipped or cut (frame numbers, byte offsets); ``errors``
    what ended the file early. ``linktypes`` counts the link types seen.
    """

    def __init__(self, name: str, head: bytes, f: IO[bytes]) -> None:
        self.name = name
        self.kind = sniff_capture(head) or ""
        self.guard = _Guard(head, f)
        self.problems: list[Problem] = []
        self.errors: list[Problem] = []
        self.linktypes: dict[int, int] = {}
        self.frames = 0
        self.cut = 0  # frames the snap length cut inside TCP data
        self._dpkt, self._pcapng = _libraries()

    def segments(self) -> Iterator[Segment]:
        for number, ts, link, data, at in self._frames():
            self.frames = number
            self.linktypes[link] = self.linktypes.get(link, 0) + 1
            seg = self._segment(number, ts, link, data, at)
            if seg is not None:
                yield seg

    # -- file formats -------------------------------------------------------------------

    def _frames(self) -> Iterator[tuple[int, float, int, bytes, int]]:
        dpkt = self._dpkt
        try:
            if self.kind == "pcap":
                yield from self._pcap()
            elif self.kind == "pcapng":
                yield from self._pcapng_frames()
            else:
                self.errors.append(Problem(self.name, 0, "not a pcap or pcapng file"))
        except CaptureFormatError as e:
            self.errors.append(Problem(self.name, e.offset, f"{self.kind}: {e.reason}"))
        except (dpkt.UnpackError, ValueError, self._pcapng.exceptions.PcapngException) as e:
            at = self.guard.short[0] if self.guard.short else self.guard.pos
            self.errors.append(Problem(self.name, at, f"{self.kind}: {_why(e, self.guard)}"))

    def _pcap(self) -> Iterator[tuple[int, float, int, bytes, int]]:
        reader = self._dpkt.pcap.Reader(self.guard)
        link = reader.datalink()
        n = 0
        start = self.guard.pos
        for ts, buf in reader:
            n += 1
            if self.guard.short:
                at, want, got = self.guard.short
                self.errors.append(Problem(self.name, at, f"pcap: the file ends inside record "
                                           f"{n} (frame {n}): {got} of {want} bytes"))
                if got:
                    yield n, float(ts), link, buf, start
                return
            yield n, float(ts), link, buf, start
            start = self.guard.pos
        if self.guard.short and self.guard.short[2]:  # 0 bytes: the end between records
            at, want, got = self.guard.short
            self.errors.append(Problem(self.name, at, f"pcap: the file ends inside the header "
                                       f"of record {n + 1}: {got} of {want} bytes"))

    def _pcapng_frames(self) -> Iterator[tuple[int, float, int, bytes, int]]:
        blocks = self._pcapng.blocks
        n = 0
        start = self.guard.pos
        for block in self._pcapng.FileScanner(self.guard):
            at, start = start, self.guard.pos
            if isinstance(block, blocks.EnhancedPacket | blocks.SimplePacket |
                          blocks.ObsoletePacket):
                n += 1
                try:
                    link = int(block.interface.link_type)
                except (KeyError, IndexError, AttributeError):
                    self.problems.append(Problem(self.name, at, f"pcapng: frame {n} belongs to "
                                                 "an interface the file does not describe"))
                    continue
                ts = float(getattr(block, "timestamp", 0.0) or 0.0)
                yield n, ts, link, bytes(block.packet_data), at
        if self.guard.short and self.guard.short[1:] != (_BLOCK_TYPE, 0):
            at, want, got = self.guard.short
            self.errors.append(Problem(self.name, at, f"pcapng: the file ends inside a block "
                                       f"after frame {n}: {got} of {want} bytes"))

    # -- link layers, IP, TCP -----------------------------------------------------------

    def _segment(self, n: int, ts: float, link: int, data: bytes, at: int) -> Segment | None:
        dpkt = self._dpkt
        try:
            ip = self._network(link, data)
        except (dpkt.UnpackError, ValueError, IndexError) as e:
            self.problems.append(Problem(self.name, at, f"frame {n}: link layer "
                                         f"{LINK_TYPES.get(link, link)} unreadable ({e})"))
            return None
        if ip is None:
            return None
        return self._tcp(n, ts, ip, at)

    def _network(self, link: int, data: bytes) -> Any:
        dpkt = self._dpkt
        if link == LINK_ETHERNET:
            pkt = dpkt.ethernet.Ethernet(data).data
        elif link == LINK_SLL:
            pkt = dpkt.sll.SLL(data).data
        elif link == LINK_SLL2:
            pkt = dpkt.sll2.SLL2(data).data
        elif link in (LINK_NULL, LINK_LOOP):
            pkt = dpkt.loopback.Loopback(data).data
        elif link in (LINK_RAW, *LINK_RAW_ALT, LINK_IPV4, LINK_IPV6):
            version = data[0] >> 4 if data else 0
            pkt = dpkt.ip.IP(data) if version == 4 else dpkt.ip6.IP6(data) if version == 6 \
                else None
        else:
            if link not in self.linktypes or self.linktypes[link] == 1:
                self.problems.append(Problem(self.name, 0, f"link type {link} is not one "
                                             "mqtool reads; its frames are skipped"))
            return None
        return pkt if isinstance(pkt, dpkt.ip.IP | dpkt.ip6.IP6) else None

    def _tcp(self, n: int, ts: float, ip: Any, at: int) -> Segment | None:
        dpkt = self._dpkt
        if isinstance(ip, dpkt.ip.IP):
            if ip.p != TCP_PROTO:
                return None
            if ip.offset or ip.mf:
                self.problems.append(Problem(self.name, at, f"frame {n}: IP fragment "
                                             "skipped (fragmented TCP is not reassembled)"))
                return None
            header = ip.hl * 4
            declared = (ip.len - header) if ip.len else None
            src, dst = ipaddress.ip_address(ip.src), ipaddress.ip_address(ip.dst)
        else:
            if ip.nxt != TCP_PROTO and not isinstance(ip.data, dpkt.tcp.TCP):
                return None
            declared = ip.plen - _ext_length(ip) if ip.plen else None
            src, dst = ipaddress.ip_address(ip.src), ipaddress.ip_address(ip.dst)
        tcp = ip.data
        if not isinstance(tcp, dpkt.tcp.TCP):
            if isinstance(tcp, bytes | bytearray) and len(tcp) < 20:
                self.cut += 1
                self.problems.append(Problem(self.name, at, f"frame {n}: TCP header cut by "
                                             "the snap length; frame skipped"))
            return None
        payload = bytes(tcp.data)
        length = len(payload)
        if declared is not None:
            length = max(length, declared - tcp.off * 4)
        if length > len(payload):
            self.cut += 1
        return Segment(n, ts, str(src), tcp.sport, str(dst), tcp.dport, tcp.seq, tcp.flags,
                       payload, length, at, tcp.ack if tcp.flags & _ACK else -1)


def _ext_length(ip6: Any) -> int:
    """Bytes of IPv6 extension headers before the upper-layer header."""
    return sum(len(bytes(h)) for h in getattr(ip6, "extension_hdrs", {}).values()
               if h is not None)


def _why(e: Exception, guard: _Guard) -> str:
    if guard.short:
        at, want, got = guard.short
        return f"the file ends inside a record: {got} of {want} bytes at offset {at}"
    return str(e) or type(e).__name__
