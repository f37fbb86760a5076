"""Applying typed changes: the current state per file equals a fold of the generator's
changes computed here; applying twice changes nothing; an older batch never overwrites a
newer state; bad inputs are one line."""

from __future__ import annotations

import random
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from mqtool.errors import DecodeError, InputError
from mqtool.formats.urb.apply import apply, apply_paths, state_name
from mqtool.formats.urb.extract import extract_tables
from mqtool.formats.urb.typed import Layouts, scan, typed_changes
from mqtool.testing import urb_gen as g

KEY = (10006, 9)
FIELDS = g.employees()


def typed_table(tmp_path: Path, txs: list[list[g.Change]], name: str = "s.urb", start: int = 0) -> pa.Table:
    stream = g.stream(FIELDS, txs)
    path = tmp_path / name
    path.write_bytes(stream.data)
    tables, _ = extract_tables(str(path))
    layouts = Layouts.of([((0, off), x) for off, x in scan(stream.data)])
    result = typed_changes(tables.table("changes"), layouts, tables.table("transactions"),
                           tables.table("messages"))
    return result.tables[KEY]


def fold(txs: list[list[g.Change]]) -> dict[int, dict[str, object]]:
    """The state the changes leave, computed from the generator's records."""
    return g.final_state(FIELDS, txs)


def read_state(out: Path) -> pa.Table:
    return pq.read_table(out / state_name(KEY))


def as_dict(state: pa.Table) -> dict[int, dict[str, object]]:
    names = [f.name for f in state.schema if f.name != "isn" and not f.name.startswith("_")]
    return {r["isn"]: {n: r[n] for n in names} for r in state.to_pylist()}


def test_state_is_the_fold_of_the_changes_and_applying_twice_changes_nothing(tmp_path: Path) -> None:
    txs = g.changes(80, seed=11)
    table = typed_table(tmp_path, txs)
    out = tmp_path / "replica"
    first = apply([table], str(out))[KEY]
    state = read_state(out)
    assert as_dict(state) == fold(txs)
    assert state.column("isn").to_pylist() == sorted(fold(txs))
    assert first.rows_after == len(fold(txs)) and first.changes == 80 and first.older == 0
    again = apply([table], str(out))[KEY]
    assert read_state(out).equals(state)
    assert (again.rows_before, again.rows_after) == (first.rows_after, first.rows_after)
    assert sorted(p.name for p in out.iterdir()) == [state_name(KEY)]  # no temporary file left


def test_two_batches_give_what_one_gives(tmp_path: Path) -> None:
    txs = g.changes(60, seed=4)
    whole = typed_table(tmp_path, txs)
    one = tmp_path / "one"
    apply([whole], str(one))
    two = tmp_path / "two"
    rows = whole.num_rows // 2
    apply([whole.slice(0, rows)], str(two))
    apply([whole.slice(rows)], str(two))
    assert as_dict(read_state(two)) == as_dict(read_state(one)) == fold(txs)


def test_an_older_batch_does_not_overwrite_a_newer_state(tmp_path: Path) -> None:
    txs = g.changes(40, seed=9)
    whole = typed_table(tmp_path, txs)
    out = tmp_path / "state"
    apply([whole], str(out))
    before = read_state(out)
    late = apply([whole.slice(0, 10)], str(out))[KEY]
    assert read_state(out).equals(before)
    touched = set(whole.slice(0, 10).column("isn").to_pylist())
    newer = {i for i in touched if whole.filter(pc.equal(whole.column("isn"), i)).num_rows > 1}
    assert late.older >= len(newer) > 0


def test_query_the_state(tmp_path: Path) -> None:
    one, two = (g.random_record(random.Random(k), k) for k in (1, 2))
    one["SALARY"], two["SALARY"] = Decimal("5000.00"), Decimal("120000.50")
    txs = [[g.Change("I", 1, None, one), g.Change("I", 2, None, two)]]
    out = tmp_path / "state"
    apply_paths([str(_write(tmp_path, typed_table(tmp_path, txs)))], str(out))
    state = read_state(out)
    limit = pa.scalar(Decimal("100000.00"), pa.decimal128(9, 2))
    rich = state.filter(pc.greater(state.column("SALARY"), limit))
    assert rich.select(["PERSONNEL-ID", "SALARY"]).to_pylist() == [
        {"PERSONNEL-ID": "20000002", "SALARY": Decimal("120000.50")}]
    assert state.column("_change").to_pylist() == ["I", "I"]


def _write(tmp_path: Path, table: pa.Table) -> Path:
    d = tmp_path / "typed"
    d.mkdir(exist_ok=True)
    pq.write_table(table, d / "changes_10006_9.parquet")
    return d


def test_bad_inputs(tmp_path: Path) -> None:
    (tmp_path / "x.parquet").write_bytes(b"not parquet")
    with pytest.raises(DecodeError, match="not a Parquet table"):
        apply_paths([str(tmp_path / "x.parquet")], str(tmp_path / "o"))
    pq.write_table(pa.table({"a": [1]}), tmp_path / "y.parquet")
    with pytest.raises(InputError, match="not a typed change table"):
        apply_paths([str(tmp_path / "y.parquet")], str(tmp_path / "o"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no typed change tables"):
        apply_paths([str(tmp_path / "empty")], str(tmp_path / "o"))
    with pytest.raises(InputError, match="no such file"):
        apply_paths([str(tmp_path / "missing")], str(tmp_path / "o"))
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())
