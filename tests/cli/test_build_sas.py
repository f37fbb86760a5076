"""``mqtool build-request sas-attachment``: output formats, requests, refusals; the
committed generated vectors stay what the builder makes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.errors import ExitStatus
from mqtool.formats.mq.dumps.read import QueueDump
from tests.helpers import ROOT, TESTDATA, mq, seed_bytes

APP = "This is the actual application message."
SEED_G = "11" * 16  # the header G of IBM's example; message and attachments step: 22.., 33..
GENERATED = {
    "mytext-zos.qmsg": ["--correlid", SEED_G, "--max-msg", "64", "--message", APP, "--attach",
                        "binary:testdata/sas/mytext.txt=d:\\mytext.txt", "--description",
                        "Text file..."],
    "mytext-win.qmsg": ["--correlid", SEED_G, "--profile", "win", "--max-msg", "64", "--message", APP,
                        "--attach",
                        "binary:testdata/sas/mytext.txt=d:\\mytext.txt", "--description",
                        "Text file..."],
    "class-zos.qmsg": ["--correlid", SEED_G, "--max-msg", "128", "--message", "Class list attached.",
                       "--attach",
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
           "--attach", "text:testdata/sas/mytext.txt=/home/me/mytext.txt", "--to", fmt,
           "-o", out)
    assert r.status == 0, r.stderr
    r = mq("reassemble", "attachment", out, "-o", tmp_path / "o")
    assert r.status == 0, r.stderr
    text = (tmp_path / "o" / ("11" * 16 + "00" * 8) / "mytext.txt").read_bytes()
    assert text == (TESTDATA / "sas" / "mytext.txt").read_bytes().replace(b"\r\n", b"\n")


def test_readme_yaml_request_builds(tmp_path: Path) -> None:
    readme = (ROOT / "docs" / "sas-attachments.md").read_text(encoding="utf-8")
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
    (["--attach", "zip:x"], "use binary:FILE[=NAME], text:FILE[=NAME] or dataset:CSV"),
    (["--attach", "binary:/no/such/file"], "/no/such/file: no such file"),
    (["--message", "x", "--to", "mqtool-dir"], "writes a directory: give -o DIR"),
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
    r = mq("build-request", "sas-attachment", "--attach", f"dataset:{csv}")
    assert r.status == ExitStatus.USAGE
    assert r.stderr == "mqtool: sas-attachment: T.NAME[2]: '€uro' has characters cp037 lacks\n"
    assert r.stdout == b""


def test_correlid_option_and_seeded_defaults(in_root: None) -> None:
    args = ["build-request", "sas-attachment", "--message", "m", "--attach",
            "binary:testdata/sas/mytext.txt"]
    r = mq(*args, "--correlid", "0123456789ABCDEF" * 2)
    cids = [m.correlid.hex().upper() for m in _messages(r.stdout)]  # type: ignore[union-attr]
    assert cids == ["0123456789ABCDEF" * 2 + "00" * 8, "123456789ABCDE00" * 2 + "00" * 8,
                    "23456789ABCDEF11" * 2 + "00000001" + "00" * 4,
                    "23456789ABCDEF11" * 2 + "00000002" + "00" * 4,
                    "23456789ABCDEF11" * 2 + "00" * 8]
    seeded = [mq(*args, "--seed", str(n)).stdout for n in (5, 5, 6)]
    assert seeded[0] == seeded[1] != seeded[2]
    default = [_messages(mq(*args).stdout)[0].correlid for _ in range(2)]
    assert default[0] != default[1]  # two sets on one queue do not collide
    bad = mq(*args, "--correlid", "11" * 15)
    assert bad.status == ExitStatus.USAGE and bad.stdout == b""
    assert bad.stderr == ("mqtool: sas-attachment: --correlid: 15 bytes; give the 16-byte G (or "
                          "the 20/24-byte CorrelId)\n")


def _messages(dump: bytes) -> list:  # type: ignore[type-arg]
    import io

    return list(QueueDump("-", "dmpmqmsg", stream=io.BytesIO(dump)))


def test_every_bad_request_field_is_refused_at_once(tmp_path: Path) -> None:
    req = tmp_path / "r.json"
    req.write_text('{"attachments": [{"version": 5}, {"path": {}}, {"type": "dataset", '
                   '"variables": [{"name": "C", "vartype": 2, "length": 2147483647}, '
                   '{"name": "N", "vartype": 1, "length": 2147483647}]}], '
                   '"original_msgtype": "x", "original_correlid": "zz"}')
    r = mq("build-request", "sas-attachment", "--from", req, "-o", tmp_path / "out.qmsg")
    assert r.status == ExitStatus.USAGE and r.stdout == b""
    assert r.stderr.splitlines() == [f"mqtool: sas-attachment: {req}: {line}" for line in (
        "original_msgtype: 'x': a whole number is needed",
        "original_correlid: 'zz': up to 24 bytes in hex",
        "attachments[1].version: 5: [major, minor], two whole numbers 0..2147483647",
        "attachments[1]: a file attachment needs path or data",
        "attachments[2].path: a mapping: a file name is needed",
        "attachments[3].variables[1].length: 2147483647: a character variable has 1..32767 bytes",
        "attachments[3].variables[2].length: 2147483647: a numeric variable has 2..8 bytes")]
    assert list(tmp_path.iterdir()) == [req]  # nothing written


def test_a_set_that_fails_midway_leaves_no_file(tmp_path: Path) -> None:
    csv = tmp_path / "t.csv"
    csv.write_text("N\n1e300\n", encoding="utf-8")  # too large for IBM HFP: refused in prepare
    out = tmp_path / "set.qmsg"
    r = mq("build-request", "sas-attachment", "--attach", f"dataset:{csv}", "-o", out)
    assert r.status == ExitStatus.USAGE and "value too large for IBM HFP" in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"]


def test_builder_help_speaks_of_building() -> None:
    text = mq("build-request", "sas-attachment", "--help").text
    assert "detected" not in text and "Byte order to write" in text
    assert "Code page to write strings and text in" in text


JSON_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70),
                        st.floats(allow_nan=True), st.text(max_size=6),
                        st.sampled_from([2147483648, 10**400, -1, "", "11" * 16, [], {}]))


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.sampled_from(["message", "original_msgtype", "original_correlid",
                                        "header_correlid", "attachments"]),
                       st.one_of(JSON_VALUES, st.lists(st.dictionaries(
                           st.sampled_from(["type", "path", "data", "version", "lrecl",
                                            "variables", "rows", "correlid"]),
                           st.one_of(JSON_VALUES, st.lists(JSON_VALUES, max_size=3)),
                           max_size=4), max_size=2)), max_size=4))
def test_from_with_wrong_types_and_huge_numbers(doc: dict) -> None:  # type: ignore[type-arg]
    import json
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        req = Path(d) / "r.json"
        req.write_text(json.dumps(doc))
        r = mq("build-request", "sas-attachment", "--from", req, "-o", Path(d) / "o.qmsg")
    assert r.status in (ExitStatus.OK, ExitStatus.USAGE), r.stderr
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    if r.status == ExitStatus.USAGE and "\nError: " not in r.stderr:  # (click: nothing to build)
        for line in r.stderr.splitlines():  # one line per bad field, naming it
            assert line.startswith("mqtool: sas-attachment: ") and line.count(": ") >= 3, line


def test_an_output_that_cannot_be_written_is_exit_4(tmp_path: Path) -> None:
    out = tmp_path / "missing" / "set.qmsg"
    r = mq("build-request", "sas-attachment", "--message", "x", "-o", out)
    assert r.status == ExitStatus.ENVIRONMENT
    assert r.stderr == f"mqtool: {out}: cannot write: No such file or directory\n"
    assert list(tmp_path.iterdir()) == []
