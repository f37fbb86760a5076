"""mqtool decode mq / build-request mq, and the header chain in decode auto and identify."""

from __future__ import annotations

import json
import struct
from pathlib import Path

from tests.helpers import TESTDATA, mq

V = TESTDATA / "mq"


def test_decode_mq_listing() -> None:
    r = mq("decode", "mq", V / "dlh-rfh2-mqstr.be.ebcdic.bin")
    assert r.status == 0, r.stderr
    lines = r.text.splitlines()
    assert lines[0] == ("MQ message (639 bytes): MQDLH -> MQRFH2; payload MQSTR at offset "
                        "X'0264', 27 bytes; dead-letter reason 2051 MQRC_PUT_INHIBITED")
    assert "  reason         = 2051  MQRC_PUT_INHIBITED" in lines
    assert "  encoding       = 785  integer normal, float S390" in lines
    assert "  putappltype    = 28  MQAT_JAVA" in lines
    assert "  namevalueccsid     = 1208  utf-8" in lines
    assert "  namevaluelength[0] = 32  folder <mcd>" in lines
    assert "  usr/Big       = 4294967296" in lines
    assert '  text = "salary run 2026-11 rejected"' in lines


def test_decode_mq_json_is_one_object_per_message() -> None:
    r = mq("decode", "mq", "--json", V / "dlq.dmpmqmsg")
    assert r.status == 0, r.stderr
    objs = [json.loads(line) for line in r.text.splitlines()]
    assert [(o["message"], o["dead_letter_reason"]["name"], o["payload"]["text"]) for o in objs] \
        == [(1, "MQRC_Q_FULL", "order 1"), (2, "MQRC_NOT_AUTHORIZED", "order 2")]
    assert objs[0]["elements"][0]["fields"]["destqname"] == "PAYROLL.IN"


def test_decode_mq_annotate_labels_the_fields() -> None:
    r = mq("decode", "mq", "--annotate", "--color", "never", V / "dlh-tm.le.ascii.bin")
    assert r.status == 0, r.stderr
    first = r.text.splitlines()[1]
    # Reason 265 = X'0109', little-endian; the character column in ASCII
    assert first.startswith("0000 444C4820 01000000 09010000 50415952 *DLH ........PAYR*")
    assert first.endswith(" strucid version reason destqname")


def test_every_prefix_of_a_chain_exits_2_with_an_offset(tmp_path: Path) -> None:
    body = (V / "dlh-tm.be.ascii.bin").read_bytes()
    f = tmp_path / "cut.bin"
    for cut in range(len(body)):
        f.write_bytes(body[:cut])
        r = mq("decode", "mq", f)
        assert r.status == 2, (cut, r.stderr)
        assert "offset X'" in r.stderr and "Traceback" not in r.stderr, cut


def test_truncated_chain_prints_the_partial_listing(tmp_path: Path) -> None:
    f = tmp_path / "cut.bin"
    f.write_bytes((V / "dlh-tm.be.ascii.bin").read_bytes()[:384])
    r = mq("decode", "mq", f)
    assert r.status == 2
    assert "  reason         = 265  MQFB_APPL_CANNOT_BE_STARTED" in r.text.splitlines()
    assert r.stderr == ("mqtool: mq: MQTM (announced by Format 'MQTRIG'): MQTM truncated: 40 "
                        "bytes left for applid (256 bytes) at mqtm.applid, offset X'0158' (344)\n")


def test_not_a_header_is_an_error(tmp_path: Path) -> None:
    f = tmp_path / "x.bin"
    f.write_bytes(b"just text, no header")
    r = mq("decode", "mq", f)
    assert r.status == 2
    assert "no MQ header here" in r.stderr


