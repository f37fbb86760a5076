"""What the numbers in MQ headers mean: reason and feedback codes, application types,
message types, persistence, report options, PCF types, CICS bridge values, and the CCSID
meaning (its codec comes from ``mqtool.codepages``). Names are the IBM MQ constants' (cmqc.h, cmqcfc.h)."""

from __future__ import annotations

from typing import Any

from mqtool.codepages import ccsid_codec, is_ebcdic_ccsid
from mqtool.formats.mq.reason_codes import MQFB, MQRC

# fmt: off
MQAT: dict[int, str] = {
    -1: 'MQAT_UNKNOWN', 0: 'MQAT_NO_CONTEXT', 1: 'MQAT_CICS', 2: 'MQAT_MVS', 3: 'MQAT_IMS',
    4: 'MQAT_OS2', 5: 'MQAT_DOS', 6: 'MQAT_AIX', 7: 'MQAT_QMGR', 8: 'MQAT_OS400',
    9: 'MQAT_WINDOWS', 10: 'MQAT_CICS_VSE', 11: 'MQAT_WINDOWS_NT', 12: 'MQAT_VMS',
    13: 'MQAT_GUARDIAN', 14: 'MQAT_VOS', 15: 'MQAT_OPEN_TP1', 18: 'MQAT_VM',
    19: 'MQAT_IMS_BRIDGE', 20: 'MQAT_XCF', 21: 'MQAT_CICS_BRIDGE', 22: 'MQAT_NOTES_AGENT',
    23: 'MQAT_TPF', 25: 'MQAT_USER', 26: 'MQAT_BROKER', 28: 'MQAT_JAVA', 29: 'MQAT_DQM',
    30: 'MQAT_CHANNEL_INITIATOR', 31: 'MQAT_WLM', 32: 'MQAT_BATCH', 33: 'MQAT_RRS_BATCH',
    34: 'MQAT_SIB', 35: 'MQAT_SYSTEM_EXTENSION', 36: 'MQAT_MCAST_PUBLISH', 37: 'MQAT_AMQP',
}
MQMT: dict[int, str] = {
    1: 'MQMT_REQUEST', 2: 'MQMT_REPLY', 4: 'MQMT_REPORT', 8: 'MQMT_DATAGRAM',
    112: 'MQMT_MQE_FIELDS_FROM_MQE', 113: 'MQMT_MQE_FIELDS',
}
MQPER: dict[int, str] = {
    -1: 'MQPER_PERSISTENCE_AS_PARENT', 0: 'MQPER_NOT_PERSISTENT', 1: 'MQPER_PERSISTENT',
    2: 'MQPER_PERSISTENCE_AS_Q_DEF',
}
MQCC: dict[int, str] = {
    -1: 'MQCC_UNKNOWN', 0: 'MQCC_OK', 1: 'MQCC_WARNING', 2: 'MQCC_FAILED',
}
MQCFT: dict[int, str] = {
    0: 'MQCFT_NONE', 1: 'MQCFT_COMMAND', 2: 'MQCFT_RESPONSE', 3: 'MQCFT_INTEGER',
    4: 'MQCFT_STRING', 5: 'MQCFT_INTEGER_LIST', 6: 'MQCFT_STRING_LIST', 7: 'MQCFT_EVENT',
    8: 'MQCFT_USER', 9: 'MQCFT_BYTE_STRING', 10: 'MQCFT_TRACE_ROUTE', 12: 'MQCFT_REPORT',
    13: 'MQCFT_INTEGER_FILTER', 14: 'MQCFT_STRING_FILTER', 15: 'MQCFT_BYTE_STRING_FILTER',
    16: 'MQCFT_COMMAND_XR', 17: 'MQCFT_XR_MSG', 18: 'MQCFT_XR_ITEM', 19: 'MQCFT_XR_SUMMARY',
    20: 'MQCFT_GROUP', 21: 'MQCFT_STATISTICS', 22: 'MQCFT_ACCOUNTING', 23: 'MQCFT_INTEGER64',
    25: 'MQCFT_INTEGER64_LIST', 26: 'MQCFT_APP_ACTIVITY', 27: 'MQCFT_STATUS',
}
MQCRC: dict[int, str] = {
    0: 'MQCRC_OK', 1: 'MQCRC_CICS_EXEC_ERROR', 2: 'MQCRC_MQ_API_ERROR', 3: 'MQCRC_BRIDGE_ERROR',
    4: 'MQCRC_BRIDGE_ABEND', 5: 'MQCRC_APPLICATION_ABEND', 6: 'MQCRC_SECURITY_ERROR',
    7: 'MQCRC_PROGRAM_NOT_AVAILABLE', 8: 'MQCRC_BRIDGE_TIMEOUT',
    9: 'MQCRC_TRANSID_NOT_AVAILABLE',
}
MQCUOWC: dict[int, str] = {
    16: 'MQCUOWC_MIDDLE', 17: 'MQCUOWC_FIRST', 256: 'MQCUOWC_COMMIT', 272: 'MQCUOWC_LAST',
    273: 'MQCUOWC_ONLY', 4352: 'MQCUOWC_BACKOUT', 65536: 'MQCUOWC_CONTINUE',
}
MQCLT: dict[int, str] = {
    1: 'MQCLT_PROGRAM', 2: 'MQCLT_TRANSACTION',
}
MQCTES: dict[int, str] = {
    0: 'MQCTES_NOSYNC', 256: 'MQCTES_COMMIT', 4352: 'MQCTES_BACKOUT', 65536: 'MQCTES_ENDTASK',
}
# fmt: on

