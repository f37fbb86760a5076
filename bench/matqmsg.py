"""Decoding a MATQMSG receiver of many messages two ways — ``mq_decode.decode_receiver``
(the forensic path: spans, MI times, per-message checks, the JSON message list) and
``mq_decode.iter_messages`` (the bulk path: values only, same declaration) — against a
baseline in the same run: a ``struct`` loop over the same entries that decodes key and
text too (the floor for Python).

    python bench/matqmsg.py [MESSAGES]       # default 50000

Prints both times and the ratio (mqtool time / baseline time). Not a test: run it by hand.
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

from _common import best

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mqtool.formats.matqmsg import build as mq_build
from mqtool.formats.matqmsg import decode as mq_decode

K, T = 16, 64
HEAD = struct.Struct(">llllll8x")
ENTRY = struct.Struct(f">Ql4x{K}s{T}s")


def receiver(n: int) -> bytes:
    msgs = [mq_build.Message(0xAB6B08416B000000 + (i << 12), f"MESSAGE {i:08d} TEXT", f"KEY{i:08d}")
            for i in range(n)]
    queue = mq_build.Queue(max_message_size=256, key_size=11, messages=msgs)
    sel = mq_build.build_selection("all", key_bytes=K, text_bytes=T)
    return mq_build.simulate_receiver(queue, sel, 32 + n * (16 + K + T))


def baseline(data: bytes) -> int:
    h = HEAD.unpack_from(data, 0)
    n = 0
    for off in range(32, 32 + h[2] * ENTRY.size, ENTRY.size):
        _t, _length, key, text = ENTRY.unpack_from(data, off)
        key.rstrip(b"\0").decode("cp037")
        text.rstrip(b"\0").decode("cp037")
        n += 1
    return n


def mqtool(data: bytes) -> int:
    unit = mq_decode.decode_receiver(data, key_bytes=K, text_bytes=T)
    return int(unit.attrs["messages_present"])  # type: ignore[call-overload]


def fast(data: bytes) -> int:
    return sum(1 for _ in mq_decode.iter_messages(data, K, T))




def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
    data = receiver(n)
    t_base, n1 = best(baseline, data)
    t_mq, n2 = best(mqtool, data)
    t_fast, n3 = best(fast, data)
    assert n1 == n2 == n3 == n
    print(f"MATQMSG receiver: {n} messages, {len(data) / 1e6:.1f} MB (K {K}, T {T})")
    print(f"  struct loop (same fields, no spans)   {t_base:7.3f} s  {n / t_base:10.0f} messages/s")
    print(f"  decode.decode_receiver (spans, JSON)    {t_mq:7.3f} s  {n / t_mq:10.0f} messages/s")
    print(f"  decode.iter_messages (bulk path)        {t_fast:7.3f} s  {n / t_fast:10.0f} messages/s")
    print(f"  ratio forensic path / struct loop     {t_mq / t_base:.1f}x")
    print(f"  ratio bulk path / struct loop         {t_fast / t_base:.1f}x")


if __name__ == "__main__":
    main()