def test_format_option_and_struc_id_problem(tmp_path: Path) -> None:
    f = tmp_path / "x.bin"
    f.write_bytes(b"RFH \x00\x00\x00\x02 and more")
    r = mq("decode", "mq", "--format", "MQDEAD", f)
    assert r.status == 0
    assert ("problem: StrucId 'RFH ' (X'52464820') is not 'DLH ', which Format 'MQDEAD' "
            "announced; the rest is taken as data at mqdlh.strucid, offset X'0000' (0)") in r.text
    assert mq("decode", "mq", "--format", "MQDEAD", "--strict", f).status == 2


def test_build_matches_the_independently_packed_vector(tmp_path: Path) -> None:
    """The options of the generator's DLH + RFH2 vector give the same bytes."""
    out = tmp_path / "m.bin"
    r = mq("build-request", "mq", "--encoding", "273", "--ccsid", "819",
           "--dlh", "reason=2051,destqname=PAYROLL.IN,destqmgrname=QM1,putappltype=28,"
                    "putapplname=payroll-loader,putdate=20261123,puttime=18001234",
           "--text", "salary run 2026-11 rejected", "-o", out)
    assert r.status == 0, r.stderr
    vector = (V / "dlh-rfh2-mqstr.be.ascii.bin").read_bytes()
    data = out.read_bytes()
    dlh = bytearray(vector[:172])
    dlh[116:124] = b"MQSTR   "  # no RFH2 here: the DLH announces the payload
    assert data == bytes(dlh) + b"salary run 2026-11 rejected"


def test_build_from_decode_json_round_trips(tmp_path: Path) -> None:
    for name in ("dlh-rfh2-mqstr.le.ebcdic.bin", "bridge-chain.be.ebcdic.bin",
                 "xqh-mqstr.be.ascii.bin", "dlh-tm.le.ebcdic.bin", "rfh1.le.ascii.bin"):
        body = (V / name).read_bytes()
        js = tmp_path / "d.json"
        js.write_bytes(mq("decode", "mq", "--json", V / name).stdout)
        obj = json.loads(js.read_text())
        pay = tmp_path / "p.bin"
        pay.write_bytes(body[obj["payload"]["offset"]:])
        out = tmp_path / "o.bin"
        r = mq("build-request", "mq", "--from", js, "--payload", pay, "-o", out, "--force")
        assert r.status == 0, r.stderr
        assert out.read_bytes() == body, name


def test_rfh2_properties_with_types(tmp_path: Path) -> None:
    out = tmp_path / "m.bin"
    r = mq("build-request", "mq", "--rfh2", "mcd.Msd=jms_text", "--rfh2", "usr.Count:i4=5",
           "--rfh2", "usr.Ok:boolean=true", "--rfh2", "jms.Dst=queue:///Q", "--text", "hi",
           "--encoding", "546", "-o", out)
    assert r.status == 0, r.stderr
    data = out.read_bytes()
    assert data[:4] == b"RFH " and struct.unpack_from("<l", data, 4)[0] == 2
    obj = json.loads(mq("decode", "mq", "--json", out).text)
    assert obj["properties"] == {"mcd.Msd": "jms_text", "usr.Count": 5, "usr.Ok": True,
                                 "jms.Dst": "queue:///Q"}
    assert obj["payload"]["text"] == "hi"


def test_build_refusals_are_usage_errors() -> None:
    r = mq("build-request", "mq", "--dlh", "reason=2051,color=red", "--text", "x")
    assert r.status == 1 and "MQDLH has no field 'color'" in r.stderr
    r = mq("build-request", "mq", "--rfh2", "usr.N:i4=five", "--text", "x")
    assert r.status == 1 and "'five' is not an integer of 32 bits for dt i4" in r.stderr
    r = mq("build-request", "mq", "--dlh", "destqname=" + "Q" * 49, "--text", "x")
    assert r.status == 1 and r.stderr.startswith("mqtool: mq: destqname: value ")
    assert mq("build-request", "mq", "--text", "x").status == 1


