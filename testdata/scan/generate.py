"""Generate ``image.bin``: an 8 KiB "disk image" of random bytes with known structures put
at known offsets, for ``mqtool scan`` (docs/scan.md, tests/cli/test_scan.py), and
``image.json``, which says what is where.

    python testdata/scan/generate.py      # rewrites image.bin and image.json

The structures are the repository's own test vectors: the Event Replicator manual's close
reply (testdata/urb), MQ dead-letter messages packed with ``struct`` by
testdata/mq/generate.py (independent of mqtool), its PCF event, the CSQ1LOGP records of
testdata/csq1logp, and an ``xxd`` dump of the manual's status request as text. Dump text
is read back with mqtool's ``undump`` (tested against xxd on its own). The filler is random
bytes from a fixed seed; a NUL byte before and after each structure ends what comes before
it and any character payload.
"""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTDATA = HERE.parent
SIZE = 0x2000
SEED = 2026


def _mq_generator():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("mq_generate", TESTDATA / "mq" / "generate.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _undump(name: str) -> bytes:
    sys.path.insert(0, str(TESTDATA.parent))
    from mqtool.io.undump import undump

    return undump((TESTDATA / name).read_text(encoding="utf-8"))


def _xxd(data: bytes) -> bytes:
    """``xxd`` of ``data`` (16 bytes a line, groups of 2, the ASCII column), as text."""
    lines = []
    for at in range(0, len(data), 16):
        row = data[at:at + 16]
        groups = " ".join(row[i:i + 2].hex() for i in range(0, 16, 2) if row[i:i + 2])
        text = "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in row)
        lines.append(f"{at:08x}: {groups:<39}  {text}\n")
    return "".join(lines).encode("ascii")


def structures() -> list[tuple[int, str, str, bytes]]:
    """``(offset, format, kind, bytes)`` of everything put in the image."""
    g = _mq_generator()
    le, be = g.Variant(False, False), g.Variant(True, True)

    def dead_letter(v, reason: int, text: str) -> bytes:  # type: ignore[no-untyped-def]
        return g.dlh(v, reason, "MQSTR", v.enc, v.ccsid) + text.encode(v.cp)

    return [
        (0x0400, "urb", "URB message", _undump("urb/close-destination.reply.dump")),
        (0x0A00, "mq", "MQDLH", dead_letter(le, 2053, "order 1")),  # MQRC_Q_FULL
        (0x0C00, "mq", "MQDLH", dead_letter(be, 2035, "order 2")),  # MQRC_NOT_AUTHORIZED
        (0x0E00, "mq", "MQDLH", dead_letter(le, 2053, "order 3")),
        (0x1000, "mq", "PCF message", (TESTDATA / "mq" / "event.le.ascii.bin").read_bytes()),
        (0x1400, "csq1logp", "CSQ1LOGP RDW chain", _undump("csq1logp/hello-2seg.dump")),
        (0x1800, "dump", "hex dump text", _xxd(_undump("urb/status.request.dump"))),
    ]


def image() -> tuple[bytes, list[dict[str, object]]]:
    rng = random.Random(SEED)
    data = bytearray(rng.randbytes(SIZE))
    where = []
    for at, fmt, kind, blob in structures():
        data[at - 1] = 0
        data[at:at + len(blob)] = blob
        data[at + len(blob)] = 0
        where.append({"offset": at, "length": len(blob), "format": fmt, "kind": kind})
    assert len(data) == SIZE
    return bytes(data), where


def main() -> int:
    data, where = image()
    (HERE / "image.bin").write_bytes(data)
    (HERE / "image.json").write_text(json.dumps(where, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
