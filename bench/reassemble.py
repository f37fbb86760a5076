"""mqtool reassemble attachment vs a bare hex decode of the same dmpmqmsg dump; peak RSS of
decode sas-attachment on a 200 MiB message body.

    python bench/reassemble.py [FILE_MB [RUNS]]      # default 900 MB, 1 run
    python bench/reassemble.py --decode [MIB]        # the decode memory check only (200 MiB)

Generates once, under bench/out/ (not committed), a random FILE_MB file and the dmpmqmsg
dump of the z/OS message set that carries it as an external binary file (32K messages,
32 bytes per X line: the dump is about 2.2 x FILE_MB). Then, in the same run:

  baseline  a minimal script that reads the dump's X lines and bytes.fromhex()es them
  mqtool    mqtool reassemble attachment DUMP -o bench/out/reassembled --force -q

and prints both times, the speed ratio (baseline time / mqtool time; target >= 0.5), the
peak RSS of each process (from os.wait4's rusage; mqtool's target < 256 MB), and checks
that the rebuilt file is byte-exact (sha256 against the generated file).

Then ``decode sas-attachment`` (listing and --json, output discarded) of three 200 MiB
inputs: an external-file records body (len|record pairs of 32,760-byte records), random
bytes (refused, exit 2), and the dmpmqmsg dump of a 100 MiB file; target peak RSS <= 256 MB
each. Not a test.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from _common import OUT, ROOT, mqtool_cmd, random_file

BASELINE = """
import sys
n = 0
with open(sys.argv[1]) as f:
    for line in f:
        if line.startswith("X "):
            n += len(bytes.fromhex(line[2:]))
print(n)
"""


def build_dump(source: Path, dump: Path) -> None:
    """The z/OS message set of ``source`` as a dmpmqmsg file (the library, streaming)."""
    sys.path.insert(0, str(ROOT))
    from mqtool.formats.mq.dumps.write import write_dmpmqmsg
    from mqtool.formats.sas.layout import PROFILES
    from mqtool.formats.sas.message_set import (
        BuildOptions,
        FileAttachment,
        Request,
        build_messages,
    )

    request = Request(message=b"bench", attachments=[
        FileAttachment(path=source, name="d:\\bench\\big.bin", description="bench")])
    tmp = dump.with_suffix(".tmp")
    with tmp.open("wb") as f:
        write_dmpmqmsg(build_messages(request, BuildOptions(PROFILES["zos"])), f)
    tmp.replace(dump)


# Run and measure from a small helper: a forked child starts with its parent's peak RSS
# (Linux keeps the high-water mark across exec), and this script may be large.
MEASURE = """
import os, subprocess, sys, time
t = time.perf_counter()
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(proc.pid, 0)
print(time.perf_counter() - t, usage.ru_maxrss / 1024, status)
"""


def measure(cmd: list[str], ok: tuple[int, ...] = (0,)) -> tuple[float, float]:
    """Wall time (s) and peak RSS (MB) of one child process (``ok``: expected statuses)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", MEASURE, *cmd], env=env, cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout.split()
    status = os.waitstatus_to_exitcode(int(out[2]))
    if status not in ok:
        sys.exit(f"failed ({status}): {' '.join(cmd)}")
    return float(out[0]), float(out[1])


def records_body(source: Path, body: Path, mib: int) -> None:
    """A z/OS external-file records body of ``mib`` MiB: len|record pairs from ``source``."""
    record = 32760
    with source.open("rb") as f, body.open("wb") as out:
        while out.tell() < mib << 20:
            data = f.read(record) or bytes(record)
            out.write(len(data).to_bytes(4, "big") + data)


def decode_memory(mib: int = 200) -> bool:
    """Peak RSS of decode sas-attachment on large inputs; True when all are within target."""
    source = random_file(OUT / f"random-{mib}MiB.bin", mib << 20)
    body = OUT / f"records-{mib}MiB.bin"
    if not body.exists():
        records_body(source, body, mib)
    half = random_file(OUT / f"random-{mib // 2}MiB.bin", (mib // 2) << 20)
    dump = OUT / f"attachment-{mib // 2}MiB.qmsg"
    if not dump.exists():
        build_dump(half, dump)
    good = True
    print("decode sas-attachment, peak RSS (target <= 256 MB):")
    for what, path, ok in (("records body", body, (0,)), ("random bytes", source, (2,)),
                           ("dmpmqmsg dump", dump, (0,))):
        for flags in ([], ["--json"]):
            t, rss = measure([*mqtool_cmd(), "decode", "sas-attachment", *flags, str(path)], ok)
            good = good and rss <= 256
            print(f"  {what:14} {path.stat().st_size / (1 << 20):7.1f} MiB {' '.join(flags):7}"
                  f"{t:8.2f} s  peak RSS {rss:6.1f} MB")
    return good


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 24):
            h.update(block)
    return h.hexdigest()


def main() -> None:
    if sys.argv[1:2] == ["--decode"]:
        sys.exit(0 if decode_memory(int(sys.argv[2]) if len(sys.argv) > 2 else 200) else 1)
    mb = int(sys.argv[1]) if len(sys.argv) > 1 else 900
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    source = random_file(OUT / f"attachment-{mb}MB.bin", mb * 1_000_000)
    dump = OUT / f"attachment-{mb}MB.qmsg"
    if not dump.exists() or dump.stat().st_mtime < source.stat().st_mtime:
        print(f"generating {dump.relative_to(ROOT)} ...", flush=True)
        build_dump(source, dump)
    out = OUT / "reassembled"
    size = dump.stat().st_size
    base = min(measure([sys.executable, "-c", BASELINE, str(dump)]) for _ in range(runs))
    mq = min(measure([*mqtool_cmd(), "reassemble", "attachment", str(dump), "-o", str(out),
                      "--force", "-q"]) for _ in range(runs))
    folder = next(p for p in out.iterdir() if p.is_dir())
    entry = json.loads((folder / "manifest.json").read_text())["attachments"][0]
    exact = entry["complete"] and entry["sha256"] == sha256_of(source) \
        and sha256_of(folder / entry["output"]) == entry["sha256"]
    print(f"{mb} MB external file in a {size / 1e9:.2f} GB dmpmqmsg dump "
          f"({size / 1e6 / mb:.2f} bytes of dump per byte of file)")
    print(f"  baseline (X lines -> bytes.fromhex)  {base[0]:7.2f} s  {size / 1e6 / base[0]:7.1f} MB/s"
          f"  peak RSS {base[1]:6.1f} MB")
    print(f"  mqtool reassemble attachment         {mq[0]:7.2f} s  {size / 1e6 / mq[0]:7.1f} MB/s"
          f"  peak RSS {mq[1]:6.1f} MB (target < 256)")
    print(f"  speed ratio (baseline time / mqtool time) {base[0] / mq[0]:.2f}x  (target >= 0.5)")
    print(f"  rebuilt file byte-exact (sha256): {'yes' if exact else 'NO'}")
    within = decode_memory()
    if not exact or not within:
        sys.exit(1)


if __name__ == "__main__":
    main()
