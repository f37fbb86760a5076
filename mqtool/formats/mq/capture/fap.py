"""The IBM MQ wire protocol over TCP (the MQ "Formats and Protocols", FAP), declared once.

Every transmission segment starts with a transmission segment header: ``TSH `` (28 bytes),
``TSHC`` (28 bytes) or ``TSHM`` (36 bytes: a conversation id and a request id after the
length, for shared conversations), its StrucId in ASCII or EBCDIC. The StrucId, the
SegmentLength and the TSHM ids are big-endian always; ByteOrder (1 big, 2 little) says the
order of every other integer of the segment, and the CCSID its characters. ControlFlags1
``MQ_TCF_FIRST`` / ``MQ_TCF_LAST`` frame a transmission split over several segments.

After the TSH, by SegmentType: the MQI verbs (0x81..0x9F) carry a 16-byte API header
(ReplyLength big-endian, CompCode, Reason, ObjectHandle), then the MQI structures: MQOPEN an
MQOD and the open options; MQPUT an MQMD, an MQPMO, a buffer length and the message; MQPUT1
an MQOD first; MQGET replies an MQMD, an MQGMO, a buffer length and the message. The SPI
verb (0x8C) carries a verb header and ``SPxU`` / ``SPxI`` / ``SPxO`` structures (SPI OPEN an
``LPOO`` with an MQOD). ASYNC_MESSAGE (0x0D) carries an asynchronous-message header (longer
in the first segment of a message: reason, lengths, message token and the resolved queue
name) then the MQMD and the message. Channel MESSAGE_DATA (0x04) carries an optional message
segment header ``MSH `` then an MQXQH with its MQMD and the message.

Sources: IBM MQ documentation (MQOD, MQGMO, MQPMO, MQMD structure pages: fields, versions,
``MQxx_LENGTH_n``); the Wireshark MQ dissector (epan/dissectors/packet-mq.c, packet-mq.h) for
the framing: TSH layouts, segment types, control flags, the API, asynchronous-message, SPI,
LPOO and MSH layouts.
"""

from __future__ import annotations

from functools import lru_cache

from construct import Renamed

from mqtool.layout import Hex, Layout, Variant, dsect

FORMAT = "mq-capture"

# TSH StrucIds, ASCII and EBCDIC; the MQ port
TSH_IDS = {b"TSH ": "TSH", b"TSHC": "TSHC", b"TSHM": "TSHM",
           b"\xe3\xe2\xc8\x40": "TSH", b"\xe3\xe2\xc8\xc3": "TSHC", b"\xe3\xe2\xc8\xd4": "TSHM"}
EBCDIC_TSH_IDS = frozenset(k for k in TSH_IDS if k[0] == 0xE3)
MQ_PORT = 1414
BYTE_ORDER_BIG, BYTE_ORDER_LITTLE = 1, 2

# ControlFlags1 (MQ_TCF_*)
TCF_CONFIRM_REQUEST, TCF_ERROR, TCF_REQUEST_CLOSE, TCF_CLOSE_CHANNEL = 0x01, 0x02, 0x04, 0x08
TCF_FIRST, TCF_LAST, TCF_REQUEST_ACCEPTED, TCF_DLQ_USED = 0x10, 0x20, 0x40, 0x80

