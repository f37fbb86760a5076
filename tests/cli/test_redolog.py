"""mqtool decode redolog: listings with grades, JSON, parts, exit statuses, bad input."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import mq, seed_bytes

H1 = "testdata/osb/sample1.header.dump"


def test_listing_marks_inferred_and_unknown(in_root: None) -> None:
    r = mq("decode", "redolog", "--hex", H1)
    assert r.status == 0 and r.stderr == ""
    lines = r.text.splitlines()
    assert lines[0] == "Redolog header at offset X'0000'"
    assert ("  rl_type       = X'60'  RLTYPE: intent-list entry (X'20') + last block of chain 1 "
            "(X'40') (inferred)") in lines
    assert "  rl_unk0c      = X'00063000'  (unknown)" in lines
    assert ("  rl_time       = 2004-11-11 10:38:18.050314 UTC  commit time (STCK), low-order bits "
            "X'C00' (inferred)") in lines
    assert '  rl_eye        = "REDODATA"' in lines


def test_json_carries_the_grades(in_root: None) -> None:
    r = mq("decode", "redolog", "--hex", "testdata/osb/sample6.parmlist.dump", "--json")
    [obj] = [json.loads(line) for line in r.text.splitlines()]
    el = obj["elements"][0]
    assert obj["format"] == "redolog" and obj["part"] == "parmlist"
    assert el["fields"]["intent_len"] == 76 and el["fields"]["userid"] == "DZC10"
    assert el["notes"] == {"unk_0c": "unknown", "userid": "inferred", "unk_18": "unknown"}


def test_tz_changes_the_listing_only(in_root: None) -> None:
    r = mq("decode", "redolog", "--hex", H1, "--tz", "Europe/Berlin")
    assert "rl_time       = 2004-11-11 11:38:18.050314 CET" in r.text


def test_concatenated_entries_from_stdin(tmp_path: Path) -> None:
    data = seed_bytes("osb/sample4.header.dump") + seed_bytes("osb/sample5.header.dump")
    r = mq("decode", "redolog", "-", "--json", input=data)
    a, b = (json.loads(x) for x in r.text.splitlines())
    assert (a["offset"], b["offset"], b["seq_delta"], b["follows_previous"]) == (0, 48, 1, True)


def test_strict_turns_problems_into_status_2(in_root: None) -> None:
    r = mq("decode", "redolog", "--hex", "testdata/osb/sample6.intent.dump")
    assert r.status == 0 and "problem: trailer (2 bytes) not present" in r.text
    assert mq("decode", "redolog", "--hex", "testdata/osb/sample6.intent.dump", "--strict").status == 2


def test_synthetic_flag(in_root: None) -> None:
    r = mq("decode", "redolog", "--hex", "testdata/osb/synthetic/format1.synthetic.dump", "--synthetic",
           "--json")
    obj = json.loads(r.text)
    assert obj["synthetic"] is True and obj["intent_format"] == 1 and obj["segments"] == 2
    plain = json.loads(mq("decode", "redolog", "--hex", "testdata/osb/synthetic/format1.synthetic.dump",
                          "--json").text)
    assert "synthetic" not in plain


def test_usrextpl_with_a_map(in_root: None) -> None:
    r = mq("decode", "redolog", "--hex", "testdata/osb/synthetic/usrextpl.synthetic.dump", "--part",
           "usrextpl",
           "--map", "shared_storage@,uxinit@,uxrl1@,uxcmnd@")
    assert r.status == 0
    assert "  uxcmnd@         = X'06E41000'  enabled (user map)" in r.text.splitlines()


def test_truncated_input_prints_partial_then_one_error_line(tmp_path: Path) -> None:
    p = tmp_path / "cut.bin"
    p.write_bytes(seed_bytes("osb/sample1.header.dump")[:30])
    r = mq("decode", "redolog", p, "--part", "header")
    assert r.status == 2
    assert "Redolog header at offset X'0000' (partial)" in r.text
    assert "rl_time       = 2004-11-11 10:38:18.050314 UTC" in r.text
    assert r.stderr == ("mqtool: redolog: RLHDR truncated: 2 bytes left for rl_seq (4 bytes) at "
                        "rlhdr.rl_seq, offset X'001C' (28)\n")


def test_garbage_and_empty_input(tmp_path: Path) -> None:
    p = tmp_path / "junk.bin"
    p.write_bytes(b"\xff" * 20)
    r = mq("decode", "redolog", p)
    assert r.status == 2 and "Traceback" not in r.stderr
    assert "neither a parameter list, a redolog header nor an intent list" in r.stderr
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    r = mq("decode", "redolog", empty)
    assert r.status == 2 and r.stderr.startswith("mqtool: redolog: ") and "empty input" in r.stderr


def test_dump_text_without_hex_is_recognised(in_root: None) -> None:
    r, forced = mq("decode", "redolog", H1), mq("decode", "redolog", "--hex", H1)
    assert r == forced and r.status == 0 and b"rl_eye        = \"REDODATA\"" in r.stdout


def test_bad_options() -> None:
    assert mq("decode", "redolog", "--part", "nope", "-").status == 1
    r = mq("decode", "redolog", "--codepage", "nope", "-", input=b"\x00\x01")
    assert r.status == 1 and "unknown code page" in r.stderr
