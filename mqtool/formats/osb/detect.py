"""Is this blob an OSB structure? The REDODATA eyecatcher, the parameter list's shape, the
intent list's leading halfword and lengths that add up (code page 037)."""

from __future__ import annotations

from mqtool.formats.osb.layout import (
    DECLARED,
    EYECATCHER,
    F1_HEADER_LEN,
    FORMAT,
    FORMAT1_ID,
    LIST_ID_LEN,
    LOCK,
    PARMLIST_LEN,
    R1SEG_LEN,
    R2_BODY,
    R2_FIXED,
    R2_HDR_ID,
    RLHDR_LEN,
    TRAILER_LEN,
    field_bytes,
    field_int,
)
from mqtool.model import Detection

HEADER, PARMLIST, R2HDR, R2BODY = DECLARED.header, DECLARED.parmlist, DECLARED.r2hdr, DECLARED.r2body
R1HDR, R1SEG = DECLARED.r1hdr, DECLARED.r1seg


def guess_part(data: bytes, pos: int = 0, codepage: str = "cp037") -> str | None:
    """Which OSB structure starts at ``pos``: by the REDODATA eyecatcher, the parameter
    list's shape, or the intent list's leading halfword."""
    rem = len(data) - pos
    if rem >= RLHDR_LEN and eyecatcher_at(data, pos, codepage):
        return "header"
    if rem >= PARMLIST_LEN and parmlist_like(data, pos, codepage):
        return "parmlist"
    if rem >= LIST_ID_LEN and list_id(data, pos) == FORMAT1_ID:
        return "intent"
    if rem >= R2_FIXED and R2_FIXED <= list_id(data, pos) <= rem:
        return "intent"
    return None


def eyecatcher_at(data: bytes, pos: int, codepage: str = "cp037") -> bool:
    return field_bytes(data, HEADER, "rl_eye", pos) == EYECATCHER.encode(codepage)


def list_id(data: bytes, pos: int = 0) -> int:
    """The leading halfword of an intent list: X'0001' (format 1) or r2_len (format 2)."""
    return field_int(data, R2HDR, "r2_len", pos)


def parmlist_like(data: bytes, pos: int, codepage: str) -> bool:
    """The parameter list's shape: a plausible intent length and a user ID of one word."""
    ilen = field_int(data, PARMLIST, "intent_len", pos)
    name = field_bytes(data, PARMLIST, "userid", pos).decode(codepage, errors="replace").rstrip(" ")
    return (2 <= ilen <= 0xFFFF and bool(name) and " " not in name
            and all(c.isalnum() or c in "@#$" for c in name))


# --------------------------------------------------------------------------- detection


def detect(data: bytes) -> Detection | None:
    """Is this an OSB parameter list, redolog header/entry or intent list? (codepage 037)"""
    n = len(data)
    if n >= RLHDR_LEN and eyecatcher_at(data, 0):
        return _detect_header(data)
    if n >= PARMLIST_LEN and parmlist_like(data, 0, "cp037"):
        found = _detect_parmlist(data)
        if found is not None:
            return found
    if n >= LIST_ID_LEN and list_id(data) == FORMAT1_ID:
        return _detect_format1(data)
    if n >= R2_FIXED:
        return _detect_format2(data)
    return None


def _detect_header(data: bytes) -> Detection:
    rl_len, il = field_int(data, HEADER, "rl_len"), field_int(data, HEADER, "rl_intent_len")
    why = f"redolog header: {EYECATCHER!r} at X'{HEADER.offset_of('rl_eye'):02X}'"
    if rl_len == RLHDR_LEN + il:
        why += f", rl_len {rl_len} = {RLHDR_LEN} + rl_intent_len {il}"
    return Detection(FORMAT, 0.95 if rl_len == RLHDR_LEN + il else 0.8, why, {"part": "header"})


def _detect_parmlist(data: bytes) -> Detection | None:
    """A parameter list, and what follows it: a redolog header or a format-2 list of the
    intent length it gives."""
    ilen = field_int(data, PARMLIST, "intent_len")
    userid = field_bytes(data, PARMLIST, "userid").decode("cp037").rstrip()
    why = f"Redolog exit parameter list: intent_len {ilen}, user ID {userid!r}"
    rest = data[PARMLIST_LEN:]
    if len(rest) >= RLHDR_LEN and eyecatcher_at(rest, 0):
        follows = field_int(rest, HEADER, "rl_intent_len") == ilen
        return Detection(FORMAT, 0.9 if follows else 0.8, why + ", then a redolog header"
                         + (" with the same intent length" if follows else ""), {"part": "auto"})
    if len(rest) >= LIST_ID_LEN and list_id(rest) + TRAILER_LEN == ilen:
        return Detection(FORMAT, 0.8, why + ", then a format-2 intent list of that length",
                         {"part": "auto"})
    if len(data) % PARMLIST_LEN == 0:
        header_set = any(field_bytes(data, PARMLIST, "header@"))
        high_bit = field_int(data, PARMLIST, "intent@") & 0x80000000  # the list's last address
        extra = 0.1 if header_set and not high_bit else 0.0
        return Detection(FORMAT, 0.5 + extra, why, {"part": "parmlist"})
    return None


def _detect_format2(data: bytes) -> Detection | None:
    r2_len = list_id(data)
    if r2_len not in (len(data), len(data) - TRAILER_LEN) or \
            field_int(data, R2HDR, "r2_hdr_id") != R2_HDR_ID:
        return None
    score, why = 0.6, f"format-2 intent list: r2_len {r2_len}"
    if field_int(data, R2HDR, "r2_hdr_lock") in LOCK and \
            field_int(data, R2BODY, "r2b_lock", R2_BODY) in LOCK:
        score += 0.15
        why += ", lock flags valid"
    table = field_bytes(data, R2BODY, "r2b_table", R2_BODY).decode("cp037", errors="replace")
    if table[0].isalnum() and all(c.isprintable() for c in table):
        score += 0.1
        why += f", table {table.rstrip()!r}"
    return Detection(FORMAT, round(score, 2), why, {"part": "intent"})


def _detect_format1(data: bytes) -> Detection | None:
    if len(data) < F1_HEADER_LEN + R1SEG_LEN or field_int(data, R1HDR, "r1_lock") not in LOCK:
        return None
    pos, k = F1_HEADER_LEN, 0
    while pos + R1SEG_LEN <= len(data):
        pos += R1SEG_LEN + field_int(data, R1SEG, "r1_seglen", pos)
        k += 1
    if pos != len(data):
        return None
    return Detection(FORMAT, 0.6, f"format-1 intent list: X'0001', lock flag "
                                  f"X'{field_int(data, R1HDR, 'r1_lock'):02X}', "
                                  f"{k} segment(s) ending exactly at the end", {"part": "intent"})
