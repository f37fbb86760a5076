"""The IBM MQ headers that travel in front of application data, declared once.

Each structure is one ``dsect`` under its ``cmqc.h`` field names in lower case, built for a
``Variant`` (byte order of its integers, code page of its character fields): the header's
integers are in the Encoding, and its characters in the CodedCharSetId, of the structure
before it (the MQMD, or the previous header). How the structures compose (which MQ format
name announces each one, where its length is, whether it describes what follows, what
trails its fixed part) is declared in ``mqtool.formats.mq.compose``.

Sizes (IBM MQ constants, ``MQxxx_LENGTH_n``): MQDLH 172, MQRFH 32, MQRFH2 36 fixed, MQXQH 428
(104 + an MQMD version 1), MQTM 684, MQTMC2 684/732, MQCIH 164/180, MQIIH 84, MQMDE 72,
MQWIH 120, MQRMH 108, MQDH 48 (+ MQOR 96 each, + MQPMR by PutMsgRecFields), MQCFH 36.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from construct import Renamed

from mqtool.formats.mq import meanings as m
from mqtool.formats.mq.mqmd import encoding_meaning, mqmd_layout
from mqtool.layout import Hex, Layout, Means, Variant, dsect

FORMAT = "mq"


def _chained(v: Variant, eye: str) -> list[Renamed]:
    """The seven fields every chained header starts with (MQRFH's fixed part)."""
    return [
        "strucid" / v.eye(eye),
        "version" / v.S4,
        "struclength" / v.S4,
        "encoding" / Means(v.S4, encoding_meaning),
        "codedcharsetid" / Means(v.S4, m.ccsid_meaning),
        "format" / v.text(8),
        "flags" / v.S4,
    ]


def _dlh(v: Variant, version: int) -> list[Renamed]:
    return [
        "strucid" / v.eye("DLH "),
        "version" / v.S4,
        "reason" / Means(v.S4, m.reason_meaning),
        "destqname" / v.text(48),
        "destqmgrname" / v.text(48),
        "encoding" / Means(v.S4, encoding_meaning),
        "codedcharsetid" / Means(v.S4, m.ccsid_meaning),
        "format" / v.text(8),
        "putappltype" / Means(v.S4, m.appltype_meaning),
        "putapplname" / v.text(28),
        "putdate" / v.text(8),
        "puttime" / v.text(8),
    ]


def _rfh(v: Variant, version: int) -> list[Renamed]:
    return _chained(v, "RFH ")


def _rfh2(v: Variant, version: int) -> list[Renamed]:
    return [*_chained(v, "RFH "), "namevalueccsid" / Means(v.S4, m.ccsid_meaning)]


def _xqh(v: Variant, version: int) -> list[Renamed]:
    """MQXQH up to its MsgDesc; the embedded MQMD version 1 follows (``mqmd_layout``)."""
    return [
        "strucid" / v.eye("XQH "),
        "version" / v.S4,
        "remoteqname" / v.text(48),
        "remoteqmgrname" / v.text(48),
    ]


def _tm(v: Variant, version: int) -> list[Renamed]:
    return [
        "strucid" / v.eye("TM  "),
        "version" / v.S4,
        "qname" / v.text(48),
        "processname" / v.text(48),
        "triggerdata" / v.text(64),
        "appltype" / Means(v.S4, m.appltype_meaning),
        "applid" / v.text(256),
        "envdata" / v.text(128),
        "userdata" / v.text(128),
    ]


def _tmc2(v: Variant, version: int) -> list[Renamed]:
    """MQTMC2: the character form of MQTM (version and ApplType as 4 characters)."""
    fields = [
        "strucid" / v.eye("TMC "),
        "version" / v.text(4),
        "qname" / v.text(48),
        "processname" / v.text(48),
        "triggerdata" / v.text(64),
        "appltype" / v.text(4),
        "applid" / v.text(256),
        "envdata" / v.text(128),
        "userdata" / v.text(128),
    ]
    return [*fields, "qmgrname" / v.text(48)] if version >= 2 else fields


def _cih(v: Variant, version: int) -> list[Renamed]:
    fields = [
        *_chained(v, "CIH "),
        "returncode" / Means(v.S4, m.MQCRC),
        "compcode" / Means(v.S4, m.MQCC),
        "reason" / Means(v.S4, m.reason_meaning),
        "uowcontrol" / Means(v.S4, m.MQCUOWC),
        "getwaitinterval" / Means(v.S4, _named("MQCGWI")),
        "linktype" / Means(v.S4, m.MQCLT),
        "outputdatalength" / Means(v.S4, _named("MQCODL")),
        "facilitykeeptime" / v.S4,
        "adsdescriptor" / Means(v.S4, _named("MQCADSD")),
        "conversationaltask" / Means(v.S4, _named("MQCCT")),
        "taskendstatus" / Means(v.S4, m.MQCTES),
        "facility" / Hex(8),
        "function" / v.text(4),
        "abendcode" / v.text(4),
        "authenticator" / v.text(8),
        "reserved1" / v.text(8),
        "replytoformat" / v.text(8),
        "remotesysid" / v.text(4),
        "remotetransid" / v.text(4),
        "transactionid" / v.text(4),
        "facilitylike" / v.text(4),
        "attentionid" / v.text(4),
        "startcode" / v.text(4),
        "cancelcode" / v.text(4),
        "nexttransactionid" / v.text(4),
        "reserved2" / v.text(8),
        "reserved3" / v.text(8),
    ]
    if version >= 2:
        fields += ["cursorposition" / v.S4, "erroroffset" / v.S4, "inputitem" / v.S4,
                   "reserved4" / v.S4]
    return fields


def _iih(v: Variant, version: int) -> list[Renamed]:
    return [
        *_chained(v, "IIH "),
        "ltermoverride" / v.text(8),
        "mfsmapname" / v.text(8),
        "replytoformat" / v.text(8),
        "authenticator" / v.text(8),
        "traninstanceid" / Hex(16),
        "transtate" / v.text(1),
        "commitmode" / v.text(1),
        "securityscope" / v.text(1),
        "reserved" / v.text(1),
    ]


def _mde(v: Variant, version: int) -> list[Renamed]:
    return [
        *_chained(v, "MDE "),
        "groupid" / Hex(24),
        "msgseqnumber" / v.S4,
        "offset" / v.S4,
        "msgflags" / v.S4,
        "originallength" / v.S4,
    ]


def _wih(v: Variant, version: int) -> list[Renamed]:
    return [
        *_chained(v, "WIH "),
        "servicename" / v.text(32),
        "servicestep" / v.text(8),
        "msgtoken" / Hex(16),
        "reserved" / v.text(32),
    ]


def _rmh(v: Variant, version: int) -> list[Renamed]:
    return [
        *_chained(v, "RMH "),
        "objecttype" / v.text(8),
        "objectinstanceid" / Hex(24),
        "srcenvlength" / v.S4,
        "srcenvoffset" / v.S4,
        "srcnamelength" / v.S4,
        "srcnameoffset" / v.S4,
        "destenvlength" / v.S4,
        "destenvoffset" / v.S4,
        "destnamelength" / v.S4,
        "destnameoffset" / v.S4,
        "datalogicallength" / v.S4,
        "datalogicaloffset" / v.S4,
        "datalogicaloffset2" / v.S4,
    ]


def _dh(v: Variant, version: int) -> list[Renamed]:
    return [
        *_chained(v, "DH  "),
        "putmsgrecfields" / Means(v.S4, m.pmrf_meaning),
        "recspresent" / v.S4,
        "objectrecoffset" / v.S4,
        "putmsgrecoffset" / v.S4,
    ]


def _or(v: Variant, version: int) -> list[Renamed]:
    """MQOR, one per destination behind an MQDH."""
    return ["objectname" / v.text(48), "objectqmgrname" / v.text(48)]


def _llzz(v: Variant, version: int) -> list[Renamed]:
    """The prefix of an IMS message segment (IBM MQ, "Message segmentation" of the IMS
    bridge; IMS, "input message format"): LL, the segment's length with LL and ZZ, then ZZ
    (two bytes IMS reserves), then the segment's data."""
    return ["ll" / v.U2, "zz" / Hex(2)]


def _cfh(v: Variant, version: int) -> list[Renamed]:
    """MQCFH, the PCF header of command, response and event messages."""
    return [
        "type" / Means(v.S4, m.MQCFT),
        "struclength" / v.S4,
        "version" / v.S4,
        "command" / Means(v.S4, _cfh_command),
        "msgseqnumber" / v.S4,
        "control" / Means(v.S4, _named("MQCFC")),
        "compcode" / Means(v.S4, m.MQCC),
        "reason" / Means(v.S4, m.reason_meaning),
        "parametercount" / v.S4,
    ]


def _named(family: str) -> Callable[[object, object], str]:
    """A meaning table from a value family of the IBM MQ constants (``pcf_names.VALUES``:
    ``MQCGWI_DEFAULT``, ``MQCADSD_SEND + MQCADSD_RECV``, ``MQCFC_LAST``)."""

    def meaning(value: object, fields: object) -> str:
        from mqtool.formats.mq.pcf_names import family_meaning

        return family_meaning(family, value)

    meaning.__doc__ = f"{family}_* names"
    return meaning


def _cfh_command(value: object, fields: object) -> str:
    """MQCMD_* names"""
    from mqtool.formats.mq.pcf_names import COMMANDS

    return COMMANDS.get(value, "") if isinstance(value, int) else ""


def _parameter(value: object, fields: object) -> str:
    """MQIA_*, MQCA_*, MQIACF_*, ... parameter names"""
    from mqtool.formats.mq.pcf_names import PARAMETERS

    return PARAMETERS.get(value, "") if isinstance(value, int) else ""


def _pcf_head(v: Variant, type_name: str) -> list[Renamed]:
    return ["type" / Means(v.S4, m.MQCFT), "struclength" / v.S4,
            "parameter" / Means(v.S4, _parameter)]


# PCF parameter structures: MQCFT_* type -> (name, fields after Type/StrucLength/Parameter,
# what follows the fixed part: "string" (StringLength bytes), "ints"/"int64s" (Count
# values), "strings" (Count strings of StringLength), "" nothing)
PCF_PARAMETERS: dict[int, tuple[str, tuple[tuple[str, str], ...], str]] = {
    3: ("MQCFIN", (("value", "S4"),), ""),
    4: ("MQCFST", (("codedcharsetid", "S4"), ("stringlength", "S4")), "string"),
    5: ("MQCFIL", (("count", "S4"),), "ints"),
    6: ("MQCFSL", (("codedcharsetid", "S4"), ("count", "S4"), ("stringlength", "S4")),
        "strings"),
    9: ("MQCFBS", (("stringlength", "S4"),), "bytes"),
    13: ("MQCFIF", (("operator", "S4"), ("filtervalue", "S4")), ""),
    14: ("MQCFSF", (("operator", "S4"), ("codedcharsetid", "S4"), ("filtervaluelength", "S4")),
         "string"),
    15: ("MQCFBF", (("operator", "S4"), ("filtervaluelength", "S4")), "bytes"),
    20: ("MQCFGR", (("parametercount", "S4"),), "group"),
    23: ("MQCFIN64", (("reserved", "S4"), ("value", "S8")), ""),
    25: ("MQCFIL64", (("count", "S4"),), "int64s"),
}
PCF_BY_NAME = {name: (type_, fields, rest) for type_, (name, fields, rest) in PCF_PARAMETERS.items()}


def _pcf(v: Variant, version: int, name: str) -> list[Renamed]:
    _type, fields, _rest = PCF_BY_NAME[name]
    return [*_pcf_head(v, name), *(f / getattr(v, kind) for f, kind in fields)]


# MQPMR fields in record order, with the MQPMRF_* flag that makes each present
PMR_FIELDS: tuple[tuple[int, str, int], ...] = (
    (0x01, "msgid", 24), (0x02, "correlid", 24), (0x04, "groupid", 24), (0x08, "feedback", 4),
    (0x10, "accountingtoken", 32),
)


def _pmr(v: Variant, version: int) -> list[Renamed]:
    """MQPMR: ``version`` carries PutMsgRecFields (which fields each record has)."""
    return [name / (Means(v.S4, m.reason_meaning) if name == "feedback" else Hex(size))
            for flag, name, size in PMR_FIELDS if version & flag]


# The structures and the versions of each (IBM MQ, "Structure data types": each
# structure's Version field and its MQxxx_VERSION_n constants). How they compose -- which
# Format announces each, its length field, what trails it -- is ``formats.mq.compose``.
STRUCTURES: dict[str, tuple[Callable[[Variant, int], list[Renamed]], tuple[int, ...]]] = {
    "MQDLH": (_dlh, (1,)),
    "MQRFH2": (_rfh2, (2,)),
    "MQRFH": (_rfh, (1,)),
    "MQXQH": (_xqh, (1,)),
    "MQTM": (_tm, (1,)),
    "MQTMC2": (_tmc2, (1, 2)),
    "MQCIH": (_cih, (1, 2)),
    "MQIIH": (_iih, (1,)),
    "MQMDE": (_mde, (2,)),
    "MQWIH": (_wih, (1,)),
    "MQRMH": (_rmh, (1,)),
    "MQDH": (_dh, (1,)),
}


def versions(type_: str) -> tuple[int, ...]:
    """The versions of a structure mqtool declares (MQMD: 1 and 2)."""
    return (1, 2) if type_ == "MQMD" else STRUCTURES[type_][1]


def struc_id(type_: str) -> str:
    """A structure's StrucId, as its declaration's eyecatcher says (``"DLH "``)."""
    return str(getattr(header_layout(type_).field("strucid").con, "expected", ""))


# MQ format names of application data mqtool shows as text
TEXT_FORMATS = frozenset({"MQSTR"})
PCF_FORMATS = frozenset({"MQADMIN", "MQEVENT", "MQPCF"})

# parts that are not headers of their own
EMBEDDED: dict[str, Callable[[Variant, int], list[Renamed]]] = {
    "MQOR": _or, "MQPMR": _pmr, "MQCFH": _cfh, "LLZZ": _llzz}


@lru_cache(maxsize=256)
def header_layout(type_: str, big: bool = True, codepage: str = "latin-1",
                  version: int = 0) -> Layout:
    """The layout of one structure variant; ``version`` 0 means the highest declared
    (MQPMR: ``version`` is PutMsgRecFields)."""
    v = Variant(big=big, codepage=codepage)
    if type_ == "MQMD":
        return mqmd_layout(big, codepage != "latin-1", version or 1)
    if type_ in EMBEDDED:
        return dsect(type_, *EMBEDDED[type_](v, version))
    if type_ in PCF_BY_NAME:
        return dsect(type_, *_pcf(v, version, type_))
    declare, known = STRUCTURES[type_]
    return dsect(type_, *declare(v, version or max(known)))


def fixed_size(type_: str, version: int = 0) -> int:
    return header_layout(type_, version=version).size or 0


STRUC_IDS = sorted({struc_id(t) for t in STRUCTURES})

# The integers that tell a variant apart: offset of Version and its plausible values
VERSION_OFFSET = header_layout("MQDLH").offset_of("version")
STRUC_ID_SIZE = header_layout("MQDLH").field("strucid").size or 0
PLAUSIBLE_VERSIONS = range(1, 4)
NAME_VALUE_LENGTH_SIZE = 4  # MQRFH2 NameValueLength: an MQLONG before each folder
FOLDER_ALIGN = 4  # NameValueData is padded to a multiple of 4 bytes
XQH_MSGDESC_VERSION = 1


def layouts() -> dict[str, Layout]:
    """Every declaration (both byte orders, ASCII): what the architecture tests read."""
    out: dict[str, Layout] = {}
    for big in (True, False):
        for type_, (_declare, known) in STRUCTURES.items():
            for version in known:
                out[f"{type_}.v{version}.{'be' if big else 'le'}"] = header_layout(
                    type_, big, "latin-1", version)
        # (LLZZ is left out: its one field end, 2, is no MQ structure's offset)
        for name in ("MQOR", "MQCFH", *PCF_BY_NAME):
            out[f"{name}.{'be' if big else 'le'}"] = header_layout(name, big)
        out[f"MQPMR.{'be' if big else 'le'}"] = header_layout("MQPMR", big, "latin-1", 0x1F)
        out[f"MQMD.v1.{'be' if big else 'le'}"] = mqmd_layout(big, False, 1)
        out[f"MQMD.v2.{'be' if big else 'le'}"] = mqmd_layout(big, False, 2)
    return out
