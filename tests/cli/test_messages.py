"""mqtool messages: table, --json keys, filters, conversion, exit statuses, round trips."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.errors import ExitStatus
from mqtool.formats.mq.dumps.read import Message, QueueDump
from mqtool.formats.mq.dumps.write import full_mqmd
from tests.formats.mq.producers import Msg, amqsbcg_listing, qload_file, rfhutil_file
from tests.helpers import mq

KEYS = ["message", "source", "mqmd", "put_time", "properties", "headers", "payload",
        "body_length", "body_sha256", "truncated", "problems"]
CID = "414D5120514D312020202020202020206A1B2C3D00000001"
MSGS = [
    Msg(b"Hello MQ", {"msgtype": 8, "correlid": bytes.fromhex(CID), "format": "MQSTR"},
        {"usr.colour": "blue", "usr.n": 3}),
    Msg(b"", {"msgtype": 1, "format": ""}),
    Msg("\u00c4rger".encode("cp500"), {"msgtype": 2, "format": "MQSTR", "codedcharsetid": 500}),
]
WRITERS = {
    "dmpmqmsg": lambda: qload_file(MSGS),
    "dmpmqmsg-dA": lambda: qload_file(MSGS, mode="A", eol="\r\n"),
    "dmpmqmsg-dp-da": lambda: qload_file(MSGS, mode="p", ascii_cols=True, width=10),
    "amqsbcg": lambda: amqsbcg_listing(MSGS, properties=True).encode("latin-1"),
    "amqsbcg-7": lambda: amqsbcg_listing(MSGS, version=7, properties=True).encode("latin-1"),
    "rfhutil": lambda: rfhutil_file(MSGS),
}


def objects(r) -> list[dict]:  # type: ignore[no-untyped-def]
    return [json.loads(line) for line in r.text.splitlines()]


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_json_keys_and_values_for_every_reader(tmp_path: Path, writer: str) -> None:
    dump = tmp_path / f"{writer}.dump"
    dump.write_bytes(WRITERS[writer]())
    r = mq("messages", "--json", dump)
    assert r.status == ExitStatus.OK, r.stderr
    got = objects(r)
    assert [list(o) for o in got] == [KEYS] * 3
    first = got[0]
    assert first["message"] == 1 and first["source"].startswith(str(dump))
    assert first["mqmd"]["msgtype"] == 8 and first["mqmd"]["correlid"] == CID
    assert first["mqmd"]["format"] == "MQSTR"
    assert first["put_time"] == "2026-11-23T18:00:00.000000Z"  # PutDate 20261123, 18000000
    # qload files have no form for properties; amqsbcg and RFHUtil show them
    props = {} if writer.startswith("dmpmqmsg") else {"usr.colour": "blue", "usr.n": 3}
    assert first["properties"] == props
    assert first["headers"] == []  # no MQ header in these bodies
    # the payload as decode mq --json --raw gives it: its text in its CCSID and its bytes
    assert first["payload"] == {"format": "MQSTR", "offset": 0, "length": 8,
                                "encoding": first["mqmd"]["encoding"],
                                "ccsid": first["mqmd"]["codedcharsetid"], "text": "Hello MQ",
                                "hex": b"Hello MQ".hex().upper()}
    assert first["body_length"] == 8
    assert first["body_sha256"] == hashlib.sha256(b"Hello MQ").hexdigest()
    assert first["truncated"] is False and first["problems"] == []
    assert [o["body_length"] for o in got] == [8, 0, 5]
    assert got[1]["body_sha256"] == hashlib.sha256(b"").hexdigest()


def test_line_located_sources_and_problems(tmp_path: Path) -> None:
    dump = tmp_path / "d.qmsg"
    text = qload_file(MSGS).replace(b"A PRI 0\n", b"A PRI x\n", 1)
    dump.write_bytes(text)
    first = objects(mq("messages", "--json", dump))[0]
    line = text.split(b"\n").index(b"A VER 2") + 1
    assert first["source"] == f"{dump}:{line}"
    bad = text.split(b"\n").index(b"A PRI x") + 1
    assert first["problems"] == [{"reason": f"dmpmqmsg: line {bad}: A PRI value 'x' is not a "
                                            "number; field left out", "line": bad}]


def test_no_mqmd_gives_an_empty_object(tmp_path: Path) -> None:
    dump = tmp_path / "n.qmsg"
    dump.write_bytes(qload_file(MSGS, no_mqmd=True))
    assert [o["mqmd"] for o in objects(mq("messages", "--json", dump))] == [{}, {}, {}]


def test_table(tmp_path: Path) -> None:
    dump = tmp_path / "d.qmsg"
    dump.write_bytes(qload_file(MSGS))
    r = mq("messages", dump)
    assert r.status == 0
    lines = r.text.splitlines()
    assert lines[0] == "#  Put (UTC)               Type      Format  Length  PutAppl  User  Summary"
    assert lines[1] == "1  2026-11-23 18:00:00.00  datagram  MQSTR        8  amqsput  mqm   -"
    assert lines[2].split()[:5] == ["2", "2026-11-23", "18:00:00.00", "request", "-"]
    assert lines[2].split()[5] == "0"


def test_filters(tmp_path: Path) -> None:
    dump = tmp_path / "d.qmsg"
    dump.write_bytes(qload_file(MSGS))

    def positions(*opts: str) -> list[int]:
        return [o["message"] for o in objects(mq("messages", "--json", *opts, dump))]

    assert positions("--msgtype", "request") == [2]
    assert positions("--msgtype", "8") == [1]
    assert positions("--format", "mqstr") == [1, 3]
    assert positions("--correlid", CID[:10]) == [1]
    assert positions("--grep", "Hello") == [1]
    assert positions("--grep", "\u00c4rger") == [3]  # found in the message's EBCDIC
    assert mq("messages", "--msgtype", "nope", dump).status == ExitStatus.USAGE
    assert mq("messages", "--correlid", "XYZ", dump).status == ExitStatus.USAGE


def test_truncated_and_empty_dumps_exit_2_and_list_what_is_readable(tmp_path: Path) -> None:
    dump = tmp_path / "cut.qmsg"
    data = qload_file(MSGS)
    dump.write_bytes(data[:data.rindex(b"X ") + 4])
    r = mq("messages", "--json", dump)
    assert r.status == ExitStatus.DECODE
    got = objects(r)
    assert [o["truncated"] for o in got] == [False, False, True]
    assert "truncated" in got[2]["problems"][-1]["reason"] and "line" in got[2]["problems"][-1]
    empty = tmp_path / "empty.txt"
    empty.write_text(amqsbcg_listing([]))
    r = mq("messages", empty)
    assert r.status == ExitStatus.DECODE and "no messages in this amqsbcg dump" in r.stderr
    comments = tmp_path / "c.qmsg"
    comments.write_bytes(b"* QLOAD Version:8.0 Created:x\r* Qmgr  = Q\r\r")
    r = mq("messages", comments)
    assert r.status == ExitStatus.DECODE and "no messages in this dmpmqmsg dump" in r.stderr


def test_cr_only_files_are_read(tmp_path: Path) -> None:
    dump = tmp_path / "cr.qmsg"
    dump.write_bytes(qload_file(MSGS, eol="\r"))
    got = objects(mq("messages", "--json", dump))
    assert [o["body_length"] for o in got] == [8, 0, 5]


def test_output_dir_and_dmpmqmsg_conversion(tmp_path: Path) -> None:
    dump = tmp_path / "d.txt"
    dump.write_bytes(amqsbcg_listing(MSGS, properties=True, buffer=4).encode("latin-1"))
    r = mq("messages", dump, "-o", tmp_path / "out")
    assert r.status == ExitStatus.DECODE  # message 1 is truncated (4 of 8 bytes shown)
    index = [json.loads(x) for x in (tmp_path / "out" / "index.jsonl").read_text().splitlines()]
    assert index[0]["truncated"] is True and index[0]["properties"]["usr.colour"] == "blue"
    assert (tmp_path / "out" / index[0]["file"]).read_bytes() == b"Hell"
    r = mq("messages", tmp_path / "out", "--to", "dmpmqmsg", "-o", tmp_path / "back.qmsg")
    assert r.status == ExitStatus.DECODE
    back = list(QueueDump(str(tmp_path / "back.qmsg")))
    assert back[0].truncated and back[0].body == b"Hell" and back[0].properties["usr.n"] == 3
    assert mq("messages", dump, "--to", "dmpmqmsg").status == ExitStatus.USAGE
    r = mq("messages", dump, "--to", "dmpmqmsg", "-o", tmp_path / "back.qmsg")
    assert r.status == ExitStatus.USAGE and "exists" in r.stderr
    r = mq("messages", dump, "--to", "dmpmqmsg", "-o", tmp_path / "missing" / "x.qmsg")
    assert r.status == ExitStatus.ENVIRONMENT and "Traceback" not in r.stderr


_TEXT = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=8)
_PROP_VALUE = st.one_of(st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E,
                                              blacklist_characters="'"), max_size=12),
                        st.integers(-2**31, 2**31 - 1), st.booleans(), st.none(),
                        st.binary(min_size=1, max_size=6))
_MESSAGE = st.builds(
    lambda body, msgtype, cid, fmt, props, trunc: Message(
        0, body, {"msgtype": msgtype, "correlid": cid, "format": fmt.strip()},
        properties=props, truncated=trunc),
    st.binary(max_size=80), st.integers(0, 999_999_999), st.binary(min_size=24, max_size=24),
    _TEXT, st.dictionaries(st.from_regex(r"[a-z][a-z0-9.]{0,10}", fullmatch=True), _PROP_VALUE,
                           max_size=3), st.booleans())


@settings(max_examples=60, deadline=None)
@given(msgs=st.lists(_MESSAGE, max_size=5), to=st.sampled_from(["dmpmqmsg", "mqtool-dir"]))
def test_read_of_write_is_the_messages(tmp_path_factory: pytest.TempPathFactory, msgs: list[Message],
                                       to: str) -> None:
    """read(write(x)) == x through `messages -o` (from an mqtool directory of x)."""
    from mqtool.formats.mq.dumps.read import write_mqtool_dir
    from mqtool.io.outputs import OutputDir

    for i, m in enumerate(msgs, 1):
        m.position = i
    work = tmp_path_factory.mktemp("example")  # one folder per example
    write_mqtool_dir(msgs, OutputDir(work / "src"))
    target = work / ("out.qmsg" if to == "dmpmqmsg" else "out")
    r = mq("messages", work / "src", "--to", to, "-o", target)
    assert r.status == (ExitStatus.DECODE if any(m.truncated for m in msgs) or not msgs
                        else ExitStatus.OK), r.stderr
    if not msgs:
        return
    back = list(QueueDump(str(target)))
    assert [m.body for m in back] == [m.body for m in msgs]
    assert [m.properties for m in back] == [m.properties for m in msgs]
    assert [m.truncated for m in back] == [m.truncated for m in msgs]
    keep = ("msgtype", "correlid", "format")
    if to == "dmpmqmsg":  # the writer writes every MQMD field: compare with defaults
        assert [{k: full_mqmd(m)[k] for k in keep} for m in back] == \
               [{k: full_mqmd(m)[k] for k in keep} for m in msgs]
    else:
        assert [m.mqmd for m in back] == [m.mqmd for m in msgs]


def test_other_formats_empty_input_and_missing_files(tmp_path: Path) -> None:
    other = tmp_path / "x.txt"
    other.write_text("just some prose\nnothing else\n")
    empty = tmp_path / "e.qmsg"
    empty.write_bytes(b"")
    for p, words in ((other, "not a queue dump"), (empty, "empty input")):
        r = mq("messages", p)
        assert r.status == ExitStatus.DECODE and words in r.stderr and r.stdout == b""
    r = mq("messages", tmp_path / "missing")
    assert r.status == ExitStatus.USAGE and "no such file" in r.stderr
