"""mqtool decode matqmsg and build-request matqmsg: lengths from options or a selection file,
problems vs --strict, the builder's refusals, round trips through the shell."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import mq, seed_bytes

D = "testdata/matqmsg/"


def test_receiver_with_selection_file(in_root: None) -> None:
    r = mq("decode", "matqmsg", "--hex", D + "keyed-eq.receiver.synthetic.dump",
           "--selection-template", D + "keyed-eq.selection.synthetic.dump")
    assert r.status == 0
    lines = r.text.splitlines()
    assert lines[0] == "MATQMSG receiver at offset X'0000' (key_bytes 16, text_bytes 32: selection template)"
    assert "  message 1 at offset X'0020'" in lines  # the entries nest in the receiver
    assert "    enqueue_time   = 2024-03-15 12:30:00.250000 UTC  uniqueness X'00F' (UTC assumed)" in lines
    assert '    key            = "CUST0001"' in lines and '    text           = "ORDER 4711 SHIPPED"' in lines


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
           "--selection-template", D + "all-blocked.selection.synthetic.dump")
    assert r.status == 0
    assert "message 1 at offset X'0020' (partial: truncated-entry, the receiver ends inside it)" in r.text
    assert "2 of 2 message(s) cut (message 1 partial)" in r.text


def test_selection_and_lengths_are_exclusive(in_root: None) -> None:
    r = mq("decode", "matqmsg", "--hex", D + "all-blocked.receiver.synthetic.dump", "--key-bytes", "0",
           "--selection-template", D + "all-blocked.selection.synthetic.dump")
    assert r.status == 1 and "not both" in r.stderr


def test_build_matches_the_spec_and_decodes_back(tmp_path: Path) -> None:
    out = tmp_path / "sel.bin"
    r = mq("build-request", "matqmsg", "--type", "keyed", "--relation", "=", "--key", "CUST0001",
           "--key-size", "8", "--key-bytes", "16", "--text-bytes", "32", "--enq-deq-mode", "concurrent",
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


def test_a_urb_message_is_refused_with_what_identify_thinks(in_root: None) -> None:
    """Issue 12 D8: exit 0 with bytes_provided = -455490872 before."""
    r = mq("decode", "matqmsg", "--hex", "testdata/urb/status.request.dump")
    assert r.status == 2 and r.stdout == b""
    assert r.stderr.startswith("mqtool: matqmsg: testdata/urb/status.request.dump: these 160 bytes "
                               "are not matqmsg")
    assert "identify says: urb (0.95) URBH eyecatcher in EBCDIC" in r.stderr
    assert r.stderr.rstrip().endswith("offset X'0000' (0)")
    # an explicit --part decodes whatever it is given (forensics)
    forced = mq("decode", "matqmsg", "--hex", "testdata/urb/status.request.dump", "--part", "receiver")
    assert forced.status == 0 and "  bytes_provided     = -455490872" in forced.text.splitlines()


def test_random_bytes_are_refused_as_unknown(tmp_path: Path) -> None:
    f = tmp_path / "r.bin"
    f.write_bytes(bytes(range(7, 250, 3)) * 3)
    r = mq("decode", "matqmsg", f)
    assert r.status == 2 and "identify says: unknown" in r.stderr


def test_keyed_selection_cut_inside_its_key(tmp_path: Path) -> None:
    """Issue 12 F21: a keyed template cut inside its key is an error (exit 2), the part kept."""
    whole = seed_bytes("matqmsg/keyed-eq.selection.synthetic.dump")  # key CUST0001, queue key size 8
    f = tmp_path / "cut.bin"
    f.write_bytes(whole[:19])
    r = mq("decode", "matqmsg", f, "--key-size", "8")
    assert r.status == 2
    assert '  key              = "CUS"' in r.text.splitlines()
    assert r.stderr == ("mqtool: matqmsg: input ends inside the key: the key has 3 bytes, the queue's "
                        "key size is 8 at selection.key, offset X'0013' (19)\n")
    f.write_bytes(whole)
    assert mq("decode", "matqmsg", f, "--key-size", "8").status == 0


def test_from_with_wrong_types_is_refused_by_field(tmp_path: Path) -> None:
    """Issue 12 F6 (matqmsg): exit 70 before."""
    cases = {
        '{"format":"matqmsg","elements":[{"type":"SELECTION","fields":"now"}]}':
            "matqmsg: elements[0].fields: must be a mapping of field names, not str",
        '{"selection_type":"all","key_bytes":"x"}': "matqmsg: key_bytes: must be an integer, not str 'x'",
        '{"selection_type":"all","key_bytes":1.5}': "matqmsg: key_bytes: must be an integer, not float 1.5",
        '{"selection_type":"keyed","key_relationship":5}':
            "matqmsg: key_relationship: must be text, not int 5",
        '{"selection_type":"keyed","key_relationship":"=","key_hex":"zz"}':
            "matqmsg: key_hex: 'zz' is not hex",
        '{"elements":3}': "matqmsg: elements: must be a list, not int",
        '[1]': "expected a JSON object",
    }
    for doc, message in cases.items():
        f = tmp_path / "req.json"
        f.write_text(doc)
        r = mq("build-request", "matqmsg", "--from", f, "--dump")
        assert r.status == 1 and message in r.stderr, (doc, r.stderr)


@pytest.mark.parametrize("cut", [16, 20, 36, 39])
def test_a_keyed_template_cut_anywhere_inside_its_key_is_reported(cut: int, tmp_path: Path) -> None:
    """Issue 22: a keyed template whose queue key size is 24, cut inside the key (20 of its
    24 bytes, or before its first byte): exit 2, the bytes there are counted."""
    whole = tmp_path / "k24.bin"
    r = mq("build-request", "matqmsg", "--type", "keyed", "--relation", "=", "--key",
           "CUST0001000200030004XYZW", "--key-size", "24", "--key-bytes", "16", "--text-bytes",
           "32", "-o", whole)
    assert r.status == 0, r.stderr
    assert len(whole.read_bytes()) == 48  # 16 + the key padded to a multiple of 16
    f = tmp_path / "cut.bin"
    f.write_bytes(whole.read_bytes()[:cut])
    r = mq("decode", "matqmsg", f, "--key-size", "24")
    assert r.status == 2
    assert r.stderr == (f"mqtool: matqmsg: input ends inside the key: the key has {cut - 16} bytes, "
                        f"the queue's key size is 24 at selection.key, offset X'{cut:04X}' ({cut})\n")
    f.write_bytes(whole.read_bytes()[:40])  # the whole key, the padding left out: a template
    assert mq("decode", "matqmsg", f, "--key-size", "24").status == 0
