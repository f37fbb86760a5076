"""The MQI structures inside a transmission: MQOD, MQMD, MQGMO, MQPMO, LPOO, SPI and the
asynchronous-message header, each found by its StrucId (ASCII or EBCDIC) and measured by its
version. Integers follow the TSH ByteOrder; characters the code page of their StrucId.

Source: IBM MQ documentation (MQOD, MQMD, MQGMO, MQPMO structure pages); the Wireshark MQ
dissector (packet-mq.c) for the SPI, LPOO and asynchronous-message layouts. See ``fap``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mqtool.formats.mq.capture import fap
from mqtool.formats.mq.layout import PMR_FIELDS, header_layout
from mqtool.formats.mq.mqmd import parse_mqmd, sniff_mqmd
from mqtool.layout import Layout

EBCDIC_PAGE, ASCII_PAGE = "cp037", "latin-1"
_ID = fap.mqod(True, ASCII_PAGE).field("strucid").size or 0  # every StrucId: 4 characters
_LONG = fap.mqod(True, ASCII_PAGE).field("version").size or 0  # an MQLONG
_OR_SIZE = header_layout("MQOR").size or 0  # an MQOR of a distribution list


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


def _versioned(data: bytes, pos: int, big: bool, sid: str, versions: tuple[int, ...],
               declare: Callable[[bool, str, int], Layout]) -> Struct | None:
    """A structure told by its StrucId and measured by its Version's declaration."""
    if strucid(data, pos) != sid:
        return None
    version = _int(data, pos + _ID, big)
    if version not in versions:
        return None
    layout = declare(big, _page(data, pos), version)
    size = layout.size or 0
    if len(data) < pos + size:
        return None
    return Struct(layout.values(data, pos), size)


def od(data: bytes, pos: int, big: bool) -> Struct | None:
    """The MQOD at ``pos`` (with its distribution-list records), None when there is none."""
    found = _versioned(data, pos, big, "OD  ", fap.OD_VERSIONS, fap.mqod)
    if found is not None:
        records = int(found.values.get("recspresent") or 0)
        if records > 0:
            found.size += records * (
                (_OR_SIZE if found.values.get("objectrecoffset") else 0) +
                (fap.RR_SIZE if found.values.get("responserecoffset") else 0))
    return found


def md(data: bytes, pos: int) -> Struct | None:
    """The MQMD at ``pos`` (version 1 or 2, either byte order, ASCII or EBCDIC)."""
    if sniff_mqmd(data, pos) is None:
        return None
    values, size, _variant = parse_mqmd(data, pos)
    values.pop("strucid", None)
    return Struct(values, size)


def gmo(data: bytes, pos: int, big: bool) -> Struct | None:
    """The MQGMO at ``pos``."""
    return _versioned(data, pos, big, "GMO ", fap.GMO_VERSIONS, fap.mqgmo)


def pmo(data: bytes, pos: int, big: bool) -> Struct | None:
    """The MQPMO at ``pos`` (with its put-message and response records)."""
    found = _versioned(data, pos, big, "PMO ", fap.PMO_VERSIONS, fap.mqpmo)
    if found is not None:
        records = int(found.values.get("recspresent") or 0)
        if records > 0:
            fields = int(found.values.get("putmsgrecfields") or 0)
            pmr = sum(n for flag, _name, n in PMR_FIELDS if fields & flag)
            found.size += records * (
                (pmr if found.values.get("putmsgrecoffset") else 0) +
                (fap.RR_SIZE if found.values.get("responserecoffset") else 0))
    return found


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
