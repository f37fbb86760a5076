"""amqsbcg browse listings -> messages (IBM's sample ``amqsbcg0.c``, MQ 7.x and 9.x).

A listing holds, per message: ``MQGET of message number N``, ``****Message descriptor****``
and the MQMD field by field (``Name : value``), optionally ``****Message properties****``
(``  name : value`` lines: ``'string'``, ``X'bytes'``, ``TRUE``/``FALSE``, numbers,
``NULL``; ``None`` when there are none), optionally ``****Dead Letter Header****`` (then the
hex shows the bytes after the MQDLH), ``****   Message      ****``, ``length - N of M
bytes`` (9.x; 7.x: ``length - N bytes``) and the body as data lines ``XXXXXXXX:  hhhh hhhh
... 'chars'``. With a multi-byte locale, a character that crosses the 16th byte is shown
whole on its line (up to 3 bytes more) and the next line starts later.

Listings pasted through web editors are read when that is unambiguous: ``\\*`` is ``*``,
typographic quotes are quotes, no-break spaces are blanks (a problem says so). Every
regular expression here is linear in the line length.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from mqtool.formats.mq.dumps.lines import Line
from mqtool.formats.mq.dumps.message import Message
from mqtool.formats.mq.mqmd import FIELD_NAMES, HEX_FIELDS, INT_FIELDS, TEXT_FIELDS, mqmd_layout

_NAMES = {n: n for n in FIELD_NAMES}
# amqsbcg prints character fields at their full width ('%.*s'): a quote inside stays inside
_WIDTHS = {f.name: f.size for f in mqmd_layout().fields if f.kind == "text"}
_FIELD = re.compile(r"(?<!\w)(\w+)[ \t]*:[ \t]*")
_LENGTH = re.compile(r"length[ \t]*-[ \t]*(\d{1,12})(\d*)(?:[ \t]+of[ \t]+(\d{1,12})(\d*))?[ \t]+bytes",
                     re.IGNORECASE)
_DATA = re.compile(r"[ \t]*([0-9A-Fa-f]{8}):")
_HEXWORD = re.compile(r"[0-9A-Fa-f]+")
_DATA_B = re.compile(rb"[ \t]*([0-9A-Fa-f]{8}):")
_PROPERTY = re.compile(r"[ \t]+(\S+) : ")
_NUMBER = re.compile(r"[-+]?\d+")
_FLOAT = re.compile(r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|inf|nan)", re.IGNORECASE)
_PASTED = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'",
                         "\u2032": "'", "\u201c": '"', "\u201d": '"', "\u201e": '"',
                         "\u00a0": " ", "\u2007": " ", "\u202f": " "})
MAX_LINE_BYTES = 16 + 3  # a line's 16 bytes and a multi-byte character's overrun


def _text(raw: bytes) -> tuple[str, bool]:
    """A line as text, and whether it needed the web-paste repairs."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError:
        line = raw.decode("latin-1")
    fixed = line.translate(_PASTED)
    if "\\*" in fixed:
        fixed = fixed.replace("\\*", "*")
    return fixed, fixed != line


def _marker(stripped: str) -> str | None:
    """The section a ``****`` line opens."""
    if not stripped.startswith("****"):
        return None
    words = stripped.strip("* ").lower()
    if words.startswith("message descriptor"):
        return "md"
    if words.startswith("message properties"):
        return "props"
    if words.startswith("dead letter header"):
        return "dlh"
    if words.startswith("message"):
        return "body"
    if words.startswith("summary"):
        return "end"
    return None