# SegmentType (MQ_TST_*)
SEGMENT_TYPES: dict[int, str] = {
    0x01: "INITIAL_DATA", 0x02: "RESYNC_DATA", 0x03: "RESET_DATA", 0x04: "MESSAGE_DATA",
    0x05: "STATUS_DATA", 0x06: "SECURITY_DATA", 0x07: "PING_DATA", 0x08: "USERID_DATA",
    0x09: "HEARTBEAT", 0x0A: "CONAUTH_INFO", 0x0B: "RENEGOTIATE_DATA", 0x0C: "SOCKET_ACTION",
    0x0D: "ASYNC_MESSAGE", 0x0E: "REQUEST_MSGS", 0x0F: "NOTIFICATION",
    0x81: "MQCONN", 0x82: "MQDISC", 0x83: "MQOPEN", 0x84: "MQCLOSE", 0x85: "MQGET",
    0x86: "MQPUT", 0x87: "MQPUT1", 0x88: "MQSET", 0x89: "MQINQ", 0x8A: "MQCMIT",
    0x8B: "MQBACK", 0x8C: "SPI", 0x8D: "MQSTAT", 0x8E: "MQSUB", 0x8F: "MQSUBRQ",
    0x91: "MQCONN_REPLY", 0x92: "MQDISC_REPLY", 0x93: "MQOPEN_REPLY", 0x94: "MQCLOSE_REPLY",
    0x95: "MQGET_REPLY", 0x96: "MQPUT_REPLY", 0x97: "MQPUT1_REPLY", 0x98: "MQSET_REPLY",
    0x99: "MQINQ_REPLY", 0x9A: "MQCMIT_REPLY", 0x9B: "MQBACK_REPLY", 0x9C: "SPI_REPLY",
    0x9D: "MQSTAT_REPLY", 0x9E: "MQSUB_REPLY", 0x9F: "MQSUBRQ_REPLY",
}
BY_NAME = {v: k for k, v in SEGMENT_TYPES.items()}
MESSAGE_DATA, ASYNC_MESSAGE = BY_NAME["MESSAGE_DATA"], BY_NAME["ASYNC_MESSAGE"]
MQOPEN, MQOPEN_REPLY = BY_NAME["MQOPEN"], BY_NAME["MQOPEN_REPLY"]
MQPUT, MQPUT_REPLY = BY_NAME["MQPUT"], BY_NAME["MQPUT_REPLY"]
MQPUT1, MQPUT1_REPLY = BY_NAME["MQPUT1"], BY_NAME["MQPUT1_REPLY"]
MQGET, MQGET_REPLY = BY_NAME["MQGET"], BY_NAME["MQGET_REPLY"]
SPI, SPI_REPLY = BY_NAME["SPI"], BY_NAME["SPI_REPLY"]
API_FIRST, API_LAST = 0x81, 0x9F  # segment types followed by the API header
REPLY_BIT = 0x10  # MQxxx_REPLY = MQxxx | 0x10

# SPI verbs (MQ_SPI_*)
SPI_VERBS = {1: "QUERY", 2: "PUT", 3: "GET", 4: "ACTIVATE", 5: "SYNCHPOINT", 6: "RESERVE",
             7: "SUBSCRIBE", 11: "NOTIFY", 12: "OPEN"}
SPI_PUT, SPI_GET, SPI_OPEN = 2, 3, 12

# Structure versions (their sizes are the declarations' below: MQOD 168 / 200 / 336 / 400,
# MQGMO 72 / 80 / 100 / 112, MQPMO 128 / 152 / 176; pointer fields travel as 4 bytes, so
# these are IBM MQ's MQxx_LENGTH_n of 32-bit platforms)
OD_VERSIONS, GMO_VERSIONS, PMO_VERSIONS = (1, 2, 3, 4), (1, 2, 3, 4), (1, 2, 3)
RR_SIZE = 8  # MQRR (CompCode, Reason) of a distribution list; MQOR is formats.mq.layout's


@lru_cache(maxsize=1)
def tsh_start() -> Layout:
    """TSH StrucId and SegmentLength: big-endian whatever the ByteOrder."""
    v = Variant(big=True, codepage="latin-1")
    return dsect("TSH", "strucid" / Hex(4), "segmentlength" / v.U4)


@lru_cache(maxsize=1)
def tsh_mpx() -> Layout:
    """The TSHM fields after SegmentLength: big-endian ids of a shared conversation."""
    v = Variant(big=True, codepage="latin-1")
    return dsect("TSHM", "conversationid" / v.U4, "requestid" / v.U4)


@lru_cache(maxsize=8)
def tsh_rest(big: bool) -> Layout:
    """The rest of every TSH, in its ByteOrder."""
    v = Variant(big=big, codepage="latin-1")
    return dsect("TSH", "byteorder" / v.U1, "segmenttype" / v.U1, "controlflags1" / v.U1,
                 "controlflags2" / v.U1, "luwid" / Hex(8), "encoding" / v.S4, "ccsid" / v.U2,
                 "reserved" / v.U2)


@lru_cache(maxsize=8)
def api_header(big: bool) -> Layout:
    """The API header after the TSH of an MQI verb; ReplyLength (big-endian whatever the
    ByteOrder) is kept as its four bytes."""
    v = Variant(big=big, codepage="latin-1")
    return dsect("API", "replylength" / Hex(4), "compcode" / v.S4,
                 "reason" / v.S4, "hobj" / v.S4)


