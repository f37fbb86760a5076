"""Peak memory and first-output latency of each command on large generated inputs.

Issue 12's target for a 1 GB input: peak RSS <= 256 MB and the first output line within
1 s. Each command runs as its own process; its peak RSS is its VmHWM (``/proc``),
the latency is the time from start to the first line on stdout (or to the end when it
prints nothing). The baseline row (``cat``) shows what merely reading the input costs.
A table, not a timed test:

    python bench/memory.py                 # 100 MB inputs
    python bench/memory.py --large         # also 1 GB (needs ~5 GB of disk in bench/out)
    python bench/memory.py --size 20       # other sizes, in MB
    python bench/memory.py --one-message   # one message of 1 GiB (decode mq/urb/auto, identify,
                                           # dump, --annotate), against cat and python -c pass

In every run the machine's load (``uptime``) is printed before and after the table.
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


GUARD_AS = 6 << 30  # address space a measured command may take (the machine is shared)


def _guard() -> None:
    """Cap the command's address space: a command that would take many GB fails (its
    status shows it) instead of taking the shared machine down."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (GUARD_AS, GUARD_AS))


def measure(name: str, cmd: list[str]) -> Run:
    """Run ``cmd``; read its stdout to the end (discarding it); peak RSS polled from /proc.
    ``cmd`` ending in ``<`` and a path: that file is its stdin."""
    source = "/dev/null"
    if len(cmd) > 2 and cmd[-2] == "<":
        cmd, source = cmd[:-2], cmd[-1]
    t0 = time.perf_counter()
    with open(source, "rb") as stdin:
        p = subprocess.Popen(cmd, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             preexec_fn=_guard)
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


def _write_repeated(f, block: bytes, size: int) -> None:  # type: ignore[no-untyped-def]
    left = size
    while left > 0:
        piece = block[:left] if left < len(block) else block
        f.write(piece)
        left -= len(piece)


def mq_message_file(path: Path, size: int) -> Path:
    """One MQ message of ``size`` bytes: an MQXQH (its MsgDesc is an MQMD) announcing an
    MQSTR payload of text lines that fills the rest."""
    if path.exists() and path.stat().st_size == size:
        return path
    from mqtool.formats.mq.build import build_chain

    head = build_chain([{"type": "MQXQH", "fields": {"remoteqname": "BIG.QUEUE"}}],
                       payload_format="MQSTR", payload_ccsid=819)
    with open(path, "wb") as f:
        f.write(head)
        _write_repeated(f, b"line of MQSTR text in the payload of one big message\n" * 20000,
                        size - len(head))
    return path


def urb_message_file(path: Path, size: int) -> Path:
    """One URB data message of ``size`` bytes: URBH, URBT, URBR, one URBD whose image fills
    the rest, URBE. Built small by the URB builder, then its length fields (those that grow
    with the image) set for the big image, which is written piece by piece."""
    if path.exists() and path.stat().st_size == size:
        return path
    from mqtool.formats.urb.compose import build_message, data_message

    def built(n: int) -> bytes:
        return build_message(data_message({"urbtsnam": "BIG"}, [({}, [("A", b"\xc1" * n)])], {}))

    small, larger = built(8), built(16)
    at = small.index(b"\xc1" * 8)
    grow = size - len(small)
    head = bytearray(small[:at])
    for k in range(0, at - 3):  # 4-byte big-endian lengths that grew by the 8 bytes added
        a, b = (int.from_bytes(m[k:k + 4], "big") for m in (small, larger))
        if b - a == 8:
            head[k:k + 4] = (a + grow).to_bytes(4, "big")
    with open(path, "wb") as f:
        f.write(head)
        _write_repeated(f, b"\xc1" * MB, 8 + grow)
        f.write(small[at + 8:])
    return path


def random_image(path: Path, size: int) -> Path:
    if not path.exists() or path.stat().st_size != size:
        with open(path, "wb") as f:
            for _ in range(size // MB):
                f.write(os.urandom(MB))
    return path


def one_message_commands(size: int) -> list[tuple[str, list[str]]]:
    """A single message (or image) of ``size`` bytes per command: what a decoder that
    needs only the headers touches, and what one that shows the whole payload keeps."""
    tag = f"{size // MB}mb"
    mqf = mq_message_file(OUT / f"one-{tag}.mq.bin", size)
    urb = urb_message_file(OUT / f"one-{tag}.urb.bin", size)
    img = random_image(OUT / f"one-{tag}.random.bin", size)
    mq = mqtool_cmd()
    return [
        ("python -c pass (baseline)", [sys.executable, "-c", "pass"]),
        ("cat (reading the input: baseline)", ["cat", str(mqf)]),
        ("decode mq (MQXQH + payload)", [*mq, "decode", "mq", str(mqf)]),
        ("decode auto (MQXQH + payload)", [*mq, "decode", "auto", str(mqf)]),
        ("decode mq < stdin (spooled)", [*mq, "decode", "mq", "-", "<", str(mqf)]),
        ("decode urb (one huge URBD)", [*mq, "decode", "urb", str(urb)]),
        ("decode auto (one huge URBD)", [*mq, "decode", "auto", str(urb)]),
        ("identify (random image)", [*mq, "identify", str(img)]),
        ("decode auto (random image)", [*mq, "decode", "auto", str(img)]),
        ("identify (MQ message)", [*mq, "identify", str(mqf)]),
        ("dump (MQ message, every line)", [*mq, "dump", str(mqf)]),
        ("decode mq --annotate (every line)", [*mq, "decode", "mq", "--annotate", str(mqf)]),
        ("decode mq --annotate --color always (every line)",
         [*mq, "decode", "mq", "--annotate", "--color", "always", str(mqf)]),
        ("decode mq --json --raw (every byte as hex)", [*mq, "decode", "mq", "--json", "--raw", str(mqf)]),
        ("decode urb --annotate (every line)", [*mq, "decode", "urb", "--annotate", str(urb)]),
    ]


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


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
    ap.add_argument("--one-message", action="store_true",
                    help="one message of 1 GiB (or --size) instead of the bulk inputs")
    ap.add_argument("--only", metavar="TEXT", help="only the commands whose name has TEXT")
    args = ap.parse_args()
    sizes = args.size or [1024 if args.one_message else 100]
    if args.large:
        sizes.append(1024)
    table = one_message_commands if args.one_message else commands
    OUT.mkdir(parents=True, exist_ok=True)
    print(f"targets for 1 GB: peak RSS <= {TARGET_RSS_MB} MB, first line <= {TARGET_FIRST_S:.0f} s")
    print(f"load before: {uptime()}")
    for mb in sizes:
        print(f"\ninputs of {mb} MB")
        print(f"  {'command':50} {'peak RSS':>10} {'first line':>11} {'total':>9}  status")
        for name, cmd in table(mb * MB):
            if args.only and args.only not in name and "baseline" not in name:
                continue
            r = measure(name, cmd)
            first = f"{r.first_s:9.2f} s" if r.first_s is not None else "        -"
            flag = "" if r.rss_mb <= TARGET_RSS_MB else "  over RSS target"
            print(f"  {name:50} {r.rss_mb:7.0f} MB {first:>11} {r.total_s:7.1f} s  {r.status}{flag}")
            sys.stdout.flush()
    print(f"\nload after: {uptime()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
