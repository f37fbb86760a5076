"""``extract urb --typed`` and ``changes apply`` through the command line: typed columns
equal values computed here from the image bytes (packed decimals digit by digit) and the
generator's records; layouts from the stream, ``--format-buffer`` (also ``@FILE``) and
``--fdt``; undecodable values are null plus an errors row; bad format buffers and FDTs are
one line before anything is written; applying changes twice changes nothing."""

from __future__ import annotations

import json
import random
from decimal import Decimal
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from mqtool.errors import ExitStatus
from mqtool.testing import urb_gen as g
from tests.helpers import mq

KEY = "changes_10006_9"
FIELDS = g.employees()
# the employees schema as a format buffer: what a subscription's GFB would say
BUFFER = "AA,8,A,AB,0,A,AC,5.2,P,AD,4.1,U,AE,1,B."


def unpack(raw: bytes, scale: int) -> Decimal:
    """Packed decimal by its definition: two digits a byte, the last nibble the sign (D
    or B minus)."""
    nibbles = raw.hex().upper()
    digits, sign = nibbles[:-1], nibbles[-1]
    return Decimal(("-" if sign in "DB" else "") + digits).scaleb(-scale)


def write_stream(path: Path, txs: list[list[g.Change]], gfft: bool = True) -> Path:
    path.write_bytes(g.stream(FIELDS, txs, gfft=gfft).data)
    return path


def test_typed_columns_are_the_values_of_the_images(tmp_path: Path) -> None:
    txs = g.changes(30, seed=5)
    src = write_stream(tmp_path / "s.urb", txs)
    r = mq("extract", "urb", "--typed", src, "-o", tmp_path / "out")
    assert r.status == ExitStatus.OK, r.stderr
    lines = r.stdout.decode().splitlines()
    assert f"{KEY}        30 rows" in lines
    assert any(x.startswith("layout: file 10006:9: sources GFFT EMPLTYP") for x in lines)
    typed = pq.read_table(tmp_path / "out" / f"{KEY}.parquet").to_pylist()
    changes = list(g.iter_records(txs))
    assert [(t["isn"], t["record_type"]) for t in typed] == [(c.isn, c.kind) for c in changes]
    for t, c in zip(typed, changes, strict=True):
        for side in ("before", "after"):
            want = getattr(c, side)
            assert (t[side] is None) == (want is None)
            if want is not None:
                assert t[side] == g.expected(FIELDS, want)
    # SALARY (AC, P 5.2) from the after images' bytes: after AA (8 bytes) and AB (its length byte)
    images = pq.read_table(tmp_path / "out" / "changes.parquet").to_pylist()
    after = [i["image"] for i in images if i["image_type"] == "A"]
    salaries = [unpack(im[8 + im[8]:8 + im[8] + 5], 2) for im in after]
    assert salaries == [t["after"]["SALARY"] for t in typed if t["after"] is not None]
    info = json.loads((tmp_path / "out" / "_summary.json").read_text())
    assert info["rows"][KEY] == 30 and info["layouts"]


def test_a_format_buffer_lays_out_a_stream_without_its_table(tmp_path: Path) -> None:
    txs = [[g.Change("I", 7, None, g.random_record(random.Random(1), 7))]]
    rec = txs[0][0].after
    assert rec is not None
    fields = FIELDS[:5]  # AA..AE: what BUFFER names
    data = g.stream(fields, txs, gfft=False).data
    src = tmp_path / "nogfft.urb"
    src.write_bytes(data)
    option_file = tmp_path / "fb.txt"
    option_file.write_text(f"# the subscription's GFB\n10006:9='{BUFFER}'\n")
    for option in (f"10006:9='{BUFFER}'", f"@{option_file}"):
        out = tmp_path / f"out{len(option)}"
        r = mq("extract", "urb", "--typed", src, "-o", out, "--format-buffer", option)
        assert r.status == ExitStatus.OK, r.stderr
        row = pq.read_table(out / f"{KEY}.parquet").to_pylist()[0]
        want = {"AA": rec["PERSONNEL-ID"], "AB": rec["FIRST-NAME"], "AC": rec["SALARY"],
                "AD": rec["BONUS-PCT"], "AE": rec["AGE"]}
        assert row["after"] == want and row["before"] is None and row["isn"] == 7


