"""``extract urb`` in bounded memory, naming stdin as ``-``, and leaving nothing behind
when FAILFAST stops it (issue 22, fuzz root causes 9, 10 and 17)."""

from __future__ import annotations

import json
from pathlib import Path

from mqtool.io.undump import undump
from tests.helpers import TESTDATA, mq
from tests.rss import peak

SERVER = ("inst-color.data", "inst-employee.data", "close-destination.reply", "inst-color.init",
          "inst-color.cmpl", "inst-color.erro", "inst-employee.init", "inst-employee.cmpl",
          "prior-transaction.reply", "status.reply")


def _messages() -> bytes:
    return b"".join(undump((TESTDATA / "urb" / f"{n}.dump").read_text(encoding="utf-8"))
                    for n in SERVER)


def test_failfast_leaves_no_directory(tmp_path: Path) -> None:
    """Before: FAILFAST left an empty output directory."""
    bad = tmp_path / "bad.bin"
    bad.write_bytes(_messages() + b"\x00" * 64)
    out = tmp_path / "made" / "tables"
    r = mq("extract", "urb", bad, "-o", out, "--mode", "FAILFAST")
    assert r.status == 2 and "mode FAILFAST" in r.stderr
    assert not (tmp_path / "made").exists()
    kept = tmp_path / "kept"
    kept.mkdir()
    r = mq("extract", "urb", bad, "-o", kept, "--mode", "FAILFAST")
    assert r.status == 2 and kept.is_dir() and list(kept.iterdir()) == []  # not ours to remove


def test_stdin_is_named_dash(tmp_path: Path) -> None:
    """Before: rows, summary and errors named the temporary spool file."""
    data = _messages() + b"\x00" * 64
    out = tmp_path / "t"
    r = mq("extract", "urb", "-", "-o", out, "--to", "jsonl", input=data)
    assert r.status == 2
    summary = json.loads((out / "_summary.json").read_text())
    assert summary["files"] == ["-"] and summary["first_error"].endswith(" in -")
    assert r.stderr.rstrip().endswith(" in -")
    for table in ("messages", "errors"):
        rows = [json.loads(x) for x in (out / f"{table}.jsonl").read_text().splitlines()]
        assert rows and {row["file"] for row in rows} == {"-"}, table
    assert "mqtool-stdin" not in "".join(p.read_text() for p in out.iterdir())


def test_a_large_stream_is_extracted_in_bounded_memory(tmp_path: Path) -> None:
    """48 MiB of URB messages: the tables are made a small block at a time (root cause 17:
    32 MiB blocks with all their tables, 1.1 GB on 200 MiB)."""
    one = _messages()
    src = tmp_path / "urb.bin"
    with src.open("wb") as f:
        for _ in range((48 << 20) // len(one)):
            f.write(one)
    p = peak("extract", "urb", src, "-o", tmp_path / "t")
    assert p.status == 0, p.stderr
    rows = json.loads((tmp_path / "t" / "_summary.json").read_text())["rows"]
    assert rows["messages"] == (48 << 20) // len(one) * len(SERVER)
    assert p.mib < 256, p
