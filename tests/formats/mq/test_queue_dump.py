"""Queue-dump readers and writers: dmpmqmsg, amqsbcg, MQMD binaries, mqtool directories."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from mqtool.errors import InputError
from mqtool.formats.mq.dumps import read as queue_dump
from mqtool.formats.mq.dumps.read import Message, QueueDump, sniff, write_mqtool_dir
from mqtool.formats.mq.dumps.write import write_amqsbcg, write_dmpmqmsg, write_mqmd_binaries
from mqtool.formats.mq.mqmd import (
    MQMD_V1_SIZE,
    MQMD_V2_SIZE,
    build_mqmd,
    mqmd_layout,
    parse_mqmd,
    sniff_mqmd,
)
from mqtool.io.outputs import OutputDir

COI = "333333333333333333333333333333330000000200000000"
# A dmpmqmsg file as the utility writes it (header comments, the MQMD as A lines, data as X
# lines), followed by a message with S and T lines and one written with -dN (no MQMD).
DMPMQMSG = f"""\
* Dumped by dmpmqmsg Version:9.3.0.0 Created:Tue Nov 22 10:00:00 2026
* Qmgr  = QM1
* Queue = SAS.IN

A VER 2
A RPT 0
A MST 100001
A EXP -1
A FDB 0
A ENC 785
A CCS 500
A FMT
A PRI 0
A PER 1
A MSI 414D5120514D3120202020202020202065A1B2C320001234
A COI {COI}
A BOC 0
A RTQ
A RTM QM1
A USR sasuser
A ACC 0000000000000000000000000000000000000000000000000000000000000000
A AIX 53415320415050
A PAT 2
A PAN SAS
A PTD 20261122
A PTT 10000000
A AOD ZOS1
A GRP 000000000000000000000000000000000000000000000000
A MSQ 1
A OFF 0
A MSF 0
A ORL -1
X 0000000A
X C1C2C3C4C5C6c7c8 c9d1
X 00

A MST 8
A COI 000000000000000000000000000000000000000000000000
S "Tilde ~~ and ~" quote"
S "second"
T a text line
T another

N
X 48656C6C6F

"""


def _messages(text: str | bytes, tmp_path: Path, name: str = "dump.qmsg") -> list[Message]:
    p = tmp_path / name
    p.write_bytes(text.encode("latin-1") if isinstance(text, str) else text)
    return list(QueueDump(str(p)))


def test_dmpmqmsg_attributes_and_hex_lines(tmp_path: Path) -> None:
    m = _messages(DMPMQMSG, tmp_path)
    assert len(m) == 3
    first = m[0]
    assert first.msgtype == 100001 and first.correlid == bytes.fromhex(COI)
    assert first.encoding == 785 and first.ccsid == 500
    assert first.mqmd["msgid"] == bytes.fromhex("414D5120514D3120202020202020202065A1B2C320001234")
    assert first.mqmd["replytoqmgr"] == "QM1" and first.mqmd["useridentifier"] == "sasuser"
    assert first.mqmd["applidentitydata"] == "SAS APP"  # AIX: the field as hex
    assert first.mqmd["applorigindata"] == "ZOS1"  # AOD: the field as text
    assert first.mqmd["putdate"] == "20261122" and first.mqmd["originallength"] == -1
    assert first.mqmd["format"] == ""
    # X lines of any width, lower case and blanks allowed
    assert first.body == bytes.fromhex("0000000A C1C2C3C4C5C6C7C8C9D1 00")
    assert first.usable and first.problems == []
    assert first.position == 1 and first.source.endswith("dump.qmsg line 5")


def test_dmpmqmsg_string_text_and_body_only_messages(tmp_path: Path) -> None:
    _, strings, bare = _messages(DMPMQMSG, tmp_path)
    assert strings.msgtype == 8
    assert strings.body == b'Tilde ~ and " quote' + b"second" + b"a text line\nanother\n"
    assert not strings.usable  # T lines are lossy: never trusted byte-exact
    assert "T (text) lines" in strings.problems[0].reason
    assert bare.body == b"Hello" and bare.mqmd == {}
    assert bare.missing_fields() == ["MsgType", "CorrelId"]


def test_dmpmqmsg_crlf_and_block_boundaries_give_the_same_messages(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    crlf = DMPMQMSG.replace("\n", "\r\n")
    expected = [(m.mqmd, m.body, m.usable) for m in _messages(DMPMQMSG, tmp_path, "a")]
    for block in (1, 7, 64, 1 << 20):
        monkeypatch.setattr(queue_dump, "BLOCK", block)
        got = _messages(crlf, tmp_path, f"b{block}")
        assert [(m.mqmd, m.body, m.usable) for m in got] == expected


def test_dmpmqmsg_bad_hex_line_is_located_and_the_rest_is_read(tmp_path: Path) -> None:
    text = DMPMQMSG.replace("X 00\n", "X 0G\n", 1)
    m = _messages(text, tmp_path)
    assert len(m) == 3
    assert not m[0].usable
    p = m[0].problems[0]
    assert "X line 35" in p.reason and "'G' at column 4 is not a hex digit" in p.reason
    assert p.path.endswith("dump.qmsg line 35")
    assert p.offset == text.encode("latin-1").index(b"X 0G")
    assert m[0].body == bytes.fromhex("0000000AC1C2C3C4C5C6C7C8C9D1")  # what could be read
    assert m[2].body == b"Hello" and m[2].usable


def test_dmpmqmsg_empty_bodies_stay_separate_messages(tmp_path: Path) -> None:
    buf = io.BytesIO()
    msgs = [Message(i, body, {"msgtype": 8, "correlid": bytes([i]) * 24})
            for i, body in enumerate((b"", b"", b"x", b""), 1)]
    write_dmpmqmsg(msgs, buf)
    got = _messages(buf.getvalue(), tmp_path)
    assert [(m.body, m.correlid) for m in got] == [(m.body, m.correlid) for m in msgs]


def test_dmpmqmsg_bad_attribute_value_names_the_line(tmp_path: Path) -> None:
    m = _messages(DMPMQMSG.replace("A MST 100001", "A MST one"), tmp_path)
    assert m[0].msgtype is None
    assert m[0].problems[0].reason == ("dmpmqmsg: line 7: A MST value 'one' is not a number; "
                                       "field left out")
    assert m[0].problems[0].path.endswith("line 7")


AMQSBCG = """\