def test_mqmd_prefixed_output_is_a_queue_dump(tmp_path: Path) -> None:
    out = tmp_path / "m.bin"
    assert mq("build-request", "mq", "--mqmd", "--dlh", "reason=2087", "--text", "hello",
              "-o", out).status == 0
    r = mq("decode", "mq", "--json", out)
    obj = json.loads(r.text)
    assert obj["context"]["format"] == "MQDEAD"
    assert obj["dead_letter_reason"]["name"] == "MQRC_UNKNOWN_REMOTE_Q_MGR"


def test_identify_and_decode_auto_name_the_chain_and_the_payload(tmp_path: Path) -> None:
    r = mq("identify", V / "dlh-tm.be.ascii.bin")
    assert r.text.startswith(f"{V / 'dlh-tm.be.ascii.bin'}: mq (0.90) MQ headers MQDLH -> MQTM "
                             "(ASCII, big-endian, dead-letter reason 265 "
                             "MQFB_APPL_CANNOT_BE_STARTED)")
    urb = mq("dump", "-r", TESTDATA / "urb" / "close-destination.request.dump").stdout
    wrapped = tmp_path / "dlq-urb.bin"
    body = tmp_path / "urb.bin"
    body.write_bytes(urb)
    assert mq("build-request", "mq", "--dlh", "reason=2051", "--rfh2", "usr.From=test",
              "--payload", body, "-o", wrapped).status == 0
    r = mq("identify", wrapped)
    assert "MQ headers MQDLH -> MQRFH2" in r.text and "; payload: urb (" in r.text
    r = mq("decode", "auto", wrapped)
    assert r.status == 0, r.stderr
    assert "MQ message (" in r.text and "payload at offset X'" in r.text
    assert "URBH element at offset X'0000'" in r.text


def test_wrap_dead_letters_every_message_of_a_dump(tmp_path: Path) -> None:
    out = tmp_path / "dlq.qmsg"
    r = mq("build-request", "mq", "--dlh", "reason=2053,destqname=SAS.IN",
           "--wrap", TESTDATA / "sas" / "mytext-zos.qmsg", "-o", out)
    assert r.status == 0, r.stderr
    r = mq("decode", "auto", out)
    assert r.status == 0, r.stderr
    titles = [line for line in r.text.splitlines() if line.startswith("message ")]
    assert len(titles) == 12  # each of the 6 messages: its MQDLH, then its SAS payload
    assert titles[0].endswith("dead-letter reason 2053 MQRC_Q_FULL")
    assert titles[1].endswith(": attachment header")


def test_rfh2_properties_a_folder_cannot_hold_are_refused() -> None:
    """Issue 22, root cause 15: names that are no XML element names, values their dt
    cannot hold (it wrote a folder that was not XML; 'usr.g[.a' was exit 70)."""
    for prop, said in (
            ("usr.<a>=1", "'<a>' is not an XML element name"),
            ("usr.g[.a=1", "'g[' is not an XML element name"),
            ("1usr.a=1", "'1usr' is not an XML element name"),
            ("usr.a:i4=2147483648", "'2147483648' is not an integer of 32 bits for dt i4"),
            ("usr.a:i1=-129", "'-129' is not an integer of 8 bits for dt i1"),
            ("usr.a:bin.hex=ZZ", "'ZZ' is not hex digits in pairs for dt bin.hex"),
            ("usr.a:boolean=maybe", "'maybe' is not a boolean"),
            ("usr.a:r8=x", "'x' is not a number for dt r8")):
        r = mq("build-request", "mq", "--rfh2", prop, "--text", "x")
        assert r.status == 1 and r.stderr.count("\n") == 1 and said in r.stderr, (prop, r.stderr)
    for prop in ("usr.a:i4=2147483647", "usr.a:i1=-128", "usr.g.a=1", "usr.a_b-c=1"):
        assert mq("build-request", "mq", "--rfh2", prop, "--text", "x", "--dump").status == 0