class AmqsbcgReader:
    """Read an amqsbcg listing as a stream of messages."""

    def __init__(self, name: str, first: int = 0) -> None:
        self.name = name
        self.position = first
        self.msg: Message | None = None
        self.section = ""
        self.pending = ""
        self.prop: tuple[str, list[str], int] | None = None  # an open multi-line string
        self.shown: int | None = None
        self.total: int | None = None
        self.length_line = 0
        self.pasted = False
        self.data_lines = 0

    def read(self, lines: Iterable[Line]) -> Iterator[Message]:
        last: Line | None = None
        for ln in lines:
            last = ln
            done = self._line(ln)
            if done is not None:
                yield done
        if self.msg is not None:
            yield self._finish(last, at_end=True)

    def _where(self, n: int) -> str:
        return f"{self.name} line {n}"

    def _line(self, ln: Line) -> Message | None:
        if self.section == "body" and self.msg is not None and self._fast_data(ln):
            return None
        line, pasted = _text(ln.text)
        stripped = line.strip()
        n = ln.number
        if "MQGET of message number" in line:
            done = self._finish(ln) if self.msg is not None else None
            self._start(ln, "get")
            return done
        marker = _marker(stripped)
        if marker == "md" and self.section not in ("get", ""):
            done = self._finish(ln) if self.msg is not None else None
            self._start(ln, "md")
            self._pasted(pasted, n)
            return done
        if marker == "md" and self.msg is None:
            self._start(ln, "md")
        if self.msg is None:
            return None
        self._pasted(pasted, n)
        if self.prop is not None and marker is None:
            self._prop_continue(line, n)
            return None
        if marker is not None:
            self._close_prop()
            self.section = marker
            if marker == "dlh":
                self.msg.problem(f"amqsbcg: line {n}: the listing shows the dead-letter header "
                                 "(MQDLH) as fields; the body shown holds the bytes after it",
                                 0, self._where(n))
            return None
        if stripped.startswith(("No more messages", "MQCLOSE", "MQDISC")) or (
                stripped.startswith("MQGET") and "failed" in stripped):
            self.section = "end"
            return None
        d = _DATA.match(line)
        if d and self.section not in ("end",):
            self._data(line, d, n)
            return None
        if self.section == "md":
            self._fields(line, n)
        elif self.section == "props":
            self._property(line, n)
        elif self.section == "body":
            self._length(line, n)
        return None

    def _fast_data(self, ln: Line) -> bool:
        """A plain data line in the body, read from its bytes (the common case); False to
        take the careful path."""
        m = _DATA_B.match(ln.text)
        if m is None:
            return False
        raw = ln.text
        q = raw.find(b"'", m.end())
        if q < 0:
            return False
        try:
            got = bytes.fromhex(raw[m.end():q].decode("ascii"))
        except (UnicodeDecodeError, ValueError):
            return False
        msg = self.msg
        assert msg is not None
        if len(got) > MAX_LINE_BYTES or int(m.group(1), 16) != len(msg.body):
            return False
        self.data_lines += 1
        msg.body += got
        return True

    def _pasted(self, pasted: bool, n: int) -> None:
        if pasted and not self.pasted and self.msg is not None:
            self.pasted = True
            self.msg.problem(f"amqsbcg: line {n}: typographic quotes, '\\*' or no-break spaces "
                             "(a listing pasted through an editor) read as plain quotes, '*' "
                             "and blanks", 0, self._where(n))

    def _start(self, ln: Line, section: str) -> None:
        self.position += 1
        self.msg = Message(self.position, b"", {}, self._where(ln.number))
        self.msg.body = bytearray()  # type: ignore[assignment]
        self.section = section
        self.shown = self.total = None
        self.pending = ""
        self.prop = None
        self.pasted = False
        self.data_lines = 0
        self.length_line = 0

    def _finish(self, ln: Line | None, at_end: bool = False) -> Message:
        msg = self.msg
        assert msg is not None
        self._close_prop()
        msg.body = bytes(msg.body)
        msg.mqmd.pop("strucid", None)
        where = self._where(self.length_line or (ln.number if ln else 0))
        if self.shown is None and not self.data_lines:
            if at_end:
                msg.cut(f"amqsbcg: the listing ends inside message {msg.position}, before its "
                        "data: the message is truncated", 0, self._where(ln.number if ln else 0))
            else:
                msg.problem(f"amqsbcg: message {msg.position} has no 'length -' line and no "
                            "data lines", 0, msg.source, usable=False)
        elif self.shown is None:
            msg.problem(f"amqsbcg: message {msg.position} has data lines but no 'length - N "
                        "bytes' line: its length is not known", 0, msg.source)
        elif self.total is not None and self.shown < self.total:
            msg.cut(f"amqsbcg: the listing shows {self.shown} of the message's {self.total} "
                    "bytes: the body is truncated", self.shown, where)
        if self.shown is not None and len(msg.body) < self.shown and not msg.truncated:
            msg.cut(f"amqsbcg: the listing announces {self.shown} bytes but shows "
                    f"{len(msg.body)}: the body is truncated", len(msg.body), where)
        elif self.shown is not None and len(msg.body) > self.shown:
            msg.problem(f"amqsbcg: the listing announces {self.shown} bytes but shows "
                        f"{len(msg.body)}", self.shown, where, usable=False)
        self.msg = None
        return msg

    # -- MQMD ----------------------------------------------------------------------------

    def _fields(self, line: str, n: int) -> None:
        msg = self.msg
        assert msg is not None
        pos = 0
        found = False
        while True:
            m = _FIELD.search(line, pos)
            if m is None:
                break
            found = True
            name = _NAMES.get(m.group(1).lower())
            value, pos = _value(line, m.end(), _WIDTHS.get(name or ""))
            if name is None:
                continue
            if not value:
                self.pending = name
                continue
            self._set(name, value, n)
            self.pending = ""
        if not found and self.pending and line.strip().startswith("X'"):
            self._set(self.pending, line.strip(), n)
            self.pending = ""

    def _set(self, name: str, value: str, n: int) -> None:
        msg = self.msg
        assert msg is not None
        try:
            if value.startswith("X'"):
                if not value.endswith("'") or len(value) < 3:
                    raise ValueError("no closing quote")
                raw = bytes.fromhex(value[2:-1])
                msg.mqmd[name] = raw if name in HEX_FIELDS else raw.decode("latin-1").rstrip(" \x00")
            else:
                text = value[1:-1] if value.startswith("'") and value.endswith("'") else value
                if name in INT_FIELDS:
                    if not _NUMBER.fullmatch(text.strip()) or len(text.strip()) > 12:
                        raise ValueError("not a number")
                    msg.mqmd[name] = int(text.strip())
                elif name in HEX_FIELDS:
                    raise ValueError("not X'hex'")
                elif name in TEXT_FIELDS or name == "strucid":
                    msg.mqmd[name] = text.rstrip(" ")
        except ValueError:
            msg.problem(f"amqsbcg: line {n}: {name} value {value[:60]!r} is not readable; field "
                        "left out", 0, self._where(n))

    # -- properties ----------------------------------------------------------------------

    def _property(self, line: str, n: int) -> None:
        msg = self.msg
        assert msg is not None
        if not line.strip() or line.strip() == "None":
            return
        m = _PROPERTY.match(line)
        if not m:
            msg.problem(f"amqsbcg: line {n}: not a property line ({line.strip()[:40]!r}); "
                        "ignored", 0, self._where(n))
            return
        name, value = m.group(1), line[m.end():].rstrip()
        if value.startswith("'") and (len(value) < 2 or not value.endswith("'")):
            self.prop = (name, [value[1:]], n)  # a string value that goes on
            return
        try:
            msg.properties[name] = property_value(value)
        except ValueError:
            msg.problem(f"amqsbcg: line {n}: property {name} value {value[:40]!r} is not "
                        "readable; kept as text", 0, self._where(n))
            msg.properties[name] = value

    def _prop_continue(self, line: str, n: int) -> None:
        assert self.prop is not None
        name, parts, _ = self.prop
        text = line.rstrip("\r")
        if text.endswith("'"):
            parts.append(text[:-1])
            assert self.msg is not None
            self.msg.properties[name] = "\n".join(parts)
            self.prop = None
        else:
            parts.append(text)

    def _close_prop(self) -> None:
        if self.prop is not None and self.msg is not None:
            name, parts, n = self.prop
            self.msg.properties[name] = "\n".join(parts)
            self.msg.problem(f"amqsbcg: line {n}: property {name}: string value without its "
                             "closing quote", 0, self._where(n))
            self.prop = None

    # -- body ----------------------------------------------------------------------------

    def _length(self, line: str, n: int) -> None:
        m = _LENGTH.search(line)
        if not m:
            return
        msg = self.msg
        assert msg is not None
        if m.group(2) or m.group(4):
            msg.problem(f"amqsbcg: line {n}: a length of more than 12 digits is not "
                        "believable; ignored", 0, self._where(n), usable=False)
            return
        self.shown = int(m.group(1))
        self.total = int(m.group(3)) if m.group(3) else self.shown
        self.length_line = n

    def _data(self, line: str, d: re.Match[str], n: int) -> None:
        msg = self.msg
        assert msg is not None
        if self.section != "body" and not self.data_lines:
            msg.problem(f"amqsbcg: line {n}: data lines without a '****   Message      ****' "
                        "line before them; read as the body", 0, self._where(n))
        self.section = "body"
        self.data_lines += 1
        off = int(d.group(1), 16)
        have = len(msg.body)
        got = bytearray()
        for w in hex_words(line, d.end()):
            if len(w) % 2:
                msg.problem(f"amqsbcg: line {n}: hex word {w!r} has an odd number of digits",
                            have + len(got), self._where(n), usable=False)
                break
            got += bytes.fromhex(w)
        if off != have:
            why = "lines are missing" if off > have else "a line is repeated or out of order"
            msg.problem(f"amqsbcg: line {n}: data line at offset {off:08X} where {have:08X} "
                        f"was expected: {why}", have, self._where(n), usable=False)
        if len(got) > MAX_LINE_BYTES:
            msg.problem(f"amqsbcg: line {n}: {len(got)} bytes on one data line (at most "
                        f"{MAX_LINE_BYTES}): the character column may have been read as hex",
                        have, self._where(n), usable=False)
        msg.body += got