def test_an_fdt_names_the_columns(tmp_path: Path) -> None:
    txs = [[g.Change("I", 3, None, g.random_record(random.Random(2), 3))]]
    rec = txs[0][0].after
    assert rec is not None
    src = tmp_path / "s.urb"
    src.write_bytes(g.stream(FIELDS[:3], txs, gfft=False).data)
    fdt = tmp_path / "employees.json"
    fdt.write_text(json.dumps({"dbid": 10006, "fnr": 9, "fields": [
        {"name": "AA", "long_name": "PERSONNEL-ID", "length": 8, "format": "A"},
        {"name": "AB", "long_name": "FIRST-NAME", "length": 0, "format": "A"},
        {"name": "AC", "long_name": "SALARY", "length": 5, "format": "P", "decimals": 2}]}))
    r = mq("extract", "urb", "--typed", src, "-o", tmp_path / "out", "--fdt", fdt,
           "--format-buffer", "10006:9=AA,AB,AC.")
    assert r.status == ExitStatus.OK, r.stderr
    row = pq.read_table(tmp_path / "out" / f"{KEY}.parquet").to_pylist()[0]
    assert row["after"] == {k: rec[k] for k in ("PERSONNEL-ID", "FIRST-NAME", "SALARY")}


def test_a_value_that_cannot_be_decoded_is_null_and_an_error_row(tmp_path: Path) -> None:
    txs = [[g.Change("I", 1, None, g.random_record(random.Random(3), 1))]]
    data = bytearray(g.stream(FIELDS, txs).data)
    rec = txs[0][0].after
    assert rec is not None
    good = g.packed(int(rec["SALARY"].scaleb(2)), 5)
    at = bytes(data).rindex(good)
    data[at] = 0xAB  # digits A and B: no packed decimal
    src = tmp_path / "bad.urb"
    src.write_bytes(bytes(data))
    r = mq("extract", "urb", "--typed", src, "-o", tmp_path / "out")
    assert r.status == ExitStatus.DECODE, r.stderr
    assert len(r.stderr.splitlines()) == 1 and "urbd.after.SALARY" in r.stderr, r.stderr
    row = pq.read_table(tmp_path / "out" / f"{KEY}.parquet").to_pylist()[0]
    assert row["after"]["SALARY"] is None and row["after"]["PERSONNEL-ID"] == rec["PERSONNEL-ID"]
    errors = pq.read_table(tmp_path / "out" / "errors.parquet").to_pylist()
    assert [(e["path"], e["offset"]) for e in errors] == [("urbd.after.SALARY", at)]


def test_json_lines_carry_the_typed_values(tmp_path: Path) -> None:
    txs = g.changes(4, seed=9)
    src = write_stream(tmp_path / "s.urb", txs)
    r = mq("extract", "urb", "--typed", "--to", "jsonl", src, "-o", tmp_path / "out")
    assert r.status == ExitStatus.OK, r.stderr
    rows = [json.loads(x) for x in (tmp_path / "out" / f"{KEY}.jsonl").read_text().splitlines()]
    first = next(c for c in g.iter_records(txs))
    assert first.after is not None
    assert rows[0]["after"]["SALARY"] == str(first.after["SALARY"])
    assert rows[0]["after"]["BIRTH"] == first.after["BIRTH"].isoformat()


@pytest.mark.parametrize(("argv", "status", "says"), [
    (["--typed", "--format-buffer", "10006:9='AA,8,A,AB,2,Q'"], ExitStatus.DECODE,
     "mqtool: urb: --format-buffer 10006:9: column 13: cannot read 'Q'"),
    (["--typed", "--format-buffer", "AA,8,A"], ExitStatus.DECODE, "give DBID:FNR="),
    (["--typed", "--format-buffer", "@{tmp}/missing.txt"], ExitStatus.DECODE,
     "format buffers missing.txt: cannot read"),
    (["--typed", "--fdt", "{tmp}/fdt.json"], ExitStatus.DECODE,
     "mqtool: urb: FDT fdt.json: not JSON: Expecting ',' delimiter at line 1, column 15"),
    (["--format-buffer", "10006:9=AA,8,A."], ExitStatus.USAGE, "give --typed too"),
    (["--typed", "--to", "csv"], ExitStatus.USAGE, "not csv"),
])
def test_bad_layout_options_are_one_line_and_nothing_is_written(tmp_path: Path, argv: list[str],
                                                                status: int, says: str) -> None:
    src = write_stream(tmp_path / "s.urb", g.changes(2, seed=1))
    (tmp_path / "fdt.json").write_text('{"fields": [1 2]}')
    r = mq("extract", "urb", src, "-o", tmp_path / "out", *[a.format(tmp=tmp_path) for a in argv])
    assert r.status == status, r.stderr
    assert len(r.stderr.splitlines()) == 1 and says in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "out").exists()


# --------------------------------------------------------------------------- changes apply


def fold(txs: list[list[g.Change]]) -> dict[int, dict[str, object]]:
    """The state the changes leave, computed from the generator's records."""
    return g.final_state(FIELDS, txs)


