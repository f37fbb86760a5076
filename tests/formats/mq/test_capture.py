"""The capture reader on captures our writer made: every flow gives back the messages the
writer sent (MQMD fields, bodies, verbs, queues); every file format and link type reads the
same; damage (loss, snap-length cuts, a cut file, a start not captured, absurd TSH lengths,
TLS) is reported with frames and offsets, never bridged; hostile input never raises."""

from __future__ import annotations

import io
import random
import struct
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqtool.errors import MqtoolError
from mqtool.formats.mq.capture import fap
from mqtool.formats.mq.capture.framing import MAX_SEGMENT, Framer
from mqtool.formats.mq.capture.packets import sniff_capture
from mqtool.formats.mq.capture.read import HEAD, CapturedMessage, CaptureReader, read_capture
from mqtool.formats.mq.capture.session import Session
from mqtool.formats.mq.capture.tcp import Chunk
from mqtool.testing import mq_capture as mc
from mqtool.testing import pcap_writer as pw
from tests.formats.mq import ibm_constants

SCENARIOS = {s.name: s for s in mc.scenarios()}


def _read(data: bytes, name: str = "cap.pcap", **kw: Any) -> tuple[list[CapturedMessage],
                                                                   CaptureReader]:
    reader = CaptureReader(name, **kw)
    f = io.BytesIO(data)
    msgs = list(reader.read(f.read(HEAD), f))
    return msgs, reader  # type: ignore[return-value]


def _same(msgs: list[CapturedMessage], expected: list[mc.Expected]) -> None:
    assert len(msgs) == len(expected)
    for m, e in zip(msgs, expected, strict=True):
        assert m.body == e.body
        assert {k: m.mqmd.get(k) for k in e.mqmd} == e.mqmd
        assert m.provenance is not None
        assert (m.provenance.verb, m.provenance.queue) == (e.verb, e.queue)


def _client() -> mc.Conversation:
    conv = mc.Conversation()
    conv.mqopen("PAY.IN", 7)
    conv.mqput(7, "PAY.IN", b"first message " * 20)
    conv.mqput(7, "PAY.IN", b"second message " * 300)
    conv.mqget(7, "PAY.IN", b"third " * 50)
    return conv


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_every_flow_gives_back_what_was_sent(name: str) -> None:
    s = SCENARIOS[name]
    msgs, reader = _read(s.data, name + s.suffix, ports=(s.port,))
    _same(msgs, s.expected)
    assert reader.errors == []
    assert all(m.usable and not m.truncated for m in msgs)


def test_provenance_names_file_frames_endpoints_verb_and_queue() -> None:
    msgs, reader = _read(SCENARIOS["c-le-ethernet"].data, "capture.pcap")
    put = msgs[0]
    assert put.source == "capture.pcap: frame 6, 10.0.0.5:51000 → 10.0.0.9:1414, MQPUT to PAY.IN"
    assert put.provenance is not None and put.provenance.reply_frame == 7
    assert put.provenance.to_json() == {
        "file": "capture.pcap", "frames": [6, 6], "src": "10.0.0.5:51000",
        "dst": "10.0.0.9:1414", "verb": "MQPUT", "queue": "PAY.IN", "conversation": 1,
        "request": 2, "reply_frame": 7}
    get = msgs[1]
    assert get.source.startswith("capture.pcap: frames 9–21, 10.0.0.9:1414 → 10.0.0.5:51000, "
                                 "MQGET from PAY.IN")
    assert [m.position for m in msgs] == [1, 2, 3]
    frames = len(mc.tcp_packets(mc.c_client(mc.Conversation())))
    assert reader.summary() == (f"capture.pcap: pcap, {frames} frames (Ethernet), "
                                "1 MQ connections, 3 messages")


