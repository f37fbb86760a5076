"""Is this blob an OSB structure? The REDODATA eyecatcher, the parameter list's shape, the
intent list's leading halfword and lengths that add up (code page 037)."""

from __future__ import annotations

from mqtool.formats.osb.layout import (
    EYECATCHER,
    F1_HEADER_LEN,
    FORMAT,
    FORMAT1_ID,
    LOCK,
    PARMLIST_LEN,
    R2_FIXED,
    RLHDR_LEN,
    TRAILER_LEN,
)
from mqtool.model import Detection


def guess_part(data: bytes, pos: int = 0, codepage: str = "cp037") -> str | None:
    """Which OSB structure starts at ``pos``: by the REDODATA eyecatcher, the parameter
    list's shape, or the intent list's leading halfword."""
    rem = len(data) - pos
    eye = EYECATCHER.encode(codepage)
    if rem >= RLHDR_LEN and data[pos + 40:pos + 48] == eye:
        return "header"
    if rem >= PARMLIST_LEN and _parmlist_like(data, pos, codepage):
        return "parmlist"
    if rem >= 2 and int.from_bytes(data[pos:pos + 2]) == FORMAT1_ID:
        return "intent"
    if rem >= R2_FIXED and R2_FIXED <= int.from_bytes(data[pos:pos + 2]) <= rem:
        return "intent"
    return None


def _parmlist_like(data: bytes, pos: int, codepage: str) -> bool:
    ilen = int.from_bytes(data[pos + 4:pos + 8])
    userid = data[pos + 16:pos + 24]
    text = userid.decode(codepage, errors="replace")
    name = text.rstrip(" ")
    return (2 <= ilen <= 0xFFFF and bool(name) and " " not in name
            and all(c.isalnum() or c in "@#$" for c in name))


# --------------------------------------------------------------------------- detection


def detect(data: bytes) -> Detection | None:
    """Is this an OSB parameter list, redolog header/entry or intent list? (codepage 037)"""
    n = len(data)
    eye = EYECATCHER.encode("cp037")
    if n >= RLHDR_LEN and data[40:48] == eye:
        rl_len, il = int.from_bytes(data[0:2]), int.from_bytes(data[18:20])
        why = f"redolog header: {EYECATCHER!r} at X'28'"
        if rl_len == RLHDR_LEN + il:
            why += f", rl_len {rl_len} = 48 + rl_intent_len {il}"
        return Detection(FORMAT, 0.95 if rl_len == RLHDR_LEN + il else 0.8, why, {"part": "header"})
    if n >= PARMLIST_LEN and _parmlist_like(data, 0, "cp037"):
        ilen = int.from_bytes(data[4:8])
        userid = data[16:24].decode("cp037").rstrip()
        why = f"Redolog exit parameter list: intent_len {ilen}, user ID {userid!r}"
        rest = data[PARMLIST_LEN:]
        if len(rest) >= RLHDR_LEN and rest[40:48] == eye:
            follows = int.from_bytes(rest[18:20]) == ilen
            return Detection(FORMAT, 0.9 if follows else 0.8, why + ", then a redolog header"
                             + (" with the same intent length" if follows else ""), {"part": "auto"})
        if rest and int.from_bytes(rest[:2]) + TRAILER_LEN == ilen:
            return Detection(FORMAT, 0.8, why + ", then a format-2 intent list of that length",
                             {"part": "auto"})
        if n % PARMLIST_LEN == 0:
            extra = 0.1 if data[8:12] != bytes(4) and not data[0] & 0x80 else 0.0
            return Detection(FORMAT, 0.5 + extra, why, {"part": "parmlist"})
    if n >= 2 and int.from_bytes(data[:2]) == FORMAT1_ID:
        return _detect_format1(data)
    if n >= R2_FIXED:
        r2_len = int.from_bytes(data[:2])
        if r2_len in (n, n - TRAILER_LEN) and data[2:4] == b"\x00\x01":
            score, why = 0.6, f"format-2 intent list: r2_len {r2_len}"
            if data[8] in LOCK and data[13] in LOCK:
                score += 0.15
                why += ", lock flags valid"
            table = data[0x14:0x24].decode("cp037", errors="replace")
            if table[0].isalnum() and all(c.isprintable() for c in table):
                score += 0.1
                why += f", table {table.rstrip()!r}"
            return Detection(FORMAT, round(score, 2), why, {"part": "intent"})
    return None


def _detect_format1(data: bytes) -> Detection | None:
    if len(data) < F1_HEADER_LEN + 2 or data[6] not in LOCK:
        return None
    pos, k = F1_HEADER_LEN, 0
    while pos + 2 <= len(data):
        pos += 2 + int.from_bytes(data[pos:pos + 2])
        k += 1
    if pos != len(data):
        return None
    return Detection(FORMAT, 0.6, f"format-1 intent list: X'0001', lock flag X'{data[6]:02X}', "
                                  f"{k} segment(s) ending exactly at the end", {"part": "intent"})


