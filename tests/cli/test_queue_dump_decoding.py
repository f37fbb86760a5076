"""Decoders take queue dumps: each message body is a unit, labelled with its message.

A queue unloaded with dmpmqmsg holding Event Replicator messages (seed 001 bodies, MsgType 8
= MQMT_DATAGRAM) and a SAS attachment (MsgType 100000/100001) after them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mqtool.formats.mq.dumps.read import Message, QueueDump
from mqtool.formats.mq.dumps.write import write_dmpmqmsg
from tests.helpers import TESTDATA, mq, seed_bytes

URB = ("close-destination.reply", "inst-color.data", "inst-employee.init")


@pytest.fixture
def mixed_dump(tmp_path: Path) -> Path:
    msgs = [Message(k + 1, seed_bytes(f"urb/{n}.dump"), {"msgtype": 8, "correlid": bytes(24)})
            for k, n in enumerate(URB)]
    sas = list(QueueDump(str(TESTDATA / "sas" / "mytext-zos.qmsg")))
    for k, m in enumerate(sas, len(msgs) + 1):
        m.position = k
    path = tmp_path / "queue.qmsg"
    with path.open("wb") as f:
        write_dmpmqmsg([*msgs, *sas], f)
    return path


def test_decode_urb_reads_each_message_of_a_dump(mixed_dump: Path) -> None:
    r = mq("decode", "urb", "--json", mixed_dump)
    units = [json.loads(line) for line in r.text.splitlines()]
    urb = [u for u in units if u["msgtype"] == 8]
    assert [(u["message"], u["length"], u["elements"][0]["fields"]["urbhmsnr"]) for u in urb] == [
        (1, 192, 1), (2, 592, 105), (3, 192, 8)]
    assert urb[1]["elements"][1]["fields"]["urbtsnam"] == "COLOR"
    assert urb[2]["byte_order"] == "little" and urb[2]["codepage"] == "latin-1"
    # the SAS messages are not URB messages: reported per message, exit status 2
    assert r.status == 2 and "message 4" in r.stderr


def test_decode_auto_routes_each_message(mixed_dump: Path) -> None:
    r = mq("decode", "auto", "--json", mixed_dump)
    assert r.status == 0, r.stderr
    units = [json.loads(line) for line in r.text.splitlines()]
    assert [(u["message"], u["format"]) for u in units] == [
        (1, "urb"), (2, "urb"), (3, "urb"), (4, "sas-attachment"), (5, "sas-attachment"),
        (6, "sas-attachment"), (7, "sas-attachment"), (8, "sas-attachment"), (9, "sas-attachment")]
    assert units[3]["role"] == "attachment header" and units[1]["role"].startswith("urb (")


def test_decode_auto_listing_names_each_message(mixed_dump: Path) -> None:
    lines = mq("decode", "auto", mixed_dump).text.splitlines()
    assert lines[0].startswith("format queue dump")
    assert lines[1].startswith("message 1 (") and "MsgType 8" in lines[1] and ": urb (0.95)" in lines[1]
    assert lines[2] == "URBH element at offset X'0000'"


def test_hex_dump_text_is_still_one_blob(in_root: None) -> None:
    r = mq("decode", "urb", "--hex", "testdata/urb/status.reply.dump", "--json")
    (unit,) = [json.loads(line) for line in r.text.splitlines()]
    assert "message" not in unit and unit["length"] == 192
