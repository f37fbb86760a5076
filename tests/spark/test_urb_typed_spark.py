"""``spark-extract urb --typed``: every typed change table Spark writes equals the local
``extract urb --typed`` table, on the example file and on a stream of two files' changes
cut into 1 KiB ranges (the format field tables met in one range lay out the images of
later ranges); a bad format buffer is one line before the JVM starts, nothing written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from mqtool.errors import ExitStatus
from mqtool.testing import urb_gen as g
from tests.helpers import TESTDATA, mq

pytestmark = pytest.mark.spark
EXAMPLE = TESTDATA / "urb" / "typed" / "employees-changes.urb"
KEYS = [("file", "ascending"), ("offset", "ascending")]


def _sorted(t: pa.Table) -> pa.Table:
    return t.sort_by(KEYS)


def _local(src: Path, out: Path, *options: str) -> dict[str, pa.Table]:
    r = mq("extract", "urb", "--typed", *options, src, "-o", out)
    assert r.status == ExitStatus.OK, r.stderr
    return {p.name.removesuffix(".parquet"): _sorted(pq.read_table(p))
            for p in out.glob("changes_*.parquet")}


def _spark(spark: Any, src: Path, out: Path, split_size: int = 32 << 20,
           format_buffers: tuple[str, ...] = ()) -> tuple[dict[str, Any], dict[str, pa.Table]]:
    from mqtool.spark.urb import DEFAULT_SPLIT, UrbJobOptions, run_job

    info = run_job(spark, UrbJobOptions([str(src)], str(out), split_size=split_size or DEFAULT_SPLIT,
                                        typed=True, format_buffers=list(format_buffers)))
    return info, {p.name: _sorted(pq.read_table(p)) for p in out.glob("changes_*")}


def _read(spark: Any, src: Path, table: str, split: str = "32m", buffer: str = "") -> pa.Table:
    """The DataSource's ``typed`` rows, as an Arrow table of the local schema."""
    from mqtool.spark.urb import register

    register(spark)
    reader = (spark.read.format("mqtool.urb").option("typed", "true").option("table", table)
              .option("splitSize", split))
    if buffer:
        reader = reader.option("formatBuffer", buffer)
    return reader.load(str(src)).toArrow()


def _same_rows(spark: Any, src: Path, want: dict[str, pa.Table], split: str = "32m",
               buffer: str = "") -> None:
    for name, table in want.items():
        got = _sorted(_read(spark, src, name, split, buffer).cast(table.schema))
        assert got.to_pylist() == table.to_pylist(), name


def _equal(got: dict[str, pa.Table], want: dict[str, pa.Table]) -> None:
    assert sorted(got) == sorted(want) and want
    for name, table in want.items():
        assert got[name].schema == table.schema, name
        assert got[name].to_pylist() == table.to_pylist(), name


def test_the_example_gives_the_local_typed_table(spark: Any, tmp_path: Path) -> None:
    want = _local(EXAMPLE, tmp_path / "local")
    info, got = _spark(spark, EXAMPLE, tmp_path / "out")
    _equal(got, want)
    assert info["rows"]["changes_10006_9"] == want["changes_10006_9"].num_rows == 6
    assert info["layouts"] and info["layouts"][0].startswith("file 10006:9: sources GFFT EMPLTYP")
    _same_rows(spark, EXAMPLE, want)


def test_small_ranges_give_the_local_typed_tables(spark: Any, tmp_path: Path) -> None:
    """Two files' changes, each after its format field table, in 1 KiB ranges; and the
    second file laid out by a format buffer instead of its table."""
    fields = g.employees()
    first = g.stream(fields, g.changes(40, seed=3), fnr=9).data
    second = g.stream(fields, g.changes(30, seed=4), fnr=11).data
    src = tmp_path / "two.urb"
    src.write_bytes(first + second)
    want = _local(src, tmp_path / "local")
    info, got = _spark(spark, src, tmp_path / "out", split_size=1024)
    from mqtool import api

    assert len(api.urb_plan([str(src)], 1024)) > 8  # many ranges: tables met in earlier ranges
    _equal(got, want)
    assert sorted(want) == ["changes_10006_11", "changes_10006_9"]
    assert info["rows"]["errors"] == 0
    _same_rows(spark, src, want, "1k")
    untyped = src.with_name("untyped.urb")
    untyped.write_bytes(first + g.stream(fields[:5], g.changes(30, seed=4), fnr=11, gfft=False).data)
    buffer = "10006:11=AA,8,A,AB,0,A,AC,5.2,P,AD,4.1,U,AE,1,B."  # fields AA..AE
    want = _local(untyped, tmp_path / "local2", "--format-buffer", buffer)
    _, got = _spark(spark, untyped, tmp_path / "out2", split_size=1024, format_buffers=(buffer,))
    _equal(got, want)
    _same_rows(spark, untyped, want, "1k", buffer)


