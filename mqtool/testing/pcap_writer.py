"""Writes pcap and pcapng files of TCP traffic for tests: our own writer, independent of the
libraries the reader uses, so that tshark and the reader can be compared on its output.

Frames are built here byte by byte: IPv4 / IPv6 and TCP (with checksums), then a link layer
(Ethernet with 802.1Q tags, Linux cooked v1 and v2, BSD loopback in either byte order,
OpenBSD loop, raw IP). Files: pcap in either byte order with micro- or nanosecond stamps,
pcapng in either byte order with one or more interfaces. A frame can be cut (captured length
below its length), padded (an Ethernet trailer after the IP datagram), and a file can end
inside a record.

Sources: the libpcap file format (tcpdump.org "pcap-savefile", LINKTYPE values, the
LINKTYPE_LINUX_SLL / SLL2 and NULL header pages), the pcapng specification, RFC 791 /
8200 / 9293 (IPv4, IPv6, TCP headers and checksums).
"""

from __future__ import annotations

import ipaddress
import struct
from dataclasses import dataclass, field

ETH_IPV4, ETH_IPV6, ETH_VLAN = 0x0800, 0x86DD, 0x8100
LINK_NULL, LINK_ETHERNET, LINK_RAW, LINK_LOOP = 0, 1, 101, 108
LINK_SLL, LINK_SLL2 = 113, 276
AF_INET, AF_INET6_BSD = 2, 24
SYN, ACK, PSH, FIN, RST = 0x02, 0x10, 0x08, 0x01, 0x04


@dataclass
class Frame:
    """One captured frame: when, which interface, its bytes and its length on the wire."""

    time: float
    data: bytes
    length: int = 0  # on the wire (0: len(data))
    interface: int = 0

    @property
    def wire(self) -> int:
        return self.length or len(self.data)


def _checksum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    s: int = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def tcp_segment(src: str, dst: str, sport: int, dport: int, seq: int, ack: int, flags: int,
                payload: bytes = b"", window: int = 65535) -> bytes:
    """A TCP header (no options) and payload, its checksum over the pseudo header."""
    header = struct.pack("!HHIIBBHHH", sport, dport, seq % (1 << 32), ack % (1 << 32),
                         5 << 4, flags, window, 0, 0)
    s, d = ipaddress.ip_address(src), ipaddress.ip_address(dst)
    length = len(header) + len(payload)
    if s.version == 4:
        pseudo = s.packed + d.packed + struct.pack("!BBH", 0, 6, length)
    else:
        pseudo = s.packed + d.packed + struct.pack("!I3xB", length, 6)
    check = _checksum(pseudo + header + payload)
    return header[:16] + struct.pack("!H", check) + header[18:] + payload


def ip_packet(src: str, dst: str, transport: bytes, ident: int = 0) -> bytes:
    """An IPv4 or IPv6 header (by the address) around a TCP segment."""
    s, d = ipaddress.ip_address(src), ipaddress.ip_address(dst)
    if s.version == 4:
        head = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(transport), ident & 0xFFFF,
                           0x4000, 64, 6, 0, s.packed, d.packed)
        head = head[:10] + struct.pack("!H", _checksum(head)) + head[12:]
        return head + transport
    return struct.pack("!IHBB16s16s", 6 << 28, len(transport), 6, 64, s.packed,
                       d.packed) + transport


def link_frame(link: int, packet: bytes, *, vlans: tuple[int, ...] = (), outgoing: bool = False,
               null_big: bool = False, trailer: bytes = b"", ifindex: int = 2) -> bytes:
    """``packet`` (IPv4 or IPv6) behind the link layer ``link``."""
    v6 = packet[0] >> 4 == 6
    ethertype = ETH_IPV6 if v6 else ETH_IPV4
    if link == LINK_ETHERNET:
        tags = b"".join(struct.pack("!HH", ETH_VLAN, vid) for vid in vlans)
        return (b"\x02\x00\x00\x00\x00\x02" + b"\x02\x00\x00\x00\x00\x01" + tags +
                struct.pack("!H", ethertype) + packet + trailer)
    if link == LINK_SLL:
        return struct.pack("!HHH8sH", 4 if outgoing else 0, 1, 6, b"\x02\0\0\0\0\x01\0\0",
                           ethertype) + packet
    if link == LINK_SLL2:
        return struct.pack("!HHIHBB8s", ethertype, 0, ifindex, 1, 4 if outgoing else 0, 6,
                           b"\x02\0\0\0\0\x01\0\0") + packet
    if link in (LINK_NULL, LINK_LOOP):
        family = AF_INET6_BSD if v6 else AF_INET
        big = null_big or link == LINK_LOOP
        return struct.pack(">I" if big else "<I", family) + packet
    if link == LINK_RAW:
        return packet
    raise ValueError(f"link type {link} is not one this writer writes")


# ------------------------------------------------------------------------------ files


def pcap_file(frames: list[Frame], link: int, *, big: bool = False, nano: bool = False,
              snaplen: int = 262144) -> bytes:
    """A pcap file; a frame whose data is shorter than its length is written cut."""
    e = ">" if big else "<"
    magic = 0xA1B23C4D if nano else 0xA1B2C3D4
    out = [struct.pack(e + "IHHiIII", magic, 2, 4, 0, 0, snaplen, link)]
    for f in frames:
        sec = int(f.time)
        frac = round((f.time - sec) * (1e9 if nano else 1e6))
        out.append(struct.pack(e + "IIII", sec, frac, len(f.data), f.wire) + f.data)
    return b"".join(out)


def _option(e: str, code: int, value: bytes) -> bytes:
    return struct.pack(e + "HH", code, len(value)) + value + b"\0" * (-len(value) % 4)


def _block(e: str, kind: int, body: bytes) -> bytes:
    body += b"\0" * (-len(body) % 4)
    n = len(body) + 12
    return struct.pack(e + "II", kind, n) + body + struct.pack(e + "I", n)


@dataclass
class Interface:
    link: int
    snaplen: int = 262144
    tsresol: int = 6  # 10**-tsresol seconds per tick
    name: str = "eth0"


@dataclass
class PcapngSection:
    interfaces: list[Interface] = field(default_factory=lambda: [Interface(LINK_ETHERNET)])
    frames: list[Frame] = field(default_factory=list)
    big: bool = False
    simple: bool = False  # Simple Packet Blocks instead of Enhanced ones (interface 0)


def pcapng_file(sections: list[PcapngSection]) -> bytes:
    """A pcapng file of one or more sections."""
    out = []
    for sec in sections:
        e = ">" if sec.big else "<"
        out.append(_block(e, 0x0A0D0D0A, struct.pack(e + "IHHq", 0x1A2B3C4D, 1, 0, -1)))
        for itf in sec.interfaces:
            opts = (_option(e, 2, itf.name.encode()) + _option(e, 9, bytes([itf.tsresol])) +
                    _option(e, 0, b""))
            out.append(_block(e, 1, struct.pack(e + "HHI", itf.link, 0, itf.snaplen) + opts))
        for f in sec.frames:
            if sec.simple:
                out.append(_block(e, 3, struct.pack(e + "I", f.wire) + f.data))
                continue
            ticks = round(f.time * 10 ** sec.interfaces[f.interface].tsresol)
            out.append(_block(e, 6, struct.pack(e + "IIIII", f.interface, ticks >> 32,
                                                 ticks & 0xFFFFFFFF, len(f.data), f.wire)
                              + f.data))
    return b"".join(out)