def test_msgid_only_the_put_reply_carries() -> None:
    conv = mc.Conversation()
    conv.mqopen("Q", 3)
    conv.mqput(3, "Q", b"x")
    sent_msgid = bytes(24)
    msgs, _ = _read(mc.capture(mc.ip_frames(mc.tcp_packets(conv), mc.Endpoints())))
    assert msgs[0].mqmd["msgid"] == conv.expected[0].mqmd["msgid"] != sent_msgid


def test_a_put_without_reply_keeps_the_mqmd_sent_and_says_so() -> None:
    conv = mc.Conversation()
    conv.mqopen("Q", 3)
    conv.mqput(3, "Q", b"no reply", reply=False)
    msgs, _ = _read(mc.capture(mc.ip_frames(mc.tcp_packets(conv), mc.Endpoints())))
    assert msgs[0].mqmd["msgid"] == bytes(24)
    assert "no MQPUT reply captured" in msgs[0].problems[0].reason
    assert msgs[0].usable


IPV4 = mc.ip_frames(mc.tcp_packets(_client()), mc.Endpoints())
IPV6 = mc.ip_frames(mc.tcp_packets(_client()), mc.Endpoints("fd00::5", 51000, "fd00::9", 1414))


@pytest.mark.parametrize(("link", "how"), [
    (pw.LINK_ETHERNET, {}), (pw.LINK_ETHERNET, {"vlans": (10, 20)}),
    (pw.LINK_ETHERNET, {"trailer": b"\xee" * 12}), (pw.LINK_SLL, {}), (pw.LINK_SLL2, {}),
    (pw.LINK_NULL, {}), (pw.LINK_NULL, {"null_big": True}), (pw.LINK_LOOP, {}),
    (pw.LINK_RAW, {}), (pw.LINK_SLL, {"any_duplicates": True})])
@pytest.mark.parametrize("frames", [IPV4, IPV6], ids=["ipv4", "ipv6"])
def test_every_link_type_reads_the_same(link: int, how: dict[str, Any],
                                        frames: list[tuple[float, bytes]]) -> None:
    msgs, reader = _read(mc.capture(frames, link, **how))
    _same(msgs, _client().expected)
    assert reader.errors == [] and reader.capture is not None
    assert list(reader.capture.linktypes) == [link]


@pytest.mark.parametrize("how", [{}, {"big": True}, {"nano": True}, {"big": True, "nano": True},
                                 {"pcapng": True}, {"pcapng": True, "big": True},
                                 {"pcapng": True, "nano": True}])
def test_every_file_format_reads_the_same(how: dict[str, Any]) -> None:
    data = mc.capture(IPV4, **how)
    assert sniff_capture(data) == ("pcapng" if how.get("pcapng") else "pcap")
    msgs, reader = _read(data)
    _same(msgs, _client().expected)
    assert reader.errors == []


def test_pcapng_sections_interfaces_and_simple_blocks() -> None:
    third = len(IPV4) // 3
    eth = [pw.Frame(t, pw.link_frame(pw.LINK_ETHERNET, p)) for t, p in IPV4[:third]]
    null = [pw.Frame(t, pw.link_frame(pw.LINK_NULL, p), interface=1)
            for t, p in IPV4[third:2 * third]]
    rest = [pw.Frame(t, pw.link_frame(pw.LINK_RAW, p)) for t, p in IPV4[2 * third:]]
    data = pw.pcapng_file([
        pw.PcapngSection([pw.Interface(pw.LINK_ETHERNET), pw.Interface(pw.LINK_NULL, name="lo")],
                         eth + null),
        pw.PcapngSection([pw.Interface(pw.LINK_RAW)], rest, big=True, simple=True)])
    msgs, reader = _read(data, "multi.pcapng")
    _same(msgs, _client().expected)
    assert reader.capture is not None
    assert reader.capture.linktypes == {pw.LINK_ETHERNET: third, pw.LINK_NULL: third,
                                        pw.LINK_RAW: len(IPV4) - 2 * third}


def _packets(conv: mc.Conversation, **kw: Any) -> list[mc.Packet]:
    return mc.tcp_packets(conv, **kw)