AMQSBCG0 - starts here
**********************

 MQOPEN - 'SAS.IN'


 MQGET of message number 1, CompCode:0 Reason:0
****Message descriptor****

  StrucId  : 'MD  '  Version : 2
  Report   : 0  MsgType : 100000
  Expiry   : -1  Feedback : 0
  Encoding : 546  CodedCharSetId : 1252
  Format : '        '
  Priority : 0  Persistence : 0
  MsgId : X'414D5120514D312020202020202020205A3C8F5820003B02'
  CorrelId : X'111111111111111111111111111111110000000000000000'
  BackoutCount : 0
  ReplyToQ       : '                                                '
  ReplyToQMgr    : 'QM1                                             '
  ** Identity Context
  UserIdentifier : 'sasuser     '
  AccountingToken :
   X'0431303030000000000000000000000000000000000000000000000000000006'
  ApplIdentityData : '                                '
  ** Origin Context
  PutApplType    : '11'
  PutApplName    : 'sas.exe                     '
  PutDate  : '20261122'    PutTime  : '10000000'
  ApplOriginData : '    '

  GroupId : X'000000000000000000000000000000000000000000000000'
  MsgSeqNumber   : '1'
  Offset         : '0'
  MsgFlags       : '0'
  OriginalLength : '-1'

****Message properties****

  None

****   Message      ****

 length - 20 of 20 bytes

00000000:  1111 1111 1111 1111 1111 1111 1111 1111 '................'
00000010:  0000 2722                               '..'"            '



 MQGET of message number 2, CompCode:0 Reason:0
****Message descriptor****

  StrucId  : 'MD  '  Version : 2
  Report   : 0  MsgType : 100001
  Encoding : 546  CodedCharSetId : 1252
  CorrelId : X'222222222222222222222222222222220000000000000000'

****   Message      ****

 length - 16 of 40 bytes

00000000:  5468 6973 2069 7320 7468 6520 6163 7475 'This is the actu'



 No more messages
 MQCLOSE
 MQDISC