@lru_cache(maxsize=8)
def async_header(big: bool) -> Layout:
    """The asynchronous-message header of every ASYNC_MESSAGE segment."""
    v = Variant(big=big, codepage="latin-1")
    return dsect("ASYNC", "version" / v.S4, "hobj" / v.S4, "msgindex" / v.S4,
                 "globalmsgindex" / v.S4, "segmentlength" / v.S4, "segmentindex" / v.U2,
                 "selectionindex" / v.U2)


@lru_cache(maxsize=8)
def async_first(big: bool) -> Layout:
    """What the first segment of an asynchronous message adds; the resolved queue name of
    QNameLength bytes follows, padded so that the header ends on a 4-byte boundary."""
    v = Variant(big=big, codepage="latin-1")
    return dsect("ASYNC", "reason" / v.S4, "totalmsglength" / v.S4, "actualmsglength" / v.S4,
                 "msgtoken" / Hex(16), "status" / v.U2, "qnamelength" / v.U1)


@lru_cache(maxsize=8)
def request_msgs(big: bool) -> Layout:
    """REQUEST_MSGS: the client asks for asynchronous messages on a handle."""
    v = Variant(big=big, codepage="latin-1")
    return dsect("REQMSGS", "version" / v.S4, "hobj" / v.S4, "receivedbytes" / v.S4,
                 "requestedbytes" / v.S4, "maxmsglength" / v.S4, "getmsgoptions" / v.S4,
                 "waitinterval" / v.S4, "queuestatus" / v.S4, "requestflags" / v.S4,
                 "globalmsgindex" / v.S4)


@lru_cache(maxsize=8)
def msh(big: bool) -> Layout:
    """MSH: the message segment header in front of channel message data."""
    v = Variant(big=big, codepage="latin-1")
    return dsect("MSH", "strucid" / Hex(4), "seqnum" / v.S4, "datalength" / v.S4,
                 "reserved" / v.S4, "msglength" / v.S4)


@lru_cache(maxsize=8)
def spi_header(big: bool) -> Layout:
    """The SPI verb header, then the ``SPxU`` structure with the same three fields."""
    v = Variant(big=big, codepage="latin-1")
    return dsect("SPI", "verb" / v.S4, "version" / v.S4, "length" / v.S4)


@lru_cache(maxsize=8)
def spi_struct(big: bool) -> Layout:
    """``SPxU`` / ``SPxI`` / ``SPxO``: StrucId, Version, Length of the structure."""
    v = Variant(big=big, codepage="latin-1")
    return dsect("SPxx", "strucid" / Hex(4), "version" / v.S4, "length" / v.S4)


@lru_cache(maxsize=8)
def spi_data(big: bool) -> Layout:
    """``SPPI`` (put in) and ``SPGO`` (get out): options and the length of the message."""
    v = Variant(big=big, codepage="latin-1")
    return dsect("SPxx", "strucid" / Hex(4), "version" / v.S4, "length" / v.S4,
                 "options" / v.S4, "msglength" / v.S4)


@lru_cache(maxsize=8)
def lpoo(big: bool) -> Layout:
    """``LPOO``: the open options of SPI OPEN (the JMS classes' MQOPEN); an MQOD follows,
    after 56 bytes of queue protection data in the longer form."""
    v = Variant(big=big, codepage="latin-1")
    return dsect("LPOO", "strucid" / Hex(4), "version" / v.S4, "options" / v.S4,
                 "lpioptions" / v.S4, "defpersistence" / v.S4, "defputresponsetype" / v.S4,
                 "defreadahead" / v.S4, "propertycontrol" / v.S4)


LPOO_QPROTECT = 56  # the queue protection data of the longer LPOO


def _charv(v: Variant, name: str) -> list[Renamed]:
    """MQCHARV on the wire: pointer, offset, buffer size, length, CCSID."""
    return [f"{name}ptr" / v.S4, f"{name}offset" / v.S4, f"{name}bufsize" / v.S4,
            f"{name}length" / v.S4, f"{name}ccsid" / v.S4]


