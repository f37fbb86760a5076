"""The capture reader against tshark (Wireshark's MQ dissector), message by message: the
same messages in the same frames, every MQMD field tshark shows equal, the bodies
byte-identical (tshark's data after the MQ headers it dissects). Captures come from our own
writer (``mqtool.testing.mq_capture``) for every flow, byte order, code page, TSH form, link
type and file format; PCF bodies are read as data (``--disable-protocol mqpcf``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mqtool.formats.mq.capture.read import HEAD, CapturedMessage, CaptureReader
from mqtool.testing.mq_capture import Scenario, scenarios
from tests.formats.mq import tshark_mq

SCENARIOS = {s.name: s for s in scenarios()}


def _ours(s: Scenario, path: Path) -> list[CapturedMessage]:
    reader = CaptureReader(str(path), ports=(s.port,))
    with path.open("rb") as f:
        msgs = list(reader.read(f.read(HEAD), f))
    assert reader.errors == [], reader.errors
    assert all(isinstance(m, CapturedMessage) for m in msgs)
    return msgs  # type: ignore[return-value]


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_messages_equal_tshark(tmp_path: Path, name: str) -> None:
    s = SCENARIOS[name]
    path = tmp_path / f"{name}{s.suffix}"
    path.write_bytes(s.data)
    table = tshark_mq.rows(path, s.port)
    msgs = _ours(s, path)
    assert len(msgs) == len(s.expected) > 0
    # the same messages: tshark shows a message with its data in the frame ours ends in
    assert [m.provenance.frames[1] for m in msgs if m.provenance] == \
        tshark_mq.message_frames(table)
    for m in msgs:
        assert m.provenance is not None
        row = table[m.provenance.frames[1]]
        md_row = table[m.provenance.reply_frame or m.provenance.frames[1]]
        theirs = tshark_mq.md_of(md_row)
        assert len(theirs) == len(tshark_mq.MD_FIELDS) - (0 if "groupid" in theirs else 5)
        assert {k: m.mqmd.get(k) for k in theirs} == theirs, m.source
        data = bytes.fromhex(row.last("data.data"))
        headers = tshark_mq.headers_length(row)
        assert len(m.body) == headers + len(data) and m.body.endswith(data), m.source
        if row.last("mq.put.length"):
            assert int(row.last("mq.put.length")) == len(m.body)


def test_put_reply_msgid_is_what_tshark_shows_in_the_reply(tmp_path: Path) -> None:
    s = SCENARIOS["c-le-ethernet"]
    path = tmp_path / "c.pcap"
    path.write_bytes(s.data)
    table = tshark_mq.rows(path)
    put = _ours(s, path)[0]
    assert put.provenance is not None and put.provenance.verb == "MQPUT"
    request = tshark_mq.md_of(table[put.provenance.frames[0]])
    reply = tshark_mq.md_of(table[put.provenance.reply_frame])
    assert request["msgid"] == bytes(24)  # the application asked the queue manager for one
    assert put.mqmd["msgid"] == reply["msgid"] != bytes(24)
