"""Walking MQ header chains (``formats.mq.chain.walk``: spans, meanings, RFH2 folders as
XML, properties) against a baseline in the same run: a ``struct`` loop that reads the same
headers' fields and splits the same folders with ``xml.etree`` (the floor for Python).

    python bench/mq_chain.py [MESSAGES]       # default 20000

Two bodies: MQDLH + MQRFH2 (three folders) + text, and MQDLH + MQTM. Prints both times and
the ratio (mqtool time / baseline time). Not a test: run it by hand.
"""

from __future__ import annotations

import struct
import sys
import xml.etree.ElementTree as ET

from _common import ROOT, best  # puts the checkout on sys.path

from mqtool.formats.mq.chain import walk

VECTORS = ROOT / "testdata" / "mq"
MQMD = {"format": "MQDEAD", "encoding": 273, "codedcharsetid": 819}
DLH = struct.Struct(">4sll48s48sll8sl28s8s8s")
RFH2 = struct.Struct(">4sllll8sll")
TM = struct.Struct(">4sl48s48s64sl256s128s128s")


def baseline(bodies: list[bytes]) -> int:
    n = 0
    for body in bodies:
        d = DLH.unpack_from(body, 0)
        [x.decode("latin-1").rstrip() for x in d if isinstance(x, bytes)]
        pos = DLH.size
        if d[7] == b"MQHRF2  ":
            r = RFH2.unpack_from(body, pos)
            p, end = pos + RFH2.size, pos + r[2]
            while p < end:
                (ln,) = struct.unpack_from(">l", body, p)
                text = body[p + 4:p + 4 + ln].decode("utf-8").rstrip()
                root = ET.fromstring(text.replace("xsi:nil", "xsi_nil"))
                {f"{root.tag}.{c.tag}": c.text for c in root}
                p += 4 + ln
            body[end:].decode("latin-1")
        else:
            t = TM.unpack_from(body, pos)
            [x.decode("latin-1").rstrip() for x in t if isinstance(x, bytes)]
        n += 1
    return n


def mqtool(bodies: list[bytes]) -> int:
    n = 0
    for body in bodies:
        chain = walk(body, MQMD)
        chain.payload_text(body)
        n += 1
    return n


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    for name in ("dlh-rfh2-mqstr.be.ascii.bin", "dlh-tm.be.ascii.bin"):
        bodies = [(VECTORS / name).read_bytes()] * n
        t_base, a = best(baseline, bodies)
        t_mq, b = best(mqtool, bodies)
        assert a == b == n
        print(f"{name}: {n} messages: baseline {t_base:.3f}s, mqtool walk {t_mq:.3f}s, "
              f"ratio {t_mq / t_base:.2f}")


if __name__ == "__main__":
    main()
