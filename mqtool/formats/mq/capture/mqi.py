"""The MQI structures inside a transmission: MQOD, MQMD, MQGMO, MQPMO, LPOO, SPI and the
asynchronous-message header, each found by its StrucId (ASCII or EBCDIC) and measured by its
version. Integers follow the TSH ByteOrder; characters the code page of their StrucId.

Source: IBM MQ documentation (MQOD, MQMD, MQGMO, MQPMO structure pages); the Wireshark MQ
dissector (packet-mq.c) for the SPI, LPOO and asynchronous-message layouts. See ``fap``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mqtool.formats.mq.capture import fap
from mqtool.formats.mq.mqmd import parse_mqmd, sniff_mqmd

EBCDIC_PAGE, ASCII_PAGE = "cp037", "latin-1"
_ID = fap.mqod(True, ASCII_PAGE).field("strucid").size or 0  # every StrucId: 4 characters
_LONG = fap.mqod(True, ASCII_PAGE).field("version").size or 0  # an MQLONG


def strucid(data: bytes, pos: int) -> str:
    """The four characters at ``pos`` read as an ASCII or an EBCDIC StrucId ('' if neither)."""
    raw = data[pos:pos + _ID]
    if len(raw) < _ID:
        return ""
    for page in (ASCII_PAGE, EBCDIC_PAGE):
        text = raw.decode(page)
        if (text.rstrip(" ").isalnum() and text.isupper()) or text.rstrip(" ") in ("MD", "OD"):
            return text
    return ""


def _page(data: bytes, pos: int) -> str:
    return EBCDIC_PAGE if data[pos:pos + 1] >= b"\xc1" else ASCII_PAGE


def _int(data: bytes, pos: int, big: bool) -> int:
    return int.from_bytes(data[pos:pos + _LONG], "big" if big else "little", signed=True)


@dataclass
class Struct:
    values: dict[str, Any]
    size: int


def od(data: bytes, pos: int, big: bool) -> Struct | None:
    """The MQOD at ``pos`` (with its distribution-list records), None when there is none."""
    if strucid(data, pos) != "OD  ":
        return None
    version = _int(data, pos + _ID, big)
    size = fap.OD_SIZES.get(version)
    if size is None or len(data) < pos + size:
        return None
    values = fap.mqod(big, _page(data, pos), version).values(data, pos)
    records = int(values.get("recspresent") or 0)
    if records > 0:
        size += records * ((fap.OR_SIZE if values.get("objectrecoffset") else 0) +
                           (fap.RR_SIZE if values.get("responserecoffset") else 0))
    return Struct(values, size)


def md(data: bytes, pos: int) -> Struct | None:
    """The MQMD at ``pos`` (version 1 or 2, either byte order, ASCII or EBCDIC)."""
    if sniff_mqmd(data, pos) is None:
        return None
    values, size, _variant = parse_mqmd(data, pos)
    values.pop("strucid", None)
    return Struct(values, size)


def gmo(data: bytes, pos: int, big: bool) -> Struct | None:
    if strucid(data, pos) != "GMO ":
        return None
    version = _int(data, pos + _ID, big)
    size = fap.GMO_SIZES.get(version)
    if size is None or len(data) < pos + size:
        return None
    return Struct(fap.mqgmo(big, _page(data, pos), version).values(data, pos), size)


def pmo(data: bytes, pos: int, big: bool) -> Struct | None:
    if strucid(data, pos) != "PMO ":
        return None
    version = _int(data, pos + _ID, big)
    size = fap.PMO_SIZES.get(version)
    if size is None or len(data) < pos + size:
        return None
    values = fap.mqpmo(big, _page(data, pos), version).values(data, pos)
    records = int(values.get("recspresent") or 0)
    if records > 0:
        fields = int(values.get("putmsgrecfields") or 0)
        from mqtool.formats.mq.layout import PMR_FIELDS

        pmr = sum(n for flag, _name, n in PMR_FIELDS if fields & flag)
        size += records * ((pmr if values.get("putmsgrecoffset") else 0) +
                           (fap.RR_SIZE if values.get("responserecoffset") else 0))
    return Struct(values, size)


def lpoo(data: bytes, pos: int, big: bool) -> Struct | None:
    """SPI OPEN's LPOO and the MQOD after it (after the queue protection data, if any)."""
    if strucid(data, pos) != "LPOO":
        return None
    layout = fap.lpoo(big)
    size = layout.size or 0
    if len(data) < pos + size:
        return None
    values = layout.values(data, pos)
    for extra in (0, fap.LPOO_QPROTECT):
        found = od(data, pos + size + extra, big)
        if found is not None:
            values["mqod"] = found.values
            return Struct(values, size + extra + found.size)
    return Struct(values, size)


def async_header(data: bytes, first: bool, big: bool) -> tuple[dict[str, Any], int] | None:
    """The asynchronous-message header and its size (the first segment's is longer: the
    resolved queue name of QNameLength bytes, padded to a 4-byte boundary)."""
    head = fap.async_header(big)
    size = head.size or 0
    if len(data) < size:
        return None
    values = head.values(data, 0)
    if not first:
        return values, size
    more = fap.async_first(big)
    end = size + (more.size or 0)
    if len(data) < end:
        return None
    values.update(more.values(data, size))
    n = int(values["qnamelength"])
    if len(data) < end + n:
        return None
    values["resolvedqname"] = data[end:end + n].decode(_page(data, end) if n else ASCII_PAGE,
                                                       errors="replace").rstrip(" \x00")
    end += n
    return values, end + (-end % 4)


def spi(data: bytes, pos: int, big: bool) -> tuple[dict[str, Any], int] | None:
    """The SPI verb header and its ``SPxU`` structure."""
    head, inout = fap.spi_header(big), fap.spi_struct(big)
    end = pos + (head.size or 0) + (inout.size or 0)
    if len(data) < end:
        return None
    values = head.values(data, pos)
    values["inout"] = strucid(data, pos + (head.size or 0))
    return values, end


def spi_data(data: bytes, pos: int, big: bool) -> tuple[str, int, int] | None:
    """An ``SPxI`` / ``SPxO`` structure at ``pos``: (StrucId, its length, the message length
    it announces, -1 when none)."""
    sid = strucid(data, pos)
    if not (sid.startswith("SP") and sid[3:] in ("I", "O")):
        return None
    layout = fap.spi_data(big)
    if len(data) < pos + (fap.spi_struct(big).size or 0):
        return None
    length = _int(data, pos + layout.offset_of("length"), big)
    if sid in ("SPPI", "SPGO") and len(data) >= pos + (layout.size or 0):
        return sid, layout.size or 0, layout.values(data, pos)["msglength"]
    return sid, max(length, fap.spi_struct(big).size or 0), -1