def test_a_bad_format_buffer_writes_nothing(tmp_path: Path) -> None:
    r = mq("spark-extract", "urb", "--typed", "--format-buffer", "1:2=AA,8,X.", EXAMPLE,
           "-o", tmp_path / "out")
    assert r.status == ExitStatus.DECODE
    assert r.stderr.count("\n") == 1 and "--format-buffer 1:2: column 6" in r.stderr
    assert not (tmp_path / "out").exists()
    r = mq("spark-extract", "urb", "--fdt", "x.json", EXAMPLE, "-o", tmp_path / "out")
    local = mq("extract", "urb", "--fdt", "x.json", EXAMPLE, "-o", tmp_path / "out")
    assert r.status == local.status == ExitStatus.USAGE and r.stderr == local.stderr
    assert "give --typed too" in r.stderr and not (tmp_path / "out").exists()


def test_typed_tables_on_an_object_store(cli_uses_shared_spark: Any, s3_server: dict[str, str],
                                         tmp_path: Path) -> None:
    """To S3: the typed table (named during the run) is kept and marked complete with the
    others; a second run with --force leaves only its own parts under it."""
    from tests.spark.conftest import s3_download, s3_keys

    want = _local(EXAMPLE, tmp_path / "local")
    for run in range(2):
        r = mq("spark-extract", "urb", "--typed", EXAMPLE, "-o", "s3://logs/typed", *(["--force"] * run))
        assert r.status == ExitStatus.OK, r.stderr
    keys = s3_keys("typed/")
    assert "_SUCCESS" in keys  # keys relative to the prefix
    assert len([k for k in keys if k.startswith("changes_10006_9/")]) == 1
    got = s3_download("typed/", tmp_path / "got")
    _equal({"changes_10006_9": _sorted(pq.read_table(got / "changes_10006_9"))}, want)


def test_values_that_do_not_decode_are_errors_rows(cli_uses_shared_spark: Any, tmp_path: Path) -> None:
    """Images longer than the format buffer says: the same errors rows and exit status as
    locally; FAILFAST writes nothing."""
    src = tmp_path / "long.urb"
    src.write_bytes(g.stream(g.employees(), g.changes(12, seed=6), gfft=False).data)
    buffer = "10006:9=AA,8,A,AB,0,A,AC,5.2,P,AD,4.1,U,AE,1,B."  # 5 of the images' 15 fields
    local = mq("extract", "urb", "--typed", "--format-buffer", buffer, src, "-o", tmp_path / "l")
    r = mq("spark-extract", "urb", "--typed", "--format-buffer", buffer, src, "-o", tmp_path / "s")
    assert r.status == local.status == ExitStatus.DECODE
    assert r.text == local.text and "bytes after the last field" in r.stderr
    keys = [("offset", "ascending"), ("path", "ascending")]
    want = pq.read_table(tmp_path / "l" / "errors.parquet").sort_by(keys)
    assert want.num_rows > 0 and pq.read_table(tmp_path / "s" / "errors").sort_by(keys).equals(want)
    _equal({"changes_10006_9": _sorted(pq.read_table(tmp_path / "s" / "changes_10006_9"))},
           {"changes_10006_9": _sorted(pq.read_table(tmp_path / "l" / "changes_10006_9.parquet"))})
    r = mq("spark-extract", "urb", "--typed", "--format-buffer", buffer, "--mode", "FAILFAST", src,
           "-o", tmp_path / "f")
    assert r.status == ExitStatus.DECODE and "FAILFAST" in r.stderr and not (tmp_path / "f").exists()
