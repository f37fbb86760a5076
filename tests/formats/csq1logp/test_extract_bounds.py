"""``extract`` (CSQ1LOGP) in bounded memory whatever decodes in this process: ``-j 1``,
files up to two splits, URIs — a batch at a time, never a whole file as one table; JSON
lines made a few thousand rows at a time (issue 22, fuzz root cause 16: 1 GiB with -j 1
to JSON lines peaked at 12.6 GB, to Parquet 1.2 GB)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mqtool.formats.csq1logp.extract import decoded_tables, plan
from mqtool.testing.csq1logp_gen import Spec, write
from tests.rss import peak


@pytest.fixture(scope="module")
def extract_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("csq") / "x.rdw"
    write(str(path), Spec(count=2000, avg_data=1400), "rdw", target_bytes=24 << 20)
    return path


def test_a_file_decoded_here_comes_a_batch_at_a_time(extract_file: Path) -> None:
    indexes = plan([str(extract_file)])
    assert len(indexes[0].splits) == 1  # the whole file is one split
    tables = list(decoded_tables(indexes, workers=1))
    assert len(tables) >= 6  # one per framer buffer (4 MiB): before, one table of all rows
    assert max(t.num_rows for t in tables) < sum(t.num_rows for t in tables) / 4
    offsets = [o for t in tables for o in t.column("offset").to_pylist()]
    assert offsets == sorted(offsets) and len(set(offsets)) == len(offsets)


def test_json_lines_with_one_worker_in_bounded_memory(extract_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "x.jsonl"
    p = peak("extract", extract_file, "-j", "1", "-o", out)
    assert p.status == 0, p.stderr
    with out.open() as f:
        first = json.loads(f.readline())
        rows = 1 + sum(1 for _ in f)
    assert first["offset"] == 0 and rows > 10_000
    assert p.mib < 256, p  # before: about 16 times the input (24 MiB: some 390 MB)
