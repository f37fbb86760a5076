"""Value tables of the Event Replicator URB elements (spec ``urb.md`` §3.4, §3.5, §5).

Texts are the seed's where it prints one (status codes INIT, ERRO, CMPL, SUBS, CLOS; record
type R; image type A; response-131 subcode 12), otherwise the spec's paraphrase of Software
AG's public adapya-era tables. ``layout.py`` attaches them to the fields they explain.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

REPTOR_RSP = 131  # Event Replicator error; subcode texts below apply to it only

# --------------------------------------------------------------------------- §5.1 request types

REQUEST_TYPES = {
    "STAT": "status request",
    "INST": "initial-state request",
    "TRAN": "prior-transaction request",
    "OPND": "open destination request",
    "CLSD": "close destination request",
}

# --------------------------------------------------------------------------- §5.2 status codes

STATUS = {
    "INIT": "Initial-state processing started",
    "ERRO": "Initial-state processing ERROR",
    "CMPL": "Initial-state processing completed",
    "SUBS": "Subscription status information",
    "STRT": "server session started normally",
    "REST": "server restarted after an abnormal end",
    "TERM": "server session ended normally",
    "DEAC": "replication switched off",
    "REAC": "replication switched on again",
    "TRSP": "answer to a prior-transaction request",
    "LOST": "replication data may have been lost",
    "C5DA": "user data written by an Adabas C5 command",
    "LODS": "ADALOD LOAD began",
    "LODE": "ADALOD LOAD finished",
    "RPLS": "ADARPL replay began",
    "RPLE": "ADARPL replay finished",
    "REFR": "a resource was refreshed",
    "SAVS": "ADASAV RESTORE began",
    "SAVE": "ADASAV RESTORE finished",
    "RESS": "ADARES REGENERATE/BACKOUT began",
    "RESE": "ADARES REGENERATE/BACKOUT finished",
    "UPDS": "ADALOD UPDATE began",
    "UPDE": "ADALOD UPDATE finished",
    "AUTI": "an Adabas utility function was replicated",
    "CLOS": "Destination closed",
    "OPEN": "the destination was opened",
    "ASEC": "Adabas security data replicated",
    "SLON": "SLOG switched on for the destination",
    "SLOF": "SLOG switched off for the destination",
    "SLDO": "SLOG for database input switched on",
    "SLDF": "SLOG for database input switched off",
    "SLDS": "SLOG for database input suspended",
    "SLDR": "SLOG for database input resumed",
    "SLDD": "SLOG for database input disabled",
    "DFUL": "the destination is full",
    "DERR": "error on the destination",
    "DBCO": "database connected to the server",
    "DBDI": "database disconnected from the server",
    "DBNP": "database not available",
    "DCMP": "decompression error (AI, BI, FAI, FBI or key)",
    "REFG": "globals refreshed",
    "IQOP": "an input queue was opened",
    "IQCL": "an input queue was closed",
}

# --------------------------------------------------------------------------- §5.4 subcodes

SUBCODES = {
    1: "URBD plus record data too big for the output buffer",
    2: "subscription user exit returned an error (see urbrerrc)",
    3: "replication pool (LREPL) of the nucleus full",
    4: "replication pool (LREPL) of the Event Replicator full",
    5: "subscription user exit returned an invalid urbdlend",
    6: "status request: response destination unknown",
    7: "status request names neither subscription nor destination",
    8: "status request: subscription or destination unknown",
    9: "initial-state definition name unknown",
    10: "URBIs of one message name different response destinations",
    11: "URBIs of one message name different initial-state definitions",
    12: "INITIALSTATE DBID/FNR definition not found as requested in URBI",
    13: "selection criteria type invalid or not supported",
    14: "DBID/file number missing in initial-state request or definition",
    15: "selection data sent for an all-records initial-state",
    16: "ISN list violates the ISN list rules",
    17: "operator stopped the initial-state processing",
    18: "URBIs of one message carry different request tokens",
    19: "selection data missing for an initial-state with selection",
    20: "bad key value met while decompressing for a subscription",
    21: "URBIARC/ACOD/WCOD set but server not UES-enabled",
    22: "initial-state asked for a deactivated DBID/file",
    23: "URBIARC/ACOD/WCOD must not all be empty",
    24: "URBIARC/ACOD/WCOD expected to be zero",
    25: "reserved URBIRES1/URBIRES2 not binary zero",
    26: "destination name unknown",
    27: "status request: no destination active",
    28: "initial-state request arrived during server shutdown",
    29: "(not assigned)",
    30: "urbirnam names an unknown destination",
    31: "urbidnam names an unknown destination",
    32: "urbisnam names an unknown subscription",
    33: "urbidnam destination not used by the subscription",
    34: "subscription has no resend buffer",
    35: "requested transaction not in the resend buffer",
    36: "subscription is not active",
    37: "resend buffer holds an invalid transaction",
    38: "no destination active",
    39: "TRAN request must not carry selection data",
    40: "TRAN request must not set DBID or file number",
    41: "TRAN request must not set an initial-state name",
    42: "TRAN request must leave URBIARC/ACOD/WCOD zero",
    43: "TRAN request: reserved URBIRES1/URBIRES2 not zero",
    44: "too many concurrent initial-state requests (IMAXREQ)",
    45: "request: bad URBH eyecatcher",
    46: "request: bad urbhlen",
    47: "request: bad urbhbord",
    48: "request: bad urbhvers",
    49: "request message shorter than announced",
    50: "request: bad urbhlent",
    51: "request: bad urbilenh",
    52: "request: bad urbilend",
    53: "request: bad urbilen",
    54: "request: reserved area not zero",
    55: "request holds more than one status request",
    56: "request: URBI with an invalid request type",
    57: "request mixes different request types",
    58: "response destination not usable",
    59: "replay asked for an inactive database",
    60: "replay token unknown or outdated",
    61: "malformed request to the server (e.g. buffer too short, no format buffer)",
    62: "record data dropped: FDT of the update time no longer available",
    63: "file named in a C5/R command is not replicated",
    64: "extended subscription: comparing these field types unsupported",
    65: "extended subscription: condition field not in the format buffer",
    66: "extended subscription: condition field cannot be selected",
    67: "extended subscription: user FLIST data invalid or out of range",
    68: "extended subscription: unexpected error",
    69: "replay for this DBID/file already running",
    70: "file not in any server subscription",
    71: "date/time format or value wrong",
    72: "replay parameters wrong",
    73: "subscription deactivated during replay",
    74: "destination deactivated during replay",
    75: "replay destination without SLOG was closed",
    76: "ADARPL ended abnormally",
    77: "replay status change not allowed",
    78: "new transactions were not held back during replay",
    79: "user cancelled the replay",
    80: "timed out waiting for Adabas to reactivate the file",
    81: "existing RRU token was not created by replay",
    82: "database not connected to the server (RRDSORT not Y/N)",
    83: "replay request names no subscription and no destination",
    84: "live data could reach a pair in replay-only mode",
    85: "file deactivated during replay",
    86: "format buffer unusable for Adabas-destination updates",
    87: "message sequence number out of order",
    88: "element after the URBH has an unknown eyecatcher",
    89: "replay start lists a subscription twice",
    90: "replay start lists a destination twice",
    91: "automatic replay lacks a start date/time",
    92: "timeout value too large",
    93: "PLOG information missing from the server system file",
    94: "after/before-image format buffer also used for the key",
    95: "setting the user or server encoding failed",
    96: "initial-state target nucleus down (response 148)",
    97: "format buffer names a LOB field (unsupported)",
    98: "Adabas nucleus newer than the Event Replicator",
    99: "urbisnam not allowed for this request type",
    100: "urbitsnr not allowed for this request type",
    101: "open/close destination failed on some tasks",
    102: "open/close destination failed",
    103: "open/close destination invalid or already in progress",
    104: "field filter begin byte beyond the field length",
    105: "field filter begin byte plus length beyond the field end",
    106: "field filter begin/length not allowed for U, P, F, G, W fields",
    107: "length value invalid for the field",
    108: "request: bad URBI eyecatcher",
    109: "ADASCR security data sent to a file with SFSECURITYFILE=NO",
    110: "malformed ADASCR security pseudo-transaction received",
    111: "record change sent to a file with SFSECURITYFILE=YES",
    112: "update-to-delete conversion impossible: no before image",
}

# --------------------------------------------------------------------------- §5.3 types, flags

RECORD_TYPES = {"D": "delete", "I": "insert", "R": "initial state", "U": "update"}
IMAGE_TYPES = {"A": "after image", "B": "before image", "K": "before image of the primary key"}
ORIGINS = {"A": "Adabas nucleus", "G": "ADARES", "L": "ADALOD LOAD", "R": "ADARPL replay",
           "S": "ADASAV", "U": "ADALOD UPDATE"}
RESENT = {"Y": "data may have been sent before"}
INITIAL_STATE = {"Y": "initial-state data"}
CONTINUED = {"Y": "continues in the next message"}
PRIOR_TRANSACTION = {"Y": "resent for a prior-transaction request"}
SORTED = {"Y": "records sorted (file, ISN, position)", "N": "records not sorted"}
DELETE_TO_UPDATE = {"Y": "delete converted to update"}
UPDATE_CONVERTED = {"D": "update converted to delete", "I": "update converted to insert"}

# --------------------------------------------------------------------------- §3.4 ECS code pages

# ECS number -> (character set, Python codec or None)
ECS = {
    37: ("EBCDIC USA/Canada", "cp037"),
    273: ("EBCDIC Germany/Austria", "cp273"),
    437: ("PC (DOS) US English", "cp437"),
    500: ("EBCDIC international", "cp500"),
    819: ("ISO 8859-1 (Latin-1)", "latin-1"),
    4091: ("UTF-8", "utf-8"),
    4095: ("UTF-16", "utf-16"),
}
SINGLE_BYTE = {"cp037", "cp273", "cp437", "cp500", "latin-1"}


def ecs_meaning(value: int, fields: Mapping[str, Any]) -> str:
    if not value:
        return ""
    known = ECS.get(value)
    return known[0] if known else "unknown ECS code page"


def ecs_codec(value: int) -> str | None:
    """Python codec of an ECS code page number, None when unknown or 0."""
    known = ECS.get(value)
    return known[1] if known else None


# --------------------------------------------------------------------------- §3.5 architecture key

ARC_BITS = ((1, "low-order byte first", "high-order byte first"),
            (2, "EBCDIC", "ASCII"),
            (4, "VAX float", ""),
            (8, "IEEE float", ""))


def arc_meaning(value: int, fields: Mapping[str, Any] | None = None) -> str:
    """``9`` -> ``low-order byte first, ASCII, IEEE float``; 0 (not set) -> empty."""
    if not value:
        return ""
    parts = [on if value & bit else off for bit, on, off in ARC_BITS]
    if not value & 12:
        parts.append("IBM/370 float")
    text = ", ".join(p for p in parts if p)
    if value & ~15:
        text += f", undefined bits X'{value & ~15:02X}'"
    return text


# --------------------------------------------------------------------------- meaning functions


def request_type_meaning(value: str, fields: Mapping[str, Any]) -> str:
    if value in REQUEST_TYPES:
        return REQUEST_TYPES[value]
    if not value.strip(" \x00"):
        return ""
    return "not a request type"


def subcode_meaning(rsp_field: str):  # type: ignore[no-untyped-def]
    """Meaning of a subcode field: a text only when the response field is 131."""

    def meaning(value: int, fields: Mapping[str, Any]) -> str:
        if fields.get(rsp_field) != REPTOR_RSP:
            return ""
        return SUBCODES.get(value, "unknown subcode")

    meaning.depends = (rsp_field,)  # type: ignore[attr-defined]  # bulk path: evaluated per pair
    return meaning


# --------------------------------------------------------------------------- §5.6 URBSU, GFFT

UTILITY_FUNCTIONS = {
    0x41: "change field length", 0x44: "delete file", 0x48: "refresh file",
    0x4A: "release descriptor", 0x4B: "rename file", 0x4E: "reuse-ISN switch",
    0x4F: "reuse-DS switch", 0x55: "modify FCB", 0x57: "define file", 0x58: "write FDT",
    0x59: "add fields", 0x5C: "change field format", 0x68: "USERISN switch",
    0x69: "MIXDSDEV switch", 0x70: "online invert", 0x78: "MUPEX switch",
}

GFFT_FORMATS = {
    0x00: "none (group)", 0x01: "A", 0x02: "B", 0x03: "P", 0x04: "U", 0x05: "short float",
    0x06: "long float", 0x10: "date", 0x13: "packed date", 0x20: "time", 0x23: "packed time",
    0x41: "W", 0x42: "binary string", 0x82: "signed binary",
}


def bits_meaning(bits: tuple[tuple[int, str], ...]):  # type: ignore[no-untyped-def]
    """Meaning of a flag byte: the names of the bits set, unknown bits in hex."""

    def meaning(value: int, fields: Mapping[str, Any]) -> str:
        names = [name for bit, name in bits if value & bit]
        rest = value & ~sum(bit for bit, _ in bits)
        if rest:
            names.append(f"undefined bits X'{rest:02X}'")
        return ", ".join(names)

    return meaning


GFFT_FLAGS = ((0x01, "created by the mapping tool"), (0x10, "optimized"))
FIELD_TYPE_BITS = ((0x01, "PE"), (0x02, "MU"), (0x04, "MU/PE counter"), (0x08, "S-format element"),
                   (0x10, "primary key"), (0x20, "descriptor"), (0x40, "unique descriptor"))
FIELD_FLAG_BITS = ((0x01, "not in the output"), (0x02, "repeating MU/PE element"),
                   (0x04, "super descriptor/field"), (0x08, "sub descriptor/field"),
                   (0x10, "optimized"), (0x20, "default zero or blank, never null"))
