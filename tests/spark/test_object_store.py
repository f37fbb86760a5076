"""Outputs on an object store (moto's S3 server): every command that writes a file or a
directory takes an ``s3://`` URI for ``-o``, writes it through ``pyarrow.fs`` whole or not
at all (``_SUCCESS`` last for directories), and never turns it into a local path. What is
written is compared with the same command's local output, read back with boto3 (another
client than the one that wrote it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from mqtool.io.outputs import RemoteStagedDirs, part_name
from mqtool.io.uris import upload
from tests.helpers import TESTDATA, mq
from tests.spark.conftest import s3_download, s3_get, s3_keys
from tests.spark.test_spark import DATE_PARTITIONS, damaged_file

URB_SEEDS = [str(TESTDATA / "urb" / f"{n}.dump") for n in ("inst-color.data", "inst-employee.data",
                                                           "status.reply")]
QMSG = TESTDATA / "sas" / "mytext-zos.qmsg"


def _no_local_uri_folder(cwd: Path) -> None:
    """``s3://bucket/x`` never became the local folder ``s3:/bucket/x``."""
    assert not (cwd / "s3:").exists()


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_extract_writes_one_object(s3_server: dict[str, str], tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    p = damaged_file(tmp_path)
    r = mq("extract", p, "-o", "s3://logs/obj/out.parquet")
    assert r.status == 2, r.stderr  # bad spans in the input; the rows are written
    assert mq("extract", p, "-o", tmp_path / "local.parquet").status == 2
    (tmp_path / "got.parquet").write_bytes(s3_get("obj/out.parquet"))
    got = pq.read_table(tmp_path / "got.parquet")
    assert got.equals(pq.read_table(tmp_path / "local.parquet"))
    again = mq("extract", p, "-o", "s3://logs/obj/out.parquet")
    assert again.status == 1 and again.stderr == \
        "mqtool: s3://logs/obj/out.parquet exists (use --force to overwrite)\n"
    assert mq("extract", p, "-o", "s3://logs/obj/out.parquet", "--force").status == 2
    # FAILFAST stops at the first bad span: no object appears
    r = mq("extract", p, "-o", "s3://logs/obj/failed.jsonl", "--mode", "FAILFAST")
    assert r.status == 2 and "FAILFAST" in r.stderr
    assert s3_keys("obj/") == ["out.parquet"]
    _no_local_uri_folder(tmp_path)


def test_extract_to_a_directory_uri(s3_server: dict[str, str], tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    p = damaged_file(tmp_path)
    assert mq("extract", p, "-o", "s3://logs/xdir/", "--messages").status == 2
    assert mq("extract", p, "-o", f"{tmp_path / 'local'}/", "--messages").status == 2
    keys = s3_keys("xdir/")
    assert keys[-2:] == ["_SUCCESS", "_summary.json"] or "_SUCCESS" in keys
    got = s3_download("xdir/", tmp_path / "got")
    local = tmp_path / "local"
    names = [k for k in _files(got) if k not in ("_SUCCESS", "_summary.json")]
    # the same folders; each part named for the run, one per folder (and date)
    assert [Path(n).parent for n in names] == [Path(n).parent for n in _files(local)
                                               if n != "_summary.json"]
    assert all(Path(n).name.startswith("part-00000-") for n in names)
    for sub in ("records", "errors", "messages"):
        part = None if sub == "errors" else DATE_PARTITIONS
        a = ds.dataset(got / sub, partitioning=part).to_table().sort_by("offset")
        b = ds.dataset(local / sub, partitioning=part).to_table().sort_by("offset")
        assert a.num_rows > 0 and a.equals(b), sub
    summary = json.loads((got / "_summary.json").read_text())
    assert summary["output"] == "s3://logs/xdir" and summary["bad_spans"] == 3
    _no_local_uri_folder(tmp_path)


def test_extract_urb_to_s3(s3_server: dict[str, str], tmp_path: Path,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    r = mq("extract", "urb", *URB_SEEDS, "-o", "s3://logs/urb-local")
    assert r.status == 0, r.stderr
    assert mq("extract", "urb", *URB_SEEDS, "-o", tmp_path / "local").status == 0
    got = s3_download("urb-local/", tmp_path / "got")
    assert _files(got) == sorted([*_files(tmp_path / "local"), "_SUCCESS"])
    for name in _files(tmp_path / "local"):
        if name.endswith(".parquet"):
            assert pq.read_table(got / name).equals(pq.read_table(tmp_path / "local" / name)), name
    again = mq("extract", "urb", *URB_SEEDS, "-o", "s3://logs/urb-local")
    assert again.status == 1 and "exists (use --force" in again.stderr
    _no_local_uri_folder(tmp_path)


def _same(a: Path, b: Path) -> bool:
    """The same bytes; for the run's records (``custody.json``, a ``manifest.json`` with
    ``custody``) the same content and inputs, the run's own times and command aside."""
    if a.name not in ("custody.json", "manifest.json"):
        return a.read_bytes() == b.read_bytes()
    ja, jb = json.loads(a.read_text()), json.loads(b.read_text())
    ca, cb = ja.pop("custody", None), jb.pop("custody", None)
    digests = [[i.get("sha256") for i in c["inputs"]] if c else None for c in (ca, cb)]
    return ja == jb and digests[0] == digests[1]


def test_messages_and_reassembly_to_s3(s3_server: dict[str, str], tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for command, key in ((["messages"], "msgs"), (["reassemble", "attachment"], "att")):
        r = mq(*command, QMSG, "-o", f"s3://logs/{key}")
        assert r.status == 0, r.stderr
        assert mq(*command, QMSG, "-o", tmp_path / f"local-{key}").status == 0
        got = s3_download(f"{key}/", tmp_path / f"got-{key}")
        local = tmp_path / f"local-{key}"
        assert _files(got) == sorted([*_files(local), "_SUCCESS"])
        assert all(_same(got / n, local / n) for n in _files(local))
        refused = mq(*command, QMSG, "-o", f"s3://logs/{key}")
        assert refused.status == 1 and "exists" in refused.stderr, refused.stderr
    r = mq("messages", QMSG, "--to", "dmpmqmsg", "-o", "s3://logs/one.qmsg")
    assert r.status == 0 and s3_get("one.qmsg").startswith(b"*")
    _no_local_uri_folder(tmp_path)


@pytest.mark.parametrize("argv, status, line", [
    (["extract", "{f}", "-o", "s3://no-such-bucket/out.parquet"], 4,
     "mqtool: s3://no-such-bucket/out.parquet: cannot write: the bucket s3://no-such-bucket "
     "does not exist\n"),
    (["extract", "{f}", "-o", "s3a://logs/out/"], 1,
     "mqtool: s3a://logs/out/: an output cannot use s3a:// (file://, s3://, gs://, gcs://, "
     "hdfs:// are read and written through pyarrow.fs) (s3a:// and s3n:// are Hadoop's names: "
     "write s3://)\n"),
    (["spark-extract", "{f}", "-o", "s3://logs/sw", "--writer", "spark"], 1,
     "mqtool: s3://logs/sw: --writer spark cannot write there (Spark's writer needs a Hadoop "
     "connector such as hadoop-aws, which pyspark does not ship); the default --writer arrow "
     "writes it through pyarrow.fs\n"),
    (["spark-extract", "urb", "{f}", "-o", "abfss://c@acct.dfs.core.windows.net/out"], 1, None),
])
def test_a_uri_that_cannot_be_served_is_one_line(s3_server: dict[str, str], tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch, argv: list[str],
                                                  status: int, line: str | None) -> None:
    """Before any work (and before any JVM): one line saying why and what to use instead."""
    monkeypatch.chdir(tmp_path)
    f = damaged_file(tmp_path)
    r = mq(*[a.format(f=f) for a in argv])
    assert r.status == status, r.stderr
    if line is not None:
        assert r.stderr == line
    else:
        assert r.stderr.count("\n") == 1 and "abfss://" in r.stderr and "pyarrow.fs" in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [f.name]


def test_remote_staged_dirs_keep_only_the_runs_parts(s3_server: dict[str, str], tmp_path: Path) -> None:
    """The commit protocol on its own: an earlier output replaced (its _SUCCESS gone at the
    start), a failed attempt's part removed at commit, _SUCCESS last; a failed run leaves
    none of its parts and no _SUCCESS."""
    src = tmp_path / "part"
    src.write_bytes(b"PAR1 not really")
    root = "s3://logs/staged"
    upload(str(src), f"{root}/records/part-00000-old-a0.parquet")
    upload(str(src), f"{root}/_SUCCESS")
    staged = RemoteStagedDirs(root, ("records", "errors"))
    assert "_SUCCESS" not in s3_keys("staged/")  # the old output is no longer complete
    with staged as out:
        failed = f"{out}/records/log_date=2024-03-15/{part_name(1, staged.run, 0)}"
        good = f"{out}/records/log_date=2024-03-15/{part_name(1, staged.run, 1)}"
        upload(str(src), failed)
        upload(str(src), good)
        staged.keep([good])
    staged.success()
    assert s3_keys("staged/") == ["_SUCCESS", f"records/log_date=2024-03-15/{part_name(1, staged.run, 1)}"]
    broken = RemoteStagedDirs("s3://logs/broken", ("records",))
    with pytest.raises(RuntimeError), broken as out:
        upload(str(src), f"{out}/records/{part_name(0, broken.run, 0)}")
        raise RuntimeError("the job failed")
    assert s3_keys("broken/") == []


def test_spark_extract_s3_in_and_out(cli_uses_shared_spark: Any, s3_server: dict[str, str],
                                     tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``mqtool spark-extract s3://... -o s3://...`` (in-process, the shared session): the
    local extract's rows, every part named for its run, the rows table on stdout."""
    from tests.spark.conftest import s3_put
    from tests.spark.test_spark import by_offset, local_rows, norm

    monkeypatch.chdir(tmp_path)
    p = damaged_file(tmp_path)
    uri = s3_put("sx/in/CSQCMT.bin", p.read_bytes())
    r = mq("spark-extract", uri, "-o", "s3://logs/sx/out", "--split-size", "100k", "--messages")
    assert r.status == 2, r.stderr
    local = local_rows(p)
    good = [x for x in local if not x["_error"]]
    total = json.loads(s3_get("sx/out/_summary.json"))["messages"]["total"]
    assert r.text.splitlines()[:3] == [f"records       {len(good):>9,} rows",
                                       f"errors        {len(local) - len(good):>9,} rows",
                                       f"messages      {total:>9,} rows"]
    keys = s3_keys("sx/out/")
    assert "_SUCCESS" in keys and "_summary.json" in keys
    got = s3_download("sx/out/", tmp_path / "got")
    rows = ds.dataset(got / "records", partitioning=DATE_PARTITIONS).to_table().to_pylist()
    assert by_offset([norm({k: v for k, v in x.items() if k != "log_date"}, uri) for x in rows]) == \
        by_offset([norm({k: v for k, v in x.items() if k != "log_date"}, uri) for x in good])
    parts = [k for k in keys if k.startswith("records/")]
    assert len(parts) == len(set(parts)) >= -(-p.stat().st_size // (100 << 10))
    _no_local_uri_folder(tmp_path)


def test_spark_extract_urb_to_s3(cli_uses_shared_spark: Any, s3_server: dict[str, str],
                                 tmp_path: Path) -> None:
    r = mq("spark-extract", "urb", *URB_SEEDS, "-o", "s3://logs/surb")
    assert r.status == 0, r.stderr
    local = mq("extract", "urb", *URB_SEEDS, "-o", tmp_path / "local")
    assert r.text == local.text  # the same rows per table
    got = s3_download("surb/", tmp_path / "got")
    for table in ("messages", "transactions", "records", "images", "status", "errors", "changes"):
        a = pq.read_table(got / table)
        b = pq.read_table(tmp_path / "local" / f"{table}.parquet")
        assert a.schema == b.schema, table
        assert a.sort_by([("file", "ascending"), ("offset", "ascending")]).num_rows == b.num_rows, table


def test_urb_stream_read_from_s3_in_byte_ranges(s3_server: dict[str, str], tmp_path: Path,
                                                 spark: Any) -> None:
    """A raw URB stream on S3: extract urb and spark-extract urb (1 KiB ranges) read it
    by ranged reads and give the rows of the local file, but for the name in ``file``."""
    from mqtool.spark.urb import UrbJobOptions, run_job
    from tests.formats.urb.test_urb_extract import _stream

    path = tmp_path / "stream.urb"
    path.write_bytes(_stream([(k, k % 4) for k in range(16)]))
    upload(str(path), "s3://logs/in/stream.urb")
    assert mq("extract", "urb", path, "-o", tmp_path / "local").status == 0
    r = mq("extract", "urb", "s3://logs/in/stream.urb", "-o", tmp_path / "remote")
    assert r.status == 0, r.stderr
    run_job(spark, UrbJobOptions(["s3://logs/in/stream.urb"], str(tmp_path / "spark"), split_size=1024))
    for name in ("messages", "changes", "errors"):
        want = pq.read_table(tmp_path / "local" / f"{name}.parquet").drop_columns(["file"])
        got = pq.read_table(tmp_path / "remote" / f"{name}.parquet").drop_columns(["file"])
        assert got.equals(want), name
        spark_rows = pq.read_table(tmp_path / "spark" / name).drop_columns(["file"]).sort_by("offset")
        assert spark_rows.equals(want.sort_by("offset")), name
    assert pq.read_table(tmp_path / "remote" / "messages.parquet").column("file")[0].as_py() == \
        "s3://logs/in/stream.urb"
