"""Independent generators of the queue-dump files IBM's tools write, from their public source.

* ``qload_file``: qload / dmpmqmsg (``ibm-messaging/mq-q-qload``, ``qloadfnc.c``:
  ``WriteFileMQMD``, ``WriteFileMessageHex``, ``WriteFileMessageString``,
  ``WriteFileMessageText``, ``WriteFileHeader``): display modes hex, ``-da``, ``-dA``,
  ``-dp``, ``-dt``, ``-dN``, ``-di``, ``-dc``, ``-w N``.
* ``amqsbcg_listing``: ``amqsbcg0.c`` (9.x: ``printMD``, ``printProperties``, the data
  lines with multi-byte overrun in a UTF-8 locale; 7.x: ``length - N bytes`` and no
  padding for multi-byte characters).
* ``rfhutil_file``: RFHUtil ``DataArea::saveMsgs`` (``#@#@#``, properties and ``$%$%$``,
  an MQMD2 in the machine's byte order).

These restate the writers, not mqtool's reader: tests compare the reader's result with the
messages the generators were given.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mqtool.formats.mq.mqmd import build_mqmd

# qloadfnc.c Flds[]: (type, id, MQMD name, length, version)
FLDS = [
    ("L", "VER", "version", 4, 2), ("L", "RPT", "report", 4, 0), ("L", "MST", "msgtype", 4, 0),
    ("L", "EXP", "expiry", 4, 0), ("L", "FDB", "feedback", 4, 0),
    ("L", "ENC", "encoding", 4, 0), ("L", "CCS", "codedcharsetid", 4, 0),
    ("C", "FMT", "format", 8, 0), ("L", "PRI", "priority", 4, 0),
    ("L", "PER", "persistence", 4, 0), ("B", "MSI", "msgid", 24, 0),
    ("B", "COI", "correlid", 24, 0), ("L", "BOC", "backoutcount", 4, 0),
    ("C", "RTQ", "replytoq", 48, 0), ("C", "RTM", "replytoqmgr", 48, 0),
    ("C", "USR", "useridentifier", 12, 0), ("B", "ACC", "accountingtoken", 32, 0),
    ("C", "AID", "applidentitydata", 32, "c"), ("B", "AIX", "applidentitydata", 32, "x"),
    ("L", "PAT", "putappltype", 4, 0), ("C", "PAN", "putapplname", 28, 0),
    ("C", "PTD", "putdate", 8, 0), ("C", "PTT", "puttime", 8, 0),
    ("C", "AOD", "applorigindata", 4, "c"), ("B", "AOX", "applorigindata", 4, "x"),
    ("B", "GRP", "groupid", 24, 2), ("L", "MSQ", "msgseqnumber", 4, 2),
    ("L", "OFF", "offset", 4, 2), ("L", "MSF", "msgflags", 4, 2),
    ("L", "ORL", "originallength", 4, 2),
]
DEFAULT_MQMD: dict[str, Any] = {
    "version": 2, "report": 0, "msgtype": 8, "expiry": -1, "feedback": 0, "encoding": 546,
    "codedcharsetid": 1208, "format": "MQSTR", "priority": 0, "persistence": 0,
    "msgid": bytes(24), "correlid": bytes(24), "backoutcount": 0, "replytoq": "",
    "replytoqmgr": "QM1", "useridentifier": "mqm", "accountingtoken": bytes(32),
    "applidentitydata": "", "putappltype": 6, "putapplname": "amqsput", "putdate": "20261123",
    "puttime": "18000000", "applorigindata": "", "groupid": bytes(24), "msgseqnumber": 1,
    "offset": 0, "msgflags": 0, "originallength": -1,
}


@dataclass
class Msg:
    body: bytes
    mqmd: dict[str, Any] = field(default_factory=dict)
    properties: dict[str, Any] = field(default_factory=dict)

    def md(self) -> dict[str, Any]:
        return {**DEFAULT_MQMD, **self.mqmd}


def _isprint(c: int) -> bool:
    return 0x20 <= c <= 0x7E


def _invariant(c: int) -> bool:
    return c != 0 and (chr(c).isascii() and (chr(c).isalnum() or chr(c) in " '()+,-./:=?_"))


# --------------------------------------------------------------------------- qload / dmpmqmsg


def qload_file(msgs: list[Msg], mode: str = "hex", width: int = 25, ascii_cols: bool = False,
               no_mqmd: bool = False, index: bool = False, char_appl: bool = False,
               header: str = "qload", eol: str = "\n", qmgr: str = "QM1",
               queue: str = "Q.A") -> bytes:
    """A file as ``qload -f`` / ``dmpmqmsg -f`` writes it. ``mode``: hex (default), A
    (``-dA``), p (``-dp``), t (``-dt``); ``ascii_cols``: ``-da``."""
    w = 25 if width <= 0 else max(10, width)
    out = bytearray()
    if header == "qload":
        out += b"* QLOAD Version:8.0 Created:Mon Nov 23 18:00:00 2026\n"
    elif header == "dmpmqmsg":
        out += b"* Dumped by dmpmqmsg Version:9.3.0.0 Created:Mon Nov 23 18:00:00 2026\n"
    if header:
        out += f"* Qmgr  = {qmgr}\n* Queue = {queue}\n\n".encode()
    for i, m in enumerate(msgs, 1):
        if index:
            out += f"* Index {i}\n".encode()
        out += b"N\n" if no_mqmd else _qload_mqmd(m.md(), char_appl)
        out += _qload_text(m.body, mode, w, ascii_cols)
        out += b"\n"
    return bytes(out).replace(b"\n", eol.encode())


def _qload_mqmd(md: dict[str, Any], char_appl: bool) -> bytes:
    out = bytearray()
    for kind, code, name, length, ver in FLDS:
        if (ver == "c" and not char_appl) or (ver == "x" and char_appl):
            continue
        if isinstance(ver, int) and ver and md["version"] < ver:
            continue
        v = md[name]
        if kind == "L":
            out += f"A {code} {v}\n".encode()
        elif kind == "C":
            raw = v.encode("latin-1") if isinstance(v, str) else v
            raw = raw[:length].ljust(length, b" ")  # blank padded, written up to a NUL
            out += f"A {code} ".encode() + raw.split(b"\x00")[0] + b"\n"
        else:
            raw = v if isinstance(v, bytes) else v.encode("latin-1").ljust(length, b" ")
            out += f"A {code} ".encode() + raw[:length].ljust(length, b"\x00").hex().upper().encode() + b"\n"
    return bytes(out)


def _hex_lines(data: bytes, w: int, ascii_cols: bool) -> bytes:
    out = bytearray(b"X ")
    start = 0
    i = 0
    for k, c in enumerate(data):
        out += f"{c:02X}".encode()
        i += 1
        last = k == len(data) - 1
        if i >= w or last:
            if ascii_cols:
                line_len = i
                while i < w + 1:
                    out += b"  "
                    i += 1
                out += b"<" + bytes(c if _isprint(c) else 0x2E for c in data[start:start + line_len]) + b">"
            if last:
                break
            out += b"\nX "
            start = k + 1
            i = 0
    return bytes(out) + b"\n"


def _string_lines(data: bytes, w: int) -> bytes:
    out = bytearray()
    n = len(data)
    p = 0
    while True:
        out += b"S "
        length = min(w * 2 - 2, n)
        if not n or not length:
            out += b"\n"
            break
        out += b'"'
        for c in data[p:p + length]:
            if c in (0x22, 0x7E):
                out.append(0x7E)
            out.append(c)
        out += b'"\n'
        n -= length
        p += length
        if not n:
            break
    return bytes(out)


def _qload_text(body: bytes, mode: str, w: int, ascii_cols: bool) -> bytes:
    if mode == "hex":
        return _hex_lines(body, w, ascii_cols)
    out = bytearray()
    ok = _invariant if mode == "A" else _isprint
    p, end, first = 0, len(body), True
    if mode in ("A", "p"):
        while True:
            q = p
            while q < end and ok(body[q]):
                q += 1
            if q > p or first:
                out += _string_lines(body[p:q], w)
            p = q
            if p >= end:
                break
            while q < end and not ok(body[q]):
                q += 1
            out += _hex_lines(body[p:q], w, ascii_cols)
            p = q
            if p >= end:
                break
            first = False
        return bytes(out)
    # -dt
    while True:
        q = p
        while q < end and _isprint(body[q]):
            q += 1
        if q > p or first or (q < end and body[q] in b"\r\n"):
            out += b"T " + body[p:q] + b"\n"
        first = False
        p = q
        if p >= end:
            break
        if body[p] == 0x0A:
            p += 1
            if p < end and body[p] == 0x0D:
                p += 1
            continue
        if body[p] == 0x0D:
            p += 1
            if p < end and body[p] == 0x0A:
                p += 1
            continue
        q = p
        while q < end and not _isprint(body[q]):
            q += 1
        out += _hex_lines(body[p:q], w, False)
        p = q
        if p >= end:
            break
    return bytes(out)


# --------------------------------------------------------------------------- amqsbcg


def _utf8_len(buf: bytes, i: int) -> int:
    """mblen() in a UTF-8 locale: the length of a valid sequence at ``i``, else -1."""
    c = buf[i]
    n = 2 if 0xC2 <= c <= 0xDF else 3 if 0xE0 <= c <= 0xEF else 4 if 0xF0 <= c <= 0xF4 else 1
    if n == 1:
        return 1
    try:
        buf[i:i + n].decode("utf-8")
    except UnicodeDecodeError:
        return -1
    return n if i + n <= len(buf) else -1


def _prop_value(v: Any) -> str:
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if v is None:
        return "NULL"
    if isinstance(v, bytes):
        return "X'" + v.hex().upper() + "'"
    if isinstance(v, float):
        return f"{v:.18g}"
    if isinstance(v, int):
        return str(v)
    return f"'{v}'"


def amqsbcg_listing(msgs: list[Msg], version: int = 9, properties: bool = False,
                    utf8_locale: bool = True, buffer: int = 65536, queue: str = "Q.A") -> str:
    """amqsbcg output for ``msgs`` (``buffer``: its MQGET buffer, 64 KiB)."""
    mbcsmax = 6 if (utf8_locale and version >= 9) else 1
    o: list[str] = ["\nAMQSBCG0 - starts here\n", "**********************\n "]
    o.append(f"\n MQOPEN - '{queue}'")
    if properties:
        o.append("\n MQCRTMH")
    o.append("\n ")
    first_page = True
    for j, m in enumerate(msgs, 1):
        if not first_page:
            o.append("\n ")
        first_page = False
        md = m.md()
        o.append("\n ")
        o.append(f"\n MQGET of message number {j}, CompCode:0 Reason:0")
        o.append(_print_md(md))
        if properties:
            o.append("\n ")
            o.append("\n****Message properties****\n")
            if not m.properties:
                o.append("\n  None\n")
            for name, v in m.properties.items():
                o.append(f"\n  {name} : {_prop_value(v)}")
        o.append("\n ")
        o.append("\n****   Message      ****\n ")
        shown = min(len(m.body), buffer)
        if version >= 9:
            o.append(f"\n length - {shown} of {len(m.body)} bytes\n ")
        else:
            o.append(f"\n length - {shown} bytes\n ")
        o.append(_data_lines(m.body[:shown], mbcsmax))
    if msgs:
        o.append("\n ")
    o.append("\n \n \n No more messages ")
    if msgs and version >= 9:
        sizes = [len(m.body) for m in msgs]
        o.append(f"\n\n****   Summary      ****\n {len(msgs)} messages browsed.\n Smallest message "
                 f"{min(sizes)} bytes.\n Largest message {max(sizes)} bytes.\n Average message "
                 f"{sum(sizes) // len(sizes)} bytes.\n")
    if properties:
        o.append("\n MQDLTMH")
    o.append("\n MQCLOSE")
    o.append("\n MQDISC")
    o.append("\n")
    return "".join(o)


def _q(v: Any) -> str:
    return v.decode("latin-1") if isinstance(v, bytes) else str(v)


def _print_md(md: dict[str, Any]) -> str:
    def x(v: bytes, n: int) -> str:
        return v[:n].ljust(n, b"\x00").hex().upper()

    def c(v: Any, n: int) -> str:
        return _q(v)[:n].ljust(n)

    return "".join([
        "\n****Message descriptor****\n",
        "\n  StrucId  : 'MD  '", f"  Version : {md['version']}",
        f"\n  Report   : {md['report']}", f"  MsgType : {md['msgtype']}",
        f"\n  Expiry   : {md['expiry']}", f"  Feedback : {md['feedback']}",
        f"\n  Encoding : {md['encoding']}", f"  CodedCharSetId : {md['codedcharsetid']}",
        f"\n  Format : '{c(md['format'], 8)}'",
        f"\n  Priority : {md['priority']}", f"  Persistence : {md['persistence']}",
        f"\n  MsgId : X'{x(md['msgid'], 24)}'", f"\n  CorrelId : X'{x(md['correlid'], 24)}'",
        f"\n  BackoutCount : {md['backoutcount']}",
        f"\n  ReplyToQ       : '{c(md['replytoq'], 48)}'",
        f"\n  ReplyToQMgr    : '{c(md['replytoqmgr'], 48)}'",
        "\n  ** Identity Context",
        f"\n  UserIdentifier : '{c(md['useridentifier'], 12)}'",
        f"\n  AccountingToken : \n   X'{x(md['accountingtoken'], 32)}'",
        f"\n  ApplIdentityData : '{c(md['applidentitydata'], 32)}'",
        "\n  ** Origin Context",
        f"\n  PutApplType    : '{md['putappltype']}'",
        f"\n  PutApplName    : '{c(md['putapplname'], 28)}'",
        f"\n  PutDate  : '{c(md['putdate'], 8)}'", f"    PutTime  : '{c(md['puttime'], 8)}'",
        f"\n  ApplOriginData : '{c(md['applorigindata'], 4)}'\n",
        f"\n  GroupId : X'{x(md['groupid'], 24)}'",
        f"\n  MsgSeqNumber   : '{md['msgseqnumber']}'",
        f"\n  Offset         : '{md['offset']}'",
        f"\n  MsgFlags       : '{md['msgflags']}'",
        f"\n  OriginalLength : '{md['originallength']}'",
    ])


def _data_lines(buf: bytes, mbcsmax: int) -> str:
    """The do-while loop of amqsbcg0.c's main (one line at least, even for no data)."""
    out: list[str] = []
    ch = 0
    overrun = 0
    n = len(buf)
    per = 16
    while True:
        chars = 0
        text: list[str] = []
        out.append(f"\n{ch:08X}: ")
        while overrun > 0:
            out.append("  ")
            text.append(" ")
            chars += 1
            if overrun % 2:
                out.append(" ")
            overrun -= 1
        while chars < per and ch < n:
            clen = _utf8_len(buf, ch) if mbcsmax > 1 else 1
            if clen < 1:
                clen = 1
            if clen > 1:
                for _ in range(clen):
                    if chars % 2 == 0 and chars < per:
                        out.append(" ")
                    out.append(f"{buf[ch]:02X}")
                    text.append(chr(buf[ch]))
                    chars += 1
                    ch += 1
            else:
                if chars % 2 == 0:
                    out.append(" ")
                out.append(f"{buf[ch]:02X}")
                text.append(chr(buf[ch]) if _isprint(buf[ch]) else ".")
                chars += 1
                ch += 1
        if chars > per:
            overrun = chars - per
        while chars < per:
            if chars % 2 == 0:
                out.append(" ")
            out.append("  ")
            text.append(" ")
            chars += 1
        out.append(" " * ((mbcsmax - overrun - 1) * 2))
        out.append(" '" + "".join(text) + "'")
        if ch >= n:
            break
    # the character column holds raw bytes of multi-byte characters: latin-1 keeps them
    return "".join(out)


