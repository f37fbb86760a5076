"""scan vs ``grep -c -a URBH`` on the same image, and scan's cost per hit.

    python bench/scan.py [MB] [ROUNDS]     # default 1000 MB, 3 rounds

1. An image of MB megabytes of random bytes with a few structures in it (a URB message, an
   MQDLH chain, a PCF event and a CSQ1LOGP record every 64 MB): ``mqtool.scan`` (every
   format, confirmed hits) against ``grep -c -a URBH`` (one fixed string, no decoding), in
   alternated rounds; the medians, the throughputs and their ratio. The goal: scan at
   200 MB/s or more.
2. The same structures every 4 KiB in a 64 MB image: hits per second, and the time per hit
   beside (1): a scan's time grows with its hits linearly.

Prints ``uptime`` first and last: the machine is shared, read the ratios with the load.
Not a test: run it by hand.
"""

from __future__ import annotations

import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _common import OUT, ROOT

from mqtool import scan
from mqtool.io.carving import Work
from mqtool.io.undump import undump

TESTDATA = ROOT / "testdata"


def structures() -> list[bytes]:
    return [undump((TESTDATA / "urb/close-destination.reply.dump").read_text()),
            (TESTDATA / "mq/dlh-rfh2-mqstr.be.ascii.bin").read_bytes(),
            (TESTDATA / "mq/event.le.ascii.bin").read_bytes(),
            undump((TESTDATA / "csq1logp/mqput-rdw.dump").read_text())]


def make_image(path: Path, mb: int, every: int) -> int:
    """Random bytes with the structures every ``every`` bytes (each after a NUL); the
    number of structures put in."""
    if path.exists() and path.stat().st_size == mb << 20:
        return -1
    parts = structures()
    rng = random.Random(1)
    block = 1 << 20
    put = 0
    with path.open("wb") as f:
        for k in range(mb):
            data = bytearray(rng.randbytes(block))
            start = k * block
            first = -(-start // every) * every
            for at in range(first, start + block, every):
                p = parts[put % len(parts)]
                rel = at - start
                if rel + len(p) + 1 <= block:
                    data[rel] = 0
                    data[rel + 1:rel + 1 + len(p)] = p
                    put += 1
            f.write(data)
    return put


def time_scan(path: Path) -> tuple[float, int, Work]:
    w = Work()
    t = time.perf_counter()
    n = sum(1 for _ in scan.scan(str(path), work=w))
    return time.perf_counter() - t, n, w


def time_grep(path: Path) -> tuple[float, int]:
    t = time.perf_counter()
    out = subprocess.run(["grep", "-c", "-a", "URBH", str(path)], capture_output=True, text=True)
    return time.perf_counter() - t, int(out.stdout.strip() or 0)


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> None:
    mb = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    if not shutil.which("grep"):
        sys.exit("grep is not installed")
    OUT.mkdir(parents=True, exist_ok=True)
    print("load before:", uptime())
    few = OUT / f"scan-few-{mb}MB.bin"
    make_image(few, mb, 64 << 20)
    t_scan: list[float] = []
    t_grep: list[float] = []
    hits = grep_lines = 0
    for _ in range(rounds):  # alternated rounds: both see the same load and page cache
        t, grep_lines = time_grep(few)
        t_grep.append(t)
        t, hits, _w = time_scan(few)
        t_scan.append(t)
    ms, mg = statistics.median(t_scan), statistics.median(t_grep)
    print(f"{mb} MB image, a structure every 64 MB; median of {rounds} alternated rounds")
    print(f"  grep -c -a URBH     {mg:7.2f} s  {mb / mg:8.1f} MB/s  ({grep_lines} lines)")
    print(f"  mqtool scan         {ms:7.2f} s  {mb / ms:8.1f} MB/s  ({hits} hits)")
    print(f"  ratio (scan / grep throughput) {mg / ms:.2f}   goal: scan >= 200 MB/s")
    many_mb = 64
    many = OUT / f"scan-many-{many_mb}MB.bin"
    make_image(many, many_mb, 4096)
    t, n, w = time_scan(many)
    base = ms * many_mb / mb  # what the same bytes cost with few hits
    print(f"{many_mb} MB image, a structure every 4 KiB: {n} hits in {t:.2f} s, "
          f"{n / t:,.0f} hits/s, {(t - base) / max(n, 1) * 1e6:.0f} µs per hit beyond the "
          f"byte cost; decoders were handed {w.decoded:,} bytes")
    print("load after: ", uptime())


if __name__ == "__main__":
    main()
