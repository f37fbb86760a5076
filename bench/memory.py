"""Peak memory and first-output latency of each command on large generated inputs.

Issue 12's target for a 1 GB input: peak RSS <= 256 MB and the first output line within
1 s. Each command runs as its own process; its peak RSS is its VmHWM (``/proc``),
the latency is the time from start to the first line on stdout (or to the end when it
prints nothing). The baseline row (``cat``) shows what merely reading the input costs.
A table, not a timed test:

    python bench/memory.py                 # 100 MB inputs
    python bench/memory.py --large         # also 1 GB (needs ~5 GB of disk in bench/out)
    python bench/memory.py --size 20       # other sizes, in MB
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from _common import OUT, ROOT, mqtool_cmd

MB = 1 << 20
TARGET_RSS_MB = 256
TARGET_FIRST_S = 1.0


@dataclass
class Run:
    name: str
    rss_mb: float
    first_s: float | None
    total_s: float
    status: int


def _hwm_kib(pid: int) -> int:
    """The process's RSS high-water mark (VmHWM; since its exec, unlike rusage's maxrss,
    which also counts the forking Python's memory)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def measure(name: str, cmd: list[str]) -> Run:
    """Run ``cmd``; read its stdout to the end (discarding it); peak RSS polled from /proc."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert p.stdout is not None
    peak = [0]
    done = threading.Event()

    def poll() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _hwm_kib(p.pid))
            done.wait(0.02)

    watcher = threading.Thread(target=poll, daemon=True)
    watcher.start()
    first = None
    if p.stdout.readline():
        first = time.perf_counter() - t0
    while p.stdout.read(1 << 20):
        pass
    # the pipe is closed: the process is exiting; its /proc entry lasts until we reap it
    peak[0] = max(peak[0], _hwm_kib(p.pid))
    done.set()
    watcher.join()
    status = p.wait()
    total = time.perf_counter() - t0
    return Run(name, peak[0] / 1024, first, total, status)


# ------------------------------------------------------------------ inputs


def csq1logp_file(path: Path, size: int) -> Path:
    from mqtool.testing.csq1logp_gen import Spec, write

    if not path.exists() or path.stat().st_size < size:
        write(str(path), Spec(count=2000, avg_data=1400), "rdw", target_bytes=size)
    return path


def dump_text_file(path: Path, size: int) -> Path:
    """Document-style dump text of about ``size`` bytes (what ``dump -r`` reads)."""
    if path.exists() and path.stat().st_size >= size:
        return path
    from mqtool.render.hexdump import dump_bytes

    block = dump_bytes(bytes(range(256)) * 256)  # 64 KiB of bytes -> ~280 KiB of text
    lines = block.splitlines(keepends=True)
    with open(path, "w", encoding="utf-8") as f:
        written, base = 0, 0
        while written < size:
            for ln in lines:  # renumber so the offsets keep increasing
                off, rest = ln.split(" ", 1)
                text = f"{int(off, 16) + base:08X} {rest}"
                f.write(text)
                written += len(text)
            base += 1 << 16
    return path


def queue_dump_file(path: Path, size: int) -> Path:
    """A dmpmqmsg dump of one SAS binary attachment, about ``size`` bytes of text."""
    if path.exists() and path.stat().st_size >= size:
        return path
    payload = path.with_suffix(".payload")
    with open(payload, "wb") as f:
        chunk = os.urandom(MB)
        for _ in range(max(size // (2 * MB) - 1, 1)):  # hex text doubles the bytes
            f.write(chunk)
    path.unlink(missing_ok=True)
    subprocess.run([*mqtool_cmd(), "build-request", "sas-attachment", "--attach",
                    f"binary:{payload}=payload.bin", "--message", "bench", "-o", str(path)],
                   check=True, cwd=ROOT)
    payload.unlink()
    return path


# ------------------------------------------------------------------ table


def commands(size: int) -> list[tuple[str, list[str]]]:
    tag = f"{size // MB}mb"
    csq = csq1logp_file(OUT / f"memory-{tag}.rdw", size)
    text = dump_text_file(OUT / f"memory-{tag}.dump.txt", size)
    qmsg = queue_dump_file(OUT / f"memory-{tag}.qmsg", size)
    mq = mqtool_cmd()
    return [
        ("cat (reading the input: baseline)", ["cat", str(csq)]),
        ("decode csq1logp", [*mq, "decode", "csq1logp", str(csq)]),
        ("decode auto (CSQ1LOGP)", [*mq, "decode", "auto", str(csq)]),
        ("identify (CSQ1LOGP)", [*mq, "identify", str(csq)]),
        ("identify (dump text)", [*mq, "identify", str(text)]),
        ("dump -r (dump text)", [*mq, "dump", "-r", str(text)]),
        ("decode sas-attachment (queue dump)", [*mq, "decode", "sas-attachment", str(qmsg)]),
        ("reassemble attachment --list (dmpmqmsg reader)",
         [*mq, "reassemble", "attachment", str(qmsg), "--list"]),
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, action="append", metavar="MB",
                    help="input size in MB (repeatable; default 100)")
    ap.add_argument("--large", action="store_true", help="also 1 GB inputs")
    args = ap.parse_args()
    sizes = args.size or [100]
    if args.large:
        sizes.append(1024)
    OUT.mkdir(parents=True, exist_ok=True)
    print(f"targets for 1 GB: peak RSS <= {TARGET_RSS_MB} MB, first line <= {TARGET_FIRST_S:.0f} s")
    for mb in sizes:
        print(f"\ninputs of {mb} MB")
        print(f"  {'command':50} {'peak RSS':>10} {'first line':>11} {'total':>9}  status")
        for name, cmd in commands(mb * MB):
            r = measure(name, cmd)
            first = f"{r.first_s:9.2f} s" if r.first_s is not None else "        -"
            flag = "" if r.rss_mb <= TARGET_RSS_MB else "  over RSS target"
            print(f"  {name:50} {r.rss_mb:7.0f} MB {first:>11} {r.total_s:7.1f} s  {r.status}{flag}")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
