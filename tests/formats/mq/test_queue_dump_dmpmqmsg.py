"""dmpmqmsg / qload files in every display mode, as the public writer writes them."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.errors import MqtoolError
from mqtool.formats.mq.dumps.read import Message, QueueDump, sniff
from mqtool.formats.mq.dumps.write import write_dmpmqmsg

from .producers import Msg, qload_file

CID = bytes.fromhex("414D5120514D312020202020202020206A1B2C3D00000001")
MSGS = [
    Msg(b"", {"msgtype": 8, "correlid": CID}),
    Msg(b'I put "this" ~here~ in QL.A', {"msgtype": 1, "format": "MQSTR",
                                        "replytoq": "REPLY.Q", "putapplname": "amqsput"}),
    Msg(bytes(range(256)), {"msgtype": 2, "format": "", "encoding": 785,
                            "codedcharsetid": 500}),
    Msg(b"\x00leading and trailing\xff", {"msgtype": 100000, "msgseqnumber": 3}),
    Msg(b"x" * 130, {"version": 1, "msgtype": 4}),
]


def read(data: bytes, tmp_path: Path, name: str = "d.qmsg", fmt: str | None = None
         ) -> tuple[list[Message], QueueDump]:
    p = tmp_path / name
    p.write_bytes(data)
    dump = QueueDump(str(p), fmt)
    return list(dump), dump


def same_mqmd(got: Message, want: Msg) -> None:
    md = want.md()
    for name in ("msgtype", "encoding", "codedcharsetid", "msgid", "correlid", "priority",
                 "putapplname", "putdate", "puttime", "replytoqmgr", "expiry"):
        assert got.mqmd[name] == (md[name] if not isinstance(md[name], str) else md[name].rstrip())
    assert got.mqmd["format"] == md["format"].rstrip()
    if md["version"] >= 2:
        assert got.mqmd["msgseqnumber"] == md["msgseqnumber"]
    else:
        assert "msgseqnumber" not in got.mqmd  # version 1: the writer leaves them out


@pytest.mark.parametrize("mode,ascii_cols", [("hex", False), ("hex", True), ("A", False),
                                             ("p", False), ("A", True)])
@pytest.mark.parametrize("width", [25, 10, 3, 64])
def test_every_display_mode_reads_back_byte_exact(tmp_path: Path, mode: str, ascii_cols: bool,
                                                  width: int) -> None:
    data = qload_file(MSGS, mode=mode, width=width, ascii_cols=ascii_cols)
    assert sniff(data) == "dmpmqmsg"
    got, dump = read(data, tmp_path)
    assert [m.body for m in got] == [m.body for m in MSGS]
    for g, w in zip(got, MSGS, strict=True):
        same_mqmd(g, w)
        assert g.usable and not g.truncated and g.problems == []
    assert dump.errors == []


def test_writer_shapes_the_generator_follows(tmp_path: Path) -> None:
    """Spot checks of the written lines (from qloadfnc.c), so the generator is what it says."""
    assert "\nX \n\n" in qload_file(MSGS[:1]).decode()  # empty body: a bare X line, blank line
    assert "\nS \n\n" in qload_file(MSGS[:1], mode="A").decode()  # ... or a bare S line
    text = qload_file(MSGS[:2], mode="p", width=10).decode()
    assert 'S "I put ~"this~" ~~here"\nS "~~ in QL.A"\n' in text  # 2*10-2 bytes a line
    assert "A FMT MQSTR   \n" in text  # character fields blank padded
    # -dA: only invariant characters go into S lines; '"' and '~' come as X lines
    assert 'S "I put "\nX 22\nS "this"\n' in qload_file(MSGS[1:2], mode="A").decode()
    da = qload_file([Msg(b"AB\x00")], ascii_cols=True, width=10).decode()
    assert "X 414200" + " " * 16 + "<AB.>\n" in da
    assert qload_file([Msg(b"\x01a")], mode="A").decode().count("S \n") == 1  # first S empty


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("header", ["qload", "dmpmqmsg", ""])
def test_line_ends_and_headers(tmp_path: Path, eol: str, header: str) -> None:
    data = qload_file(MSGS, eol=eol, header=header, index=True)
    assert sniff(data) == "dmpmqmsg"
    got, _ = read(data, tmp_path)
    assert [m.body for m in got] == [m.body for m in MSGS]
    assert all(m.usable and not m.truncated for m in got)


def test_no_mqmd_and_char_appl_data(tmp_path: Path) -> None:
    got, _ = read(qload_file(MSGS, no_mqmd=True), tmp_path)
    assert [m.mqmd for m in got] == [{}] * len(MSGS)
    assert [m.body for m in got] == [m.body for m in MSGS]
    md = {"applidentitydata": "APP ID", "applorigindata": "ZOS1"}
    for char in (True, False):
        got, _ = read(qload_file([Msg(b"a", md)], char_appl=char), tmp_path, f"c{char}")
        assert got[0].mqmd["applidentitydata"] == "APP ID"
        assert got[0].mqmd["applorigindata"] == "ZOS1"


def test_text_lines_are_read_as_the_loader_does_and_flagged(tmp_path: Path) -> None:
    body = b"line one\nline two\n"
    data = qload_file([Msg(body), Msg(b"tab\there\n")], mode="t")
    assert b"T line one\nT line two\n" in data and b"X 09\n" in data
    got, dump = read(data, tmp_path)
    assert got[0].body == body  # each T line loads as its text and a line end
    assert got[1].body == b"tab\n\x09here\n"  # lossy: the loader puts line ends after T lines
    for m in got:
        assert not m.usable and "T (text) lines" in m.problems[0].reason
        assert m.problems[0].path.endswith(f"line {m.problems[0].path.rsplit(' ', 1)[1]}")
    assert len(dump.errors) == 2


def test_odd_digit_counts_are_an_error_at_their_line_never_merged(tmp_path: Path) -> None:
    data = b"A VER 2\nA MST 8\nX ABC\nX D\n\n"
    got, _ = read(data, tmp_path)
    (m,) = got
    assert not m.usable
    assert [p.reason for p in m.problems] == [
        "dmpmqmsg: X line 3: an odd number of hex digits; the rest of this line is lost",
        "dmpmqmsg: X line 4: an odd number of hex digits; the rest of this line is lost"]
    assert [p.path for p in m.problems] == [f"{tmp_path / 'd.qmsg'} line 3",
                                            f"{tmp_path / 'd.qmsg'} line 4"]
    assert m.body != bytes.fromhex("ABCD")


def test_escapes_the_loader_refuses_are_errors(tmp_path: Path) -> None:
    got, _ = read(b'A MST 8\nS "a~Xb"\nS "no end\n\n', tmp_path)
    (m,) = got
    assert m.body == b"ano end"
    reasons = [p.reason for p in m.problems]
    assert reasons[0].startswith("dmpmqmsg: line 2: '~' followed by 'X'")
    assert reasons[1] == "dmpmqmsg: line 3: no closing quote"
    assert not m.usable


def test_unknown_lines_are_problems_with_their_line_and_recognition_holds(tmp_path: Path) -> None:
    data = qload_file(MSGS[:2]).replace(b"A PRI 0\n", b"garbage here\n", 1)
    assert sniff(data) == "dmpmqmsg"
    got, _dump = read(data, tmp_path)
    assert [m.body for m in got] == [m.body for m in MSGS[:2]]
    line = data.split(b"\n").index(b"garbage here") + 1
    assert got[0].problems[0].reason == (f"dmpmqmsg: line {line} is not a dmpmqmsg line "
                                         "('garbage here'); ignored")
    assert got[0].usable  # in the MQMD part: no body byte lost
    # between messages: the dump holds it (exit 2), no message invented
    data2 = qload_file(MSGS[:2]).replace(b"\n\nA VER", b"\n\nstray\nA VER", 1)
    got2, dump2 = read(data2, tmp_path, "e.qmsg")
    assert len(got2) == 2 and "stray" in dump2.errors[0].reason


def test_recognised_despite_what_broke_the_old_sniffer(tmp_path: Path) -> None:
    empty = qload_file([Msg(b"")], header="")
    assert empty.splitlines()[-2] == b"X " and sniff(empty) == "dmpmqmsg"
    assert sniff(qload_file([Msg(b"")], mode="A", header="")) == "dmpmqmsg"  # bare S line
    long_comment = b"* " + b"c" * 70000 + b"\n" + qload_file(MSGS[:1])
    assert sniff(long_comment[:65536]) == "dmpmqmsg"
    cut = qload_file(MSGS[:2])
    assert sniff(cut[:cut.index(b"A COI") + 4]) == "dmpmqmsg"  # "A CO" cut
    assert sniff(b"hello world\nthis is prose\n") is None
    assert sniff(b"0123456789ABCDEF\n0123456789ABCDEF\n") is None  # plain hex is dump text


def test_a_file_cut_anywhere_is_read_up_to_the_cut(tmp_path: Path) -> None:
    msgs = [Msg(b"first message body", {"msgtype": 8}), Msg(b"\x00" * 40, {"msgtype": 1})]
    data = qload_file(msgs, width=10)
    ends = [data.index(b"\n\n", data.index(b"X ")) + 2]
    ends.append(len(data))
    for cut in range(1, len(data) + 1):
        got, _dump = read(data[:cut], tmp_path, f"cut{cut}")
        complete = sum(1 for e in ends if e <= cut)
        assert all(not m.truncated and m.usable for m in got[:complete])
        assert [m.body for m in got[:complete]] == [m.body for m in msgs[:complete]]
        rest = got[complete:]
        assert len(rest) <= 1
        for m in rest:  # the message the cut fell into
            assert m.truncated and not m.usable
            assert msgs[complete].body.startswith(m.body)
            assert "truncated" in m.problems[-1].reason and " line " in m.problems[-1].path


def test_the_mqtool_writer_round_trips_properties_and_truncation(tmp_path: Path) -> None:
    msgs = [Message(1, b"", {"msgtype": 8}, properties={"usr.colour": "blue", "n": 3,
                                                         "b": b"\x01\x02", "f": True,
                                                         "none": None, "x": 1.5}),
            Message(2, b"abc", {"msgtype": 1}, truncated=True)]
    buf = io.BytesIO()
    write_dmpmqmsg(msgs, buf)
    got, _ = read(buf.getvalue(), tmp_path)
    assert got[0].properties == msgs[0].properties and got[0].body == b""
    assert got[1].truncated and got[1].body == b"abc"


_FILE = qload_file(MSGS[:3], mode="A", width=10, ascii_cols=True, index=True)


@settings(max_examples=150, deadline=None)
@given(cut=st.integers(0, len(_FILE)), flips=st.lists(st.tuples(st.integers(0, len(_FILE) - 1),
                                                                 st.integers(0, 255)), max_size=4))
def test_mutated_files_raise_nothing_but_mqtool_errors(
        tmp_path_factory: pytest.TempPathFactory, cut: int, flips: list[tuple[int, int]]) -> None:
    tmp_path = tmp_path_factory.mktemp("example")  # one folder per example
    data = bytearray(_FILE)
    for at, value in flips:
        data[at] = value
    try:
        got, dump = read(bytes(data[:cut]), tmp_path, fmt="dmpmqmsg")
    except MqtoolError:
        return
    for m in got:
        for p in m.problems:
            assert " line " in p.path and p.reason.startswith("dmpmqmsg: ")
    for p in dump.errors:
        assert " line " in p.path
