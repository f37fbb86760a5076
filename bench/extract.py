"""CSQ1LOGP bulk extraction: ``mqtool extract`` -> Parquet against a minimal numpy-decode +
pyarrow-write baseline, and ``mqtool spark-extract`` on local[1] and local[2].

    python bench/extract.py [MB] [--no-spark] [--out DIR]   # default 200 MB of ~1.6 KB records

``--out DIR`` puts every output there (e.g. ``/dev/shm/mqtool-bench``, to measure the
computation without a virtual disk's write-back in the figures); the input stays in
bench/out/.

The input is generated (deterministic, RDW framing, MQPUT records with ~1.4 KB of data,
some multi-segment messages) and cached under bench/out/. Each command runs in its own
process; best of 3. Spark: the job time in a warm session (best of two after a warm-up
run, without and with ``--messages``; the driver's share is the time outside Spark jobs)
and the wall time of one cold ``mqtool spark-extract``, its JVM start-up and session set-up
separated. Prints times, MB/s and the ratios. Not a test.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from _common import OUT, ROOT, mqtool_cmd

WRITE = Path(sys.argv[sys.argv.index("--out") + 1]) if "--out" in sys.argv else OUT
WRITE.mkdir(parents=True, exist_ok=True)

sys.path.insert(0, str(ROOT))


def make_input(mb: int) -> Path:
    from mqtool.testing import csq1logp_gen

    path = OUT / f"csq1logp-{mb}MB.rdw"
    if not path.exists():
        OUT.mkdir(parents=True, exist_ok=True)
        spec = csq1logp_gen.Spec(count=4000, avg_data=1400, multi_every=500, multi_size=100_000,
                        verbs=("MQPUT",))
        csq1logp_gen.write(str(path) + ".tmp", spec, "rdw", target_bytes=mb * 1_000_000)
        Path(str(path) + ".tmp").rename(path)
    return path


# --------------------------------------------------------------------------- the baseline


def baseline(src: str, dst: str) -> None:
    """What a data engineer would write by hand: walk the RDWs, one numpy structured view
    of the fixed parts, EBCDIC text through a lookup table, pyarrow writes Parquet."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    buf = Path(src).read_bytes()
    u8 = np.frombuffer(buf, np.uint8)
    offs, lens = [], []
    pos, n = 0, len(buf)
    while pos + 4 <= n:
        ln = (buf[pos] << 8) | buf[pos + 1]
        if ln < 5 or pos + ln > n:
            break
        offs.append(pos)
        lens.append(ln)
        pos += ln
    off = np.array(offs, np.int64)
    ln = np.array(lens, np.int64)
    dtype = np.dtype({
        "names": ["date", "delta", "dtodout", "urid", "corr", "auth", "dtime", "res", "cnty",
                  "cnid", "status", "ldatalen", "qmgr", "queue", "sqkey", "key", "verb", "cmit",
                  "shunt", "logrba", "shuntrba", "lsegment"],
        "formats": ["S21", "S7", ">u8", "V6", "S12", "S8", ">u8", "S8", "S8", "S8", "S3", ">i4",
                    "S4", "S48", "V12", "V8", "S8", "S1", "S1", "V6", "V6", ">i4"],
        "offsets": [0, 21, 28, 36, 42, 54, 62, 70, 78, 86, 94, 97, 101, 105, 153, 165, 173, 181,
                    182, 183, 189, 195],
        "itemsize": 199})
    raw = u8[(off + 4)[:, None] + np.arange(199)]
    lut = np.frombuffer(bytes(range(256)).decode("cp037").encode("latin-1"), np.uint8)
    rec = raw.view(dtype).reshape(-1)
    text = lut[raw].view(dtype).reshape(-1)
    cols = {}
    for name in dtype.names:
        kind = dtype.fields[name][0]
        if kind.kind == "S":
            cols[name] = pa.array(text[name]).cast(pa.string())
        elif kind.kind == "V":
            h, w = rec[name].tobytes().hex().upper(), 2 * kind.itemsize
            cols[name] = pa.array([h[i:i + w] for i in range(0, len(h), w)])
        elif name in ("dtodout", "dtime"):
            us = (rec[name] >> np.uint64(12)).astype(np.int64) - 2_208_988_800_000_000
            cols[name] = pa.array(us, pa.timestamp("us", tz="UTC"))
        else:
            cols[name] = pa.array(rec[name].astype(np.int32))
    start = off + 4 + 200
    mv = memoryview(buf)
    cols["data"] = pa.array([mv[s:s + e] for s, e in zip(start.tolist(), (ln - 204).tolist(), strict=True)],
                            pa.binary())
    cols["offset"] = pa.array(off)
    pq.write_table(pa.table(cols), dst, compression="snappy")


# --------------------------------------------------------------------------- timing


ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def timed(cmd: list[str], runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        t = time.perf_counter()
        r = subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True, env=ENV)
        if r.returncode:
            sys.exit(f"{' '.join(cmd)} failed:\n{r.stderr[-2000:]}")
        best = min(best, time.perf_counter() - t)
    return best


