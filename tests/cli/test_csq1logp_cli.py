"""decode csq1logp / extract / spark-extract on the command line: listings, JSON, exit
statuses, precise errors without tracebacks, the Java check and --print-submit."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from mqtool.formats.csq1logp import build as csq_build
from mqtool.testing import csq1logp_gen
from tests.helpers import TESTDATA, mq, seed_bytes

DUMP = "testdata/csq1logp/mqput-rdw.dump"
REC = seed_bytes("csq1logp/mqput-rdw.dump")


@pytest.fixture
def rec_bin(tmp_path: Path) -> Path:
    p = tmp_path / "rec.bin"
    p.write_bytes(REC)
    return p


def test_listing_matches_the_golden_file(in_root: None) -> None:
    r = mq("decode", "csq1logp", "--hex", DUMP)
    assert r.status == 0 and r.stderr == ""
    assert r.text == (TESTDATA / "csq1logp" / "mqput-rdw.listing.txt").read_text()


def test_listing_tz_and_json(rec_bin: Path) -> None:
    r = mq("decode", "csq1logp", rec_bin, "--tz", "Europe/Berlin")
    assert "  dtodout      = 2024-03-15 14:45:12.345678 CET" in r.text.splitlines()
    j = json.loads(mq("decode", "csq1logp", rec_bin, "--json", "--raw").text)
    assert j["format"] == "csq1logp" and j["fixed_len"] == 200 and j["reading"] == "A"
    f = j["elements"][1]["fields"]
    assert f["csqueuename"] == "APP.INPUT" and f["csqueuename_hex"].startswith("C1D7D74BC9D5")
    variable = j["elements"][1]["children"][0]  # csbora, then csvardata
    assert variable["fields"]["csbora"] == "" and variable["data"] == "C8C5D3D3D640E6D6D9D3C4"
    assert f["dtodout_hex"] == "DECC38049F04E000"


def test_annotate_labels_fields(rec_bin: Path) -> None:
    lines = mq("decode", "csq1logp", rec_bin, "--annotate", "--color", "never").text.splitlines()
    assert lines[1].startswith("0000 00D70000 F2F0F2F4 4BF0F7F5 40F1F37A *.P..2024.075 13:*")
    assert lines[1].endswith("length spanning csrecorddate")


def test_bad_span_partial_result_and_precise_error(tmp_path: Path) -> None:
    p = tmp_path / "bad.bin"
    p.write_bytes(REC + b"\x00\x10\x00\x00" + b"\xff" * 20 + REC)
    r = mq("decode", "csq1logp", p)
    assert r.status == 2 and "Traceback" not in r.stderr
    assert r.stderr == ("mqtool: csq1logp: bad-rdw: RDW X'00100000': length 16 outside 203..32760 "
                        "at rdw.length, offset X'00D7' (215)\n")
    assert r.text.count("Record ") == 2 and "Bad span 1 at offset X'00D7', 24 bytes" in r.text


def test_not_an_extract_and_text_mode(tmp_path: Path) -> None:
    p = tmp_path / "x.bin"
    p.write_bytes(b"hello world, this is not an extract" * 10)
    r = mq("decode", "csq1logp", p)
    assert r.status == 2 and "not a CSQ1LOGP extract" in r.stderr and "offset X'0000'" in r.stderr
    p.write_bytes(REC[4:].decode("cp037").encode("latin-1"))
    r = mq("extract", p)
    assert r.status == 2 and "text-mode-transfer" in r.stderr and "quote site rdw" in r.stderr


def test_bad_options_are_usage_errors(rec_bin: Path) -> None:
    assert mq("decode", "csq1logp", rec_bin, "--codepage", "ascii").status == 1
    assert mq("decode", "csq1logp", rec_bin, "--codepage", "cp99999").status == 1
    r = mq("extract", rec_bin, "--urid", "12")
    assert r.status == 1 and "--urid" in r.stderr
    assert mq("extract", rec_bin, "--to", "parquet").status == 1


def test_extract_statuses_and_summary(tmp_path: Path) -> None:
    good = csq1logp_gen.framed(csq1logp_gen.records(csq1logp_gen.Spec(count=20, seed=4)), "rdw")
    p = tmp_path / "in.bin"
    p.write_bytes(good[:-30])
    r = mq("extract", p, "--summary", tmp_path / "s.json")
    assert r.status == 2 and r.stderr.startswith("mqtool: csq1logp: 1 bad span (truncated-record 1); ")
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    assert len(rows) == 20 and rows[-1]["_error"] == "truncated-record"
    s = json.loads((tmp_path / "s.json").read_text())
    assert s["records"] == 19 and s["bad_spans"] == 1 and s["rows_written"] == 20
    assert s["files"][0]["framing"] == "rdw"
    # --messages with a missing tail: status 3
    q = tmp_path / "m.bin"
    q.write_bytes(csq_build.build_message({"csrecorddate": "2024.075 13:45:12.345"}, b"a" * 40000)[0])
    r = mq("extract", q, "--messages")
    assert r.status == 3 and "1 incomplete message(s) (missing-tail 1)" in r.stderr


def test_extract_refuses_to_overwrite(rec_bin: Path, tmp_path: Path) -> None:
    out = tmp_path / "o.parquet"
    assert mq("extract", rec_bin, "-o", out).status == 0
    r = mq("extract", rec_bin, "-o", out)
    assert r.status == 1 and "--force" in r.stderr
    assert mq("extract", rec_bin, "-o", out, "--force").status == 0


def test_extract_from_stdin() -> None:
    r = mq("extract", "-", input=REC)
    row = json.loads(r.text)
    assert r.status == 0 and row["file"] == "-" and row["csvardata"] == "C8C5D3D3D640E6D6D9D3C4"


def test_print_submit(rec_bin: Path, tmp_path: Path) -> None:
    r = mq("spark-extract", rec_bin, "-o", tmp_path / "out", "--master", "yarn", "--conf",
           "spark.executor.memory=4g", "--messages", "--print-submit")
    assert r.status == 0
    lines = r.text.splitlines()
    assert lines[:3] == ["spark-submit \\", "  --master yarn \\",
                         "  --conf spark.ui.showConsoleProgress=false \\"]
    assert "  --conf spark.ui.enabled=true \\" in lines  # a cluster's UI stays on
    assert "  --conf spark.executor.memory=4g \\" in lines
    zip_path = lines[-3].split("--py-files ")[1].rstrip(" \\")
    assert zip_path.endswith(".zip") and os.path.exists(zip_path)
    import zipfile

    assert "mqtool/spark/datasource.py" in zipfile.ZipFile(zip_path).namelist()
    assert lines[-2].endswith(f"mqtool{os.sep}spark{os.sep}job.py \\")
    assert lines[-1].startswith(f"  {rec_bin} -o {tmp_path / 'out'} --framing auto")
    assert lines[-1].endswith("--messages")


def test_java_missing_or_old_is_an_environment_error(rec_bin: Path, tmp_path: Path) -> None:
    r = mq("spark-extract", rec_bin, "-o", tmp_path / "o", env={"JAVA_HOME": str(tmp_path)})
    assert r.status == 4 and "needs Java 17 or newer" in r.stderr and "has no bin/java" in r.stderr
    java = tmp_path / "bin" / "java"
    java.parent.mkdir()
    java.write_text('#!/bin/sh\necho \'openjdk version "11.0.2" 2019-01-15\' >&2\n')
    java.chmod(java.stat().st_mode | stat.S_IEXEC)
    r = mq("spark-extract", rec_bin, "-o", tmp_path / "o", env={"JAVA_HOME": str(tmp_path)})
    assert r.status == 4 and "is Java 11" in r.stderr
    assert not (tmp_path / "o").exists()


# --------------------------------------------------------------------------- before the JVM (D10)


def _spark_refused(tmp_path: Path, *args: object, usage: bool = False) -> tuple[int, str]:
    import time

    t0 = time.perf_counter()
    r = mq("spark-extract", *args)
    assert time.perf_counter() - t0 < 5  # no JVM was started
    assert "Traceback" not in r.stderr
    assert usage or len(r.stderr.splitlines()) == 1, r.stderr  # click's usage text otherwise
    return r.status, r.stderr


def test_checks_before_the_jvm_create_nothing(rec_bin: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    status, err = _spark_refused(tmp_path, tmp_path / "gone.bin", "-o", out)
    assert status == 1 and err == f"mqtool: {tmp_path / 'gone.bin'}: no such file\n"
    status, err = _spark_refused(tmp_path, "-", "-o", out)
    assert status == 1 and "stdin (-) cannot be split" in err
    status, err = _spark_refused(tmp_path, rec_bin, "-o", out, "--master", "bogus://x")
    assert status == 1 and "--master: 'bogus://x' is not a Spark master URL" in err
    status, err = _spark_refused(tmp_path, rec_bin, "-o", out, "--master", "spark://127.0.0.1:1")
    assert status == 4 and err.startswith("mqtool: spark-extract: master spark://127.0.0.1:1 unreachable")
    status, err = _spark_refused(tmp_path, rec_bin, "-o", out, "--queue", "A", "--urid", "nothex",
                                 usage=True)
    assert status == 1 and "--urid" in err
    assert not out.exists()
    (out / "records").mkdir(parents=True)
    status, err = _spark_refused(tmp_path, rec_bin, "-o", out)
    assert status == 1 and err == f"mqtool: {out / 'records'} exists (use --force to replace it)\n"
    blocker = tmp_path / "file"
    blocker.write_text("x")
    status, err = _spark_refused(tmp_path, rec_bin, "-o", blocker / "sub")
    assert status == 4 and "cannot create output directory" in err


# --------------------------------------------------------------------------- issue 12 reproducers

HELLO = seed_bytes("csq1logp/hello-2seg.dump")  # two records: 212 + 207 bytes


def test_d5_missing_output_directory_is_exit_4_one_line(tmp_path: Path, rec_bin: Path) -> None:
    for name in ("x.parquet", "x.jsonl", "x.csv"):
        r = mq("extract", rec_bin, "-o", tmp_path / "missing" / name)
        assert r.status == 4 and r.stdout == b""
        assert r.stderr == f"mqtool: {tmp_path / 'missing' / name}: cannot write: directory " \
                           f"{tmp_path / 'missing'} does not exist\n"
    assert not (tmp_path / "missing").exists()


def test_d7_unreadable_file_is_an_error_row_and_the_others_go_on(tmp_path: Path) -> None:
    a, b, fifo = tmp_path / "a.rdw", tmp_path / "b.rdw", tmp_path / "pipe.bin"
    a.write_bytes(HELLO)
    b.write_bytes(REC)
    os.mkfifo(fifo)  # there, but not a file mqtool reads (never opened: it would wait)
    summary = tmp_path / "s.json"
    r = mq("extract", a, fifo, b, "--summary", summary)
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    assert r.status == 2
    assert [(x["file"].rsplit("/", 1)[-1], x["offset"], x["_error"]) for x in rows] == [
        ("a.rdw", 0, None), ("a.rdw", 212, None), ("pipe.bin", 0, "unreadable-file"), ("b.rdw", 0, None)]
    assert rows[2]["_error_detail"] == f"{fifo}: not a regular file"
    s = json.loads(summary.read_text())
    assert s["records"] == 3 and s["errors_by_reason"] == {"unreadable-file": 1}
    assert "pipe.bin: not a regular file" in r.stderr


def test_d7_a_missing_input_is_refused_before_any_output(tmp_path: Path) -> None:
    a = tmp_path / "a.rdw"
    a.write_bytes(HELLO)
    out = tmp_path / "out.jsonl"
    r = mq("extract", a, tmp_path / "gone.bin", "-o", out)
    assert (r.status, r.stdout, r.stderr) == (1, b"", f"mqtool: {tmp_path / 'gone.bin'}: no such file\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.rdw"]


def test_d11_failfast_leaves_no_output_file_but_writes_the_summary(tmp_path: Path) -> None:
    data = HELLO + b"\x00\x00" + HELLO[2:]  # the third record's RDW is broken
    src = tmp_path / "in.rdw"
    src.write_bytes(data)
    for name in ("out.parquet", "out.jsonl", "out.csv"):
        out, summary = tmp_path / name, tmp_path / f"{name}.json"
        r = mq("extract", src, "--mode", "failfast", "-o", out, "--summary", summary)
        assert r.status == 2 and "(mode FAILFAST)" in r.stderr and "offset X'01A3' (419)" in r.stderr
        assert "Traceback" not in r.stderr
        assert not out.exists() and list(tmp_path.glob(".*.tmp")) == []
        s = json.loads(summary.read_text())
        assert s["mode"] == "FAILFAST" and s["errors_by_reason"] == {"bad-rdw": 1}
        assert s["failed"].startswith("csq1logp: bad-rdw:")
    # the next run is not refused: nothing was left behind
    assert mq("extract", src, "-o", tmp_path / "out.jsonl").status == 2


def test_f22_empty_input_is_exit_2_in_extract_and_decode(tmp_path: Path) -> None:
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    r1, r2 = mq("extract", empty), mq("decode", "csq1logp", empty)
    assert (r1.status, r2.status) == (2, 2)
    assert r1.stderr == "mqtool: csq1logp: empty input, no records\n"
    assert "csq1logp:" in r2.stderr and "empty input" in r2.stderr


def test_f22_all_blanks_is_one_error_row(tmp_path: Path) -> None:
    blanks = tmp_path / "blanks.bin"
    blanks.write_bytes(b"\x40" * 1000)
    r = mq("extract", blanks)
    (row,) = [json.loads(x) for x in r.stdout.splitlines()]
    assert r.status == 2 and row["_error"] == "not-csq1logp" and row["rec_len"] == 1000
    assert row["_raw_hex"] == "40" * 256


def test_f14_plausible_wrong_rdw_length_is_reported(tmp_path: Path) -> None:
    src = tmp_path / "h2.bin"
    src.write_bytes(b"\x01\xa3" + HELLO[2:])
    r = mq("extract", src)
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    assert r.status == 2
    assert [(x["offset"], x["rec_len"], x["_error"]) for x in rows] == [(0, 212, "bad-rdw"), (212, 207, None)]


def test_d6_damaged_first_rdw_auto_framing_and_identify(tmp_path: Path) -> None:
    src = tmp_path / "d6.bin"
    src.write_bytes(bytes.fromhex("00CC0100") + HELLO[4:])
    r = mq("extract", src)
    rows = [json.loads(x) for x in r.stdout.splitlines()]
    assert r.status == 2 and [(x["offset"], x["_error"]) for x in rows] == [(0, "bad-rdw"), (212, None)]
    ident = mq("identify", src)
    assert ident.text.startswith(f"{src}: csq1logp") and "first record damaged" in ident.text


def test_d4_decode_of_a_file_streams_the_same_output_as_stdin(tmp_path: Path) -> None:
    recs = csq1logp_gen.records(csq1logp_gen.Spec(count=30, multi_every=7, seed=3))
    src = tmp_path / "x.rdw"
    src.write_bytes(b"".join(recs))
    for args in ((), ("--json",), ("--annotate",)):
        a = mq("decode", "csq1logp", src, *args)
        b = mq("decode", "csq1logp", "-", *args, input=src.read_bytes())
        assert a.status == b.status == 0 and a.stdout == b.stdout and len(a.stdout) > 10_000


def test_extract_and_spark_extract_are_groups_with_a_default(rec_bin: Path) -> None:
    import mqtool.cli.urb as urb_cli

    plain, named = mq("extract", rec_bin), mq("extract", "csq1logp", rec_bin)
    assert plain.status == named.status == 0 and plain.stdout == named.stdout != b""
    for group, attr in (("extract", "extract_urb"), ("spark-extract", "spark_extract_urb")):
        listed = mq(group, "--help").text
        assert "csq1logp" in listed and listed.startswith(f"Usage: mqtool {group} [FORMAT]")
        assert ("  urb " in listed) == hasattr(urb_cli, attr)


def test_extract_to_a_directory_writes_the_spark_layout(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.dataset as ds

    recs = csq1logp_gen.records(csq1logp_gen.Spec(count=40, multi_every=9, multi_size=40_000, seed=4))
    src = tmp_path / "x.rdw"
    src.write_bytes(csq1logp_gen.damage(b"".join(recs), len(recs[0]), "zero-length"))
    out = tmp_path / "out"
    r = mq("extract", src, "-o", f"{out}/", "--messages")
    assert r.status == 2 and sorted(p.name for p in out.iterdir()) == \
        ["_summary.json", "errors", "messages", "records"]
    part = ds.partitioning(pa.schema([("log_date", pa.date32())]), flavor="hive")
    t = ds.dataset(out / "records", partitioning=part).to_table()
    assert t.schema.field("log_date").type == pa.date32()
    assert t.group_by("log_date").aggregate([("offset", "count")]).to_pylist() == \
        [{"log_date": __import__("datetime").date(2024, 3, 15), "offset_count": len(recs) - 1}]
    (err,) = ds.dataset(out / "errors").to_table().to_pylist()
    assert err["offset"] == len(recs[0]) and err["_error"] == "bad-rdw" and "log_date" not in err
    summary = json.loads((out / "_summary.json").read_text())
    assert summary["records"] == len(recs) - 1 and summary["rows_written"] == len(recs)
    assert summary["messages"]["total"] == ds.dataset(out / "messages", partitioning=part).count_rows()
    again = mq("extract", src, "-o", f"{out}/")
    assert again.status == 1
    assert again.stderr == f"mqtool: {out / 'records'} exists (use --force to replace it)\n"
    assert mq("extract", src, "-o", f"{out}/", "--force").status == 2


def test_spark_failures_are_one_line_naming_the_master(monkeypatch: pytest.MonkeyPatch) -> None:
    from mqtool.errors import ExitStatus
    from mqtool.spark.job import _spark_error

    java = ("An error occurred while calling o42.collectToPython.\n"
            ": org.apache.spark.SparkException: Job aborted due to stage failure: Task 3 in stage "
            "1.0 failed 4 times, most recent failure: Lost task 3.3 (executor 1): ExecutorLostFailure\n"
            "\tat org.apache.spark.scheduler.DAGScheduler.failJobAndIndependentStages(DAGScheduler"
            ".scala:2898)\n")
    monkeypatch.delenv("MQTOOL_DEBUG", raising=False)
    err = _spark_error(RuntimeError(java), "spark://head:7077")
    assert err.status == ExitStatus.ENVIRONMENT and "\n" not in str(err)
    assert str(err).startswith("spark-extract: Spark failed on master spark://head:7077: "
                               ": org.apache.spark.SparkException: Job aborted due to stage failure")
    ff = _spark_error(RuntimeError("...MalformedError: csq1logp: bad-rdw: RDW X'0000' at rdw.length, "
                                   "offset X'00CC' (204) in f (mode FAILFAST)\n\tat ..."), "local[2]")
    assert ff.status == ExitStatus.DECODE and str(ff).startswith("csq1logp: bad-rdw:")


def test_progress_counts_tasks_and_bytes_from_the_status_tracker() -> None:
    import threading
    from types import SimpleNamespace

    from mqtool.spark.job import _Tracker

    seen: list[tuple[int, int, int]] = []
    got = threading.Event()
    stage = SimpleNamespace(numCompletedTasks=3, numTasks=4)
    tracker = SimpleNamespace(getActiveStageIds=lambda: [7], getStageInfo=lambda sid: stage)
    spark = SimpleNamespace(sparkContext=SimpleNamespace(statusTracker=lambda: tracker))

    def progress(done: int, total: int, read: int) -> None:
        seen.append((done, total, read))
        got.set()

    with _Tracker(spark, progress, 400 << 20):
        assert got.wait(5)
    assert seen[0] == (3, 4, 300 << 20)
