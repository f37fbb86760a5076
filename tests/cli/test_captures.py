"""Network captures wherever queue dumps are read: every command on pcap / pcapng files of
IBM MQ traffic (C client, JMS, channel flows), the messages exactly as tshark (Wireshark's
MQ dissector) shows them with bodies byte-identical; provenance; conversion to queue dumps;
TLS channels, captures without MQ traffic, a missing ``pcap`` extra and bad ``--port``
values under the error contract."""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqtool.errors import ExitStatus
from mqtool.formats.mq.dumps.read import QueueDump
from mqtool.testing import mq_capture as mc
from mqtool.testing import pcap_writer as pw
from tests.formats.mq import tshark_mq
from tests.helpers import TESTDATA, mq, seed_bytes

SCENARIOS = {s.name: s for s in mc.scenarios()}
CAPTURES = TESTDATA / "mq" / "captures"
PAYMENTS = CAPTURES / "payments.pcapng"
TLS = CAPTURES / "tls.pcap"
DUMP_READERS = ("messages", "decode auto", "decode mq", "decode urb", "decode sas-attachment",
                "reassemble attachment --list", "extract mq-stats")


def _write(tmp_path: Path, name: str) -> tuple[mc.Scenario, Path]:
    s = SCENARIOS[name]
    path = tmp_path / f"{name}{s.suffix}"
    path.write_bytes(s.data)
    return s, path


def _objects(r: Any) -> list[dict[str, Any]]:
    """JSON lines (split at line ends only: text may hold U+0085, which splitlines splits at)."""
    return [json.loads(line) for line in r.text.split("\n") if line]


def _port(s: mc.Scenario) -> list[str]:
    return [] if s.port == 1414 else ["--port", str(s.port)]


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_messages_lists_what_tshark_shows(tmp_path: Path, name: str) -> None:
    """Every flow (C client, JMS, channel), byte order, code page, link type and file
    format: the same messages in the same frames, every MQMD field tshark shows equal, the
    bodies byte-identical to tshark's data after the headers it dissects."""
    s, path = _write(tmp_path, name)
    r = mq("messages", "--json", *_port(s), path)
    assert r.status == ExitStatus.OK, r.stderr
    got = _objects(r)
    table = tshark_mq.rows(path, s.port)
    assert [o["capture"]["frames"][1] for o in got] == tshark_mq.message_frames(table)
    for o, expected in zip(got, s.expected, strict=True):
        cap = o["capture"]
        row = table[cap["frames"][1]]
        theirs = tshark_mq.md_of(table[cap.get("reply_frame") or cap["frames"][1]])
        ours = {k: o["mqmd"].get(k) for k in theirs}
        assert ours == {k: v.hex().upper() if isinstance(v, bytes) else v
                        for k, v in theirs.items()}, o["source"]
        data = bytes.fromhex(row.last("data.data"))
        assert o["body_length"] == tshark_mq.headers_length(row) + len(data)
        assert o["body_sha256"] == hashlib.sha256(expected.body).hexdigest()
        assert expected.body.endswith(data)
        assert (cap["verb"], cap["queue"]) == (expected.verb, expected.queue)
        assert o["source"] == f"{path.name}: " + (
            f"frame {cap['frames'][0]}" if cap["frames"][0] == cap["frames"][1]
            else f"frames {cap['frames'][0]}–{cap['frames'][1]}") + \
            f", {cap['src']} → {cap['dst']}, " + _action(expected)


def _action(e: mc.Expected) -> str:
    verb = "channel message" if e.verb == "MESSAGE_DATA" else e.verb
    way = "to" if e.verb in ("MQPUT", "MQPUT1", "SPI PUT", "MESSAGE_DATA") else "from"
    return f"{verb} {way} {e.queue}"


def test_the_walkthrough_capture_is_what_tshark_shows() -> None:
    """The committed capture of docs/captures.md: its messages as tshark shows them."""
    table = tshark_mq.rows(PAYMENTS)
    got = _objects(mq("messages", "--json", PAYMENTS))
    assert [o["capture"]["frames"][1] for o in got] == tshark_mq.message_frames(table)
    sas = list(QueueDump(str(TESTDATA / "sas" / "mytext-win.qmsg")))
    bodies = [b"payment 0001;EUR;12.50", b"payment 0002;EUR;99.00", b"payment 0001;EUR;12.50",
              *(m.body for m in sas)]
    assert [o["body_sha256"] for o in got] == [hashlib.sha256(b).hexdigest() for b in bodies]
    for o in got:
        row = table[o["capture"]["frames"][1]]
        assert bytes.fromhex(row.last("data.data")) == bodies[o["message"] - 1]
        md = tshark_mq.md_of(table[o["capture"].get("reply_frame") or o["capture"]["frames"][1]])
        assert (o["mqmd"]["putdate"], o["mqmd"]["puttime"]) == (md["putdate"], md["puttime"])
        assert o["mqmd"]["msgid"] == md["msgid"].hex().upper()
    assert [o["mqmd"]["msgtype"] for o in got[3:]] == [m.msgtype for m in sas]


