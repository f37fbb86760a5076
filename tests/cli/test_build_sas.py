"""``mqtool build-request sas-attachment``: output formats, requests, refusals; the
committed generated vectors stay what the builder makes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mqtool.errors import ExitStatus
from mqtool.formats.mq.dumps.read import QueueDump
from tests.helpers import ROOT, TESTDATA, mq, seed_bytes

APP = "This is the actual application message."
SEED_G = "11" * 16  # the header G of IBM's example; message and attachments step: 22.., 33..
GENERATED = {
    "mytext-zos.qmsg": ["--correlid", SEED_G, "--max-msg", "64", "--message", APP, "-a",
                        "binary:testdata/sas/mytext.txt=d:\\mytext.txt", "--description",
                        "Text file..."],
    "mytext-win.qmsg": ["--correlid", SEED_G, "--profile", "win", "--max-msg", "64", "--message", APP, "-a",
                        "binary:testdata/sas/mytext.txt=d:\\mytext.txt", "--description",
                        "Text file..."],
    "class-zos.qmsg": ["--correlid", SEED_G, "--max-msg", "128", "--message", "Class list attached.", "-a",
                       "dataset:testdata/sas/class.csv=SASHELP.CLASS", "--description", "Students"],
}


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_committed_vectors_are_what_the_builder_makes(in_root: None, name: str) -> None:
    r = mq("build-request", "sas-attachment", *GENERATED[name])
    assert r.status == 0, r.stderr
    assert r.stdout == (TESTDATA / "sas" / name).read_bytes()


def test_generated_zos_set_carries_the_spec_header(in_root: None) -> None:
    msgs = list(QueueDump("testdata/sas/mytext-zos.qmsg"))
    assert msgs[0].body == seed_bytes("sas/seed-zos.header.dump")
    assert [len(m.body) for m in msgs] == [164, 39, 8, 64, 44, 4]
    assert msgs[2].body == bytes.fromhex("0000003C00000064")  # lrecl 60, file size 100


@pytest.mark.parametrize("fmt", ["mqtool-dir", "amqsbcg", "mqmd-binary", "dmpmqmsg"])
def test_every_output_format_reassembles(in_root: None, tmp_path: Path, fmt: str) -> None:
    out = tmp_path / "dump"
    r = mq("build-request", "sas-attachment", "--correlid", SEED_G, "--profile", "linux",
           "--message", "hi",
           "-a", "text:testdata/sas/mytext.txt=/home/me/mytext.txt", "--output-format", fmt,
           "-o", out)
    assert r.status == 0, r.stderr
    r = mq("reassemble", "attachment", out, "-o", tmp_path / "o")
    assert r.status == 0, r.stderr
    text = (tmp_path / "o" / ("11" * 16 + "00" * 8) / "mytext.txt").read_bytes()
    assert text == (TESTDATA / "sas" / "mytext.txt").read_bytes().replace(b"\r\n", b"\n")


def test_readme_yaml_request_builds(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    yaml_text = re.search(r"```yaml\n(.*?)```", readme, re.S).group(1)  # type: ignore[union-attr]
    (tmp_path / "request.yaml").write_text(yaml_text)
    (tmp_path / "mytext.txt").write_bytes(b"hello\r\n")
    dump = tmp_path / "set.qmsg"
    r = mq("build-request", "sas-attachment", "--from", tmp_path / "request.yaml", "-o", dump)
    assert r.status == 0, r.stderr
    r = mq("reassemble", "attachment", dump, "-o", tmp_path / "o", "--json")
    assert r.status == 0, r.stderr
    import json

    manifest = json.loads(r.text.splitlines()[0])
    assert [(a["qualifier2"], a["version"], a["output"]) for a in manifest["attachments"]] == [
        ("d:\\mytext.txt", [1, 0], "mytext.txt"), ("CLASS", [0, 0], "CLASS.parquet")]
    import pyarrow.parquet as pq

    folder = tmp_path / "o" / manifest["header_correlid"]
    t = pq.read_table(folder / "CLASS.parquet")
    assert t.to_pydict() == {"NAME": ["ALFRED", "ALICE"], "AGE": [14.0, None],
                             "AGE__missing": [None, "A"]}
    assert t.schema.field("AGE").metadata[b"label"] == b"Age"


@pytest.mark.parametrize(("args", "message"), [
    (["-a", "zip:x"], "use binary:FILE[=NAME], text:FILE[=NAME] or dataset:CSV"),
    (["-a", "binary:/no/such/file"], "/no/such/file: no such file"),
    (["--message", "x", "--output-format", "mqtool-dir"], "writes a directory: give -o DIR"),
    ([], "nothing to build"),
    (["--message", "x", "--max-msg", "10"], "--max-msg"),
])
def test_refusals(args: list[str], message: str) -> None:
    r = mq("build-request", "sas-attachment", *args)
    assert r.status == ExitStatus.USAGE and message in r.stderr
    assert r.stdout == b""


def test_csv_value_too_long_for_its_variable_is_impossible_but_bad_cp_is_refused(
        tmp_path: Path) -> None:
    csv = tmp_path / "t.csv"
    csv.write_text("NAME\nZoë\n€uro\n", encoding="utf-8")
    r = mq("build-request", "sas-attachment", "-a", f"dataset:{csv}")
    assert r.status == ExitStatus.USAGE
    assert r.stderr == "mqtool: sas-attachment: T.NAME[2]: '€uro' has characters cp037 lacks\n"
    assert r.stdout == b""