@lru_cache(maxsize=32)
def mqod(big: bool, codepage: str, version: int = 1) -> Layout:
    """MQOD (object descriptor), versions 1 to 4."""
    v = Variant(big=big, codepage=codepage)
    fields = ["strucid" / v.text(4), "version" / v.S4, "objecttype" / v.S4,
              "objectname" / v.text(48), "objectqmgrname" / v.text(48),
              "dynamicqname" / v.text(48), "alternateuserid" / v.text(12)]
    if version >= 2:
        fields += ["recspresent" / v.S4, "knowndestcount" / v.S4, "unknowndestcount" / v.S4,
                   "invaliddestcount" / v.S4, "objectrecoffset" / v.S4,
                   "responserecoffset" / v.S4, "objectrecptr" / v.S4, "responserecptr" / v.S4]
    if version >= 3:
        fields += ["alternatesecurityid" / Hex(40), "resolvedqname" / v.text(48),
                   "resolvedqmgrname" / v.text(48)]
    if version >= 4:
        fields += [*_charv(v, "objectstring"), *_charv(v, "selectionstring"),
                   *_charv(v, "resobjectstring"), "resolvedtype" / v.S4]
    return dsect("MQOD", *fields)


@lru_cache(maxsize=32)
def mqgmo(big: bool, codepage: str, version: int = 1) -> Layout:
    """MQGMO (get-message options), versions 1 to 4."""
    v = Variant(big=big, codepage=codepage)
    fields = ["strucid" / v.text(4), "version" / v.S4, "options" / v.S4,
              "waitinterval" / v.S4, "signal1" / v.S4, "signal2" / v.S4,
              "resolvedqname" / v.text(48)]
    if version >= 2:
        fields += ["matchoptions" / v.S4, "groupstatus" / Hex(1), "segmentstatus" / Hex(1),
                   "segmentation" / Hex(1), "reserved1" / Hex(1)]
    if version >= 3:
        fields += ["msgtoken" / Hex(16), "returnedlength" / v.S4]
    if version >= 4:
        fields += ["reserved2" / v.S4, "msghandle" / v.S8]
    return dsect("MQGMO", *fields)


@lru_cache(maxsize=32)
def mqpmo(big: bool, codepage: str, version: int = 1) -> Layout:
    """MQPMO (put-message options), versions 1 to 3."""
    v = Variant(big=big, codepage=codepage)
    fields = ["strucid" / v.text(4), "version" / v.S4, "options" / v.S4, "timeout" / v.S4,
              "context" / v.S4, "knowndestcount" / v.S4, "unknowndestcount" / v.S4,
              "invaliddestcount" / v.S4, "resolvedqname" / v.text(48),
              "resolvedqmgrname" / v.text(48)]
    if version >= 2:
        fields += ["recspresent" / v.S4, "putmsgrecfields" / v.S4, "putmsgrecoffset" / v.S4,
                   "responserecoffset" / v.S4, "putmsgrecptr" / v.S4, "responserecptr" / v.S4]
    if version >= 3:
        fields += ["originalmsghandle" / v.S8, "newmsghandle" / v.S8, "action" / v.S4,
                   "publevel" / v.S4]
    return dsect("MQPMO", *fields)


def layouts() -> dict[str, Layout]:
    """Every declaration (both byte orders): what the architecture tests read."""
    out: dict[str, Layout] = {"TSH.start": tsh_start(), "TSHM": tsh_mpx()}
    for big in (True, False):
        e = "be" if big else "le"
        for name, f in (("TSH.rest", tsh_rest), ("API", api_header), ("ASYNC", async_header),
                        ("ASYNC.first", async_first), ("REQMSGS", request_msgs), ("MSH", msh),
                        ("SPI", spi_header), ("SPxx", spi_struct), ("SPxx.data", spi_data),
                        ("LPOO", lpoo)):
            out[f"{name}.{e}"] = f(big)
        for version in OD_VERSIONS:
            out[f"MQOD.v{version}.{e}"] = mqod(big, "latin-1", version)
        for version in GMO_VERSIONS:
            out[f"MQGMO.v{version}.{e}"] = mqgmo(big, "latin-1", version)
        for version in PMO_VERSIONS:
            out[f"MQPMO.v{version}.{e}"] = mqpmo(big, "latin-1", version)
    return out