def test_apply_folds_the_changes_and_twice_changes_nothing(tmp_path: Path) -> None:
    txs = g.changes(60, seed=4)
    src = write_stream(tmp_path / "s.urb", txs)
    assert mq("extract", "urb", "--typed", src, "-o", tmp_path / "out").status == 0
    replica = tmp_path / "replica"
    r = mq("changes", "apply", tmp_path / "out", "-o", replica)
    assert r.status == ExitStatus.OK, r.stderr
    want = fold(txs)
    assert r.stdout.decode() == (f"state_10006_9: 60 changes; {len(want)} inserted, 0 updated, 0 deleted; "
                                 f"{len(want)} rows\n")
    state = pq.read_table(replica / "state_10006_9.parquet")
    names = [f.name for f in state.schema if f.name != "isn" and not f.name.startswith("_")]
    got = {row["isn"]: {n: row[n] for n in names} for row in state.to_pylist()}
    assert got == want
    before = (replica / "state_10006_9.parquet").read_bytes()
    again = mq("changes", "apply", tmp_path / "out" / f"{KEY}.parquet", "-o", replica)
    assert again.status == ExitStatus.OK, again.stderr
    assert again.stdout.decode() == (f"state_10006_9: 60 changes; 0 inserted, 0 updated, 0 deleted; "
                                     f"{len(want)} rows\n")
    assert pq.read_table(replica / "state_10006_9.parquet").equals(state)
    assert (replica / "state_10006_9.parquet").read_bytes() == before


def test_apply_counts_inserts_updates_and_deletes_of_a_later_batch(tmp_path: Path) -> None:
    txs = g.changes(40, seed=8)
    first, second = txs[:4], txs[4:]
    whole = g.stream(FIELDS, txs).data  # one stream cut in two files after transaction 4
    head = len(g.gfft_message(FIELDS, g.ZOS))
    cut = len(g.stream(FIELDS, first).data)
    (tmp_path / "a.urb").write_bytes(whole[:cut])
    (tmp_path / "b.urb").write_bytes(whole[:head] + whole[cut:])
    for name in ("a", "b"):
        assert mq("extract", "urb", "--typed", tmp_path / f"{name}.urb", "-o", tmp_path / name).status == 0
    replica = tmp_path / "replica"
    assert mq("changes", "apply", tmp_path / "a", "-o", replica).status == 0
    state_a, state_b = fold(first), fold(txs)
    touched = {c.isn for c in g.iter_records(second)}
    inserted = len(set(state_b) - set(state_a))
    updated = len(set(state_a) & set(state_b) & touched)
    deleted = len(set(state_a) - set(state_b))
    assert inserted and updated and deleted
    r = mq("changes", "apply", tmp_path / "b", "-o", replica)
    assert r.status == ExitStatus.OK, r.stderr
    n = sum(len(t) for t in second)
    assert r.stdout.decode() == (f"state_10006_9: {n} changes; {inserted} inserted, {updated} updated, "
                                 f"{deleted} deleted; {len(state_b)} rows\n")
    state = pq.read_table(replica / "state_10006_9.parquet")
    assert state.column("isn").to_pylist() == sorted(state_b)


def test_apply_refuses_what_is_no_change_table_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "x.parquet").write_bytes(b"not parquet")
    r = mq("changes", "apply", tmp_path / "x.parquet", "-o", tmp_path / "replica")
    assert r.status != 0 and r.status != 70
    assert len(r.stderr.splitlines()) == 1 and "not a Parquet table" in r.stderr, r.stderr
    assert not (tmp_path / "replica").exists()


def test_the_pyarrow_example_of_the_docs_prints_what_they_show(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """docs/urb-typed.md reads the typed table with pyarrow in a python block (console blocks
    run mqtool only): its snippet, run on the example, prints the text block after it."""
    import re

    from tests.helpers import ROOT

    text = (ROOT / "docs" / "urb-typed.md").read_text(encoding="utf-8")
    code, shown = re.search(r"```python\n(.*?)```\n\n```text\n(.*?)```", text, re.S).groups()  # type: ignore[union-attr]
    monkeypatch.chdir(tmp_path)
    src = ROOT / "testdata" / "urb" / "typed" / "employees-changes.urb"
    assert mq("extract", "urb", "--typed", src, "-o", "build/urb-typed").status == 0
    capsys.readouterr()
    exec(compile(code, "docs/urb-typed.md", "exec"), {})
    assert capsys.readouterr().out == shown


def test_the_example_stream_is_what_its_script_writes(tmp_path: Path) -> None:
    from tests.helpers import load_testdata_script

    script = load_testdata_script("urb/typed/generate.py")
    from tests.helpers import ROOT

    data = g.stream(script.FIELDS, script.changes(), subscription="EMPLOYEE").data
    assert (ROOT / "testdata" / "urb" / "typed" / "employees-changes.urb").read_bytes() == data