def test_from_json_of_the_wrong_shape_is_a_usage_error(tmp_path: Path) -> None:
    js = tmp_path / "bad.json"
    for text, message in (
            ('{"elements": [], "context": 5}',  # issue 22, root cause 2: was exit 70
             "mqtool: \"context\" must be an object, as 'decode mq --json' writes it (got int)\n"),
            ('{"elements": [], "payload": [1]}',
             "mqtool: \"payload\" must be an object, as 'decode mq --json' writes it (got list)\n"),
            ('{"elements": [{"type": "MQDLH", "fields": "x"}]}',
             "mqtool: mq: headers[0].fields: expected an object\n"),
            ('{"elements": [{"type": "MQDLH"}], "context": {"encoding": "big"}}',
             "mqtool: mq: encoding: 'big' is not an integer\n"),
            ('{"elements": [{"type": "MQRFH2", "folders": [3]}], "payload": {"ccsid": [1]}}',
             "mqtool: mq: headers[0].folders[0]: expected an object, not 3\n"),
            ('[1, 2]', None)):
        js.write_text(text)
        r = mq("build-request", "mq", "--from", js, "--text", "x")
        assert r.status == 1, (text, r.stderr)
        if message:
            assert r.stderr == message


def test_sas_header_behind_a_dlh_is_recognised(tmp_path: Path) -> None:
    from mqtool.formats.mq.dumps.read import QueueDump

    header = next(iter(QueueDump(str(TESTDATA / "sas" / "mytext-zos.qmsg")))).body
    payload, wrapped = tmp_path / "h.bin", tmp_path / "dlh-sas.bin"
    payload.write_bytes(header)
    assert mq("build-request", "mq", "--dlh", "reason=2053", "--encoding", "785", "--ccsid", "37",
              "--payload", payload, "-o", wrapped).status == 0
    assert wrapped.read_bytes()[:4] == "DLH ".encode("cp037")
    assert wrapped.read_bytes()[172:] == header
    r = mq("identify", wrapped)
    assert "MQ headers MQDLH (EBCDIC, big-endian, dead-letter reason 2053 MQRC_Q_FULL)" in r.text
    assert "; payload: sas-attachment (0.95) SAS attachment header, 1 attachment" in r.text
    r = mq("decode", "auto", "--json", wrapped)
    objs = [json.loads(line) for line in r.text.splitlines()]
    assert [o["format"] for o in objs] == ["mq", "sas-attachment"]
    assert objs[1]["payload_offset"] == 172


def test_dump_text_of_a_cut_display_is_read_with_hex(tmp_path: Path) -> None:
    """A DLH + MQTM display cut at 384 of its 856 bytes, as hex dump text."""
    cut = tmp_path / "cut.bin"
    cut.write_bytes((V / "dlh-tm.be.ebcdic.bin").read_bytes()[:384])
    text = tmp_path / "cut.dump"
    text.write_bytes(mq("dump", cut).stdout)
    r = mq("decode", "mq", "--hex", text)
    assert r.status == 2
    assert '  destqname      = "PAYROLL.IN"' in r.text.splitlines()
    assert r.stderr.endswith("at mqtm.applid, offset X'0158' (344)\n")


def test_raw_json_rebuilds_without_the_payload_file(tmp_path: Path) -> None:
    for name in ("dlh-rfh2-mqstr.be.ebcdic.bin", "event.le.ascii.bin", "tmc2.ascii.bin"):
        js, out = tmp_path / "d.json", tmp_path / "o.bin"
        args = ("--format", "MQEVENT", "--encoding", "546") if name.startswith("event") else ()
        js.write_bytes(mq("decode", "mq", "--json", "--raw", *args, V / name).stdout)
        r = mq("build-request", "mq", "--from", js, "-o", out, "--force")
        assert r.status == 0, r.stderr  # the event: no header, its PCF payload alone
        assert out.read_bytes() == (V / name).read_bytes(), name
