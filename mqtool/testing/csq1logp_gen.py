"""Deterministic generator of CSQ1LOGP extract files for tests and benchmarks.

Records are built with the codec's builder (``build_record`` / ``build_message``, i.e. the
one layout declaration); a seed fixes everything. ``framed`` turns a record list into an
``rdw``, ``bdw`` or ``none`` file; ``damage`` breaks descriptors and tails on purpose.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from mqtool.formats.csq1logp import build as csq_build
from mqtool.formats.csq1logp import layout as csq_layout
from mqtool.tod import Tod

START = datetime(2024, 3, 15, 13, 45, 12, 345678, tzinfo=UTC)
QUEUES = ("APP.INPUT", "APP.OUTPUT", "PAYROLL.REQUEST", "PAYROLL.REPLY", "SYSTEM.DEAD.LETTER.QUEUE")
VERBS = ("MQPUT", "MQGET", "MQPUT", "PHASE2", "MQPUT", "ABORT2", "EXPIRE")


@dataclass(frozen=True)
class Spec:
    """What to generate: ``count`` logical messages, data sizes around ``avg_data`` bytes,
    every ``multi_every``-th message spread over several segments (0: never)."""

    count: int = 100
    seed: int = 0
    avg_data: int = 1400
    multi_every: int = 0
    multi_size: int = 70_000
    max_seg: int = csq_layout.MAX_SEGMENT
    reading: str = "A"
    bora: bool = True
    codepage: str = "cp037"
    qmgr: str = "QM01"
    verbs: tuple[str, ...] = VERBS


def messages(spec: Spec) -> Iterator[list[bytes]]:
    """The RDW-framed records of each logical message, in file order."""
    rnd = random.Random(spec.seed)
    t = START
    for i in range(spec.count):
        t += timedelta(microseconds=rnd.randrange(1, 5000))
        urid = (0xA1B2C3D + i // 4).to_bytes(6, "big")
        multi = spec.multi_every and i % spec.multi_every == spec.multi_every - 1
        verb = "MQPUT" if multi else spec.verbs[rnd.randrange(len(spec.verbs))]
        size = spec.multi_size if multi else (
            max(0, int(rnd.gauss(spec.avg_data, spec.avg_data / 4))) if verb == "MQPUT" else 0)
        shared = rnd.random() < 0.1
        key = rnd.randbytes(12 if shared else 8)
        begin = t - timedelta(microseconds=rnd.randrange(0, 20000))
        values = {
            "csrecorddate": (t + timedelta(hours=1)).replace(tzinfo=None),
            "cstimedelta": int((t - begin).total_seconds() * 1000),
            "dtodout": Tod.from_datetime(t),
            "csurid": urid,
            "cscorrelator": f"JOB{i % 37:05d}",
            "csauth": f"USER{i % 11:02d}",
            "dtime": Tod.from_datetime(begin),
            "csresource": f"JOB{i % 37:05d}",
            "cscnty": ("BATCH", "CICS", "RRSBATCH", "CHIN")[i % 4],
            "cscnid": f"CONN{i % 7}",
            "csstatus": "BUR",
            "csqmgrname": spec.qmgr,
            "csqueuename": QUEUES[rnd.randrange(len(QUEUES))],
            "cssqdmcp": key if shared else None,
            "csdmcp": None if shared else key,
            "csverb": verb,
            "cscmitstatus": "CCCCBI"[rnd.randrange(6)],
            "csshunt": "N",
            "cslogrba": (0xA1B3040 + 0x200 * i).to_bytes(6, "big"),
            "csshuntrba": bytes(6),
        }
        data = rnd.randbytes(size) if size else b""
        yield csq_build.build_message(values, data, max_seg=spec.max_seg, reading=spec.reading,
                              codepage=spec.codepage, bora=spec.bora)


def records(spec: Spec) -> list[bytes]:
    return [r for msg in messages(spec) for r in msg]


def framed(recs: list[bytes], framing: str = "rdw", block_size: int = 32760) -> bytes:
    """An extract file: RDW-framed records as they are (``rdw``), packed into BDW blocks of at
    most ``block_size`` bytes (``bdw``), or with the RDWs stripped (``none``)."""
    if framing == "rdw":
        return b"".join(recs)
    if framing == "none":
        return b"".join(r[4:] for r in recs)
    out: list[bytes] = []
    cur: list[bytes] = []
    size = 4
    for r in recs:
        if cur and size + len(r) > block_size:
            out.append(csq_build.block(cur))
            cur, size = [], 4
        cur.append(r)
        size += len(r)
    if cur:
        out.append(csq_build.block(cur))
    return b"".join(out)


def write(path: str, spec: Spec, framing: str = "rdw", target_bytes: int | None = None) -> int:
    """Write a generated file (for benchmarks: repeat ``spec`` with new seeds until
    ``target_bytes``); returns the size written."""
    total = 0
    seed = spec.seed
    with open(path, "wb") as f:
        while True:
            blob = framed(records(Spec(**{**spec.__dict__, "seed": seed})), framing)
            f.write(blob)
            total += len(blob)
            seed += 1
            if target_bytes is None or total >= target_bytes:
                return total


def damage(data: bytes, at: int, kind: str) -> bytes:
    """Break the record descriptor at ``at``: ``zero-length`` (RDW length 0),
    ``spanned`` (bytes 2-3 set), ``garbage`` (16 bytes of X'FF' inserted before it)."""
    if kind == "zero-length":
        return data[:at] + b"\x00\x00" + data[at + 2:]
    if kind == "spanned":
        return data[:at + 2] + b"\x01\x00" + data[at + 4:]
    if kind == "garbage":
        return data[:at] + b"\xff" * 16 + data[at:]
    raise ValueError(kind)