MQCCSI = {0: "MQCCSI_DEFAULT", -1: "MQCCSI_EMBEDDED", -2: "MQCCSI_INHERIT", -3: "MQCCSI_APPL",
          -4: "MQCCSI_AS_PUBLISHED"}
MQCCSI_INHERIT = -2

# MQRO_* report options: (mask, value, name), the "with data" variants before the bare ones
MQRO: tuple[tuple[int, int, str], ...] = (
    (0x07000000, 0x07000000, "MQRO_EXCEPTION_WITH_FULL_DATA"),
    (0x07000000, 0x03000000, "MQRO_EXCEPTION_WITH_DATA"),
    (0x07000000, 0x01000000, "MQRO_EXCEPTION"),
    (0x00E00000, 0x00E00000, "MQRO_EXPIRATION_WITH_FULL_DATA"),
    (0x00E00000, 0x00600000, "MQRO_EXPIRATION_WITH_DATA"),
    (0x00E00000, 0x00200000, "MQRO_EXPIRATION"),
    (0x00000700, 0x00000700, "MQRO_COA_WITH_FULL_DATA"),
    (0x00000700, 0x00000300, "MQRO_COA_WITH_DATA"),
    (0x00000700, 0x00000100, "MQRO_COA"),
    (0x00003800, 0x00003800, "MQRO_COD_WITH_FULL_DATA"),
    (0x00003800, 0x00001800, "MQRO_COD_WITH_DATA"),
    (0x00003800, 0x00000800, "MQRO_COD"),
    (0x00000001, 0x00000001, "MQRO_PAN"),
    (0x00000002, 0x00000002, "MQRO_NAN"),
    (0x00000004, 0x00000004, "MQRO_ACTIVITY"),
    (0x00000080, 0x00000080, "MQRO_PASS_MSG_ID"),
    (0x00000040, 0x00000040, "MQRO_PASS_CORREL_ID"),
    (0x08000000, 0x08000000, "MQRO_DISCARD_MSG"),
    (0x00004000, 0x00004000, "MQRO_PASS_DISCARD_AND_EXPIRY"),
)

# MQPMRF_* bits of MQDH.PutMsgRecFields
MQPMRF = {0x01: "MQPMRF_MSG_ID", 0x02: "MQPMRF_CORREL_ID", 0x04: "MQPMRF_GROUP_ID",
          0x08: "MQPMRF_FEEDBACK", 0x10: "MQPMRF_ACCOUNTING_TOKEN"}

def reason_name(value: Any) -> str:
    """``2051`` -> ``MQRC_PUT_INHIBITED``; ``265`` -> ``MQFB_APPL_CANNOT_BE_STARTED``."""
    if not isinstance(value, int):
        return ""
    if value in MQRC:
        return "MQRC_" + MQRC[value]
    if value in MQFB:
        return "MQFB_" + MQFB[value]
    if 65536 <= value <= 999_999_999:
        return "MQFB_APPL (application-defined)"
    return ""


def reason_meaning(value: Any, fields: Any = None) -> str:
    """the MQRC_* name of a reason code, or the MQFB_* name of a feedback code"""
    return reason_name(value)


def feedback_meaning(value: Any, fields: Any = None) -> str:
    """MQMD.Feedback: MQFB_* (0 is MQFB_NONE), or an MQRC_* a report carries."""
    if value == 0:
        return "MQFB_NONE"
    if isinstance(value, int) and value in MQFB:
        return "MQFB_" + MQFB[value]
    return reason_name(value)


def report_meaning(value: Any, fields: Any = None) -> str:
    """MQMD.Report: the MQRO_* options set, ``+``-joined (``MQRO_NONE`` for 0)."""
    if not isinstance(value, int):
        return ""
    if value == 0:
        return "MQRO_NONE"
    names, seen = [], set()
    for mask, bits, name in MQRO:
        if mask in seen:
            continue
        if value & mask == bits:
            names.append(name)
            seen.add(mask)
    return " + ".join(names)


def pmrf_meaning(value: Any, fields: Any = None) -> str:
    """the MQPMRF_* bits set, ``+``-joined"""
    if not isinstance(value, int):
        return ""
    if value == 0:
        return "MQPMRF_NONE"
    return " + ".join(name for bit, name in MQPMRF.items() if value & bit)


def msgtype_meaning(value: Any, fields: Any = None) -> str:
    """MQMT_* names; 65536 to 999999999 application-defined"""
    if isinstance(value, int) and value in MQMT:
        return MQMT[value]
    if isinstance(value, int) and 65536 <= value <= 999_999_999:
        return "application-defined"
    return ""


def appltype_meaning(value: Any, fields: Any = None) -> str:
    """MQAT_* names; 65536 to 999999999 user-defined"""
    if isinstance(value, int) and value in MQAT:
        return MQAT[value]
    if isinstance(value, int) and 65536 <= value <= 999_999_999:
        return "MQAT_USER (user-defined)"
    return ""


def ccsid_meaning(value: Any, fields: Any = None) -> str:
    """``500`` -> ``cp500 (EBCDIC)``, ``-2`` -> ``MQCCSI_INHERIT``."""
    if not isinstance(value, int):
        return ""
    if value in MQCCSI:
        return MQCCSI[value]
    codec = ccsid_codec(value)
    if codec is None:
        return ""
    return f"{codec} (EBCDIC)" if is_ebcdic_ccsid(value) else codec


def persistence_meaning(value: Any, fields: Any = None) -> str:
    """MQPER_* names"""
    return MQPER.get(value, "") if isinstance(value, int) else ""