def test_a_lost_segment_is_a_gap_with_its_frames_never_bridged() -> None:
    packets = _packets(_client())
    big_put = [i for i, p in enumerate(packets) if len(p.payload) == 1460][1]
    del packets[big_put]  # a frame in the middle of the second MQPUT
    msgs, reader = _read(mc.capture(mc.ip_frames(packets, mc.Endpoints())))
    gap = [p.reason for p in reader.errors]
    assert len(gap) == 1 and "1460 bytes not captured after frame" in gap[0], gap
    assert f"frame {big_put + 1}" in gap[0] or f"frame {big_put}" in gap[0]
    expected = _client().expected
    assert msgs[0].body == expected[0].body
    cut = [m for m in msgs if m.truncated]
    assert cut and all(m.body != expected[1].body for m in cut)
    assert all(len(m.body) < len(expected[1].body) for m in cut)
    assert "cut at body offset" in cut[0].problems[0].reason and not cut[0].usable
    assert msgs[-1].body == expected[2].body  # the stream resynchronises on the next TSH


def test_frames_cut_by_the_snap_length() -> None:
    msgs, reader = _read(mc.capture(IPV4, snaplen=600))
    assert reader.capture is not None and reader.capture.cut > 0
    assert any("cut by the snap length" in p.reason for p in reader.errors)
    assert all(m.body == e.body for m, e in zip(msgs, _client().expected, strict=False)
               if m.usable)
    assert any(not m.usable for m in msgs) or len(msgs) < 3


@pytest.mark.parametrize("cut", [10, 23, 40, 3000, -7])
def test_a_file_that_ends_mid_record(cut: int) -> None:
    data = mc.capture(IPV4)
    msgs, reader = _read(data[:cut])
    if 0 < cut < 24:  # not even a file header
        assert reader.errors and reader.errors[0].offset <= cut
        return
    ends = [p for p in reader.errors if "ends inside" in p.reason]
    assert len(ends) == 1, reader.errors
    assert 0 <= ends[0].offset <= len(data[:cut])
    if cut < 0:  # inside the last record, a FIN: every message is there
        assert [m.body for m in msgs] == [e.body for e in _client().expected]


def test_a_connection_whose_start_was_not_captured() -> None:
    packets = _packets(_client(), handshake=False)
    packets = [packets[0], *packets[2:]]  # lose the MQOPEN reply: the handle stays unknown
    later = [p for p in packets if p.way == "c2s" and p.payload][1:]
    start = packets.index(later[0])
    half = mc.Packet(later[0].way, later[0].seq + 700, later[0].ack, later[0].flags,
                     later[0].payload[700:])
    msgs, reader = _read(mc.capture(mc.ip_frames([half, *packets[start + 1:]],
                                                 mc.Endpoints())))
    assert any("skipped: no TSH there" in p.reason for p in reader.problems)
    expected = _client().expected
    assert [m.body for m in msgs] == [e.body for e in expected[1:]]
    put, get = msgs
    assert put.provenance is not None and put.provenance.queue == ""  # its MQOPEN is lost
    assert "MQPUT to a queue opened before the capture" in put.source
    assert get.provenance is not None and get.provenance.queue == "PAY.IN"  # from its MQGMO


def test_tls_channel_is_one_line() -> None:
    hello = bytes([0x16, 3, 1, 0, 0x40]) + bytes(0x40)
    packets = [mc.Packet("c2s", 1000, 0, pw.ACK | pw.PSH, hello),
               mc.Packet("s2c", 5000, 1069, pw.ACK | pw.PSH, bytes([0x16, 3, 3, 0, 8]) + bytes(8))]
    msgs, reader = _read(mc.capture(mc.ip_frames(packets, mc.Endpoints())))
    assert msgs == []
    assert reader.tls == ["10.0.0.5:51000 ↔ 10.0.0.9:1414: TLS-protected MQ channel (TLS "
                          "record in frame 1); nothing to decode without the keys"]
    assert [p.reason for p in reader.errors] == reader.tls  # nothing decoded: an error
    assert reader.nothing_found() == ""


