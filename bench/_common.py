"""Shared helpers for the benchmarks: timing subprocesses, best of N, ratios."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))
# ... and let `python -m mqtool` in child processes find it too
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)


def best(fn, *args, runs: int = 3):  # type: ignore[no-untyped-def]
    """Smallest wall time of ``runs`` in-process calls of ``fn(*args)``, and its result."""
    times, result = [], None
    for _ in range(runs):
        t = time.perf_counter()
        result = fn(*args)
        times.append(time.perf_counter() - t)
    return min(times), result


def mqtool_cmd() -> list[str]:
    exe = shutil.which("mqtool")
    return [exe] if exe else [sys.executable, "-m", "mqtool"]


def best_of(cmd: list[str], runs: int = 3, stdout=subprocess.DEVNULL) -> float:  # type: ignore[no-untyped-def]
    """Smallest wall time of ``runs`` runs (seconds); output discarded."""
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, stdout=stdout, check=True)
        times.append(time.perf_counter() - t)
    return min(times)


def random_file(path: Path, size: int) -> Path:
    if not path.exists() or path.stat().st_size != size:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as f:
            left = size
            while left:
                n = min(left, 1 << 24)
                f.write(os.urandom(n))
                left -= n
    return path
