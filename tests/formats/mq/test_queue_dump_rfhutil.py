"""RFHUtil save files and single-message files (DataArea::saveMsgs)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.errors import MqtoolError
from mqtool.formats.mq.dumps.read import Message, QueueDump, sniff

from .producers import Msg, rfhutil_file

RFH2 = (b"RFH \x00\x00\x00\x02\x00\x00\x00\x28\x00\x00\x01\x11\x00\x00\x04\xb8MQSTR   "
        b"\x00\x00\x00\x00\x00\x00\x04\xb8")
MSGS = [
    Msg(b"first body", {"msgtype": 8, "correlid": b"\x11" * 24}),
    Msg(b"", {"msgtype": 1}, {"usr.colour": "blue", "usr.n": 7, "usr.ok": True,
                              "usr.raw": b"\x00\xff", "usr.nil": None, "usr.r": 2.5}),
    Msg(RFH2 + b"payload with #@#@# inside", {"msgtype": 2, "format": "MQHRF2"}),
]


def read(data: bytes, tmp_path: Path, fmt: str | None = None) -> list[Message]:
    p = tmp_path / "save.msg"
    p.write_bytes(data)
    return list(QueueDump(str(p), fmt))


@pytest.mark.parametrize("big", [False, True])
def test_save_file_with_mqmds_splits_into_its_messages(tmp_path: Path, big: bool) -> None:
    data = rfhutil_file(MSGS, big=big)
    assert sniff(data) == "rfhutil"
    got = read(data, tmp_path)
    assert [m.body for m in got] == [m.body for m in MSGS]  # '#@#@#' in a body stays
    assert [m.msgtype for m in got] == [8, 1, 2]
    assert got[0].correlid == b"\x11" * 24 and got[2].mqmd["format"] == "MQHRF2"
    assert got[1].properties == MSGS[1].properties
    assert all(m.usable and not m.problems for m in got)


def test_save_file_without_mqmds_splits_at_every_separator(tmp_path: Path) -> None:
    msgs = [Msg(b"one"), Msg(b"two"), Msg(b"")]
    data = rfhutil_file(msgs, include_mqmd=False)
    got = read(data, tmp_path, "rfhutil")
    assert [m.body for m in got] == [b"one", b"two", b""]
    assert all(m.mqmd == {} for m in got)


def test_single_message_files(tmp_path: Path) -> None:
    one = rfhutil_file(MSGS[:1])
    assert sniff(one) == "mqmd-binary"  # an MQMD and data: the same thing
    assert read(one, tmp_path)[0].body == b"first body"
    body_only = RFH2 + b"payload"
    assert sniff(body_only) == "rfhutil"  # an RFH2 header kept in the body
    (m,) = read(body_only, tmp_path)
    assert m.body == body_only and m.mqmd == {}


def test_a_file_cut_in_an_mqmd_is_truncated(tmp_path: Path) -> None:
    data = rfhutil_file(MSGS[:2])
    cut = data.index(b"#@#@#") + 5 + 100
    got = read(data[:cut], tmp_path)
    assert got[0].body == b"first body" and got[-1].truncated and not got[-1].usable


_FILE = rfhutil_file(MSGS)


@settings(max_examples=100, deadline=None)
@given(cut=st.integers(0, len(_FILE)), flips=st.lists(st.tuples(st.integers(0, len(_FILE) - 1),
                                                                 st.integers(0, 255)), max_size=4))
def test_mutated_save_files_raise_nothing_but_mqtool_errors(
        tmp_path_factory: pytest.TempPathFactory, cut: int, flips: list[tuple[int, int]]) -> None:
    tmp_path = tmp_path_factory.mktemp("example")  # one folder per example
    data = bytearray(_FILE)
    for at, value in flips:
        data[at] = value
    try:
        got = read(bytes(data[:cut]), tmp_path, "rfhutil")
    except MqtoolError:
        return
    for m in got:
        assert all(p.reason.startswith("rfhutil: ") for p in m.problems)
