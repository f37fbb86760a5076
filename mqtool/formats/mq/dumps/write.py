"""Writing queue dumps: dmpmqmsg text, amqsbcg-style listings and MQMD-prefixed binaries.

What ``build-request sas-attachment`` writes and the tests read back. The mqtool directory
writer sits with its reader in ``queue_dump``. Every writer streams: one message at a time.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import IO, Any

from mqtool import __version__
from mqtool.formats.mq.dumps.dmpmqmsg import CODES as DMPMQMSG_CODES
from mqtool.formats.mq.dumps.dmpmqmsg import MQMD_FIELD, PROPERTY, TRUNCATED, property_json
from mqtool.formats.mq.dumps.message import Message
from mqtool.formats.mq.mqmd import build_mqmd, byte_order_of

# dmpmqmsg writes the attributes in amqsbcg's field order
_DMP_ORDER = ("version", "report", "msgtype", "expiry", "feedback", "encoding", "codedcharsetid",
              "format", "priority", "persistence", "msgid", "correlid", "backoutcount",
              "replytoq", "replytoqmgr", "useridentifier", "accountingtoken", "applidentitydata",
              "putappltype", "putapplname", "putdate", "puttime", "applorigindata", "groupid",
              "msgseqnumber", "offset", "msgflags", "originallength")
_DEFAULTS: dict[str, Any] = {"version": 2, "report": 0, "msgtype": 8, "expiry": -1, "feedback": 0,
                             "encoding": 546, "codedcharsetid": 819, "format": "", "priority": 0,
                             "persistence": 0, "msgid": bytes(24), "correlid": bytes(24),
                             "backoutcount": 0, "replytoq": "", "replytoqmgr": "",
                             "useridentifier": "", "accountingtoken": bytes(32),
                             "applidentitydata": "", "putappltype": 0, "putapplname": "",
                             "putdate": "", "puttime": "", "applorigindata": "",
                             "groupid": bytes(24), "msgseqnumber": 1, "offset": 0, "msgflags": 0,
                             "originallength": -1}


def full_mqmd(msg: Message) -> dict[str, Any]:
    """The message's MQMD fields with MQMD defaults for those it does not carry (IBM MQ,
    MQMD initial values: MsgType MQMT_DATAGRAM, Expiry MQEI_UNLIMITED, ...)."""
    return {**_DEFAULTS, **msg.mqmd}


def write_dmpmqmsg(messages: Iterable[Message], out: IO[bytes], *, width: int = 32,
                   mqmd: bool = True, queue: str = "", qmgr: str = "") -> int:
    """dmpmqmsg file format: header comments, ``A`` lines (unless ``mqmd`` is False, then an
    ``N`` line per message), the body as ``X`` lines of ``width`` bytes, a blank line.

    Message properties, which the format has no lines for, go into ``* mqtool property
    NAME = JSON`` comments (the loader ignores comments; mqtool reads them back), a
    truncated body gets a ``* mqtool truncated`` comment. A text field an ``A`` line cannot
    hold as it is (line ends, trailing characters other than blanks, characters outside
    latin-1) is written there as near as it goes and exactly in a ``* mqtool mqmd NAME =
    JSON`` comment; a message read from a capture gets a ``* mqtool capture FILE: frames
    ...`` comment saying where it was seen."""
    out.write(f"* Dumped by mqtool {__version__} in dmpmqmsg file format\n"
              f"* Qmgr  = {qmgr}\n* Queue = {queue}\n\n".encode())
    n = 0
    for msg in messages:
        n += 1
        seen = getattr(msg, "provenance", None)
        if seen is not None:
            out.write(b"* mqtool capture " + _one_line(seen.describe()).encode("utf-8") + b"\n")
        if mqmd:
            fields = full_mqmd(msg)
            lines, exact = [], []
            for name in _DMP_ORDER:
                v = fields[name]
                code = DMPMQMSG_CODES[name]
                text = v.hex().upper() if isinstance(v, bytes) else _one_line(str(v))
                lines.append(f"A {code} {text}".rstrip(" ") + "\n")
                if isinstance(v, str) and not _survives(v):
                    exact.append(f"{MQMD_FIELD.decode()}{name} = {json.dumps(v)}\n")
            out.write("".join(lines).encode("latin-1", "replace"))
            out.write("".join(exact).encode("utf-8"))
        else:
            out.write(b"N\n")
        for name, value in msg.properties.items():
            out.write(PROPERTY + _one_line(str(name)).replace(" = ", " =").encode("utf-8")
                      + b" = " + json.dumps(property_json(value)).encode() + b"\n")
        if msg.truncated:
            out.write(TRUNCATED + b"\n")
        body = msg.body
        step = max(1, width)
        hexed = body.hex().upper().encode()
        if not hexed:
            out.write(b"X \n")  # an empty body, as dmpmqmsg writes it
        for i in range(0, len(hexed), 2 * step):
            out.write(b"X " + hexed[i:i + 2 * step] + b"\n")
        out.write(b"\n")
    return n


def _survives(text: str) -> bool:
    """Does an ``A`` line give this text back as it is (the reader drops trailing blanks,
    the padding of MQMD character fields)?"""
    try:
        text.encode("latin-1")
    except UnicodeEncodeError:
        return False
    return "\r" not in text and "\n" not in text


def _one_line(text: str) -> str:
    """A value that must stay on its line: line ends become blanks."""
    return text.replace("\r", " ").replace("\n", " ")


_BCG_MD = (
    ("StrucId", "strucid", "Version", "version"),
    ("Report", "report", "MsgType", "msgtype"),
    ("Expiry", "expiry", "Feedback", "feedback"),
    ("Encoding", "encoding", "CodedCharSetId", "codedcharsetid"),
    ("Format", "format", None, None),
    ("Priority", "priority", "Persistence", "persistence"),
    ("MsgId", "msgid", None, None),
    ("CorrelId", "correlid", None, None),
    ("BackoutCount", "backoutcount", None, None),
    ("ReplyToQ", "replytoq", None, None),
    ("ReplyToQMgr", "replytoqmgr", None, None),
)
_BCG_QUOTED_INTS = {"putappltype", "msgseqnumber", "offset", "msgflags", "originallength"}
_WIDTHS = {"format": 8, "replytoq": 48, "replytoqmgr": 48, "useridentifier": 12,
           "applidentitydata": 32, "putapplname": 28, "putdate": 8, "puttime": 8,
           "applorigindata": 4}


def _bcg_value(name: str, v: Any) -> str:
    if isinstance(v, bytes):
        return f"X'{v.hex().upper()}'"
    if name in _BCG_QUOTED_INTS:
        return f"'{v}'"
    if isinstance(v, int):
        return str(v)
    return "'" + str(v).ljust(_WIDTHS.get(name, 0)) + "'"


def write_amqsbcg(messages: Iterable[Message], out: IO[bytes], *, queue: str = "Q",
                  qmgr: str = "", show: int | None = None) -> int:
    """A browse listing in amqsbcg's layout (``show`` bytes of each body at most)."""
    w = out.write
    w(b"\nAMQSBCG0 - starts here\n**********************\n\n")
    w(f" MQOPEN - '{queue}'\n\n\n".encode("latin-1"))
    n = 0
    for n, msg in enumerate(messages, 1):
        md = {**full_mqmd(msg), "strucid": "MD  "}
        lines = [f" MQGET of message number {n}, CompCode:0 Reason:0",
                 "****Message descriptor****", ""]
        for a, fa, b, fb in _BCG_MD:
            text = f"  {a} : {_bcg_value(fa, md[fa])}"
            if b and fb:
                text += f"  {b} : {_bcg_value(fb, md[fb])}"
            lines.append(text)
        lines += ["  ** Identity Context",
                  f"  UserIdentifier : {_bcg_value('useridentifier', md['useridentifier'])}",
                  "  AccountingToken : ",
                  f"   {_bcg_value('accountingtoken', md['accountingtoken'])}",
                  f"  ApplIdentityData : {_bcg_value('applidentitydata', md['applidentitydata'])}",
                  "  ** Origin Context",
                  f"  PutApplType    : {_bcg_value('putappltype', md['putappltype'])}",
                  f"  PutApplName    : {_bcg_value('putapplname', md['putapplname'])}",
                  f"  PutDate  : {_bcg_value('putdate', md['putdate'])}"
                  f"    PutTime  : {_bcg_value('puttime', md['puttime'])}",
                  f"  ApplOriginData : {_bcg_value('applorigindata', md['applorigindata'])}",
                  "",
                  f"  GroupId : {_bcg_value('groupid', md['groupid'])}",
                  f"  MsgSeqNumber   : {_bcg_value('msgseqnumber', md['msgseqnumber'])}",
                  f"  Offset         : {_bcg_value('offset', md['offset'])}",
                  f"  MsgFlags       : {_bcg_value('msgflags', md['msgflags'])}",
                  f"  OriginalLength : {_bcg_value('originallength', md['originallength'])}",
                  "", "****   Message      ****", ""]
        body = msg.body if show is None else msg.body[:show]
        lines.append(f" length - {len(body)} of {len(msg.body)} bytes")
        lines.append("")
        w(("\n".join(lines) + "\n").encode("latin-1"))
        for off in range(0, len(body), 16):
            w(_bcg_line(off, body[off:off + 16]))
        w(b"\n\n\n")
    w(b" No more messages\n MQCLOSE\n MQDISC\n")
    return n


