"""CSQ1LOGP records built from field values: one record, a segmented message, a BDW block."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from mqtool.compose import Nest
from mqtool.formats.csq1logp.layout import (
    DATA_LENGTH,
    FORMAT,
    MAX_SEGMENT,
    RDW_LEN,
    RECORD,
    VARIABLE,
    format_recorddate,
    layouts,
    resolver,
)

# ------------------------------------------------------------------ building


def build_record(values: Mapping[str, Any] | None = None, data: bytes = b"", *,
                 codepage: str = "cp037", bora: bool = True, framing: str = "rdw",
                 ldatalen: int | None = None) -> bytes:
    """One record: RDW (``framing='rdw'``; ``'none'`` leaves it out) + fixed part + the
    variable part as declared (``layout.VARIABLE``): csbora (``bora``; ``40`` unless given,
    e.g. ``B``/``A`` for ALTER), then csvardata.

    ``ldatalen`` defaults to ``len(data)`` (reading A).
    """
    lay = layouts(codepage)
    resolve = resolver(lay.codepage)
    nest = VARIABLE.content
    assert isinstance(nest, Nest)
    vals = dict(values or {})
    vals.setdefault(DATA_LENGTH, len(data) if ldatalen is None else ldatalen)
    vals.setdefault("lsegment", 1)
    ts = vals.get("csrecorddate")
    if isinstance(ts, datetime):
        vals["csrecorddate"] = format_recorddate(ts)
    delta = vals.get("cstimedelta")
    if isinstance(delta, int):
        vals["cstimedelta"] = f"{delta:>7d}"
    blank = " ".encode(lay.codepage)
    for key, n in (("cssqdmcp", 12), ("csdmcp", 8)):
        if vals.get(key) is None:
            vals[key] = blank * n
    for key in ("csurid", "cslogrba", "csshuntrba"):
        if vals.get(key) is None:
            vals[key] = bytes(6)
    body = resolve(RECORD.layouts[0]).build(vals, fmt=FORMAT)
    if bora:
        bora_layout = resolve(nest.record)
        body += bora_layout.build({n: vals.get(n, "") for n in bora_layout.names}, fmt=FORMAT)
    body += bytes(data)
    if framing == "none":
        return body
    return (len(body) + RDW_LEN).to_bytes(2, "big") + b"\x00\x00" + body


def build_message(values: Mapping[str, Any], data: bytes, *, max_seg: int = MAX_SEGMENT,
                  reading: str = "A", codepage: str = "cp037", bora: bool = True,
                  framing: str = "rdw") -> list[bytes]:
    """The records of one message: data split into <= ``max_seg`` bytes, ``lsegment`` 1..n,
    the same header fields in every segment; ``ldatalen`` per record (A) or total (B)."""
    pieces = [data[i:i + max_seg] for i in range(0, len(data), max_seg)] or [b""]
    out = []
    for n, piece in enumerate(pieces, 1):
        vals = dict(values)
        vals["lsegment"] = n
        out.append(build_record(vals, piece, codepage=codepage, bora=bora, framing=framing,
                                ldatalen=len(data) if reading == "B" else len(piece)))
    return out


def block(records: list[bytes], extended: bool = False) -> bytes:
    """A BDW-framed block of RDW-framed records (RECFM=VB block as copied with RECFM=U)."""
    body = b"".join(records)
    n = len(body) + 4
    bdw = (n | 0x80000000).to_bytes(4, "big") if extended else n.to_bytes(2, "big") + b"\0\0"
    return bdw + body