def spark_steady(master: str, src: str) -> None:
    """In one session: a warm-up run, then the best of two timed runs without and with
    ``--messages`` (job time: listing, decode, partitioned Parquet write, summary). Prints
    one JSON line: seconds, and the driver's share of the job (time outside Spark jobs)."""
    import json
    import os

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    import shutil

    from mqtool.spark.job import JobOptions, run_job, session

    spark = session(master, {})
    best: dict[str, tuple[float, float]] = {}
    for i, messages in enumerate([False, False, False, True, True]):
        out = WRITE / f"spark-{master.replace('[', '').replace(']', '')}-{i}"
        t = time.perf_counter()
        info = run_job(spark, JobOptions([src], str(out), force=True, messages=messages))
        took = time.perf_counter() - t
        shutil.rmtree(out)  # 200 MB a run: do not measure a filling disk
        if i == 0:
            continue  # warm-up
        key = "messages" if messages else "job"
        share = 1 - info["spark_jobs_s"] / info["elapsed_s"]
        if key not in best or took < best[key][0]:
            best[key] = (took, share)
    spark.stop()
    print(json.dumps({"job": best["job"][0], "driver_share": best["job"][1],
                      "messages": best["messages"][0]}))


def spark_run(src: Path, master: str) -> tuple[dict[str, float], float, float]:
    """(warm-session timings, cold wall seconds of one CLI run, its JVM start-up and
    session share: wall minus the job's own elapsed time)."""
    import json

    r = subprocess.run([sys.executable, __file__, "spark", master, str(src), "--out", str(WRITE)],
                       capture_output=True,
                       text=True, check=False, env=ENV)
    if r.returncode:
        sys.exit(f"spark bench failed:\n{r.stderr[-2000:]}")
    steady = json.loads(r.stdout.strip().splitlines()[-1])
    out = WRITE / f"spark-cli-{master.replace('[', '').replace(']', '')}"
    t = time.perf_counter()
    r = subprocess.run([*mqtool_cmd(), "spark-extract", str(src), "-o", str(out), "--master",
                        master, "--force"], capture_output=True, text=True, check=False, env=ENV)
    if r.returncode not in (0, 2):
        sys.exit(f"spark-extract failed:\n{r.stderr[-2000:]}")
    wall = time.perf_counter() - t
    job = json.loads((out / "_summary.json").read_text())["elapsed_s"]
    return steady, wall, wall - job


def main() -> None:
    args = [a for k, a in enumerate(sys.argv[1:], 1)
            if not a.startswith("--") and sys.argv[k - 1] != "--out"]
    if args and args[0] == "spark":
        spark_steady(args[1], args[2])
        return
    if args and args[0] == "baseline":
        # pa.array() on numpy imports pandas (~1 s) when it is installed; keep the baseline
        # honest by not paying for that
        import importlib.abc

        class NoPandas(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path, target=None):  # type: ignore[no-untyped-def]
                if name.split(".")[0] == "pandas":
                    raise ModuleNotFoundError(name)

        sys.meta_path.insert(0, NoPandas())
        baseline(args[1], args[2])
        return
    mb = int(args[0]) if args else 200
    src = make_input(mb)
    size = src.stat().st_size / 1e6
    recs = size * 1e6 / 1604
    print(f"input: {src.name}, {size:.0f} MB, ~{recs / 1000:.0f}k records of ~1.6 KB (RDW)")
    t_base = timed([sys.executable, __file__, "baseline", str(src), str(WRITE / "baseline.parquet")], 3)
    t_mq = timed([*mqtool_cmd(), "extract", str(src), "-o", str(WRITE / "mqtool.parquet"), "--force"], 3)
    t_mq1 = timed([*mqtool_cmd(), "extract", str(src), "-o", str(WRITE / "mqtool1.parquet"), "--force",
                   "-j", "1"], 3)
    print(f"  baseline numpy + pyarrow   {t_base:7.2f} s  {size / t_base:7.1f} MB/s")
    print(f"  mqtool extract -> Parquet  {t_mq:7.2f} s  {size / t_mq:7.1f} MB/s   "
          f"ratio {t_base / t_mq:.2f}x (target >= 0.8)")
    print(f"  mqtool extract -j 1        {t_mq1:7.2f} s  {size / t_mq1:7.1f} MB/s   "
          f"ratio {t_base / t_mq1:.2f}x")
    if "--no-spark" in sys.argv:
        return
    s1, w1, jvm1 = spark_run(src, "local[1]")
    s2, w2, jvm2 = spark_run(src, "local[2]")
    j1, j2 = s1["job"], s2["job"]
    print(f"  spark-extract local[1]     {j1:7.2f} s  {size / j1:7.1f} MB/s   (warm session; driver "
          f"{s1['driver_share']:.0%} of the job; cold CLI run {w1:.1f} s of which {jvm1:.1f} s "
          "JVM start and session)")
    print(f"  spark-extract local[2]     {j2:7.2f} s  {size / j2:7.1f} MB/s   (warm session; driver "
          f"{s2['driver_share']:.0%} of the job; cold CLI run {w2:.1f} s of which {jvm2:.1f} s "
          "JVM start and session)  target >= 150 MB/s")
    print(f"  speed-up local[1] -> local[2]  {j1 / j2:.2f}x warm (target >= 1.8)")
    print(f"  --messages on local[2]     {s2['messages']:7.2f} s  {s2['messages'] / j2:.2f}x the run "
          "without it (target <= 1.3)")

if __name__ == "__main__":
    main()
