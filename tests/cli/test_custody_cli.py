"""The chain of custody in every output that records a run -- ``extract``'s and ``extract
urb``'s ``_summary.json``, ``reassemble attachment``'s ``manifest.json``, ``messages -o``'s
``custody.json`` (``scan --carve``: tests/cli/test_scan_cli.py) -- each input's and output's
SHA-256 and size as hashlib and os.stat give them here, the command line as typed; and
``mqtool verify`` on each: verified, touched, changed."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from mqtool import __version__
from mqtool.errors import ExitStatus
from tests.helpers import TESTDATA, mq, seed_bytes


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def _checked(record: dict[str, Any], inputs: list[Path], outputs: dict[str, Path],
             argv: list[object]) -> None:
    """The record names exactly these inputs and outputs, with the digests hashlib gives."""
    assert record["tool"] == "mqtool" and record["version"] == __version__
    assert record["command"] == ["mqtool", *(str(a) for a in argv)]
    assert record["started"] <= record["finished"]
    assert [(r["path"], r["size"], r["sha256"]) for r in record["inputs"]] == [
        (str(p), p.stat().st_size, _sha(p)) for p in inputs]
    assert {r["path"]: (r["size"], r["sha256"]) for r in record["outputs"]} == {
        name: (p.stat().st_size, _sha(p)) for name, p in outputs.items()}


def _verify(manifest: Path) -> tuple[int, list[str]]:
    r = mq("verify", manifest)
    return r.status, r.text.splitlines()


def test_extract_urb_summary(tmp_path: Path) -> None:
    src = TESTDATA / "urb" / "inst-color.data.dump"
    out = tmp_path / "tables"
    argv: list[object] = ["extract", "urb", src, "-o", out, "--to", "jsonl"]
    assert mq(*argv).status == 0
    summary = out / "_summary.json"
    tables = {p.name: p for p in out.iterdir() if p.name != "_summary.json"}
    assert len(tables) == 7
    _checked(json.loads(summary.read_text())["custody"], [src], tables, argv)
    status, lines = _verify(summary)
    assert status == 0 and lines[-1] == f"{summary}: verified (1 input(s), 7 output(s))"
    (out / "records.jsonl").write_text("{}\n")
    status, lines = _verify(summary)
    assert status == ExitStatus.DECODE and lines[-1].endswith("changed (1 input(s), 7 output(s))")
    assert any(x.startswith("SIZE       output records.jsonl: 3 bytes, recorded ") for x in lines)


def test_extract_to_a_directory_summary(tmp_path: Path) -> None:
    log = tmp_path / "log.bin"
    log.write_bytes(seed_bytes("csq1logp/hello-2seg.dump"))
    out = tmp_path / "out"
    argv: list[object] = ["extract", log, "-o", f"{out}/"]
    assert mq(*argv).status == 0
    files = {p.relative_to(out).as_posix(): p for p in sorted(out.rglob("*"))
             if p.is_file() and p.name != "_summary.json"}
    assert any(name.startswith("records/") for name in files)
    _checked(json.loads((out / "_summary.json").read_text())["custody"], [log], files, argv)
    assert _verify(out / "_summary.json")[0] == 0


def test_reassemble_manifest(tmp_path: Path) -> None:
    dump = TESTDATA / "sas" / "mytext-zos.qmsg"
    out = tmp_path / "att"
    argv: list[object] = ["reassemble", "attachment", dump, "-o", out]
    assert mq(*argv).status == 0
    (manifest,) = out.glob("*/manifest.json")
    folder = manifest.parent
    files = {p.name: p for p in folder.iterdir() if p.name != "manifest.json"}
    assert set(files) == {"message.bin", "mytext.txt"}
    _checked(json.loads(manifest.read_text())["custody"], [dump], files, argv)
    assert _verify(manifest)[0] == 0


def test_messages_output_directory_and_file(tmp_path: Path) -> None:
    dump = TESTDATA / "mq" / "dlq.dmpmqmsg"
    out = tmp_path / "msgs"
    argv: list[object] = ["messages", dump, "-o", out]
    assert mq(*argv).status == 0
    record = out / "custody.json"
    files = {p.name: p for p in out.iterdir() if p.name != "custody.json"}
    assert "index.jsonl" in files
    _checked(json.loads(record.read_text())["custody"], [dump], files, argv)
    assert _verify(record)[0] == 0
    # the mqtool directory with its record still reads as a queue dump
    assert len(mq("messages", out, "--json").text.splitlines()) == 2
    single = tmp_path / "dlq.txt"
    argv = ["messages", dump, "-o", single, "--to", "dmpmqmsg"]
    assert mq(*argv).status == 0
    beside = tmp_path / "dlq.txt.custody.json"
    _checked(json.loads(beside.read_text())["custody"], [dump], {"dlq.txt": single}, argv)
    assert _verify(beside)[0] == 0


def test_touched_is_intact_missing_is_changed(tmp_path: Path) -> None:
    src = tmp_path / "image.bin"
    src.write_bytes((TESTDATA / "scan" / "image.bin").read_bytes())
    out = tmp_path / "c"
    assert mq("scan", src, "--carve", out, "--formats", "urb").status == 0
    manifest = out / "manifest.json"
    os.utime(src, ns=(1_800_000_000 * 10**9, 1_800_000_000 * 10**9))
    status, lines = _verify(manifest)
    assert status == 0 and lines[0].startswith(f"MTIME      input  {src}: modified ")
    assert lines[-1] == f"{manifest}: touched (1 input(s), 1 output(s))"
    src.unlink()
    status, lines = _verify(manifest)
    assert status == ExitStatus.DECODE and lines[0] == f"MISSING    input  {src}: {src} does not exist"
    r = mq("verify", "--json", manifest)
    doc = json.loads(r.text)
    assert doc["status"] == "changed" and [c["status"] for c in doc["checks"]] == ["missing", "ok"]


def test_what_is_no_manifest(tmp_path: Path) -> None:
    for name, data, said in (("empty.json", b"", "empty file, no custody record in it"),
                             ("x.json", b"\x00\xff", "not JSON"),
                             ("hits.json", b'{"hits": []}', "no custody record"),
                             ("bad.json", b'{"custody": {"inputs": [7]}}', "not an object")):
        p = tmp_path / name
        p.write_bytes(data)
        r = mq("verify", p)
        assert r.status == ExitStatus.DECODE and said in r.stderr, r.stderr
        assert len(r.stderr.splitlines()) == 1
    r = mq("verify", tmp_path)
    assert r.status == ExitStatus.USAGE and r.stderr == f"mqtool: {tmp_path}: is a directory\n"
