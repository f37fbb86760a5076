"""SIGINT (Ctrl-C) and SIGTERM stop any command with one line on stderr and the status a
shell reports for the signal (130, 143); no partial output file (the hidden
``.NAME.XXXX.part`` of ``io.outputs`` included), no worker left running.

The signal is sent at points the test observes, not after a delay: while the command is
blocked reading its stdin pipe (wchan ``pipe_read``), while it is blocked writing its full
stdout pipe after its first output bytes (``pipe_write``), while a ``.part`` file holds
its first bytes, and once its worker processes exist.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from mqtool.io.outputs import TEMP_SUFFIX
from tests.helpers import ROOT, TESTDATA

pytestmark = pytest.mark.skipif(not Path("/proc/self/wchan").exists(),
                                reason="needs Linux /proc to see where a process waits")

STATUS = {signal.SIGINT: (130, "mqtool: interrupted\n"), signal.SIGTERM: (143, "mqtool: terminated\n")}
SIGNALS = [signal.SIGINT, signal.SIGTERM]
WAIT = 120  # seconds a step may take on a loaded machine before the test gives up


def start(*args: object, cwd: Path | None = None) -> subprocess.Popen[bytes]:
    """mqtool in its own session (so Ctrl-C can be sent to its process group)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "mqtool", *map(str, args)], cwd=cwd, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)


def until(what: str, check: Callable[[], bool], p: subprocess.Popen[bytes]) -> None:
    end = time.monotonic() + WAIT
    while not check():
        if p.poll() is not None:
            raise AssertionError(f"mqtool ended (status {p.returncode}) before {what}: "
                                 f"{p.stderr.read().decode() if p.stderr else ''}")
        if time.monotonic() > end:
            p.kill()
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def waiting_in(p: subprocess.Popen[bytes], call: str) -> bool:
    """Is the process asleep in the kernel function ``call`` (``pipe_read``, ...)?"""
    try:
        return call in Path(f"/proc/{p.pid}/wchan").read_text()
    except OSError:
        return False


