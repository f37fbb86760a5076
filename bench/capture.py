"""Reading a large capture of MQ traffic: time and peak memory of ``read_capture`` against
a baseline in the same run (dpkt alone walking the same frames to their TCP payloads),
each in its own process, median of alternated rounds; machine load printed. A table, not a
timed test:

    python bench/capture.py                # a 1 GB capture (1024 connections x 1 MB message)
    python bench/capture.py --size 100     # another size, in MB
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

from _common import OUT, ROOT

MB = 1 << 20
OURS = """
import resource, sys
from mqtool.formats.mq.capture.read import read_capture
n = 0
for m in read_capture(sys.argv[1]):
    n += len(m.body)
print(n, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""
BASELINE = """
import resource, sys, dpkt
n = 0
with open(sys.argv[1], "rb") as f:
    for _ts, buf in dpkt.pcap.Reader(f):
        n += len(dpkt.ethernet.Ethernet(buf).data.data.data)
print(n, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def run(code: str, path: str) -> tuple[float, int, int]:
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONPATH": str(ROOT)}).stdout.split()
    return time.perf_counter() - t, int(out[0]), int(out[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=1024, help="capture size in MB")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from mqtool.testing.mq_capture import write_large_capture

    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"capture-{args.size}mb.pcap"
    if not path.exists():
        write_large_capture(str(path), args.size, MB)
    size = path.stat().st_size
    print(f"load {os.getloadavg()}; {path.name}: {size / MB:.0f} MB")
    ours, base = [], []
    for _ in range(args.rounds):  # alternated
        base.append(run(BASELINE, str(path)))
        ours.append(run(OURS, str(path)))
    t_ours = statistics.median(r[0] for r in ours)
    t_base = statistics.median(r[0] for r in base)
    print(f"dpkt walk:     {t_base:6.1f} s  {size / MB / t_base:6.1f} MB/s  "
          f"peak RSS {max(r[2] for r in base) / 1024:6.0f} MB")
    print(f"read_capture:  {t_ours:6.1f} s  {size / MB / t_ours:6.1f} MB/s  "
          f"peak RSS {max(r[2] for r in ours) / 1024:6.0f} MB  "
          f"(message bytes {ours[0][1] / MB:.0f} MB)")
    print(f"ratio read_capture / dpkt walk: {t_ours / t_base:.2f}")


if __name__ == "__main__":
    main()
