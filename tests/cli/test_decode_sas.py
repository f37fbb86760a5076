"""``mqtool decode sas-attachment`` on queue dumps: every message in its role."""

from __future__ import annotations

import io
import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.formats.mq.dumps.read import QueueDump
from mqtool.formats.mq.dumps.write import write_dmpmqmsg
from tests.helpers import mq


def test_each_message_in_its_role(in_root: None) -> None:
    r = mq("decode", "sas-attachment", "--json", "testdata/sas/mytext-zos.qmsg")
    assert r.status == 0, r.stderr
    units = [json.loads(line) for line in r.text.splitlines()]
    assert [u["role"] for u in units] == [
        "attachment header", "application message", "attachment 1 message 1",
        "attachment 1 message 2", "attachment 1 message 3", "attachment 1 count"]
    assert units[2]["elements"][0]["fields"] == {"lrecl": 60, "filesize": 100}
    assert units[5]["elements"][0]["fields"] == {"count": 3}
    assert units[3]["elements"][0]["fields"]["len"] == 60
    assert units[1]["elements"][0]["fields"]["text"] == "This is the actual application message."
    assert units[0]["correlid"] == "11" * 16 + "00" * 8 and units[0]["message"] == 1


def test_messages_before_their_header_are_decoded_alone(in_root: None, tmp_path: Path) -> None:
    msgs = list(QueueDump("testdata/sas/mytext-zos.qmsg"))[::-1]
    buf = io.BytesIO()
    write_dmpmqmsg(msgs, buf)
    (tmp_path / "rev.qmsg").write_bytes(buf.getvalue())
    r = mq("decode", "sas-attachment", "--json", tmp_path / "rev.qmsg")
    units = [json.loads(line) for line in r.text.splitlines()]
    assert units[0]["role"] == "no header seen for this correlid"
    assert units[0]["part"] == "count"  # 4 bytes: taken as a count message, and said so
    assert "--part names the message kind" in units[0]["problems"][0]["reason"]
    assert units[-1]["role"] == "attachment header"


def test_dump_without_mqmd(in_root: None, tmp_path: Path) -> None:
    buf = io.BytesIO()
    write_dmpmqmsg(QueueDump("testdata/sas/mytext-zos.qmsg"), buf, mqmd=False)
    (tmp_path / "dn.qmsg").write_bytes(buf.getvalue())
    r = mq("decode", "sas-attachment", tmp_path / "dn.qmsg")
    # the application message alone has no shape to recognise: listed, then an error
    assert r.status == 2
    assert r.stderr.count("no subordinate message shape fits") == 1
    first = r.text.split("\n\n")[0]
    assert first.splitlines()[0].endswith("a body without MQMD: role unknown")  # dmpmqmsg -dN
    assert ("problem: the dump gives no MsgType/CorrelId for this message (MsgType, CorrelId "
            "missing): decoded on its own") in first
    assert "HEADER element at offset X'0000'" in first  # still recognised by its shape


def test_annotate_header(in_root: None) -> None:
    r = mq("decode", "sas-attachment", "--hex", "--annotate", "--color", "always",
           "testdata/sas/seed-zos.header.dump")
    assert r.status == 0
    assert b"\x1b[" in r.stdout and b"qualifier2" in r.stdout


def test_api_build_and_reassemble(tmp_path: Path) -> None:
    from mqtool import api
    from mqtool.formats.sas.layout import PROFILES
    from mqtool.formats.sas.message_set import FileAttachment, Request

    text = api.build("sas-attachment", Request(message=b"m", attachments=[
        FileAttachment(data=b"payload", name="p.bin")]), settings=PROFILES["unix64"])
    (tmp_path / "d.qmsg").write_bytes(text)
    report = api.reassemble_attachments(str(tmp_path / "d.qmsg"), str(tmp_path / "o"))
    assert report.status == 0 and report.headers[0].header.settings.long == 8
    assert (tmp_path / "o" / report.headers[0].folder / "p.bin").read_bytes() == b"payload"


def test_progress_bar_only_on_a_terminal(in_root: None) -> None:
    from mqtool.cli._common import Env, Progress

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    size = Path("testdata/sas/class-zos.qmsg").stat().st_size
    tty = Tty()
    with Progress(Env(stderr=tty), "reassembling", size, least=1) as update:
        assert update is not None
        update(100)
    with Progress(Env(stderr=io.StringIO()), "reassembling", size, least=1) as update:
        assert update is None
    with Progress(Env(stderr=Tty()), "reassembling", None) as update:  # stdin: size unknown
        assert update is None


def test_a_dump_on_stdin_is_recognised(in_root: None) -> None:
    data = Path("testdata/sas/mytext-win.qmsg").read_bytes()
    r = mq("decode", "sas-attachment", "--json", input=data)
    assert r.status == 0, r.stderr
    assert [json.loads(x)["role"] for x in r.text.splitlines()][-1] == "attachment 1 count"
    body = mq("decode", "sas-attachment", input=bytes.fromhex("00000003"))
    assert body.text.startswith("COUNT element at offset X'0000'")