def test_the_generated_files_are_committed() -> None:
    """testdata/mq/captures/generate.py writes what is committed (the same messages for
    the dump, whose header names the mqtool version)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("gen", CAPTURES / "generate.py")
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    for path, data in gen.files().items():
        if path.suffix == ".qmsg":
            tmp = path.with_name(".generated.qmsg")
            tmp.write_bytes(data)
            try:
                fresh = [(m.mqmd, m.body) for m in QueueDump(str(tmp))]
            finally:
                tmp.unlink()
            assert fresh == [(m.mqmd, m.body) for m in QueueDump(str(path))], path
        else:
            assert path.read_bytes() == data, f"{path}: run testdata/mq/captures/generate.py"


# --------------------------------------------------------------------------- every command


@pytest.mark.parametrize("name", ["c-be-ebcdic-tsh-vlan", "jms-be-ebcdic-null", "channel-sll-v6",
                                  "c-segmented-be"])
@pytest.mark.parametrize("command", ["decode auto", "decode mq"])
def test_decoders_take_every_message_of_every_flow(tmp_path: Path, name: str,
                                                   command: str) -> None:
    """C client, JMS (MQRFH2 bodies) and channel flows: one decoded unit at least per
    message, each saying which message and where it was seen, as `messages` lists them."""
    s, path = _write(tmp_path, name)
    listed = {o["message"]: o for o in _objects(mq("messages", "--json", *_port(s), path))}
    r = mq(*command.split(), "--json", *_port(s), path)
    assert r.status == ExitStatus.OK, r.stderr
    units = _objects(r)
    assert sorted({u["message"] for u in units}) == sorted(listed) == \
        list(range(1, len(s.expected) + 1))
    for u in units:
        assert u["source"] == listed[u["message"]]["source"]
    jms = [u for u in units if u.get("properties", {}).get("jms.Dst")]
    if name.startswith("jms"):  # the MQRFH2 of each JMS message, its folders read
        assert [u["properties"]["jms.Dst"] for u in jms] == ["queue:///PAY.IN"] * 2
        assert {u["payload"]["text"] for u in jms} == {"<order id='1'/>", "second"}



def test_decode_auto_decodes_each_message_with_its_provenance() -> None:
    r = mq("decode", "auto", "--json", PAYMENTS)
    assert r.status == ExitStatus.OK, r.stderr
    units = _objects(r)
    assert [u["message"] for u in units][:3] == [1, 2, 3]
    assert units[0]["source"] == ("payments.pcapng: frame 6, 10.0.0.5:51000 → 10.0.0.9:1414, "
                                  "MQPUT to PAY.IN")
    text = [e for e in units[0]["elements"] if e["type"] == "payload"]
    assert units[0]["payload"]["text"] == "payment 0001;EUR;12.50" and text == []
    sas = [u for u in units if u["format"] == "sas-attachment"]
    assert sas[0]["role"] == "attachment header"
    assert {u["message"] for u in sas} == set(range(4, 10))


def test_decode_sas_attachment_and_reassembly_from_a_capture(tmp_path: Path) -> None:
    r = mq("decode", "sas-attachment", "--json", PAYMENTS)
    assert r.status == ExitStatus.OK, r.stderr
    roles = {u["message"]: u.get("role") for u in _objects(r)}
    assert roles[4] == "attachment header"
    r = mq("reassemble", "attachment", PAYMENTS, "-o", tmp_path / "out")
    assert r.status == ExitStatus.OK, r.stderr
    (folder,) = (tmp_path / "out").iterdir()
    assert (folder / "mytext.txt").read_bytes() == (TESTDATA / "sas" / "mytext.txt").read_bytes()
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["attachments"][0]["complete"] is True


def _urb_capture(tmp_path: Path) -> tuple[Path, list[bytes]]:
    bodies = [seed_bytes("urb/status.request.dump"), seed_bytes("urb/inst-color.data.dump")]
    conv = mc.Conversation()
    conv.mqopen("ADABAS.URB", 5)
    for b in bodies:
        conv.mqput(5, "ADABAS.URB", b, format="")
    path = tmp_path / "urb.pcap"
    path.write_bytes(mc.capture(mc.ip_frames(mc.tcp_packets(conv), mc.Endpoints())))
    return path, bodies


def test_decode_urb_and_extract_urb_read_a_capture(tmp_path: Path) -> None:
    path, bodies = _urb_capture(tmp_path)
    dump = tmp_path / "same.qmsg"
    r = mq("messages", path, "--to", "dmpmqmsg", "-o", dump)
    assert r.status == ExitStatus.OK, r.stderr
    for cmd in (["decode", "urb", "--json"], ["decode", "mq", "--json"]):
        from_capture, from_dump = mq(*cmd, path), mq(*cmd, dump)
        assert from_capture.status == from_dump.status
        strip = ("source",)
        assert [{k: v for k, v in u.items() if k not in strip} for u in _objects(from_capture)] \
            == [{k: v for k, v in u.items() if k not in strip} for u in _objects(from_dump)]
    r = mq("extract", "urb", path, "-o", tmp_path / "tables", "--to", "jsonl")
    assert r.status == ExitStatus.OK, r.stderr
    rows = (tmp_path / "tables" / "messages.jsonl").read_text().splitlines()
    assert len(rows) == len(bodies)


def test_identify_names_the_capture_format() -> None:
    r = mq("identify", "--json", PAYMENTS, TLS)
    got = [(o["format"], o["confidence"]) for o in _objects(r)]
    assert got == [("pcapng", 0.9), ("pcap", 0.9)] and r.status == ExitStatus.OK


def test_view_lists_the_messages_of_a_capture() -> None:
    from mqtool.view.sources import QueueDumpSource, open_source

    source = open_source(str(PAYMENTS))
    assert isinstance(source, QueueDumpSource)
    source.advance(60)
    assert source.description.endswith("pcapng queue dump")
    rows = [source.row(i) for i in range(len(source))]
    assert [r.where for r in rows[:3]] == ["msg 1", "msg 2", "msg 3"]
    assert source.load(0).data == b"payment 0001;EUR;12.50"


def test_ports_reach_every_command(tmp_path: Path) -> None:
    """A connection on another port, its start not captured (no TSH to find it by): read
    only when --port names the port, by every command that reads dumps."""
    conv = mc.Conversation()
    conv.mqopen("PAY.IN", 7)
    conv.mqput(7, "PAY.IN", b"on port 1500", correlid=b"C" * 24)
    packets = mc.tcp_packets(conv)
    first = next(i for i, p in enumerate(packets) if p.payload)
    head = packets[first]
    cut = mc.Packet(head.way, head.seq + 3, head.ack, head.flags, head.payload[3:])
    path = tmp_path / "p1500.pcap"
    path.write_bytes(mc.capture(mc.ip_frames([cut, *packets[first + 1:]],
                                             mc.Endpoints(sport=1500))))
    for cmd in DUMP_READERS:
        without = mq(*cmd.split(), path)
        assert without.status == ExitStatus.DECODE, (cmd, without.stderr)
        assert "no IBM MQ traffic in it: no TCP connection on port 1414" in without.stderr, cmd
        with_port = mq(*cmd.split(), "--port", "1500", path)
        assert "no IBM MQ traffic" not in with_port.stderr, (cmd, with_port.stderr)
    got = _objects(mq("messages", "--json", "--port", "1500", "--port", "1414", path))
    assert [o["capture"]["dst"] for o in got] == ["10.0.0.9:1500"]


# --------------------------------------------------------------------------- conversion


@pytest.mark.parametrize("to", ["dmpmqmsg", "mqtool-dir"])
def test_a_capture_converted_to_a_queue_dump(tmp_path: Path, to: str) -> None:
    s, path = _write(tmp_path, "jms-sll2")
    out = tmp_path / ("out.qmsg" if to == "dmpmqmsg" else "out")
    r = mq("messages", path, "--to", to, "-o", out)
    assert r.status == ExitStatus.OK, r.stderr
    back = list(QueueDump(str(out)))
    assert [m.body for m in back] == [e.body for e in s.expected]
    for m, e in zip(back, s.expected, strict=True):
        assert {k: m.mqmd.get(k) for k in e.mqmd} == e.mqmd
    again = _objects(mq("messages", "--json", out))
    first = _objects(mq("messages", "--json", path))
    keep = ("mqmd", "body_sha256", "headers", "properties", "payload")
    assert [{k: o[k] for k in keep} for o in again] == [{k: o[k] for k in keep} for o in first]
    if to == "mqtool-dir":  # the index says where each message was seen
        index = [json.loads(x) for x in (out / "index.jsonl").read_text().splitlines()]
        assert [i["capture"] for i in index] == [o["capture"] for o in first]
    else:
        text = out.read_text(encoding="utf-8")
        assert text.count("* mqtool capture jms-sll2.pcapng: frame") == len(back)


# --------------------------------------------------------------------------- the error contract


def test_a_tls_channel_is_one_line() -> None:
    line = ("testdata/mq/captures/tls.pcap: no messages in this pcap dump: 10.0.0.6:52000 ↔ "
            "10.0.0.9:1414: TLS-protected MQ channel (TLS record in frame 3); nothing to decode "
            "without the keys, offset X'0000' (0)")
    for cmd in DUMP_READERS:
        r = mq(*cmd.split(), TLS.relative_to(TESTDATA.parent))
        assert r.status == ExitStatus.DECODE, (cmd, r.stderr)
        assert r.stderr.splitlines() == [f"mqtool: queue-dump: {line}"], (cmd, r.stderr)


def test_a_tls_channel_beside_plain_ones_is_said_and_exits_2(tmp_path: Path) -> None:
    plain = mc.ip_frames(mc.tcp_packets(mc.c_client(mc.Conversation())), mc.Endpoints())
    hello = bytes([0x16, 3, 1, 0, 0x40]) + bytes(0x40)
    tls = mc.ip_frames([mc.Packet("c2s", 1000, 0, pw.ACK | pw.PSH, hello)],
                       mc.Endpoints("10.0.0.6", 52000), start=plain[-1][0] + 1)
    path = tmp_path / "mixed.pcap"
    path.write_bytes(mc.capture(plain + tls))
    r = mq("messages", path)
    assert r.status == ExitStatus.DECODE
    assert len(r.text.splitlines()) == 4  # the heading and three messages
    assert r.stderr == (f"mqtool: mixed.pcap: 10.0.0.6:52000 ↔ 10.0.0.9:1414: TLS-protected MQ "
                        f"channel (TLS record in frame {len(plain) + 1}); nothing to decode "
                        "without the keys\n")


@pytest.mark.parametrize("cmd", [*DUMP_READERS, "decode auto --json", "identify"])
def test_a_missing_pcap_extra_is_one_line_exit_4(cmd: str, monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "dpkt", None)  # import dpkt raises ImportError
    out = ["-o", str(tmp_path / "x.csv")] if cmd == "extract mq-stats" else []
    r = mq(*cmd.split(), PAYMENTS, *out)
    if cmd == "identify":  # judged by the file's magic: no packet library needed
        assert r.status == ExitStatus.OK and "pcapng" in r.text
        return
    assert r.status == ExitStatus.ENVIRONMENT, r.stderr
    assert r.stderr == ("mqtool: reading pcap / pcapng captures needs dpkt and python-pcapng: "
                        "pip install 'mqtool[pcap]'\n")
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("value", ["0", "65536", "-1", "http", "14 14", ""])
def test_bad_ports_are_usage_errors(value: str) -> None:
    for cmd in ("messages", "decode auto", "extract mq-stats"):
        r = mq(*cmd.split(), "--port", value, PAYMENTS)
        assert r.status == ExitStatus.USAGE and "Invalid value for '--port'" in r.stderr
        assert "Traceback" not in r.stderr


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(port=st.one_of(st.integers(-70000, 140000).map(str), st.text(max_size=6)))
def test_any_port_value_keeps_the_error_contract(port: str) -> None:
    r = mq("messages", "--port", port, PAYMENTS)
    assert r.status in (ExitStatus.OK, ExitStatus.USAGE, ExitStatus.DECODE), r.stderr
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    valid = re.fullmatch(r"\s*\+?[0-9]+\s*", port) is not None and 1 <= int(port) <= 65535
    assert (r.status == ExitStatus.USAGE) == (not valid), (port, r.stderr)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_damaged_captures_through_every_reader(tmp_path_factory: pytest.TempPathFactory,
                                               data: st.DataObject) -> None:
    """Cut and mutated captures: one line per problem, exit 0 or 2, never a traceback."""
    blob = bytearray(PAYMENTS.read_bytes())
    for _ in range(data.draw(st.integers(0, 6))):
        at = data.draw(st.integers(0, len(blob) - 1))
        blob[at] = data.draw(st.integers(0, 255))
    blob = blob[:data.draw(st.integers(24, len(blob)))]
    work = tmp_path_factory.mktemp("damaged")
    path = work / "damaged.pcapng"
    path.write_bytes(bytes(blob))
    cmd = data.draw(st.sampled_from(DUMP_READERS))
    r = mq(*cmd.split(), path)
    assert r.status in (ExitStatus.OK, ExitStatus.DECODE, ExitStatus.INCOMPLETE), \
        (cmd, r.stderr)
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    assert all(line.startswith("mqtool: ") for line in r.stderr.splitlines()), r.stderr