def hex_words(line: str, start: int) -> Iterator[str]:
    """The hex words of a data line after its offset, up to the character column."""
    pos = start
    size = len(line)
    while pos < size:
        while pos < size and line[pos] in " \t":
            pos += 1
        m = _HEXWORD.match(line, pos)
        if m is None:
            return
        end = m.end()
        if end < size and line[end] not in " \t":
            return  # a word that runs into other characters: the character column
        yield m.group()
        pos = end


def _value(line: str, at: int, width: int | None = None) -> tuple[str, int]:
    """The value of a field that starts at ``at``, and where the next field may start
    (``width``: a character field's size, for values that hold a quote)."""
    rest = line[at:at + 2]
    if rest.startswith("X'"):
        end = line.find("'", at + 2)
        return (line[at:end + 1], end + 1) if end >= 0 else (line[at:].rstrip(), len(line))
    if rest.startswith("'"):
        if width and line[at + width + 1:at + width + 2] == "'":
            return line[at:at + width + 2], at + width + 2
        end = line.find("'", at + 1)
        return (line[at:end + 1], end + 1) if end >= 0 else (line[at:].rstrip(), len(line))
    end = at
    while end < len(line) and line[end] not in " \t":
        end += 1
    return line[at:end], end


def property_value(value: str) -> Any:
    """A property value as amqsbcg prints it: ``'text'``, ``X'hex'``, ``TRUE``, numbers, ``NULL``."""
    if value.startswith("X'") and value.endswith("'") and len(value) >= 3:
        return bytes.fromhex(value[2:-1])
    if value.startswith("'") and value.endswith("'") and len(value) >= 2:
        return value[1:-1]
    if value in ("TRUE", "FALSE"):
        return value == "TRUE"
    if value == "NULL":
        return None
    if _NUMBER.fullmatch(value) and len(value) <= 20:
        return int(value)
    if _FLOAT.fullmatch(value) and len(value) <= 40:
        return float(value)
    raise ValueError(value)