def test_mq_ports_reach_every_reader_made_inside() -> None:
    from mqtool.formats.mq.capture.read import mq_ports

    data = mc.capture(mc.ip_frames(mc.tcp_packets(_client()), mc.Endpoints(sport=1500)))
    with mq_ports([1500]):
        assert len(_read(data, detect=False)[0]) == 3
        with mq_ports([]):
            assert _read(data, detect=False)[1].ports == {1414}
    msgs, reader = _read(data, detect=False)
    assert msgs == [] and reader.ports == {1414}
    assert reader.nothing_found() == (
        f"no IBM MQ traffic in it: no TCP connection on port 1414 nor one starting with a TSH "
        f"({reader.capture.frames if reader.capture else 0} frames; --port names other ports)")


def test_ports_and_detection_by_eyecatcher() -> None:
    data = mc.capture(mc.ip_frames(mc.tcp_packets(_client()), mc.Endpoints(sport=1500)))
    assert len(_read(data)[0]) == 3  # found by its TSH
    assert _read(data, detect=False)[0] == []
    assert len(_read(data, ports=(1500,), detect=False)[0]) == 3


def test_channel_data_without_msh_and_split_over_segments() -> None:
    conv = mc.Conversation(tshm=False, max_segment=2000)
    conv.channel_message("PAY.IN", "QM2", b"m" * 9000, msh=False)
    conv.channel_message("PAY.IN", "QM2", b"n" * 5000, msh=True)
    msgs, _reader = _read(mc.capture(mc.ip_frames(mc.tcp_packets(conv), mc.Endpoints())))
    _same(msgs, conv.expected)
    assert sum(1 for way, _ in conv.sends) > 2


def test_absurd_tsh_length_is_skipped_and_the_stream_resynchronised() -> None:
    conv = _client()
    way, seg = conv.sends[2]  # the first MQPUT
    conv.sends[2] = (way, seg[:4] + struct.pack(">I", 0xFFFFFFF0) + seg[8:])
    msgs, reader = _read(mc.capture(mc.ip_frames(mc.tcp_packets(conv), mc.Endpoints())))
    assert [m.body for m in msgs] == [e.body for e in _client().expected[1:]]
    assert any("no TSH there" in p.reason for p in reader.problems)


def test_not_a_capture() -> None:
    msgs, reader = _read(b"this is no capture at all" * 10)
    assert msgs == [] and reader.errors[0].reason == "not a pcap or pcapng file"


def test_read_capture_on_a_file(tmp_path: Path) -> None:
    p = tmp_path / "c.pcapng"
    p.write_bytes(mc.capture(IPV4, pcapng=True))
    assert [m.body for m in read_capture(str(p))] == [e.body for e in _client().expected]


# ---------------------------------------------------------------------- hostile input


def _contract(data: bytes) -> None:
    try:
        msgs, reader = _read(data)
    except MqtoolError:
        return
    for p in reader.errors + reader.problems:
        assert p.reason and 0 <= p.offset <= len(data), p
    for m in msgs:
        assert isinstance(m.body, bytes)
        for p in m.problems:
            assert 0 <= p.offset <= len(m.body) + 1


