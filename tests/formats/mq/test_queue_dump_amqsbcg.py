"""amqsbcg listings (MQ 7.x and 9.x layouts) as amqsbcg0.c prints them."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.errors import MqtoolError
from mqtool.formats.mq.dumps.read import Message, QueueDump, sniff

from .producers import Msg, amqsbcg_listing

CID = bytes.fromhex("414D5120514D312020202020202020206A1B2C3D00000001")
TEXT = "héllo wörld – ünïcode text crossing the 16-byte line ends €€€".encode()
MSGS = [
    Msg(TEXT, {"msgtype": 8, "correlid": CID, "format": "MQSTR"},
        {"usr.colour": "blue", "usr.count": 42, "usr.flag": True, "usr.raw": b"\x01\xfe",
         "usr.nothing": None, "usr.ratio": 0.25}),
    Msg(b"", {"msgtype": 1}),
    Msg(bytes(range(256)), {"msgtype": 2, "format": "", "encoding": 785,
                            "codedcharsetid": 500, "putapplname": "CICS O'BRIEN"}),
]


def read(text: str | bytes, tmp_path: Path, name: str = "b.txt") -> tuple[list[Message], QueueDump]:
    p = tmp_path / name
    p.write_bytes(text.encode("latin-1") if isinstance(text, str) else text)
    dump = QueueDump(str(p))
    return list(dump), dump


@pytest.mark.parametrize("version", [9, 7])
@pytest.mark.parametrize("utf8_locale", [True, False])
def test_listings_read_back_byte_exact_with_properties(tmp_path: Path, version: int,
                                                       utf8_locale: bool) -> None:
    text = amqsbcg_listing(MSGS, version=version, properties=True, utf8_locale=utf8_locale)
    assert sniff(text.encode("latin-1")) == "amqsbcg"
    got, dump = read(text, tmp_path)
    assert [m.body for m in got] == [m.body for m in MSGS]
    assert got[0].properties == MSGS[0].properties
    assert got[1].properties == {}  # "None"
    assert got[0].correlid == CID and got[0].mqmd["format"] == "MQSTR"
    assert got[2].mqmd["putapplname"] == "CICS O'BRIEN" and got[2].encoding == 785
    assert got[2].mqmd["originallength"] == -1 and got[2].mqmd["msgseqnumber"] == 1
    assert all(m.usable and not m.truncated and not m.problems for m in got)
    assert dump.errors == []


def test_multibyte_overrun_lines_are_as_the_sample_prints_them() -> None:
    text = amqsbcg_listing(MSGS[:1]).encode("latin-1").decode("utf-8")
    assert "00000000:  68C3 A96C 6C6F 2077 C3B6 726C 6420 E28093         'héllo wörld –'" in text
    assert "\n00000011:    20 C3BC" in text  # the next line starts one byte later


def test_a_short_browse_buffer_marks_the_message_truncated(tmp_path: Path) -> None:
    got, dump = read(amqsbcg_listing(MSGS[2:], buffer=100), tmp_path)
    (m,) = got
    assert m.body == bytes(range(100)) and m.truncated and not m.usable
    assert "shows 100 of the message's 256 bytes" in m.problems[0].reason
    assert dump.truncated == 1


def test_a_display_cut_anywhere_in_the_data_is_truncated(tmp_path: Path) -> None:
    text = amqsbcg_listing(MSGS[2:])
    start = text.index("00000000:")
    for cut in range(start, text.index(" \n \n \n No more"), 37):
        (m,), _ = read(text[:cut], tmp_path, f"c{cut}")
        assert bytes(range(256)).startswith(m.body)
        assert (m.truncated and not m.usable) or m.body == bytes(range(256))


def test_empty_browse_has_no_messages(tmp_path: Path) -> None:
    got, dump = read(amqsbcg_listing([]), tmp_path)
    assert got == [] and dump.count == 0 and dump.format == "amqsbcg"


def test_web_pasted_listing_is_read_and_flagged(tmp_path: Path) -> None:
    text = amqsbcg_listing(MSGS[:1], properties=True).encode("latin-1")
    left, right = "\u2018".encode(), "\u2019".encode()
    pasted = (text.replace(b"****", b"\\*\\*\\*\\*").replace(b"X'", b"X" + right)
              .replace(b"'\n", right + b"\n").replace(b" '", b" " + left))
    got, _ = read(pasted, tmp_path)
    (m,) = got
    assert m.body == TEXT and m.correlid == CID
    assert m.properties["usr.colour"] == "blue"
    assert "pasted through an editor" in m.problems[0].reason and m.usable


def test_data_lines_never_give_a_usable_empty_body(tmp_path: Path) -> None:
    text = amqsbcg_listing(MSGS[2:]).replace("****   Message      ****", "== Message ==")
    (m,), _ = read(text, tmp_path)
    assert m.body == bytes(range(256))
    assert "data lines without a '****   Message      ****' line" in m.problems[0].reason
    broken = amqsbcg_listing(MSGS[2:]).replace("00000010:", "00000050:")
    (m,), _ = read(broken, tmp_path, "b2.txt")
    assert not m.usable and "lines are missing" in m.problems[0].reason


def test_unreadable_hex_fields_are_problems_with_their_line(tmp_path: Path) -> None:
    text = amqsbcg_listing(MSGS[:1]).replace("CorrelId : X'414D", "CorrelId : X'Z14D")
    (m,), _ = read(text, tmp_path)
    assert m.correlid is None
    line = text.split("\n").index(next(ln for ln in text.split("\n") if "CorrelId" in ln)) + 1
    assert m.problems[0].path.endswith(f"line {line}") and "correlid" in m.problems[0].reason


def test_huge_lengths_and_long_lines_are_cheap_and_reported(tmp_path: Path) -> None:
    huge = ("AMQSBCG0 - starts here\n MQGET of message number 1\n****Message descriptor****\n"
            "  MsgType : 8\n****   Message      ****\n length - " + "9" * 4301 + " of 8 bytes\n")
    (m,), _ = read(huge, tmp_path)
    assert not m.usable and "more than 12 digits" in m.problems[0].reason
    slow = ("AMQSBCG0 - starts here\n MQGET of message number 1\n****Message descriptor****\n  "
            + "A" * 70000 + "\n")
    t = time.perf_counter()
    (m,), _ = read(slow, tmp_path, "slow.txt")
    assert time.perf_counter() - t < 2.0  # linear: 50 s before
    assert m.truncated


_LISTING = amqsbcg_listing(MSGS[:2], properties=True).encode("latin-1")


@settings(max_examples=120, deadline=None)
@given(cut=st.integers(0, len(_LISTING)), flips=st.lists(st.tuples(
    st.integers(0, len(_LISTING) - 1), st.integers(0, 255)), max_size=4))
def test_mutated_listings_raise_nothing_but_mqtool_errors(
        tmp_path_factory: pytest.TempPathFactory, cut: int, flips: list[tuple[int, int]]) -> None:
    tmp_path = tmp_path_factory.mktemp("example")  # one folder per example
    data = bytearray(_LISTING)
    for at, value in flips:
        data[at] = value
    p = tmp_path / "m.txt"
    p.write_bytes(bytes(data[:cut]))
    try:
        got = list(QueueDump(str(p), "amqsbcg"))
    except MqtoolError:
        return
    for m in got:
        assert all(pr.reason.startswith("amqsbcg: ") for pr in m.problems)
        assert m.usable or m.problems