"""


def test_amqsbcg_listing(tmp_path: Path) -> None:
    assert sniff(AMQSBCG.encode()) == "amqsbcg"
    first, second = _messages(AMQSBCG, tmp_path, "browse.txt")
    assert first.msgtype == 100000 and first.encoding == 546 and first.ccsid == 1252
    assert first.correlid == bytes.fromhex("11" * 16 + "00" * 8)
    assert first.mqmd["accountingtoken"] == bytes.fromhex(
        "0431303030000000000000000000000000000000000000000000000000000006")
    assert first.mqmd["putapplname"] == "sas.exe" and first.mqmd["putappltype"] == 11
    assert first.mqmd["replytoqmgr"] == "QM1" and first.mqmd["format"] == ""
    assert first.body == bytes.fromhex("11" * 16 + "00002722")  # a quote in the char column
    assert first.usable
    assert second.body == b"This is the actu"
    assert not second.usable
    assert second.problems[0].reason == ("amqsbcg: the listing shows 16 of the message's 40 "
                                         "bytes: the body is truncated")


def test_mqmd_declaration_offsets_and_both_byte_orders() -> None:
    layout = mqmd_layout()
    assert layout.size == MQMD_V2_SIZE == 364
    assert mqmd_layout(version=1).size == MQMD_V1_SIZE == 324
    assert layout.offset_of("msgtype") == 12 and layout.offset_of("correlid") == 72
    assert layout.offset_of("putdate") == 304 and layout.offset_of("groupid") == 324
    values = {"msgtype": 100001, "correlid": bytes(range(24)), "encoding": 785,
              "codedcharsetid": 500, "format": "MQSTR", "putdate": "20261122"}
    for big in (True, False):
        for ebcdic in (True, False):
            for version in (1, 2):
                raw = build_mqmd(values, big=big, ebcdic=ebcdic, version=version)
                assert len(raw) == (364 if version == 2 else 324)
                assert raw[:4] == (b"\xd4\xc4\x40\x40" if ebcdic else b"MD  ")
                assert raw[12:16] == (100001).to_bytes(4, "big" if big else "little")
                assert sniff_mqmd(raw) == (big, ebcdic, version)
                got, size, _ = parse_mqmd(raw + b"body")
                assert size == len(raw)
                assert {k: got[k] for k in values} == values


def test_mqmd_binary_files_and_directories(tmp_path: Path) -> None:
    msgs = [Message(1, b"\x00\x01body", {"msgtype": 100000, "correlid": b"\x11" * 24,
                                          "encoding": 785, "codedcharsetid": 37}),
            Message(2, b"windows", {"msgtype": 100001, "correlid": b"\x22" * 24,
                                    "encoding": 546, "codedcharsetid": 1252})]
    out = OutputDir(tmp_path / "bins")
    write_mqmd_binaries(msgs, out)
    one = (tmp_path / "bins" / "000001.bin").read_bytes()
    assert one[:8] == bytes.fromhex("D4C4404000000002")  # z/OS: EBCDIC eyecatcher, big-endian
    two = (tmp_path / "bins" / "000002.bin").read_bytes()
    assert two[:8] == b"MD  \x02\x00\x00\x00"  # Windows: ASCII, little-endian
    assert sniff(one) == sniff(two) == "mqmd-binary"
    got = list(QueueDump(str(tmp_path / "bins")))
    assert [(m.msgtype, m.correlid, m.body) for m in got] == [
        (100000, b"\x11" * 24, b"\x00\x01body"), (100001, b"\x22" * 24, b"windows")]
    single = list(QueueDump(str(tmp_path / "bins" / "000002.bin")))
    assert single[0].encoding == 546 and single[0].body == b"windows"


def test_mqtool_directory_round_trip_and_hostile_index(tmp_path: Path) -> None:
    msgs = [Message(1, b"abc", {"msgtype": 100001, "correlid": b"\x33" * 16 + bytes(8),
                                "putdate": "20261122"}),
            Message(2, b"", {"msgtype": 100001, "correlid": b"\x44" * 24})]
    write_mqtool_dir(msgs, OutputDir(tmp_path / "d"))
    index = (tmp_path / "d" / "index.jsonl").read_text().splitlines()
    assert json.loads(index[0]) == {"seq": 1, "file": "000001.bin", "msgtype": 100001,
                                    "correlid": "33" * 16 + "00" * 8, "putdate": "20261122"}
    assert sniff((tmp_path / "d" / "index.jsonl").read_bytes()) == "mqtool-dir"
    got = list(QueueDump(str(tmp_path / "d")))
    assert [(m.position, m.msgtype, m.correlid, m.body) for m in got] == [
        (1, 100001, b"\x33" * 16 + bytes(8), b"abc"), (2, 100001, b"\x44" * 24, b"")]
    (tmp_path / "secret").write_bytes(b"do not read")
    with (tmp_path / "d" / "index.jsonl").open("a") as f:
        f.write('{"seq": 3, "file": "../secret", "msgtype": 8, "correlid": "' + "00" * 20 + '"}\n')
        f.write("not json\n")
    third, fourth = list(QueueDump(str(tmp_path / "d")))[2:]
    assert third.body == b"" and not third.usable
    assert "outside the dump directory" in third.problems[0].reason
    assert third.correlid == bytes(24)  # a 20-byte (MSMQ) correlid is padded
    assert "line 4 is not a JSON object" in fourth.problems[0].reason


def test_directory_of_dmpmqmsg_files_in_natural_order(tmp_path: Path) -> None:
    d = tmp_path / "perfile"
    d.mkdir()
    for n in (1, 2, 10):
        buf = io.BytesIO()
        write_dmpmqmsg([Message(1, f"msg{n}".encode(), {"msgtype": 8, "correlid": bytes(24)})],
                       buf)
        (d / f"msg{n}.qmsg").write_bytes(buf.getvalue())
    got = list(QueueDump(str(d)))
    assert [m.body for m in got] == [b"msg1", b"msg2", b"msg10"]
    assert [m.position for m in got] == [1, 2, 3]


def test_writers_round_trip(tmp_path: Path) -> None:
    body = bytes(range(256)) * 3
    msgs = [Message(1, body, {"msgtype": 100001, "correlid": b"\x55" * 24, "encoding": 273,
                              "codedcharsetid": 819, "putapplname": "x"})]
    for writer, kwargs in ((write_dmpmqmsg, {"width": 7}), (write_dmpmqmsg, {"width": 500}),
                           (write_amqsbcg, {})):
        buf = io.BytesIO()
        writer(msgs, buf, **kwargs)
        got = _messages(buf.getvalue(), tmp_path, "w")
        assert [(m.body, m.msgtype, m.correlid, m.encoding, m.ccsid) for m in got] == [
            (body, 100001, b"\x55" * 24, 273, 819)]


def test_sniff_and_detection() -> None:
    assert sniff(DMPMQMSG.encode()) == "dmpmqmsg"
    assert sniff(b"A MST 8\nX 00\n") == "dmpmqmsg"
    assert sniff(b"N\nX 48656C6C6F\n") == "dmpmqmsg"
    assert sniff(b"\x00\x01\x02 binary junk") is None
    assert sniff(b"hello world\n") is None
    assert sniff(b'{"a": 1}\n') is None
    assert sniff(b"MD  \x00\x00\x00\x07") is None  # no version 1/2


def test_unknown_input_is_refused_with_the_kinds_listed(tmp_path: Path) -> None:
    p = tmp_path / "junk.bin"
    p.write_bytes(b"\x00junk")
    with pytest.raises(InputError, match="not a queue dump mqtool knows"):
        list(QueueDump(str(p)))
    with pytest.raises(InputError, match="no such file"):
        list(QueueDump(str(tmp_path / "missing")))


def test_mqtool_dir_refuses_fifos_and_devices_without_opening_them(tmp_path: Path) -> None:
    import os
    import time

    d = tmp_path / "d"
    d.mkdir()
    os.mkfifo(d / "fifo")
    (d / "dev").symlink_to("/dev/zero")  # a device inside the tree by name: refused
    (d / "ok.bin").write_bytes(b"fine")
    cid = "11" * 24
    (d / "index.jsonl").write_text(
        f'{{"seq":1,"file":"fifo","msgtype":100000,"correlid":"{cid}"}}\n'
        f'{{"seq":2,"file":"ok.bin","msgtype":8,"correlid":"{cid}","truncated":true}}\n'
        f'{{"seq":3,"file":"dev","msgtype":8,"correlid":"{cid}"}}\n')
    t = time.perf_counter()
    got = list(QueueDump(str(d)))
    assert time.perf_counter() - t < 5  # a FIFO read would block forever
    assert not got[0].usable and "not a regular file" in got[0].problems[0].reason
    assert got[0].problems[0].path.endswith("index.jsonl line 1")
    assert got[1].body == b"fine" and got[1].truncated and not got[1].usable
    assert not got[2].usable and got[2].body == b""  # /dev/zero is never read
