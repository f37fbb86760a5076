"""mqtool decode matqmsg and build-request matqmsg: lengths from options or a selection file,
problems vs --strict, the builder's refusals, round trips through the shell."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import mq, seed_bytes

D = "testdata/matqmsg/"


def test_receiver_with_selection_file(in_root: None) -> None:
    r = mq("decode", "matqmsg", "--hex", D + "keyed-eq.receiver.synthetic.dump",
           "--selection", D + "keyed-eq.selection.synthetic.dump")
    assert r.status == 0
    lines = r.text.splitlines()
    assert lines[0] == "MATQMSG receiver at offset X'0000' (key_bytes 16, text_bytes 32: selection template)"
    assert "  enqueue_time   = 2024-03-15 12:30:00.250000 UTC  uniqueness X'00F' (UTC assumed)" in lines
    assert '  key            = "CUST0001"' in lines and '  text           = "ORDER 4711 SHIPPED"' in lines


def test_receiver_json_messages(in_root: None) -> None:
    r = mq("decode", "matqmsg", "--hex", D + "all-blocked.receiver.synthetic.dump", "--key-bytes", "0",
           "--text-bytes", "16", "--json")
    obj = json.loads(r.text)
    assert obj["format"] == "matqmsg" and obj["part"] == "receiver"
    assert obj["elements"][0]["fields"] == {"bytes_provided": 128, "bytes_available": 96,
                                            "messages_available": 2, "messages_on_queue": 2,
                                            "max_message_size": 64, "key_size": 0}
    assert [(m["enqueue_time"], m["message_length"], m["text"]) for m in obj["messages"]] == [
        ("2024-03-15T12:00:00.000000Z", 5, "HELLO"), ("2024-03-15T12:00:01.500000Z", 20, "SECOND MESSAGE T")]
    assert obj["messages"][1]["flags"] == ["truncated-text"]


def test_violations_are_problems_unless_strict(in_root: None) -> None:
    r = mq("decode", "matqmsg", "--hex", D + "t65552.selection.synthetic.dump")
    assert r.status == 0
    assert ("problem: text_bytes 65552 exceeds the maximum 65,536 — MI exception 3801 template value "
            "invalid (code inferred) at selection.text_bytes, offset X'0006' (6)") in r.text
    assert mq("decode", "matqmsg", "--hex", D + "t65552.selection.synthetic.dump", "--strict").status == 2
    r = mq("decode", "matqmsg", "--hex", D + "provided-4.receiver.synthetic.dump", "--json")
    assert r.status == 0 and "3803" in json.loads(r.text)["problems"][0]["reason"]


def test_too_small_receiver(in_root: None) -> None:
    r = mq("decode", "matqmsg", "--hex", D + "provided-40.receiver.synthetic.dump",
           "--selection", D + "all-blocked.selection.synthetic.dump")
    assert r.status == 0
    assert "message 1 at offset X'0020' (partial: truncated-entry, the receiver ends inside it)" in r.text
    assert "2 of 2 message(s) cut (message 1 partial)" in r.text


def test_selection_and_lengths_are_exclusive(in_root: None) -> None:
    r = mq("decode", "matqmsg", "--hex", D + "all-blocked.receiver.synthetic.dump", "--key-bytes", "0",
           "--selection", D + "all-blocked.selection.synthetic.dump")
    assert r.status == 1 and "not both" in r.stderr


def test_build_matches_the_spec_and_decodes_back(tmp_path: Path) -> None:
    out = tmp_path / "sel.bin"
    r = mq("build-request", "matqmsg", "--type", "keyed", "--relation", "=", "--key", "CUST0001",
           "--key-size", "8", "--key-bytes", "16", "--text-bytes", "32", "--mode", "concurrent",
           "-o", out)
    assert r.status == 0
    assert out.read_bytes() == seed_bytes("matqmsg/keyed-eq.selection.synthetic.dump") + bytes(8)
    r = mq("decode", "matqmsg", out, "--key-size", "8", "--json")
    desc = tmp_path / "sel.json"
    desc.write_text(r.text)
    again = mq("build-request", "matqmsg", "--from", desc, "--key-size", "8", "--dump")
    assert again.text == ("0000 88000000 00100000 00208000 00000000 *h...............*\n"
                          "0010 C3E4E2E3 F0F0F0F1 00000000 00000000 *CUST0001........*\n")
    assert mq("build-request", "matqmsg", "--type", "keyed", "-o", out).status == 1  # exists, no --force


def test_build_refusals_each_on_a_line() -> None:
    r = mq("build-request", "matqmsg", "--type", "all", "--key-bytes", "20", "--text-bytes", "65552",
           "--dump")
    assert r.status == 1 and r.stdout == b""
    assert r.stderr.splitlines() == [
        "mqtool: matqmsg: refused: key_bytes: key_bytes 20 is not 0 or a multiple of 16 — MI exception "
        "3801 template value invalid (code inferred)",
        "mqtool: matqmsg: refused: text_bytes: text_bytes 65552 exceeds the maximum 65,536 — MI "
        "exception 3801 template value invalid (code inferred)",
    ]


def test_build_usage_errors(tmp_path: Path) -> None:
    assert mq("build-request", "matqmsg", "--dump").status == 1
    r = mq("build-request", "matqmsg", "--type", "keyed", "--relation", "~", "--key", "A", "--dump")
    assert r.status == 1 and "key_relationship" in r.stderr
    r = mq("build-request", "matqmsg", "--type", "keyed", "--key", "A", "--key-hex", "C1")
    assert r.status == 1 and "not both" in r.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    r = mq("build-request", "matqmsg", "--from", bad)
    assert r.status == 1 and "not JSON" in r.stderr


def test_build_writes_binary_to_a_pipe() -> None:
    r = mq("build-request", "matqmsg", "--type", "first", "--text-bytes", "64")
    assert r.status == 0 and r.stdout == bytes.fromhex("20000000 00000000 00400000 00000000")