def _bcg_line(off: int, chunk: bytes) -> bytes:
    pairs = []
    for j in range(0, 16, 2):
        pairs.append(chunk[j:j + 2].hex().upper().ljust(4))
    chars = "".join(chr(c) if 0x20 <= c < 0x7F else "." for c in chunk).ljust(16)
    return f"{off:08X}:  {' '.join(pairs)}  '{chars}'\n".encode("latin-1")


def write_mqmd_binaries(messages: Iterable[Message], outdir: Any, *, big: bool | None = None,
                        ebcdic: bool | None = None, version: int = 2) -> int:
    """One ``NNNNNN.bin`` per message: MQMD (byte order and code page of the message's
    encoding and CCSID unless given) followed by the body."""
    from mqtool.codepages import is_ebcdic_ccsid

    n = 0
    for n, msg in enumerate(messages, 1):
        fields = {k: v for k, v in full_mqmd(msg).items() if k != "version"}
        b = big if big is not None else byte_order_of(fields.get("encoding")) != "little"
        e = ebcdic if ebcdic is not None else is_ebcdic_ccsid(fields.get("codedcharsetid"))
        with outdir.create(f"{msg.position or n:06d}.bin") as f:
            f.write(build_mqmd(fields, big=b, ebcdic=e, version=version))
            f.write(msg.body)
    return n
