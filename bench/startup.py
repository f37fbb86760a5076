"""Start-up of ``mqtool --help`` vs ``python -c pass`` (target: at most 5x).

    python bench/startup.py
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

from _common import mqtool_cmd


def median_time(cmd: list[str], runs: int = 30) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    base = median_time([sys.executable, "-c", "pass"])
    helped = median_time([*mqtool_cmd(), "--help"])
    click = median_time([sys.executable, "-c", "import click"])
    print(f"python -c pass   {base * 1000:6.1f} ms")
    print(f"import click     {click * 1000:6.1f} ms  ({click / base:.2f}x)")
    print(f"mqtool --help    {helped * 1000:6.1f} ms  ({helped / base:.2f}x, target <= 5x)")


if __name__ == "__main__":
    main()