def test_another_format_is_refused_with_what_identify_says(in_root: None, tmp_path: Path) -> None:
    from tests.helpers import seed_bytes

    urb = tmp_path / "urb.bin"
    urb.write_bytes(seed_bytes("urb/status.request.dump"))
    r = mq("decode", "sas-attachment", urb)
    assert r.status == 2
    assert r.stderr == (
        "mqtool: sas-attachment: not an attachment header, and no subordinate message shape "
        "fits (records would run past the end of the message); --part names the message kind; "
        "identify takes it for urb (0.95: URBH eyecatcher in EBCDIC, urbhbord big-endian, "
        "urbhlen 64, urbhlent 160), offset X'0000' (0)\n")
    assert r.text.splitlines()[0] == "not recognised as any attachment message"
    forced = mq("decode", "sas-attachment", "--part", "header", urb)
    assert forced.status == 2 and forced.stderr.startswith(
        "mqtool: sas-attachment: not an attachment header in any byte order")
    assert "; identify takes it for urb (0.95: " in forced.stderr
    noise = tmp_path / "noise.bin"
    noise.write_bytes(bytes((i * 7919 + 13) % 251 for i in range(5_000_000)))
    r = mq("decode", "sas-attachment", "--json", noise)
    assert r.status == 2 and "identify recognises no format either" in r.stderr
    unit = json.loads(r.text)
    assert unit["part"] == "unrecognised" and unit["length"] == 5_000_000
    assert len(unit["elements"][0]["data"]) == 2 * 256  # the first bytes, not 5 MB of hex


def test_header_prefixes_are_refused(in_root: None, tmp_path: Path) -> None:
    from tests.helpers import seed_bytes

    header = seed_bytes("sas/seed-zos.header.dump")
    for n in (10, 11, 50, 0x50, 0x9B, 163):
        p = tmp_path / "cut.bin"
        p.write_bytes(header[:n])
        r = mq("decode", "sas-attachment", p)
        assert r.status == 2, n
        assert "no subordinate message shape fits" in r.stderr, n


def test_multi_byte_code_pages_are_refused_with_the_list(in_root: None, tmp_path: Path) -> None:
    rec = tmp_path / "rec.bin"
    rec.write_bytes(b"\x00\x00\x00\x03\xff\xfe\xfd")
    r = mq("decode", "sas-attachment", "--part", "records", "--text-records", "--codepage", "utf-8",
           "--byte-order", "big", rec)
    assert r.status == 1 and r.stdout == b""
    assert ("code page 'utf-8' is not single-byte; mqtool reads single-byte EBCDIC pages (037, "
            in r.stderr)
    ok = mq("decode", "sas-attachment", "--part", "records", "--text-records", "--codepage", "1252",
            "--byte-order", "big", "--json", rec)
    assert ok.status == 0
    assert json.loads(ok.text)["elements"][0]["fields"] == {"len": 3, "record": "ÿþý"}


def test_a_large_body_is_listed_a_piece_at_a_time(in_root: None, tmp_path: Path) -> None:
    import struct

    rec = bytes(range(256)) * 128  # 32 KiB records
    body = tmp_path / "big.bin"
    body.write_bytes(b"".join(struct.pack(">i", len(rec)) + rec for _ in range(48)))
    r = mq("decode", "sas-attachment", "--json", body)
    assert r.status == 0, r.stderr
    units = [json.loads(line) for line in r.text.splitlines()]
    assert [u["offset"] for u in units] == [k * 262144 for k in range(7)]  # 48 * 32772 bytes
    assert [e["offset"] for u in units for e in u["elements"] if "len" in e["fields"]] == [
        k * 32772 for k in range(48)]
    listing = mq("decode", "sas-attachment", body, input=None)
    assert listing.text.splitlines()[0] == ("records, bytes X'0'-X'3FFFF' of a 1573056-byte "
                                            "message")
    piped = mq("decode", "sas-attachment", "--json", input=body.read_bytes())
    assert piped.text == r.text


@settings(max_examples=40, deadline=None)
@given(st.binary(max_size=200), st.sampled_from(["auto", "header", "records", "dataset",
                                                 "count", "file-info", "application"]),
       st.booleans())
def test_cli_on_random_bodies(body: bytes, part: str, as_json: bool) -> None:
    r = mq("decode", "sas-attachment", "--input-format", "message", "--part", part,
           *(["--json"] if as_json else []), input=body)
    assert r.status in (0, 2), r.stderr
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    for line in r.stderr.splitlines():  # every problem names its offset
        assert line.startswith("mqtool: sas-attachment: ") and "offset X'" in line, line
