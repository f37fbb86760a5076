"""mqtool identify and mqtool decode auto, generic over the registry: every vector in
testdata/ that a merged codec recognises is decoded by `decode auto` exactly as by its own
codec with the detected options."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mqtool import api, registry
from mqtool.io.undump import undump
from tests.helpers import ROOT, TESTDATA, mq, seed_bytes

VECTORS = sorted(p.relative_to(ROOT).as_posix() for p in TESTDATA.rglob("*.dump"))
CLAIMED = [v for v in VECTORS if registry.best_codec(registry.identify((ROOT / v).read_bytes()))]


def test_identify_lines(in_root: None) -> None:
    r = mq("identify", "testdata/osb/sample1.header.dump", "testdata/osb/sample6.parmlist.dump",
           "testdata/matqmsg/keyed-eq.selection.synthetic.dump")
    assert r.status == 0
    assert r.text.splitlines() == [
        "testdata/osb/sample1.header.dump: redolog (0.95) hex dump text (document style, 48 bytes): "
        "redolog header: 'REDODATA' at X'28', rl_len 422 = 48 + rl_intent_len 374",
        "testdata/osb/sample6.parmlist.dump: redolog (0.60) hex dump text (document style, 28 bytes): "
        "Redolog exit parameter list: intent_len 76, user ID 'DZC10'",
        "testdata/matqmsg/keyed-eq.selection.synthetic.dump: matqmsg (0.70) hex dump text (document "
        "style, 24 bytes): MATQMSG selection template: type keyed =, key_bytes 16, text_bytes 32",
    ]


def test_identify_json_shape(tmp_path: Path) -> None:
    p = tmp_path / "rec.bin"
    p.write_bytes(seed_bytes("matqmsg/all-blocked.receiver.synthetic.dump"))
    r = mq("identify", p, "--json")
    obj = json.loads(r.text)
    assert list(obj) == ["file", "format", "confidence", "reason", "candidates"]
    assert (obj["file"], obj["format"], obj["confidence"]) == (str(p), "matqmsg", 0.75)
    assert obj["reason"] == "MATQMSG receiver: 2 message(s) available, bytes_available 96 = 32 + 2 × 32"
    assert obj["candidates"][0] == {"format": "matqmsg", "confidence": 0.75, "reason": obj["reason"],
                                    "options": {"part": "receiver"}}


def test_identify_unknown_and_missing_files(tmp_path: Path) -> None:
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\xff\xfe" * 10)
    r = mq("identify", tmp_path / "nope.bin", junk)
    assert r.status == 2  # unknown beats the missing file's 1: both are reported
    assert r.text == f"{junk}: unknown (0.00) no codec recognises these 20 bytes\n"
    assert "no such file" in r.stderr
    obj = json.loads(mq("identify", junk, "--json").text)
    assert (obj["format"], obj["confidence"], obj["candidates"]) == (None, 0.0, [])
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    assert mq("identify", empty).text.endswith("unknown (0.00) empty file\n")


def test_identify_all_lists_other_candidates(tmp_path: Path) -> None:
    p = tmp_path / "x.txt"
    p.write_text("0000 00000000 00000000\n")  # dump text of zero bytes nothing claims
    r = mq("identify", p, "--all")
    assert r.text == (f"{p}: dump (0.50) hex dump text (document style, 8 bytes); no codec "
                      "recognises the bytes\n")


def test_decode_auto_names_the_codec_first(in_root: None) -> None:
    r = mq("decode", "auto", "testdata/osb/sample3.header.dump")
    lines = r.text.splitlines()
    assert r.status == 0
    assert lines[0] == ("format redolog (0.95): hex dump text (document style, 48 bytes): redolog "
                        "header: 'REDODATA' at X'28', rl_len 138 = 48 + rl_intent_len 90")
    assert lines[1:] == mq("decode", "redolog", "--hex", "testdata/osb/sample3.header.dump").text.splitlines()


def test_decode_auto_json_format_field(in_root: None) -> None:
    r = mq("decode", "auto", "testdata/matqmsg/keyed-eq.receiver.synthetic.dump", "--json")
    obj = json.loads(r.text)
    assert obj["format"] == "matqmsg" and obj["part"] == "receiver"
    assert obj["messages"][0]["text"] == "ORDER 4711 SHIPPED"


def test_decode_auto_binary_from_stdin() -> None:
    r = mq("decode", "auto", "-", input=seed_bytes("osb/sample6.parmlist.dump"))
    assert r.text.splitlines()[0] == ("format redolog (0.60): Redolog exit parameter list: "
                                      "intent_len 76, user ID 'DZC10'")


def test_decode_auto_refuses_what_nothing_recognises(tmp_path: Path) -> None:
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\xff" * 40)
    r = mq("decode", "auto", junk)
    assert r.status == 2 and r.stdout == b""
    assert r.stderr == (f"mqtool: auto: {junk}: no codec recognises these 40 bytes (mqtool "
                        "identify lists candidates), offset X'0000' (0)\n")


def test_decode_auto_strict(in_root: None) -> None:
    f = "testdata/matqmsg/k20.selection.synthetic.dump"
    assert mq("decode", "auto", f).status == 0
    assert mq("decode", "auto", f, "--strict").status == 2


@pytest.mark.parametrize("path", CLAIMED)
def test_decode_auto_agrees_with_the_detected_codec(in_root: None, path: str) -> None:
    """For every vector a codec claims: decode auto == that codec with the detected options."""
    text = (ROOT / path).read_bytes()
    choice = registry.best_codec(registry.identify(text))
    assert choice is not None
    options = {k: v for k, v in choice.options.items() if k != "hex"}
    expected = [u.to_json() for u in api.decode(choice.format, undump(text.decode()), **options)]
    r = mq("decode", "auto", path, "--json")
    assert [json.loads(line) for line in r.text.splitlines()] == json.loads(json.dumps(expected))


def test_claimed_vectors_include_this_branchs() -> None:
    assert len([v for v in CLAIMED if "/osb/" in v or "/matqmsg/" in v]) >= 18


def test_every_osb_and_matqmsg_vector_is_identified(in_root: None) -> None:
    for path in VECTORS:
        fmt = {"osb": "redolog", "matqmsg": "matqmsg"}.get(path.split("/")[1])
        if fmt is None or "parmset" in path or "usrextpl" in path:  # no shape to recognise
            continue
        best = registry.identify((ROOT / path).read_bytes())[0]
        assert best.format == fmt and best.options["hex"] is True, (path, best)


def test_identify_reads_only_the_head_of_a_large_file(tmp_path: Path) -> None:
    from mqtool.cli.auto import HEAD
    from mqtool.testing.csq1logp_gen import Spec, write

    big = tmp_path / "big.rdw"
    size = write(str(big), Spec(count=200), "rdw", target_bytes=3 * HEAD)
    r = mq("identify", big)
    assert r.status == 0, r.stderr
    assert r.text.startswith(f"{big}: csq1logp (")
    assert f"(judged on the first {HEAD:,} of {size:,} bytes)" in r.text


def test_identify_cuts_large_dump_text_at_a_line_end(tmp_path: Path) -> None:
    from mqtool.cli.auto import HEAD, TEXT_HEAD
    from mqtool.io.inputs import read_head

    line = "0000 C1C2C3C4 C5C6C7C8 C9D1D2D3 D4D5D6D7 *ABCDEFGHIJKLMNOP*\n"
    text = tmp_path / "big.txt"
    text.write_text(line * (2 * HEAD // len(line)))
    head, size = read_head(str(text), HEAD, TEXT_HEAD)
    assert size == text.stat().st_size and TEXT_HEAD - len(line) < len(head) <= TEXT_HEAD
    assert head.endswith(b"*\n") and len(head) % len(line) == 0