BASE = mc.capture(mc.ip_frames(mc.tcp_packets(_client(), mss=700), mc.Endpoints()))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_captures_keep_the_error_contract(data: st.DataObject) -> None:
    buf = bytearray(BASE)
    for _ in range(data.draw(st.integers(1, 12))):
        buf[data.draw(st.integers(0, len(buf) - 1))] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(24, len(buf)))
    _contract(bytes(buf[:cut]))


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_hostile_mq_streams_keep_the_error_contract(data: st.DataObject) -> None:
    """Absurd TSH lengths, overlapping and shuffled segments, random bytes after a TSH."""
    conv = _client()
    rng = random.Random(data.draw(st.integers(0, 2**16)))
    for _ in range(data.draw(st.integers(0, 3))):
        k = rng.randrange(len(conv.sends))
        way, seg = conv.sends[k]
        length = data.draw(st.sampled_from([0, 1, 27, 35, 36, MAX_SEGMENT + 1, 0xFFFFFFFF,
                                            len(seg) + 1, len(seg) - 1]))
        conv.sends[k] = (way, seg[:4] + struct.pack(">I", length) + seg[8:])
    packets = mc.tcp_packets(conv, mss=data.draw(st.integers(50, 1460)))
    packets = mc.overlap(mc.retransmit(mc.reorder(packets, rng), rng), rng)
    _contract(mc.capture(mc.ip_frames(packets, mc.Endpoints()), snaplen=data.draw(
        st.sampled_from([0, 0, 90, 400]))))


@settings(max_examples=80, deadline=None)
@given(st.binary(min_size=0, max_size=3000))
def test_random_bytes_on_an_mq_stream(blob: bytes) -> None:
    framer, session = Framer("a → b"), Session("a ↔ b")
    for seg in framer.feed(Chunk(b"TSHM" + blob, 1)):
        session.segment("a", "b", seg)
    session.finish()
    for p in framer.problems + session.problems:
        assert p.reason


# ---------------------------------------------------------------------- memory


RSS = textwrap.dedent("""
    import resource, sys
    from mqtool.formats.mq.capture.read import read_capture
    n = total = 0
    for m in read_capture(sys.argv[1]):
        n += 1
        total += len(m.body)
    print(n, total, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
""")


@pytest.mark.slow
def test_memory_stays_bounded_on_a_large_capture(tmp_path: Path) -> None:
    small, large = tmp_path / "small.pcap", tmp_path / "large.pcap"
    mc.write_large_capture(str(small), 1, 1 << 20)
    mc.write_large_capture(str(large), 96, 1 << 20)  # about 100 MB of capture, 96 MB of message bodies
    script = tmp_path / "rss.py"
    script.write_text(RSS)

    def run(p: Path) -> tuple[int, int, int]:
        out = subprocess.run([sys.executable, str(script), str(p)], capture_output=True,
                             text=True, check=True).stdout.split()
        return int(out[0]), int(out[1]), int(out[2])

    n_small, _, rss_small = run(small)
    n_large, total, rss_large = run(large)
    assert (n_small, n_large) == (1, 96) and total >= 96 << 20
    assert large.stat().st_size > 100 << 20
    # what one message needs, not what the file holds: growth far below the 96 MB of bodies
    assert rss_large - rss_small < 40 * 1024, (rss_small, rss_large)


@pytest.mark.parametrize(("name", "declare", "versions"), [
    ("MQOD", fap.mqod, fap.OD_VERSIONS), ("MQGMO", fap.mqgmo, fap.GMO_VERSIONS),
    ("MQPMO", fap.mqpmo, fap.PMO_VERSIONS)])
def test_mqi_structure_sizes_are_ibms(name: str, declare: Any, versions: tuple[int, ...]) -> None:
    """Versions without pointer fields have IBM's lengths; those with pointers travel with
    4-byte pointers (IBM's lengths on 32-bit platforms; the vendored constants are the
    64-bit ones, where the pointers take 8 bytes and padding)."""
    ibm = ibm_constants.by_name()
    pointers = {"MQOD": (2, 3, 4), "MQPMO": (2, 3), "MQGMO": ()}[name]
    for v in versions:
        size = declare(True, "latin-1", v).size
        if v in pointers:
            assert size < ibm[f"{name}_LENGTH_{v}"], (name, v)
        else:
            assert size == ibm[f"{name}_LENGTH_{v}"], (name, v)
    assert max(versions) == ibm[f"{name}_CURRENT_VERSION"]
