"""What typed change tables cost on top of the bytes-only ``changes`` table.

    python bench/urb_typed.py [N] [ROUNDS]     # N record changes (default 20000), rounds (5)

The stream comes from ``mqtool.testing.urb_gen``: a global format field table (URBF + URBGs
of every field format, an MU field, a PE group with an MU field inside) and data messages of
five records each, inserts, updates (before and after image) and deletes, EBCDIC and
big-endian. Measured in the same process, rounds alternated, median of each:

* bytes-only: ``extract_tables`` of the stream (the ``changes`` table: images as bytes);
* typed: the same, plus finding the GFFT in the stream (``gfft.scan``) and the typed change
  tables (``typed_changes``: every value of every image decoded to its column).

The ratio typed / bytes-only is printed (the target: at most 2), with the machine load.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import ROOT  # noqa: F401  (puts the checkout on sys.path)

from mqtool.formats.urb.extract import extract_tables
from mqtool.formats.urb.typed import Layouts, scan, typed_changes
from mqtool.testing import urb_gen


def bytes_only(path: str) -> object:
    tables, _ = extract_tables(path)
    return tables.table("changes")


def typed(path: str) -> object:
    tables, _ = extract_tables(path)
    data = Path(path).read_bytes()
    layouts = Layouts.of([((0, off), g) for off, g in scan(data, path)])
    return typed_changes(tables.table("changes"), layouts, tables.table("transactions"),
                         tables.table("messages"), [path])


def run(n: int = 20000, rounds: int = 5) -> float:
    """Measure and print; the ratio typed / bytes-only (``bench/urb.py`` prints it too)."""
    fields = urb_gen.employees()
    stream = urb_gen.stream(fields, urb_gen.changes(n, seed=7))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "stream.urb")
        Path(path).write_bytes(stream.data)
        result = typed(path)
        rows = sum(t.num_rows for t in result.tables.values())  # type: ignore[attr-defined]
        images = bytes_only(path).num_rows  # type: ignore[attr-defined]
        print(f"{len(stream.data):,} bytes, {n:,} record changes, {images:,} images, "
              f"{rows:,} typed rows, {result.errors.num_rows} value errors")  # type: ignore[attr-defined]
        times: dict[str, list[float]] = {"bytes-only": [], "typed": []}
        for _ in range(rounds):
            for name, fn in (("bytes-only", bytes_only), ("typed", typed)):
                t = time.perf_counter()
                fn(path)
                times[name].append(time.perf_counter() - t)
    med = {k: statistics.median(v) for k, v in times.items()}
    for k, v in med.items():
        print(f"{k:>10}: median {v:.3f} s of {rounds} rounds ({', '.join(f'{x:.3f}' for x in times[k])})")
    ratio = med["typed"] / med["bytes-only"]
    print(f"typed / bytes-only: {ratio:.2f} (target at most 2)")
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} (uptime)")
    return ratio


def main() -> None:
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 20000, int(sys.argv[2]) if len(sys.argv) > 2 else 5)


if __name__ == "__main__":
    main()
