"""Queue dumps written by mqtool read back as they were: messages without an MQMD
(``dmpmqmsg -dN``, RFHUtil without one), and MQMD text fields an ``A`` line cannot hold
(issue 22, fuzz root causes 1 and 6)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from mqtool.formats.mq.dumps.read import Message, QueueDump
from mqtool.formats.mq.dumps.write import full_mqmd, write_dmpmqmsg
from tests.helpers import mq

NO_MQMD = b"* Dumped by dmpmqmsg -dN\n* Qmgr  = QM1\n* Queue = Q1\n\nN\nX 41424344\n\nN\nX 45\n\n"


@pytest.mark.parametrize("out", ["file", "-"])
def test_messages_without_msgtype_convert(out: str, tmp_path: Path) -> None:
    """Before: exit 70 (KeyError 'msgtype'), with the header already on stdout for -o -."""
    dump = tmp_path / "dn.qmsg"
    dump.write_bytes(NO_MQMD)
    target = tmp_path / "back.qmsg" if out == "file" else "-"
    r = mq("messages", dump, "--to", "dmpmqmsg", "-o", target)
    assert r.status == 0, r.stderr
    text = (tmp_path / "back.qmsg").read_bytes() if out == "file" else r.stdout
    assert b"A MST 8\n" in text  # MQMT_DATAGRAM, the MQMD's initial value
    back = list(QueueDump(str(tmp_path / "back.qmsg"))) if out == "file" else None
    if back is not None:
        assert [m.body for m in back] == [b"ABCD", b"E"]
        assert back[0].mqmd == full_mqmd(Message(1, b""))


ODD = {"replytoq": "Q.WITH\r\nLINE.ENDS", "replytoqmgr": "QM\u00a0", "putapplname": "app\u0085",
       "useridentifier": "us\u20acr", "format": "MQSTR", "applidentitydata": "x\ny"}


def test_mqmd_text_fields_survive_the_round_trip() -> None:
    """Before: CR/LF became blanks, a trailing U+00A0 / U+0085 was dropped (exit 0)."""
    msg = Message(1, b"body", mqmd=dict(ODD))
    buf = io.BytesIO()
    write_dmpmqmsg([msg], buf)
    text = buf.getvalue()
    assert b"A RTQ Q.WITH  LINE.ENDS\n" in text  # the A line as near as it goes
    assert b'* mqtool mqmd replytoq = "Q.WITH\\r\\nLINE.ENDS"\n' in text
    assert b"* mqtool mqmd format" not in text  # what an A line holds gets no comment
    path = Path(__import__("tempfile").mkstemp(suffix=".qmsg")[1])
    try:
        path.write_bytes(text)
        back = list(QueueDump(str(path)))
    finally:
        path.unlink()
    assert len(back) == 1 and back[0].body == b"body" and not back[0].problems
    for name, value in ODD.items():
        assert back[0].mqmd[name] == value, name


def test_a_bad_mqmd_comment_is_a_problem(tmp_path: Path) -> None:
    dump = tmp_path / "bad.qmsg"
    dump.write_bytes(b"* x\n\nA VER 2\nA MST 8\n* mqtool mqmd msgtype = \"8\"\n"
                     b"* mqtool mqmd replytoq = [1]\nX 41\n\n")
    back = list(QueueDump(str(dump)))
    assert back[0].mqmd["msgtype"] == 8 and "replytoq" not in back[0].mqmd
    assert [p.reason.split(":")[1].strip() for p in back[0].problems] == ["line 5", "line 6"]
