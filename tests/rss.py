"""Peak memory of one mqtool command run in a fresh interpreter, for bounded-RSS tests."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass

from tests.helpers import ROOT

_CODE = ("import sys;from mqtool.cli import run;rc=run(sys.argv[1:]);sys.stdout.flush();"
         "print(next(ln.split()[1] for ln in open('/proc/self/status') "
         "if ln.startswith('VmHWM')),file=sys.stderr);sys.exit(rc)")


@dataclass
class Peak:
    status: int
    mib: float  # VmHWM: the peak RSS of the command's process image
    stderr: str
    stdout: str = ""  # with ``peak(..., stdout=True)``


def peak(*args: object, stdin: str | None = None, stdout: bool = False) -> Peak:
    """Run ``mqtool ARGS`` in its own interpreter (stdout discarded unless ``stdout``;
    ``stdin`` a file path); its exit status, its peak RSS (VmHWM, in MiB: the peak of this
    process image, unlike ru_maxrss, which a fork inherits from the test's) and its stderr
    but that line."""
    with open(stdin or "/dev/null", "rb") as inp:
        res = subprocess.run([sys.executable, "-c", _CODE, *map(str, args)], stdin=inp,
                             stdout=subprocess.PIPE if stdout else subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True,
                             env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin",
                                  "NO_COLOR": "1"})
    *err, hwm = res.stderr.rstrip("\n").split("\n")
    return Peak(res.returncode, int(hwm) / 1024, "\n".join(err), res.stdout or "")
