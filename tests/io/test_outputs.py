"""One output mechanism (``mqtool.io.outputs``): every writer -- CSQ1LOGP and URB extract,
SAS reassembly, the message-set builder, the partitioned Parquet writer Spark's tasks use --
leaves no file (and no temporary file) when the run fails or is interrupted, and replaces
an existing output only with ``force``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pytest

from mqtool.formats.csq1logp import build as csq_build
from mqtool.formats.csq1logp.extract import extract
from mqtool.formats.csq1logp.outdir import PartitionedWriter
from mqtool.io.outputs import AtomicPath, OutputExistsError, StagedDirs, check_output
from mqtool.testing import csq1logp_gen


def files(root: Path) -> list[str]:
    """Every file and directory under ``root``, hidden ones included."""
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_atomic_path_commits_or_leaves_nothing(tmp_path: Path) -> None:
    target = tmp_path / "t.bin"
    with pytest.raises(RuntimeError), AtomicPath(target) as tmp:
        tmp.write_bytes(b"half")
        raise RuntimeError("mid-write")
    assert files(tmp_path) == []
    with AtomicPath(target) as tmp:
        tmp.write_bytes(b"whole")
    assert target.read_bytes() == b"whole" and files(tmp_path) == ["t.bin"]
    with pytest.raises(OutputExistsError):
        AtomicPath(target)
    with AtomicPath(target, force=True) as tmp:
        tmp.write_bytes(b"new")
    assert target.read_bytes() == b"new" and files(tmp_path) == ["t.bin"]


def test_check_output_refuses_before_any_work(tmp_path: Path) -> None:
    (tmp_path / "x").write_bytes(b"")
    with pytest.raises(OutputExistsError):
        check_output(tmp_path / "x")
    check_output(tmp_path / "x", force=True)
    with pytest.raises(Exception, match="does not exist"):
        check_output(tmp_path / "no" / "x")


def test_staged_dirs(tmp_path: Path) -> None:
    root = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt), StagedDirs(root, ("a", "b")) as scratch:
        (scratch / "a").mkdir()
        (scratch / "a" / "f").write_bytes(b"half")
        raise KeyboardInterrupt
    assert not root.exists()  # created by the run: gone with it
    with StagedDirs(root, ("a", "b")) as scratch:
        (scratch / "a").mkdir()
        (scratch / "a" / "f").write_bytes(b"1")
        (scratch / "b").mkdir()
    assert files(root) == ["a", "a/f", "b"]
    with StagedDirs(root, ("a", "b")) as scratch:  # a run that writes only b/: a/ is emptied
        (scratch / "b").mkdir()
        (scratch / "b" / "g").write_bytes(b"2")
    assert files(root) == ["a", "b", "b/g"]


def test_partitioned_writer_close_and_abort(tmp_path: Path) -> None:
    """The writer every ``spark-extract`` task and ``extract -o DIR/`` write with."""
    table = pa.table({"log_date": pa.array([None, None], pa.date32()), "x": [1, 2]})
    w = PartitionedWriter(str(tmp_path / "r"), "part-00000.parquet")
    w.write(table)
    w.abort()
    assert files(tmp_path) == ["r", "r/log_date=__HIVE_DEFAULT_PARTITION__"]
    w = PartitionedWriter(str(tmp_path / "r"), "part-00000.parquet")
    w.write(table)
    w.close()
    assert files(tmp_path)[-1] == "r/log_date=__HIVE_DEFAULT_PARTITION__/part-00000.parquet"


@pytest.fixture
def csq_input(tmp_path: Path) -> Path:
    recs = csq1logp_gen.records(csq1logp_gen.Spec(count=300, avg_data=500, seed=4))
    p = tmp_path / "in" / "extract.rdw"
    p.parent.mkdir()
    p.write_bytes(csq1logp_gen.framed(recs, "rdw"))
    return p


def _interrupt(after: int) -> object:
    calls = [0]

    def progress(n: int) -> None:
        calls[0] += 1
        if calls[0] > after:
            raise KeyboardInterrupt

    return progress


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "parquet", "dir"])
def test_csq1logp_extract_interrupted_leaves_nothing(tmp_path: Path, csq_input: Path,
                                                     fmt: str) -> None:
    out = tmp_path / "out"
    out.mkdir()
    target = out / ("d" if fmt == "dir" else f"x.{fmt}")
    with pytest.raises(KeyboardInterrupt):
        extract([str(csq_input)], str(target), fmt=fmt, workers=1, split_size=4096,
                progress=_interrupt(0))  # type: ignore[arg-type]
    assert files(out) == []
    extract([str(csq_input)], str(target), fmt=fmt, workers=1, split_size=4096)
    assert target.exists() and not [f for f in files(out) if Path(f).name.startswith(".")]


def test_csq1logp_extract_failfast_leaves_no_file_and_keeps_the_old(tmp_path: Path,
                                                                    csq_input: Path) -> None:
    bad = tmp_path / "in" / "bad.rdw"
    bad.write_bytes(csq_input.read_bytes()[:5000] + b"\x00" * 300 + csq_build.build_record())
    target = tmp_path / "x.jsonl"
    target.write_bytes(b"old")
    with pytest.raises(OutputExistsError):
        extract([str(bad)], str(target), workers=1)
    with pytest.raises(Exception, match="FAILFAST"):
        extract([str(bad)], str(target), workers=1, mode="FAILFAST", force=True)
    assert target.read_bytes() == b"old" and files(tmp_path / "in") == ["bad.rdw", "extract.rdw"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in", "x.jsonl"]


def test_urb_extract_interrupted_leaves_nothing(tmp_path: Path) -> None:
    from mqtool.formats.urb.extract import extract as urb_extract
    from tests.helpers import TESTDATA

    src = sorted((TESTDATA / "urb").glob("*.dump"))
    assert src
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        urb_extract([str(p) for p in src], str(out), progress=_interrupt(0))  # type: ignore[arg-type]
    assert files(out) == []
    urb_extract([str(p) for p in src], str(out))
    assert files(out) and not [f for f in files(out) if f.startswith(".")]


def test_sas_reassembly_interrupted_leaves_nothing(tmp_path: Path) -> None:
    from mqtool.formats.sas.reassemble import reassemble
    from tests.cli.test_reassemble import seed_messages

    def cut(msgs: list, at: int) -> Iterator:  # type: ignore[type-arg]
        for i, m in enumerate(msgs):
            if i == at:
                raise KeyboardInterrupt
            yield m

    msgs = seed_messages("zos")
    for at in range(1, len(msgs)):
        out = tmp_path / f"o{at}"
        with pytest.raises(KeyboardInterrupt):
            reassemble("", str(out), messages=cut(msgs, at))
        assert not [f for f in files(out) if Path(f).name.startswith(".")] if out.exists() else True
        assert not any(f.endswith(".txt") for f in files(out)) if out.exists() else True
    reassemble("", str(tmp_path / "whole"), messages=msgs)
    assert any(f.endswith("mytext.txt") for f in files(tmp_path / "whole"))


def test_message_set_writer_failure_leaves_nothing(tmp_path: Path) -> None:
    from mqtool.formats.mq.dumps.read import Message
    from mqtool.formats.sas.message_set import write_set

    def broken() -> Iterator[Message]:
        yield Message(1, b"x", {"msgtype": 8})
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_set(broken(), "dmpmqmsg", str(tmp_path / "set.qmsg"))
    assert files(tmp_path) == []


# ------------------------------------------------- a signal between making and entering


def test_temporaries_made_and_never_entered_are_removed_by_discard_left(tmp_path: Path) -> None:
    """A signal that strikes after a temporary output is made and before the ``with`` that
    removes it on failure is entered (the race CI caught in ``extract -j 2``): the run's
    stop handler removes what is left; outputs put in place are not touched."""
    from mqtool.io.outputs import atomic_path, discard_left

    kept = AtomicPath(tmp_path / "kept.bin")
    kept.temp.write_bytes(b"done")
    kept.commit()
    dropped = AtomicPath(tmp_path / "dropped.bin")
    dropped.discard()
    left = atomic_path(tmp_path / "out.bin")  # made; the signal comes before `with`
    staged = StagedDirs(tmp_path / "newdir", ("records",))  # made root and scratch
    assert left.temp.exists() and staged.scratch.exists()
    assert sorted(discard_left()) == sorted([left.temp, staged.root, staged.scratch])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.bin"]
    assert (tmp_path / "kept.bin").read_bytes() == b"done"
    assert discard_left() == []


def test_a_signal_the_moment_a_temporary_is_made_leaves_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``KeyboardInterrupt`` (what SIGINT and SIGTERM become) raised the instant the file
    exists, before its maker returns: the path was recorded before it was made, so the stop
    handler finds it. The file is made as ``open`` makes files (0666 less the umask)."""
    import os

    from mqtool.io.outputs import atomic_path, discard_left

    real = os.open

    def open_then_stopped(path: object, flags: int, mode: int = 0o777) -> int:
        os.close(real(path, flags, mode))  # type: ignore[arg-type]
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "open", open_then_stopped)
    with pytest.raises(KeyboardInterrupt):
        atomic_path(tmp_path / "out.bin")
    monkeypatch.undo()
    made = list(tmp_path.iterdir())
    assert len(made) == 1 and made[0].name.startswith(".out.bin.")
    assert discard_left() == made
    assert list(tmp_path.iterdir()) == []
    mask = os.umask(0o027)
    try:
        kept = AtomicPath(tmp_path / "mode.bin")
        assert kept.temp.stat().st_mode & 0o777 == 0o640
        kept.discard()
    finally:
        os.umask(mask)


@pytest.mark.parametrize("made", ["AtomicPath", "StagedDirs"])
def test_a_run_stopped_before_its_output_block_leaves_nothing(
        tmp_path: Path, csq_input: Path, made: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``mqtool extract`` stopped by a signal after its temporary output is made and before
    the block that removes it on failure is entered: status 130, one line, nothing left."""
    from mqtool.cli import run
    from mqtool.io import outputs

    def stopped(self: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(getattr(outputs, made), "__enter__", stopped)
    out = tmp_path / "out"
    out.mkdir()
    target = f"{out}/d/" if made == "StagedDirs" else f"{out}/x.parquet"
    assert run(["extract", str(csq_input), "-o", target, "-j", "1"]) == 130
    assert capsys.readouterr().err == "mqtool: interrupted\n"
    assert files(out) == []
