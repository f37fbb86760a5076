"""``mqtool view`` start-up and scrolling (targets: < 1 s on a seed message; a 1 GB CSQ1LOGP
extract opens in < 2 s and scrolls without decoding everything).

    python bench/view.py [MB]     # default 1000 MB extract, cached under bench/out/

Each case runs in its own process (imports included, as a user starts it; byte code cached,
one warm-up run), the app driven headless by Textual's pilot until its first screen is
drawn; the baseline is an empty Textual app started the same way in the same run. Then 40
pages down the extract's unit list: how long, and how many records were decoded. Prints
times and ratios. Not a test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from _common import OUT, ROOT

SEED = ROOT / "testdata" / "urb" / "inst-color.data.dump"


def make_extract(mb: int) -> Path:
    """An RDW extract of about ``mb`` MB: a generated 64 MB piece repeated (records stay valid)."""
    path = OUT / f"view-csq1logp-{mb}MB.rdw"
    if path.exists():
        return path
    from mqtool.testing import csq1logp_gen

    OUT.mkdir(parents=True, exist_ok=True)
    piece = OUT / "view-piece.rdw"
    if not piece.exists():
        spec = csq1logp_gen.Spec(count=4000, avg_data=600, multi_every=500, multi_size=60_000)
        csq1logp_gen.write(str(piece), spec, "rdw", target_bytes=min(mb, 64) * 1_000_000)
    data = piece.read_bytes()
    tmp = Path(str(path) + ".tmp")
    with tmp.open("wb") as f:
        for _ in range(max(1, mb * 1_000_000 // len(data))):
            f.write(data)
    tmp.rename(path)
    return path


def child(kind: str, path: str) -> None:
    """In a fresh process: start the app (or an empty one), wait for the first screen, scroll."""
    t0 = time.perf_counter()
    import asyncio

    from textual.app import App

    async def run() -> dict[str, object]:
        if kind == "empty":
            app: App[int] = App()
            async with app.run_test(size=(160, 45)) as pilot:
                await pilot.pause()
                return {"first_screen": time.perf_counter() - t0}
        from mqtool.view import sources
        from mqtool.view.app import ViewApp
        from mqtool.view.widgets import UnitList

        loads = [0]
        src = sources.open_source(path)
        real_load = src.load

        def counted(i: int) -> sources.Loaded:
            loads[0] += 1
            return real_load(i)

        src.load = counted  # type: ignore[method-assign]
        app = ViewApp(src)
        async with app.run_test(size=(160, 45)) as pilot:
            await pilot.pause()
            first = time.perf_counter() - t0
            indexed = len(src)
            out: dict[str, object] = {"first_screen": first, "units_at_first_screen": indexed,
                                      "title": app.selected.name if app.selected else ""}
            if kind == "extract":
                units = app.query_one(UnitList)
                units.focus()
                t = time.perf_counter()
                for _ in range(40):
                    await pilot.press("pagedown")
                await pilot.pause(0.3)  # the unit under the cursor is shown once it rests
                out["scroll_40_pages"] = time.perf_counter() - t
                out["unit_shown"] = app.index + 1
                out["decoded"] = loads[0]
                out["units_known"] = len(src)
                out["bytes_framed"] = getattr(src, "scanned", 0)
                out["size"] = getattr(src, "size", 0)
            await pilot.press("q")
            return out

    print(json.dumps(asyncio.run(run())))


def measure(kind: str, path: str = "", runs: int = 3) -> dict[str, object]:
    """Best of ``runs`` after one warm-up run; byte code is cached as in an installed package
    (``PYTHONDONTWRITEBYTECODE`` would make every start compile mqtool's sources again)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    best: dict[str, object] | None = None
    for n in range(runs + 1):
        r = subprocess.run([sys.executable, __file__, "--child", kind, path], capture_output=True,
                           text=True, check=True, env=env)
        if n == 0:
            continue
        got = json.loads(r.stdout.strip().splitlines()[-1])
        if best is None or got["first_screen"] < best["first_screen"]:  # type: ignore[operator]
            best = got
    assert best is not None
    return best


def main() -> None:
    if "--child" in sys.argv:
        k = sys.argv.index("--child")
        child(sys.argv[k + 1], sys.argv[k + 2] if len(sys.argv) > k + 2 else "")
        return
    mb = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    extract = make_extract(mb)
    empty = measure("empty")
    seed = measure("seed", str(SEED))
    big = measure("extract", str(extract))
    base = float(empty["first_screen"])  # type: ignore[arg-type]
    s, b = float(seed["first_screen"]), float(big["first_screen"])  # type: ignore[arg-type]
    print(f"empty Textual app      {base * 1000:7.0f} ms  (baseline)")
    print(f"view seed message      {s * 1000:7.0f} ms  ({s / base:.2f}x; target < 1 s)")
    print(f"view {extract.stat().st_size / 1e6:.0f} MB extract   {b * 1000:7.0f} ms  "
          f"({b / base:.2f}x; target < 2 s), {big['units_at_first_screen']} records framed at first screen")
    print(f"  40 pages down in the unit list: {float(big['scroll_40_pages']) * 1000:.0f} ms, "  # type: ignore[arg-type]
          f"now at record {big['unit_shown']}, {big['decoded']} records decoded of "
          f"{big['units_known']} framed ({int(big['bytes_framed']) / 1e6:.0f} of "  # type: ignore[call-overload]
          f"{int(big['size']) / 1e6:.0f} MB)")  # type: ignore[call-overload]


if __name__ == "__main__":
    main()
