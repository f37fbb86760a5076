"""The IBM MQ header chain, declared once in the composition vocabulary (``mqtool.compose``).

IBM MQ, "MQMD - Format field": the Format of the MQMD names the structure at the start of
the message data; each header that describes what follows it (MQDLH, MQRFH2, MQRFH, MQCIH,
MQIIH, MQMDE, MQWIH, MQRMH, MQDH) carries its own Format, Encoding and CodedCharSetId for
the next structure, and the chain ends at a Format that names no header (the application
data). So the chain is ``Chain(key=Previous("format"))``: each ``Record`` is keyed by the
Format name that announces it.

* A header's length is its ``struclength`` (IBM MQ, "StrucLength" of MQRFH2, MQCIH, MQIIH,
  MQMDE, MQWIH, MQRMH, MQDH: the fixed part plus what trails it), else its fixed size
  (MQDLH, MQTM, MQTMC2; MQXQH is its fixed part and the MQMD version 1 nested in it).
* What trails a fixed part: MQRFH2 NameValueLength / NameValueData folders, the MQRFH
  NameValueString, the MQRMH strings, the MQDH object and put-message records (each a
  named hook of the format: they are placed by lengths and offsets that are not records),
  and the MQXQH MsgDesc (a ``Nest``: the original MQMD, IBM MQ "MQXQH - Transmission-queue
  header", MsgDesc field).
* ``mq_inherit`` (``Chain.variant``, and on each record that describes what follows): a
  header's integers are in the Encoding, and its characters in the CodedCharSetId, of the
  structure before it (IBM MQ, "MQDLH - Encoding field", "CodedCharSetId field": MQCCSI_INHERIT
  and 0 keep the previous CCSID).
* ``mq_strucid`` (``Chain.sniff``): without an MQMD the first header is recognised by its
  StrucId in ASCII or EBCDIC and the byte order its Version reads in; a StrucId spelt in the
  other code page than the CCSID gives is read, with a problem.

Layout names are ``TYPE.vN`` (``MQDLH.v1``, ``MQMD.v1``); ``resolver(big, codepage)`` resolves
them in one variant.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from mqtool.compose import At, Chain, Content, Hook, Nest, Previous, Record, Repeat, Trailing, When
from mqtool.formats.mq import layout as lay
from mqtool.layout import Layout

INHERIT = "mq_inherit"  # the next header's variant and Format come from this one
STRUCID = "mq_strucid"  # the first header found by its StrucId
FOLDERS = "mq_folders"  # MQRFH2 NameValueLength / NameValueData pairs
NAME_VALUE_STRING = "mq_namevaluestring"  # MQRFH NameValueString
RMH_STRINGS = "mq_rmh_strings"  # MQRMH environment and name strings, placed by offsets
DH_RECORDS = "mq_dh_records"  # MQDH MQOR and MQPMR records, placed by offsets
CICS_DATA = "mq_cics_data"  # what follows an MQCIH, by its LinkType
MSGDESC_TITLE = "MQXQH MsgDesc (MQMD version 1) at offset X'{offset:04X}'"
MQCLT_PROGRAM, MQCLT_TRANSACTION = 1, 2  # cmqc.h: MQCIH LinkType


def _names(type_: str) -> tuple[str, ...]:
    return tuple(f"{type_}.v{v}" for v in lay.versions(type_))


def _header(type_: str, fmt: str, length: str = "struclength", trailing: Trailing | None = None,
            chained: bool = True) -> Record:
    return Record(type_, length, _names(type_), fixed=trailing is None, trailing=trailing,
                  key=fmt or None, hooks=(INHERIT,) if chained else ())


def _hooked(name: str, hook: str) -> Trailing:
    """Data from the fixed part's end up to StrucLength, read by the format's hook."""
    return Trailing(name, "", "struclength", content=Hook(hook))


RECORDS: tuple[Record, ...] = (
    _header("MQDLH", "MQDEAD", length=""),
    _header("MQRFH2", "MQHRF2", trailing=_hooked("folders", FOLDERS)),
    _header("MQRFH", "MQHRF", trailing=_hooked("namevaluestring", NAME_VALUE_STRING)),
    _header("MQXQH", "MQXMIT", length="",
            trailing=Trailing("msgdesc", "", "", content=Nest(
                "msgdesc", f"MQMD.v{lay.XQH_MSGDESC_VERSION}", title=MSGDESC_TITLE))),
    _header("MQTM", "MQTRIG", length="", chained=False),
    _header("MQTMC2", "", length="", chained=False),
    _header("MQCIH", "MQCICS"),
    _header("MQIIH", "MQIMS"),
    _header("MQMDE", "MQHMDE"),
    _header("MQWIH", "MQHWIH"),
    _header("MQRMH", "MQHREF", trailing=_hooked("strings", RMH_STRINGS)),
    _header("MQDH", "MQHDIST", trailing=_hooked("records", DH_RECORDS)),
)

CHAIN = Chain(key=Previous("format"), length=At("MQRFH.v1", "struclength"),
              records={r.type: r for r in RECORDS}, variant=INHERIT, sniff=STRUCID)

BY_TYPE: dict[str, Record] = dict(CHAIN.records)
BY_FORMAT: dict[str, Record] = {r.key: r for r in RECORDS if r.key}


def resolver(big: bool = True, codepage: str = "latin-1") -> Callable[[str], Layout]:
    """The layouts of one variant by name (``MQDLH.v1``)."""
    return _resolver(big, codepage)


@lru_cache(maxsize=64)
def _resolver(big: bool, codepage: str) -> Callable[[str], Layout]:
    def resolve(name: str) -> Layout:
        type_, _, version = name.partition(".v")
        return lay.header_layout(type_, big, codepage, int(version or 0))
    return resolve


def versions(rec: Record) -> tuple[int, ...]:
    """The versions of a header its record declares."""
    return tuple(int(n.rpartition(".v")[2]) for n in rec.layouts)


def format_of(rec: Record) -> str:
    """The Format name that announces ``rec`` ("" when none does: MQTMC2)."""
    return str(rec.key or "")


def chained(rec: Record) -> bool:
    """Does the header say (Format, Encoding, CCSID) what follows it?"""
    return INHERIT in rec.hooks


def trailing_kind(rec: Record) -> str:
    """What trails the fixed part: ``folders``, ``namevaluestring``, ``strings``,
    ``records``, ``msgdesc``; "" for nothing."""
    return rec.trailing.name if rec.trailing else ""


def struc_id(rec: Record) -> str:
    return lay.struc_id(rec.type)


def header_for(strucid: str, version: int) -> Record | None:
    """The record a StrucId (and version: ``RFH `` 1 or 2) names."""
    if strucid == "RFH ":
        return BY_TYPE["MQRFH2" if version >= 2 else "MQRFH"]
    return next((r for r in RECORDS if struc_id(r) == strucid), None)


# The application data after the chain, where IBM MQ says what it holds:
# * IBM MQ, "Message segmentation" (IMS bridge): the user data after an MQIIH is one or more
#   LLZZ-data segments, the first starting with the IMS transaction code; so is a message of
#   Format MQIMSVS (MQFMT_IMS_VAR_STRING) without an MQIIH.
# * IBM MQ, "MQCIH - LinkType field": MQCLT_PROGRAM, the data after the MQCIH is the COMMAREA
#   of the DPL program; MQCLT_TRANSACTION, the 3270 bridge vectors (BRMQ structures).
IMS_SEGMENTS = Repeat("segment", "LLZZ", size="ll",
                      title="IMS segment {index} at offset X'{offset:04X}', {length} bytes")
AFTER_HEADER: dict[str, Content] = {
    "MQIIH": IMS_SEGMENTS,
    "MQCIH": When("linktype", (MQCLT_PROGRAM, MQCLT_TRANSACTION), Hook(CICS_DATA)),
}
AFTER_FORMAT: dict[str, Content] = {"MQIMSVS": IMS_SEGMENTS}
