"""RFHUtil files -> messages (``ibm-messaging/mq-rfhutil``, ``DataArea::saveMsgs``).

"Save messages" writes, per message: the separator ``#@#@#`` (not before the first), the
message properties as ``name=value`` lines (``name(dt='i4')=value`` for other types than
string, ``(xsi:nil='true')`` for NULL) followed by ``$%$%$`` when the message has any, the
MQMD (version 2, 364 bytes, the writing machine's byte order) when "include MQMD" is set,
then the message data with its MQ headers (RFH, RFH2, ...). "Write file" of one message
is the same without separator. Without MQMDs the separator alone splits messages; with
them, only a separator followed by (properties and) an MQMD does, so a body that holds
``#@#@#`` stays whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import IO, Any

from mqtool.formats.mq.dumps.message import Message
from mqtool.formats.mq.mqmd import MQMD_V2_SIZE, has_eye, parse_mqmd, sniff_mqmd

DELIMITER = b"#@#@#"
PROP_DELIMITER = b"$%$%$"
BLOCK = 1 << 20
MAX_PROPERTIES = 1 << 20  # properties text before an MQMD is looked for this far
_PROP = re.compile(rb"([^=(\r\n]+)(?:\(([^)]*)\))?=(.*)")
_DT = re.compile(rb"""dt=['"]?([\w.]+)""")


class RfhutilReader:
    """Read an RFHUtil save file as a stream of messages."""

    def __init__(self, name: str, first: int = 0, advance: Callable[[int], None] | None = None,
                 with_mqmd: bool | None = None) -> None:
        self.name, self.position, self.advance = name, first, advance
        self.with_mqmd = with_mqmd  # None: decided by the first message
        self.buf = bytearray()
        self.base = 0  # file offset of buf[0]
        self.eof = False
        self.f: IO[bytes] | None = None

    def _more(self) -> bool:
        if self.eof or self.f is None:
            self.eof = True
            return False
        data = self.f.read(BLOCK)
        if not data:
            self.eof = True
            return False
        if self.advance is not None:
            self.advance(len(data))
        self.buf += data
        return True

    def read(self, head: bytes, f: IO[bytes] | None) -> Iterator[Message]:
        self.buf, self.f = bytearray(head), f
        if self.advance is not None:
            self.advance(len(head))
        while len(self.buf) < 8 and self._more():
            pass
        if not self.buf:
            return
        if self.with_mqmd is None:
            self.with_mqmd = has_eye(self.buf) or self._props_end(0) is not None
        while True:
            msg, end = self._message()
            yield msg
            if end is None:
                return
            self.base += end + len(DELIMITER)
            del self.buf[:end + len(DELIMITER)]

    def _props_end(self, at: int) -> int | None:
        """The offset just after ``$%$%$`` when properties start at ``at`` and an MQMD
        follows them."""
        while True:
            i = self.buf.find(PROP_DELIMITER, at, at + MAX_PROPERTIES)
            if i >= 0:
                j = i + len(PROP_DELIMITER)
                while len(self.buf) < j + 4 and self._more():
                    pass
                if has_eye(self.buf, j):
                    return j
                return None
            if len(self.buf) >= at + MAX_PROPERTIES or not self._more():
                return None

    def _boundary(self, start: int) -> int | None:
        """The offset of the next separator that starts a message, None at the end."""
        pos = start
        while True:
            i = self.buf.find(DELIMITER, pos)
            if i < 0:
                pos = max(start, len(self.buf) - len(DELIMITER) + 1)
                if not self._more():
                    return None
                continue
            j = i + len(DELIMITER)
            if not self.with_mqmd:
                return i
            while len(self.buf) < j + 4 and self._more():
                pass
            if has_eye(self.buf, j) or (len(self.buf) <= j) or self._props_end(j) is not None:
                return i
            if props_like(bytes(self.buf[j:j + MAX_PROPERTIES])):
                if self.eof or not self._more():
                    return i  # the file ends in the properties of a next message
                pos = i
                continue
            pos = i + 1

    def _message(self) -> tuple[Message, int | None]:
        self.position += 1
        msg = Message(self.position, b"", {}, f"{self.name} offset {self.base}")
        at = 0
        if self.with_mqmd:
            props_end = self._props_end(0) if not has_eye(self.buf) else None
            if props_end is not None:
                msg.properties = parse_properties(bytes(self.buf[:props_end - len(PROP_DELIMITER)]),
                                                  msg)
                at = props_end
            while len(self.buf) < at + 400 and self._more():
                pass
            variant = sniff_mqmd(bytes(self.buf[at:at + 400]))
            if props_end is None and not has_eye(self.buf) and self.eof and \
                    props_like(bytes(self.buf[:MAX_PROPERTIES])):
                msg.cut(f"rfhutil: the file ends in the properties of message {msg.position} "
                        f"(offset {self.base})", 0)
                return msg, None
            if variant is None:
                if has_eye(self.buf, at) and len(self.buf) - at < MQMD_V2_SIZE:
                    msg.cut(f"rfhutil: the file ends inside the MQMD of message {msg.position} "
                            f"(offset {self.base + at})", at)
                    return msg, None
                msg.problem(f"rfhutil: no MQMD at offset {self.base + at} (eyecatcher 'MD  ', "
                            "version 1 or 2)", at, usable=False)
            else:
                values, size, _ = parse_mqmd(bytes(self.buf[at:at + 400]))
                values.pop("strucid", None)
                msg.mqmd = values
                at += size
        end = self._boundary(at)
        msg.body = bytes(self.buf[at:end] if end is not None else self.buf[at:])
        return msg, end


def props_like(tail: bytes) -> bool:
    """Text of ``name=value`` lines (what a save file cut in its properties ends with)."""
    lines = [ln for ln in tail.split(b"\n") if ln.strip()]
    return (bool(lines) and b"\x00" not in tail and b"=" in lines[0]
            and all(b"=" in ln for ln in lines[:-1]))


_TYPES = {b"i1": int, b"i2": int, b"i4": int, b"i8": int, b"r4": float, b"r8": float}


def parse_properties(text: bytes, msg: Message) -> dict[str, Any]:
    """RFHUtil's ``name=value`` property lines (``name(dt='i4')=42``)."""
    out: dict[str, Any] = {}
    for n, raw in enumerate(text.split(b"\n"), 1):
        raw = raw.rstrip(b"\r")
        if not raw.strip():
            continue
        m = _PROP.fullmatch(raw)
        if not m:
            msg.problem(f"rfhutil: property line {n} is not name=value; ignored", 0)
            continue
        name = m.group(1).decode("utf-8", "replace").strip()
        attrs, value = m.group(2) or b"", m.group(3)
        dt = _DT.search(attrs)
        kind = dt.group(1).lower() if dt else b""
        try:
            if b"nil" in attrs:
                out[name] = None
            elif kind in _TYPES:
                out[name] = _TYPES[kind](value.strip())
            elif kind == b"boolean":
                out[name] = value.strip().upper() in (b"TRUE", b"1", b"YES")
            elif kind == b"bin.hex":
                out[name] = bytes.fromhex(value.strip().decode("ascii"))
            else:
                out[name] = value.decode("utf-8", "replace")
        except (ValueError, UnicodeDecodeError):
            msg.problem(f"rfhutil: property {name} value {value[:40]!r} is not a "
                        f"{kind.decode('latin-1')}; kept as text", 0)
            out[name] = value.decode("utf-8", "replace")
    return out