def children(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        with contextlib.suppress(OSError):
            out += [int(c) for c in task.read_text().split()]
    return out


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except OSError:
        return False


def stop(p: subprocess.Popen[bytes], sig: int, group: bool = False) -> tuple[int, str]:
    """Send ``sig`` (to the process group: a terminal's Ctrl-C), then collect the status
    and stderr (stdout drained so a blocked writer can end)."""
    (os.killpg if group else os.kill)(p.pid, sig)
    _out, err = p.communicate(timeout=WAIT)
    return p.returncode, err.decode()


def parts(root: Path) -> list[Path]:
    return [q for q in root.rglob("*") if q.name.endswith(TEMP_SUFFIX)]


# ------------------------------------------------------------------ blocked reading stdin

READERS = {
    "dump": ["dump", "-"],
    "dump -r": ["dump", "-r", "-", "-o", "{o}"],
    "decode urb": ["decode", "urb", "-"],
    "decode auto": ["decode", "auto", "-"],
    "identify": ["identify", "-"],
    "messages": ["messages", "-"],
    "reassemble attachment": ["reassemble", "attachment", "-", "-o", "{o}"],
    "extract csq1logp": ["extract", "-", "-o", "{o}.jsonl"],
    "build-request urb": ["build-request", "urb", "--from", "-", "-o", "{o}"],
}


@pytest.mark.parametrize("sig", SIGNALS, ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("command", READERS)
def test_while_reading_stdin(command: str, sig: int, tmp_path: Path) -> None:
    p = start(*[a.format(o=tmp_path / "out") for a in READERS[command]])
    assert p.stdin is not None
    p.stdin.write(b"0000: 4142 4344\n" if command == "dump -r" else b"x" * 100)
    p.stdin.flush()
    until("it waits for more input", lambda: waiting_in(p, "pipe_read"), p)
    status, err = stop(p, sig)
    assert (status, err) == STATUS[sig]
    assert list(tmp_path.iterdir()) == [], "nothing written"


# ------------------------------------------------------------------ after the first output


@pytest.fixture(scope="module")
def csq(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """About 24 MB of CSQ1LOGP records (a generated extract, repeated)."""
    from mqtool.testing import csq1logp_gen

    d = tmp_path_factory.mktemp("csq")
    one = d / "one.bin"
    csq1logp_gen.write(str(one), csq1logp_gen.Spec(count=400), framing="rdw")
    data = one.read_bytes()
    big = d / "big.bin"
    with big.open("wb") as f:
        for _ in range(-(-(24 << 20) // len(data))):
            f.write(data)
    return big


@pytest.mark.parametrize("sig", SIGNALS, ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("command", [["dump"], ["decode", "csq1logp"], ["decode", "csq1logp", "--json"]])
def test_while_writing_to_a_full_pipe(command: list[str], sig: int, csq: Path) -> None:
    """The first output bytes were read, then no more: mqtool waits to write."""
    p = start(*command, csq)
    assert p.stdout is not None
    assert len(p.stdout.read(4096)) == 4096
    until("it waits to write", lambda: waiting_in(p, "pipe_write"), p)
    status, err = stop(p, sig)
    assert (status, err) == STATUS[sig]


@pytest.mark.parametrize("sig", SIGNALS, ids=["SIGINT", "SIGTERM"])
def test_a_part_file_holding_bytes_is_removed(sig: int, tmp_path: Path) -> None:
    """``dump -r - -o FILE`` streams xxd text: the temporary ``.FILE.XXXX.part`` holds the
    first bytes while mqtool waits for more text; after the signal neither it nor FILE."""
    p = start("dump", "-r", "-", "-o", tmp_path / "out.bin")
    assert p.stdin is not None
    line = 0
    while not [q for q in parts(tmp_path) if q.stat().st_size]:
        p.stdin.write(b"".join(b"%08x: %s  %s\n" % ((line + k) * 16, b"4142 " * 8, b"AB" * 8)
                               for k in range(4096)))
        p.stdin.flush()
        line += 4096
        until("it has read what it was given", lambda: waiting_in(p, "pipe_read"), p)
    status, err = stop(p, sig)
    assert (status, err) == STATUS[sig]
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------ worker processes


@pytest.mark.parametrize("point", ["the workers start", "the output is begun"])
@pytest.mark.parametrize("sig,group", [(signal.SIGINT, True), (signal.SIGTERM, False)],
                         ids=["Ctrl-C to the process group", "SIGTERM to mqtool only"])
def test_extract_with_workers(point: str, sig: int, group: bool, csq: Path,
                              tmp_path: Path) -> None:
    """``extract -j 2``: as its worker processes start, or once they decode and the output
    (``.out.parquet.XXXX.part``) is begun, the signal stops the run; the workers are gone,
    no traceback from any of them, no output, no spilled results."""
    shm = Path("/dev/shm")
    before = set(shm.iterdir()) if shm.is_dir() else set()
    out = tmp_path / "out.parquet"
    p = start("extract", csq, "-o", out, "-j", "2", "--split-size", "1m")
    until("the workers start", lambda: len(children(p.pid)) >= 2, p)
    workers = children(p.pid)
    if point == "the output is begun":
        until(point, lambda: bool(parts(tmp_path)), p)
    status, err = stop(p, sig, group)
    assert (status, err) == STATUS[sig]
    end = time.monotonic() + WAIT
    while any(alive(w) for w in workers) and time.monotonic() < end:
        time.sleep(0.05)
    assert not any(alive(w) for w in workers), "no worker left running"
    assert list(tmp_path.iterdir()) == []
    if shm.is_dir():
        assert {q for q in set(shm.iterdir()) - before if "mqtool" in q.name} == set()


# ------------------------------------------------------------------ Spark


def _java_children(pid: int) -> list[int]:
    found = []
    for c in children(pid):
        with contextlib.suppress(OSError):
            if b"java" in Path(f"/proc/{c}/cmdline").read_bytes():
                found.append(c)
    return found


@pytest.mark.parametrize("point", ["the JVM starts", "the job runs"])
@pytest.mark.parametrize("sig,group", [(signal.SIGINT, True), (signal.SIGTERM, False)],
                         ids=["Ctrl-C to the process group", "SIGTERM to mqtool only"])
def test_spark_extract(point: str, sig: int, group: bool, csq: Path, tmp_path: Path) -> None:
    """As the JVM starts, or once the job runs (its scratch folder made in OUTDIR): one
    line (no py4j traceback), the JVM gone, no output folder."""
    out = tmp_path / "out"
    p = start("spark-extract", csq, "-o", out, "--master", "local[2]", "--split-size", "1m")
    until("the JVM starts", lambda: bool(_java_children(p.pid)), p)
    jvm = _java_children(p.pid)
    if point == "the job runs":
        until(point, lambda: any(out.glob(".mqtool-*")), p)
    status, err = stop(p, sig, group)
    assert (status, err) == STATUS[sig]
    end = time.monotonic() + WAIT
    while any(alive(j) for j in jvm) and time.monotonic() < end:
        time.sleep(0.1)
    assert not any(alive(j) for j in jvm), "the JVM ended"
    assert not out.exists()


def test_a_signal_is_one_line_in_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """``cli.run`` maps KeyboardInterrupt (raised anywhere in a command) to 130 and one
    line, whatever click would print; the reassembly's temporary files are removed."""
    import mqtool.formats.sas.reassemble as r
    from mqtool.cli import run

    real = r.FileWriter.feed

    def interrupted(self: r.FileWriter, seq: int, msg: object) -> None:
        real(self, seq, msg)  # type: ignore[arg-type]
        raise KeyboardInterrupt

    monkeypatch.setattr(r.FileWriter, "feed", interrupted)
    status = run(["reassemble", "attachment", str(TESTDATA / "sas" / "mytext-zos.qmsg"), "-o",
                  str(tmp_path / "o")])
    assert (status, capsys.readouterr().err) == (130, "mqtool: interrupted\n")
    assert not parts(tmp_path)
