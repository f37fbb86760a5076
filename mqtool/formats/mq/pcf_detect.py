"""Recognising a PCF message (IBM MQ, "PCF structures": MQCFH and the parameter structures)
with no MQMD to announce it, or behind an MQMD whose Format is MQADMIN / MQEVENT / MQPCF.

Evidence, strongest last: an MQCFH Type that heads a message (not a parameter type),
StrucLength equal to the MQCFH size, Version 1 to 3 in one byte order; then the parameter
chain walked to its end with the PCF decoder (``pcf.decode_pcf``): ParameterCount
structures of known types, each StrucLength within the message, strings and lists fitting.
Every offset and size comes from the declarations (``layout.header_layout("MQCFH")``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from mqtool.formats.mq import layout as lay
from mqtool.formats.mq import meanings as m
from mqtool.formats.mq.chain import CCSID_ASCII, ENC_BIG, ENC_LITTLE
from mqtool.formats.mq.mqmd import MQMD_V1_SIZE, MQMD_V2_SIZE, byte_order_of, mqmd_layout, sniff_mqmd
from mqtool.formats.mq.pcf import Pcf, decode_pcf
from mqtool.formats.mq.pcf_names import COMMANDS
from mqtool.model import Detection

FORMAT = lay.FORMAT
VERSIONS = range(1, 4)  # MQCFH_VERSION_1 .. MQCFH_VERSION_3
MIN_PARAMETER = lay.header_layout("MQCFIN").size or 0  # the smallest parameter structure

_CFH = lay.header_layout("MQCFH")
CFH_SIZE = _CFH.size or 0
TYPE_AT = _CFH.offset_of("type")
STRUCLENGTH_AT = _CFH.offset_of("struclength")
VERSION_AT = _CFH.offset_of("version")
COMMAND_AT = _CFH.offset_of("command")
COUNT_AT = _CFH.offset_of("parametercount")
WORD = _CFH.field("struclength").size or 0

# MQCFH Types that head a message: every MQCFT_* but NONE and the parameter structures
MESSAGE_TYPES = frozenset(set(m.MQCFT) - set(lay.PCF_PARAMETERS) - {0})


def _word(value: int, big: bool) -> bytes:
    return value.to_bytes(WORD, "big" if big else "little", signed=True)


@lru_cache(maxsize=1)
def signatures() -> dict[bytes, bool]:
    """StrucLength and Version as an MQCFH holds them -> big-endian? (the bytes a scanner
    searches for; the MQCFH starts ``STRUCLENGTH_AT`` bytes before them)."""
    assert VERSION_AT == STRUCLENGTH_AT + WORD
    return {_word(CFH_SIZE, big) + _word(v, big): big for v in VERSIONS for big in (True, False)}


@dataclass(frozen=True)
class PcfFound:
    """A PCF message at ``offset`` of a buffer: its byte order, length and decoded form."""

    offset: int
    length: int
    big: bool
    pcf: Pcf

    @property
    def type_name(self) -> str:
        value = self.pcf.elements[0].value("type")
        return m.MQCFT.get(value, str(value)) if isinstance(value, int) else str(value)

    @property
    def command_name(self) -> str:
        value = self.pcf.elements[0].value("command")
        return COMMANDS.get(value, str(value)) if isinstance(value, int) else str(value)

    def mqmd(self) -> dict[str, object]:
        """The MQMD fields that make ``formats.mq.codec.decode`` read this as PCF: Format
        MQEVENT for an event, MQADMIN otherwise; the byte order found; ASCII."""
        fmt = "MQEVENT" if self.type_name == "MQCFT_EVENT" else "MQADMIN"
        return {"format": fmt, "encoding": ENC_BIG if self.big else ENC_LITTLE,
                "codedcharsetid": CCSID_ASCII}

    def describe(self) -> str:
        head = self.pcf.elements[0]
        reason = head.value("reason")
        why = f", reason {reason} {m.reason_name(reason)}".rstrip() if reason else ""
        n = head.value("parametercount")
        return (f"PCF {self.type_name} {self.command_name} ({'big' if self.big else 'little'}"
                f"-endian), {n} parameter{'s' * (n != 1)}, {self.length} bytes{why}")


def header_at(data: bytes, at: int) -> bool | None:
    """Byte order (True = big) of a plausible MQCFH at ``at``: a message Type, StrucLength
    the MQCFH size, Version 1..3, ParameterCount not negative. None when there is none."""
    if len(data) < at + CFH_SIZE:
        return None
    big = signatures().get(bytes(data[at + STRUCLENGTH_AT:at + VERSION_AT + WORD]))
    if big is None:
        return None
    order: Literal["big", "little"] = "big" if big else "little"
    type_ = int.from_bytes(data[at + TYPE_AT:at + TYPE_AT + WORD], order, signed=True)
    count = int.from_bytes(data[at + COUNT_AT:at + COUNT_AT + WORD], order, signed=True)
    if type_ not in MESSAGE_TYPES or not 0 <= count <= (len(data) - at - CFH_SIZE) // MIN_PARAMETER:
        return None
    return big


def find_pcf(data: bytes, at: int = 0, big: bool | None = None,
             ccsid: int = CCSID_ASCII) -> PcfFound | None:
    """The PCF message at ``at`` when its header is plausible and its parameter chain walks
    to its end without an error; None otherwise. ``big``: the byte order an MQMD gave."""
    order = header_at(data, at)
    if order is None or (big is not None and order != big):
        return None
    pcf = decode_pcf(data, at, order, "latin-1" if ccsid == CCSID_ASCII else "cp037", ccsid)
    if pcf.errors or not pcf.elements:
        return None
    end = max(el.offset + el.length for el in pcf.elements)
    return PcfFound(at, end - at, order, pcf)


def _confidence(found: PcfFound, whole: bool) -> float:
    known = found.pcf.elements[0].value("command") in COMMANDS
    return (0.9 if known else 0.75) if whole else (0.6 if known else 0.45)


def detect(data: bytes) -> Detection | None:
    """A PCF message body (no MQMD), or an MQMD whose Format is a PCF format followed by
    one: how sure, and the evidence in words. For ``registry.CODECS``-style detectors."""
    found = find_pcf(data)
    if found is not None:
        whole = found.length == len(data)
        tail = "" if whole else f"; {len(data) - found.length} bytes after the last parameter"
        return Detection(FORMAT, _confidence(found, whole), found.describe() + tail,
                         {"mqmd": found.mqmd()})
    return _behind_mqmd(data)


def _behind_mqmd(data: bytes) -> Detection | None:
    variant = sniff_mqmd(data)
    if variant is None:
        return None
    big, ebcdic, version = variant
    values = mqmd_layout(big, ebcdic, version).values(data)
    fmt = str(values.get("format") or "").strip()
    if fmt not in lay.PCF_FORMATS:
        return None
    at = MQMD_V2_SIZE if version == 2 else MQMD_V1_SIZE
    order = byte_order_of(values.get("encoding"))
    found = find_pcf(data, at, None if order is None else order == "big",
                     int(values.get("codedcharsetid") or CCSID_ASCII))
    if found is None:
        return None
    whole = at + found.length == len(data)
    return Detection("mqmd-binary", _confidence(found, whole),
                     f"MQMD version {version} (Format {fmt}) and {found.describe()}",
                     {"queue_dump": "mqmd-binary"})