# --------------------------------------------------------------------------- RFHUtil


def _rfh_prop(name: str, v: Any) -> bytes:
    if v is None:
        return f"{name}(xsi:nil='true')=".encode()
    if isinstance(v, bool):
        return f"{name}(dt='boolean')={'TRUE' if v else 'FALSE'}".encode()
    if isinstance(v, int):
        return f"{name}(dt='i4')={v}".encode()
    if isinstance(v, float):
        return f"{name}(dt='r8')={v!r}".encode()
    if isinstance(v, bytes):
        return f"{name}(dt='bin.hex')={v.hex().upper()}".encode()
    return f"{name}={v}".encode()


def rfhutil_file(msgs: list[Msg], include_mqmd: bool = True, big: bool = False,
                 delimiter: bytes = b"#@#@#", prop_delim: bytes = b"$%$%$") -> bytes:
    """An RFHUtil "save messages" file (one file for all messages)."""
    out = bytearray()
    for m in msgs:
        if out:
            out += delimiter
        if m.properties:
            out += b"".join(_rfh_prop(k, v) + b"\n" for k, v in m.properties.items())
            out += prop_delim
        if include_mqmd:
            md = {k: v for k, v in m.md().items() if k != "version"}
            out += build_mqmd(md, big=big, ebcdic=False, version=2)
        out += m.body
    return bytes(out)
