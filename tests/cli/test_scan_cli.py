"""``mqtool scan``: on the image testdata/scan/generate.py builds (its image.json says what
was put where), each hit at the offset and with the length the generator used; carved
files whose bytes and SHA-256 are the image's slices (hashlib, here), which ``decode auto``,
``messages``, ``extract`` and ``extract urb`` read; the custody record checked by ``verify``;
the options' refusals in one line."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from mqtool.errors import ExitStatus
from tests.helpers import TESTDATA, load_testdata_script, mq

IMAGE = TESTDATA / "scan" / "image.bin"
PUT = json.loads((TESTDATA / "scan" / "image.json").read_text())


def _hits(*args: object, image: Path | str = IMAGE, stdin: bytes | None = None) -> list[dict]:
    r = mq("scan", image, "--json", *args, input=stdin)
    assert r.status == 0, r.stderr
    return [json.loads(line) for line in r.text.splitlines()]


def test_the_committed_image_is_what_its_generator_makes() -> None:
    data, where = load_testdata_script("scan/generate.py").image()
    assert IMAGE.read_bytes() == data
    assert where == PUT


def test_every_structure_at_the_offset_it_was_put() -> None:
    got = _hits()
    assert [(h["offset"], h["length"], h["format"], h["kind"]) for h in got] == [
        (p["offset"], p["length"], p["format"], p["kind"]) for p in PUT]
    assert {h["image"] for h in got} == {str(IMAGE)}
    reasons = [h["summary"] for h in got if h["kind"] == "MQDLH"]
    assert ["2053 MQRC_Q_FULL" in reasons[0], "2035 MQRC_NOT_AUTHORIZED" in reasons[1]] == [True, True]


def test_the_table_has_a_heading_and_a_line_per_hit() -> None:
    r = mq("scan", IMAGE)
    lines = r.text.splitlines()
    assert r.status == 0 and lines[0].split() == ["offset", "(decimal)", "length", "format",
                                                  "conf", "summary"]
    assert [line.split()[:4] for line in lines[1:]] == [
        [f"0x{p['offset']:010x}", str(p["offset"]), str(p["length"]), p["format"]] for p in PUT]


def test_formats_confidence_and_window_select(tmp_path: Path) -> None:
    assert [h["format"] for h in _hits("--formats", "urb,csq1logp")] == ["urb", "csq1logp"]
    assert {h["format"] for h in _hits("--min-confidence", "0.9")} == {"urb", "mq", "csq1logp"}
    first_mq = PUT[1]
    got = _hits("--offset", hex(first_mq["offset"]), "--length", str(first_mq["length"]))
    assert [(h["offset"], h["length"]) for h in got] == [(first_mq["offset"], first_mq["length"])]
    got = _hits("--offset", f"-{len(IMAGE.read_bytes()) - PUT[-1]['offset']}")
    assert [h["offset"] for h in got] == [PUT[-1]["offset"]]


def test_where_and_fields_over_the_hits() -> None:
    r = mq("scan", IMAGE, "--where", 'kind == "MQDLH" and summary contains "Q_FULL"',
           "--fields", "offset,length,format", "--header")
    dead = [p for p in PUT if p["kind"] == "MQDLH"]
    assert r.text.splitlines() == ["offset\tlength\tformat"] + [
        f"{p['offset']}\t{p['length']}\tmq" for p in (dead[0], dead[2])]


def test_stdin_is_scanned_as_the_file_is() -> None:
    from_file = _hits()
    from_stdin = _hits(image="-", stdin=IMAGE.read_bytes())
    assert from_stdin == [{**h, "image": "-"} for h in from_file]


def test_carved_files_are_the_image_slices_and_the_manifest_says_so(tmp_path: Path) -> None:
    data = IMAGE.read_bytes()
    out = tmp_path / "carved"
    r = mq("scan", IMAGE, "--carve", out)
    assert r.status == 0 and r.stderr == f"mqtool: {len(PUT)} hit(s) carved into {out} (manifest.json)\n"
    doc = json.loads((out / "manifest.json").read_text())
    assert doc["source"] == str(IMAGE)
    for hit, put in zip(doc["hits"], PUT, strict=True):
        piece = data[put["offset"]:put["offset"] + put["length"]]
        assert (out / hit["file"]).read_bytes() == piece
        assert hit["sha256"] == hashlib.sha256(piece).hexdigest() and hit["size"] == len(piece)
    record = doc["custody"]
    assert record["inputs"][0]["sha256"] == hashlib.sha256(data).hexdigest()
    assert record["inputs"][0]["size"] == len(data)
    assert record["command"] == ["mqtool", "scan", str(IMAGE), "--carve", str(out)]
    assert [o["path"] for o in record["outputs"]] == [h["file"] for h in doc["hits"]]
    assert record["started"] <= record["finished"]
    v = mq("verify", out / "manifest.json")
    assert v.status == 0 and v.text.splitlines()[-1].endswith(
        f"verified (1 input(s), {len(PUT)} output(s))")


def test_carving_from_stdin_records_its_bytes(tmp_path: Path) -> None:
    data = IMAGE.read_bytes()
    r = mq("scan", "-", "--carve", tmp_path / "c", "--formats", "urb", input=data)
    assert r.status == 0, r.stderr
    record = json.loads((tmp_path / "c" / "manifest.json").read_text())["custody"]
    assert record["inputs"] == [{"path": "-", "size": len(data),
                                 "sha256": hashlib.sha256(data).hexdigest()}]
    v = mq("verify", tmp_path / "c" / "manifest.json")
    assert v.status == 0 and "UNCHECKED  input  -: standard input cannot be read again" in v.text


def test_carved_output_feeds_decode_auto_messages_and_extract(tmp_path: Path) -> None:
    out = tmp_path / "carved"
    assert mq("scan", IMAGE, "--carve", out).status == 0
    files = sorted(p for p in out.iterdir() if p.name != "manifest.json")
    # decode auto reads the directory: one message per carved file, each labelled with it
    r = mq("decode", "auto", out, "--json")
    assert r.status == 0, r.stderr
    units = [json.loads(line) for line in r.text.splitlines()]
    assert {u["source"] for u in units} == {str(f) for f in files}
    reasons = [u["elements"][0]["fields"]["reason"] for u in units
               if u["format"] == "mq" and u["elements"] and u["elements"][0]["type"] == "MQDLH"]
    assert reasons == [2053, 2035, 2053]
    pcf = [u["pcf"]["header"] for u in units if "pcf" in u]  # the event, read as PCF
    assert [(h["type"], h["command"], h["reason"]) for h in pcf] == [(7, 44, 2085)]
    # messages lists them; stats counts them by reason
    m = mq("messages", out, "--json")
    assert m.status == 0 and len(m.text.splitlines()) == len(files)
    s = mq("stats", "--by", "mqdlh.reason", out, "--json")
    assert [json.loads(x) for x in s.text.splitlines()][:2] == [  # URB, PCF, 2 records, text
        {"mqdlh.reason": None, "count": 5},
        {"mqdlh.reason": "2053", "mqdlh.reason_meaning": "MQRC_Q_FULL", "count": 2}]
    # extract reads the carved CSQ1LOGP chain, extract urb the URB message
    (csq,) = out.glob("*.csq1logp")
    x = mq("extract", csq, "--fields", "rec_no,csverb,csqueuename")
    assert x.status == 0 and x.text.splitlines() == ["0\tMQPUT\tAPP.INPUT", "1\tMQPUT\tAPP.INPUT"]
    (urb,) = out.glob("*.urb")
    u = mq("extract", "urb", urb, "-o", tmp_path / "tables", "--to", "jsonl")
    assert u.status == 0, u.stderr
    assert "status                1 rows" in u.text


def test_a_failed_carve_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mqtool import scan

    real = scan.CarveDir._one
    calls = []

    def second_fails(self, f, hit, source):  # type: ignore[no-untyped-def]
        calls.append(hit)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return real(self, f, hit, source)

    monkeypatch.setattr(scan.CarveDir, "_one", second_fails)
    r = mq("scan", IMAGE, "--carve", tmp_path / "c")
    assert r.status == ExitStatus.ENVIRONMENT and "No space left" in r.stderr
    assert not (tmp_path / "c").exists()


def test_empty_and_structureless_images_exit_2(tmp_path: Path) -> None:
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    r = mq("scan", empty)
    assert r.status == ExitStatus.DECODE
    assert r.stderr == f"mqtool: scan: {empty}: empty input at offset X'0000' (0): nothing to scan\n"
    plain = tmp_path / "plain.bin"
    plain.write_bytes(bytes(4096))
    r = mq("scan", plain, "--carve", tmp_path / "c")
    assert r.status == ExitStatus.DECODE
    assert "no structure found in 4,096 bytes from offset X'0000' (0)" in r.stderr
    assert not (tmp_path / "c").exists()


@pytest.mark.parametrize(("args", "said"), [
    (["--formats", "urb,nope"], "--formats: unknown format 'nope'; scan knows urb, "),
    (["--offset", "ten"], "--offset 'ten': not a number"),
    (["--offset", "99999"], "--offset '99999': past the end of the input (8192 bytes)"),
    (["--length", "-1"], "--length '-1': must not be negative"),
    (["--where", "kind =="], "--where: 'kind ==' ends too early"),
    (["--where", "kindd == 1"], "--where: unknown field 'kindd'; close names: kind"),
    (["--fields", "offset,,length"], "--fields: 'offset,,length': give field names"),
    (["--header"], "--header goes with --fields"),
    (["--fields", "offset", "--json"], "--fields prints columns"),
])
def test_bad_option_values_are_one_line_status_1(args: list[str], said: str) -> None:
    r = mq("scan", IMAGE, *args)
    assert r.status == ExitStatus.USAGE, r.stderr
    assert said in r.stderr and len(r.stderr.splitlines()) == 1, r.stderr
    assert "Traceback" not in r.stderr
