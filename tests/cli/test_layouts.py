"""``mqtool layouts``: tables, Markdown, JSON and Kaitai specs on the command line, and the
generated files in docs/ kept current."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from mqtool import catalog, registry
from mqtool.render import layouts as render
from tests.helpers import ROOT, mq


def test_without_arguments_lists_formats_and_records() -> None:
    r = mq("layouts")
    assert r.status == 0
    lines = r.text.splitlines()
    assert lines[0].split()[0] == "urb"
    assert lines[1].split()[:3] == ["URBH", "URBI", "ISN"]
    assert [ln.split()[0] for ln in lines[::2]] == list(registry.names())


def test_one_record_as_the_manual_prints_it() -> None:
    r = mq("layouts", "urb.urbh")
    assert r.status == 0, r.stderr
    lines = r.text.splitlines()
    assert lines[0] == ("urb.URBH: message header: total length, byte order, message number, "
                        "time, sender; 64 bytes")
    assert lines[1].split() == ["Dec", "Hex", "Type", "Len", "Name", "Description"]
    assert lines[2].split() == ["0", "0000", "char", "4", "urbheye", "eyecatcher", "'URBH'"]
    assert lines[5].split()[:6] == ["10", "000A", "X", "U2", "2", "urbhbord"]
    assert lines[5].endswith("urbhbord  the value 1 in the sender's byte order: X'0001' big-, "
                             "X'0100' little-endian")
    assert lines[-1].split() == ["40", "0028", "reserved", "24", "urbhres", "reserved,", "binary", "zero"]


def test_meanings_follow_their_field() -> None:
    lines = mq("layouts", "csq1logp.CSQ4LOGD").text.splitlines()
    i = next(i for i, ln in enumerate(lines) if ln.split()[4:5] == ["cscmitstatus"])
    assert [ln.strip() for ln in lines[i + 1:i + 4]] == ["B: backed out", "C: committed", "I: inflight"]
    assert lines[-2:] == [
        "then csbora: CSBORA, present when the record has 200 + ldatalen bytes after the RDW",
        "then csvardata: the rest of the unit"]


def test_json_has_every_field_with_offset_size_type_and_meanings() -> None:
    r = mq("layouts", "urb", "--json")
    assert r.status == 0
    obj = json.loads(r.text)
    assert (obj["format"], obj["byte_order"], obj["encoding"]) == ("urb", "big", "cp037")
    urbs = next(rec for rec in obj["records"] if rec["name"] == "URBS")
    assert urbs["size"] == 128
    st = next(f for f in urbs["fields"] if f["name"] == "urbsst")
    assert (st["offset"], st["size"], st["type"]) == (20, 4, "char")
    assert {"value": "CLOS", "meaning": "Destination closed"} in st["meanings"]
    assert obj["elements"]["cases"]["URBD"] == "URBD"
    urbf = next(rec for rec in obj["records"] if rec["name"] == "URBF")
    assert urbf["members"] == [{"name": "urbg", "record": "URBG", "repeat": "urbfcntg", "when": None,
                                "size": "urbfleng"}]
    one = json.loads(mq("layouts", "mq.mqmd", "--json").text)
    assert (one["format"], one["name"], one["size"], len(one["fields"])) == ("mq", "MQMD", 364, 29)


def test_every_format_as_json_lines() -> None:
    lines = mq("layouts", "--json").text.splitlines()
    assert [json.loads(ln)["format"] for ln in lines] == list(registry.names())


def test_ksy_on_stdout() -> None:
    r = mq("layouts", "csq1logp", "--ksy")
    assert r.status == 0
    spec = yaml.safe_load(r.text)
    assert spec["meta"] == {"id": "csq1logp", "title": catalog.format_doc("csq1logp").title,
                            "endian": "be", "encoding": "cp037"}
    assert spec["seq"] == [{"id": "records", "type": "record", "repeat": "eos"}]


@pytest.mark.parametrize(("args", "message"), [
    (["nosuch"], "mqtool: unknown format 'nosuch'; known: urb, csq1logp, sas-attachment, redolog, "
                 "matqmsg, mq"),
    (["urb.URBZ"], "mqtool: urb has no record 'URBZ'; its records: URBH, URBI"),
    (["--ksy"], "mqtool: --ksy describes one format: name it"),
    (["urb.URBH", "--ksy"], "mqtool: --ksy takes a whole format (urb), not one record"),
])
def test_refusals_are_one_clear_line(args: list[str], message: str) -> None:
    r = mq("layouts", *args)
    assert r.status == 1
    assert r.stdout == b""
    assert r.stderr.startswith(message) and r.stderr.count("\n") == 1


def test_output_directory_one_file_per_format(tmp_path: Path) -> None:
    out = tmp_path / "ksy"
    r = mq("layouts", "--ksy", "-o", out)
    assert r.status == 0, r.stderr
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(render.ksy_id(n) + ".ksy" for n in registry.names())
    assert (out / "urb.ksy").read_text() == catalog.ksy("urb")
    before = (out / "mq.ksy").read_text()
    (out / "mq.ksy").write_text("mine")
    again = mq("layouts", "--ksy", "-o", out)
    assert again.status == 1 and "exists (use --force to overwrite)" in again.stderr
    assert (out / "mq.ksy").read_text() == "mine"  # nothing half-written, nothing overwritten
    assert mq("layouts", "--ksy", "-o", out, "--force").status == 0
    assert (out / "mq.ksy").read_text() == before


# --------------------------------------------------------------------------- docs/ current


@pytest.mark.parametrize("name", list(registry.names()))
def test_docs_formats_are_generated_from_the_declarations(name: str) -> None:
    fmt = catalog.format_doc(name)
    path = ROOT / "docs" / "formats" / f"{fmt.name}.md"
    assert path.read_text(encoding="utf-8") == render.markdown(fmt), (
        f"{path} is stale: run mqtool layouts --markdown -o docs/formats --force")


@pytest.mark.parametrize("name", list(registry.names()))
def test_docs_ksy_are_generated_from_the_declarations(name: str) -> None:
    path = ROOT / "docs" / "ksy" / f"{render.ksy_id(name)}.ksy"
    assert path.read_text(encoding="utf-8") == catalog.ksy(name), (
        f"{path} is stale: run mqtool layouts --ksy -o docs/ksy --force")


def test_no_stray_generated_files() -> None:
    assert sorted(p.stem for p in (ROOT / "docs" / "formats").glob("*.md")) == sorted(registry.names())
    assert sorted(p.stem for p in (ROOT / "docs" / "ksy").glob("*.ksy")) == sorted(
        render.ksy_id(n) for n in registry.names())
