"""Decoding a stream of OSB redolog entries (48-byte header + format-2 intent list) two
ways — ``osb.decode.decode`` (the forensic path: every field with its span, meanings,
chaining checks, the intent list) and ``osb.decode.iter_headers`` (the bulk path: header
values only, same declaration) — against a baseline in the same run: a hand-written
``struct`` loop that unpacks the header and the fixed intent fields (the floor for Python).

    python bench/redolog.py [ENTRIES]        # default 20000

Prints both times and the ratio (mqtool time / baseline time). Not a test: run it by hand.
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

from _common import best

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mqtool.formats.osb import build as osb_build
from mqtool.formats.osb import decode as osb_decode

HDR = struct.Struct(">HBBLLL2sHQLLL8s")
R2 = struct.Struct(">HHLBBHBBBBL16s4sHH30s")


def stream(n: int) -> bytes:
    """``n`` chained entries: each a MOVTAB-shaped format-2 list, RLSEQ# +1, log offsets chained."""
    out, offset = bytearray(), 0xE020
    for i in range(n):
        intent = osb_build.build_format2({"r2b_table": f"TABLE{i % 1000:04d}"}, segment=i % 7)
        hdr = osb_build.build_header({"rl_seq": 1 + i, "rl_log_offset": offset,
                                        "rl_time": 0xBC1A974DC5F0AC00 + (i << 20)}, intent)
        out += hdr + intent
        offset += len(hdr) + len(intent)
    return bytes(out)


def baseline(data: bytes) -> int:
    pos, n = 0, 0
    while pos < len(data):
        h = HDR.unpack_from(data, pos)
        R2.unpack_from(data, pos + 48)
        h[12].decode("cp037")
        pos += h[0]
        n += 1
    return n


def mqtool(data: bytes) -> int:
    return sum(1 for _ in osb_decode.decode(data, part="header"))


def fast(data: bytes) -> int:
    return sum(1 for _ in osb_decode.iter_headers(data))




def main() -> None:
    entries = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    data = stream(entries)
    t_base, n1 = best(baseline, data)
    t_mq, n2 = best(mqtool, data)
    t_fast, n3 = best(fast, data)
    assert n1 == n2 == n3 == entries
    mb = len(data) / 1e6
    print(f"{entries} redolog entries, {mb:.1f} MB")
    print(f"  struct loop (same fields, no spans)  {t_base:7.3f} s  {entries / t_base:10.0f} entries/s")
    print(f"  decode.decode (spans, checks)    {t_mq:7.3f} s  {entries / t_mq:10.0f} entries/s")
    print(f"  decode.iter_headers (bulk path)  {t_fast:7.3f} s  {entries / t_fast:10.0f} entries/s")
    print(f"  ratio forensic path / struct loop    {t_mq / t_base:.1f}x")
    print(f"  ratio bulk path / struct loop        {t_fast / t_base:.1f}x")


if __name__ == "__main__":
    main()
