"""dmpmqmsg (formerly the qload SupportPac) text files -> messages, read line by line.

What the writer (``ibm-messaging/mq-q-qload``, ``qloadfnc.c``) puts in a file, and how its
loader reads it back:

* ``*`` comment lines: the file header (``* QLOAD Version:...``, ``* Dumped by dmpmqmsg``,
  ``* Qmgr  = ...``), ``* Index N`` before each message with ``-di``; blank lines (one closes
  every message). mqtool's own writer adds ``* mqtool property NAME = JSON`` and
  ``* mqtool truncated`` comments, which the loader ignores.
* ``A XXX value``: one MQMD field per line (``A MST 8``, ``A COI 414D...``); ``-dc`` writes
  ``AID``/``AOD`` (characters) instead of ``AIX``/``AOX`` (hex).
* ``N``: a message written with ``-dN`` (no MQMD).
* ``X hex``: body bytes, ``-w N`` bytes a line (default 25); ``-da`` adds blanks and the
  printable characters in ``<...>``. An empty body is a bare ``X `` line.
* ``S "text"``: ``-dA`` (invariant characters) and ``-dp`` (printable characters); ``~"`` is a
  quote and ``~~`` a tilde, nothing else follows ``~``. An empty body is a bare ``S `` line.
* ``T text``: ``-dt``; each line is text plus a line end when loaded, unprintable bytes
  between them come as ``X`` lines: lossy, so such a body is flagged not byte-exact.

CRLF, LF and CR-only line ends are read. Every bad line is a problem naming its line; a
file cut anywhere is read up to the cut and its last message is marked truncated.
"""

from __future__ import annotations

import binascii
import json
import re
from collections.abc import Callable, Iterator
from typing import IO, Any

from mqtool.formats.mq.dumps.lines import EOF, EOL, LONG, Line, Run, read_lines
from mqtool.formats.mq.dumps.message import Message
from mqtool.model import Problem

_HEX = object()
ATTRS: dict[str, tuple[str, object]] = {
    "VER": ("version", int), "RPT": ("report", int), "MST": ("msgtype", int),
    "EXP": ("expiry", int), "FDB": ("feedback", int), "ENC": ("encoding", int),
    "CCS": ("codedcharsetid", int), "FMT": ("format", str), "PRI": ("priority", int),
    "PER": ("persistence", int), "MSI": ("msgid", _HEX), "COI": ("correlid", _HEX),
    "BOC": ("backoutcount", int), "RTQ": ("replytoq", str), "RTM": ("replytoqmgr", str),
    "USR": ("useridentifier", str), "ACC": ("accountingtoken", _HEX),
    "AIX": ("applidentitydata", _HEX), "AID": ("applidentitydata", str),
    "PAT": ("putappltype", int), "PAN": ("putapplname", str), "PTD": ("putdate", str),
    "PTT": ("puttime", str), "AOX": ("applorigindata", _HEX), "AOD": ("applorigindata", str),
    "GRP": ("groupid", _HEX), "MSQ": ("msgseqnumber", int), "OFF": ("offset", int),
    "MSF": ("msgflags", int), "ORL": ("originallength", int),
}
_ATTRS_BYTES = {code.encode(): spec for code, spec in ATTRS.items()}
# MQMD name -> the code mqtool writes (characters for the two ApplData fields, as -dc)
CODES = {name: code for code, (name, _) in ATTRS.items() if code not in ("AIX", "AOX")}
_TEXT_HEX_FIELDS = ("applidentitydata", "applorigindata")
PROPERTY = b"* mqtool property "
MQMD_FIELD = b"* mqtool mqmd "  # an MQMD text field exactly, when its A line cannot hold it
TRUNCATED = b"* mqtool truncated"
_BLANKS = b" \t"
_WORD = re.compile(rb"[^ \t]+")
_CODE = re.compile(rb"[A-Z]{3}")


def printable(data: bytes) -> bytes:
    """The ``-da`` character column: printable ASCII as is, anything else ``.``."""
    return bytes(c if 0x20 <= c < 0x7F else 0x2E for c in data)


def line_kind(text: bytes) -> str | None:
    """What a dmpmqmsg line is: ``blank``, ``comment``, ``A``, ``N``, ``X``, ``S``, ``T``,
    or None (not a dmpmqmsg line). The sniffer scores files with it."""
    if not text.strip():
        return "blank"
    c = text[:1]
    if c == b"*":
        return "comment"
    rest = text[1:2]
    if c == b"A" and rest == b" " and _CODE.fullmatch(text[2:5]) and text[5:6] in (b"", b" "):
        return "A"
    if c in (b"X", b"S") and rest in (b"", b" ", b"\t"):
        return c.decode()
    if c == b"T" and rest in (b"", b" "):
        return "T"
    if c == b"N" and not text[1:].strip():
        return "N"
    return None


class DmpmqmsgReader:
    """Read a dmpmqmsg file as a stream of messages."""

    def __init__(self, name: str, first: int = 0, advance: Callable[[int], None] | None = None,
                 dump_problem: Callable[[Problem], None] | None = None) -> None:
        self.name, self.position, self.advance = name, first, advance
        self.dump_problem = dump_problem
        self.cur: Message | None = None
        self.has_data = False
        self.closed = False  # a blank line followed the current message's data
        self.text_lines = 0
        self.codes: set[bytes] = set()
        self.last: Line | None = None
        self.last_kind: str | None = None

    def read(self, head: bytes, f: IO[bytes] | None) -> Iterator[Message]:
        for ln in read_lines(head, f, self.advance, run_prefix=b"X "):
            if isinstance(ln, Run):
                yield from self._run(ln)
                continue
            done = self._one(ln)
            if done is not None:
                yield done
        if self.cur is not None:
            self._check_end()
            yield self._finish()

    def _one(self, ln: Line) -> Message | None:
        self.last = ln
        return self._line(ln)

    def _run(self, run: Run) -> list[Message]:
        """Consecutive ``X `` lines: one ``bytes.fromhex`` when they are plain hex (blanks
        and line ends separate bytes there, so an odd digit count still fails), else a
        line at a time."""
        first = Line(run.number, run.offset, b"X ", EOL)
        msg, done = self._data(first)
        text = run.text
        if (text.count(b"X") == run.lines and b"<" not in text
                and text.count(b"\r") == text.count(b"\r\n")):
            try:
                msg.body += bytes.fromhex(text.translate(None, b"X").decode("ascii"))
            except (ValueError, UnicodeDecodeError):
                pass
            else:
                last = text.rfind(b"\n", 0, len(text) - 1) + 1
                self.last = Line(run.number + run.lines - 1, run.offset + last,
                                 text[last:].rstrip(b"\r\n"), EOL)
                self.last_kind = "X"
                return [done] if done is not None else []
        out = [done] if done is not None else []
        offset = run.offset
        first_line = True
        for i, piece in enumerate(text.splitlines(keepends=True)):
            ln = Line(run.number + i, offset, piece.rstrip(b"\r\n"), EOL)
            offset += len(piece)
            if first_line:  # already counted as data by _data above
                self.last = ln
                self._xline(msg, ln.text, ln)
                self.last_kind = "X"
                first_line = False
                continue
            later = self._one(ln)  # a lone CR may have split a line: classify each piece
            if later is not None:
                out.append(later)
        return out

    # -- messages ------------------------------------------------------------------------

    def _where(self, ln: Line) -> str:
        return f"{self.name} line {ln.number}"

    def _start(self, ln: Line) -> Message | None:
        done = self._finish() if self.cur is not None else None
        self.position += 1
        self.cur = Message(self.position, b"", {}, self._where(ln))
        self.cur.body = bytearray()  # type: ignore[assignment]
        self.has_data = self.closed = False
        self.text_lines = 0
        self.codes = set()
        return done

    def _finish(self) -> Message:
        msg = self.cur
        assert msg is not None
        msg.body = bytes(msg.body)
        self.cur = None
        return msg

    def _check_end(self) -> None:
        msg, ln = self.cur, self.last
        assert msg is not None and ln is not None
        if msg.truncated:
            return
        if not self.has_data:
            msg.cut(f"dmpmqmsg: the file ends at line {ln.number} inside the MQMD of message "
                    f"{msg.position}, before its data lines: the message is truncated",
                    ln.offset, self._where(ln))
        elif ln.end == EOF and self.last_kind not in ("blank", "comment", "lost"):
            msg.cut(f"dmpmqmsg: the file ends inside line {ln.number} (no line end): the "
                    f"message is truncated", ln.offset, self._where(ln))
        elif not self.closed:
            msg.cut(f"dmpmqmsg: the file ends after line {ln.number} without the blank line "
                    "that closes every message: the message is truncated", ln.offset,
                    self._where(ln))

    def _data(self, ln: Line) -> tuple[Message, Message | None]:
        done = None
        if self.cur is None or (self.closed and self.has_data):
            done = self._start(ln)  # data with no MQMD before it: a message of its own
            assert self.cur is not None
            if self.position > 1 or done is not None:
                self.cur.problem(f"dmpmqmsg: line {ln.number}: data lines with no A or N line "
                                 "before them; read as a message of their own", ln.offset,
                                 self._where(ln))
        self.has_data = True
        self.closed = False
        assert self.cur is not None
        return self.cur, done

    def _lost(self, reason: str, ln: Line) -> None:
        """A problem with no message to hold it (between messages, in the header)."""
        p = Problem(self._where(ln), ln.offset, reason)
        if self.dump_problem is not None:
            self.dump_problem(p)

    # -- lines ---------------------------------------------------------------------------

    def _line(self, ln: Line) -> Message | None:
        t = ln.text
        if ln.end == LONG:
            reason = (f"dmpmqmsg: line {ln.number} is longer than {len(t)} bytes; "
                      "the line is skipped")
            if self.cur is not None:
                self.cur.problem(reason, ln.offset, self._where(ln), usable=False)
            else:
                self._lost(reason, ln)
            return None
        kind = line_kind(t)
        done = None
        if kind == "blank":
            if self.has_data:
                self.closed = True
        elif kind == "comment":
            self._comment(t, ln)
        elif kind == "A":
            done = self._attr(t, ln)
        elif kind == "N":
            done = self._start(ln)
        elif kind == "X":
            msg, done = self._data(ln)
            self._xline(msg, t, ln)
        elif kind == "S":
            msg, done = self._data(ln)
            self._sline(msg, t, ln)
        elif kind == "T":
            msg, done = self._data(ln)
            self._tline(msg, t, ln)
        else:
            shown = t[:24].decode("latin-1")
            reason = f"dmpmqmsg: line {ln.number} is not a dmpmqmsg line ({shown!r}); ignored"
            if ln.end == EOF and (self.cur is None or self.closed):
                reason = (f"dmpmqmsg: the file ends inside line {ln.number} ({shown!r}): the "
                          "next message is cut")
            if self.cur is not None and not self.closed:
                self.cur.problem(reason, ln.offset, self._where(ln), usable=not self.has_data)
            else:
                self._lost(reason, ln)
                kind = "lost"
        self.last_kind = kind
        return done

    def _comment(self, t: bytes, ln: Line) -> None:
        if self.cur is None:
            return
        if t.startswith(PROPERTY):
            name, sep, value = t[len(PROPERTY):].decode("utf-8", "replace").partition(" = ")
            try:
                if not sep:
                    raise ValueError("no ' = '")
                self.cur.properties[name] = property_value(json.loads(value))
            except ValueError as e:
                self.cur.problem(f"dmpmqmsg: line {ln.number}: property comment not "
                                 f"readable ({e}); left out", ln.offset, self._where(ln))
        elif t.startswith(MQMD_FIELD):
            name, sep, value = t[len(MQMD_FIELD):].decode("utf-8", "replace").partition(" = ")
            try:
                text = json.loads(value) if sep else None
                if ATTRS.get(CODES.get(name, ""), ("", int))[1] is not str \
                        or not isinstance(text, str):
                    raise ValueError(f"not an MQMD text field {name!r}")
                self.cur.mqmd[name] = text
            except ValueError as e:
                self.cur.problem(f"dmpmqmsg: line {ln.number}: MQMD comment not readable "
                                 f"({e}); left out", ln.offset, self._where(ln))
        elif t.rstrip() == TRUNCATED:
            self.cur.cut("dmpmqmsg: the writer marked this message truncated (the dump it was "
                         "converted from held only part of it)", ln.offset, self._where(ln))

    def _attr(self, t: bytes, ln: Line) -> Message | None:
        code = t[2:5]
        done = None
        # a new message starts with attributes after data, or (an empty body) when an
        # attribute comes a second time
        if self.cur is None or self.has_data or code in self.codes:
            done = self._start(ln)
        msg = self.cur
        assert msg is not None
        self.codes.add(code)
        spec = _ATTRS_BYTES.get(code)
        where = self._where(ln)
        if spec is None:
            msg.problem(f"dmpmqmsg: unknown attribute {code.decode('latin-1')!r}; ignored "
                        f"(line {ln.number})", ln.offset, where)
            return done
        name, kind = spec
        value = t[6:]
        try:
            if kind is int:
                msg.mqmd[name] = int(value)
            elif kind is _HEX:
                raw = bytes.fromhex(value.decode("latin-1"))
                if name in _TEXT_HEX_FIELDS:
                    msg.mqmd[name] = raw.decode("latin-1").rstrip(" \x00")
                else:
                    msg.mqmd[name] = raw
                    if name == "correlid" and len(raw) not in (20, 24):
                        msg.problem(f"dmpmqmsg: line {ln.number}: A COI has {len(raw)} bytes, "
                                    "a CorrelId has 24", ln.offset, where)
            else:
                msg.mqmd[name] = value.decode("latin-1").rstrip(" ")
        except ValueError:
            shown = value.decode("latin-1").strip()[:60]
            msg.problem(f"dmpmqmsg: line {ln.number}: A {code.decode('latin-1')} value {shown!r}"
                        f" is not {'a number' if kind is int else 'hex'}; field left out",
                        ln.offset, where)
        return done

    def _xline(self, msg: Message, t: bytes, ln: Line) -> None:
        body = t[2:]
        try:
            msg.body += binascii.unhexlify(body)
            return
        except (binascii.Error, ValueError):
            pass
        got = bytearray()
        for m in _WORD.finditer(body):
            word = m.group()
            col = m.start() + 3  # 1-based column in the line
            if word[:1] == b"<":  # -da: the character column closes the line
                chars = body[m.start():].rstrip(_BLANKS)
                if not chars.endswith(b">") or len(chars) < 2:
                    if ln.end == EOF:
                        break  # a cut line: _check_end reports it
                    msg.problem(f"dmpmqmsg: line {ln.number}: the character column at column "
                                f"{col} has no closing '>'", ln.offset, self._where(ln))
                elif printable(bytes(got)) != chars[1:-1]:
                    msg.problem(f"dmpmqmsg: line {ln.number}: the character column does not "
                                "match the hex digits (the hex digits are used)", ln.offset,
                                self._where(ln))
                break
            try:
                if len(word) % 2:
                    raise ValueError("odd")
                got += binascii.unhexlify(word)
            except (binascii.Error, ValueError):
                bad = next((i for i, c in enumerate(word) if c not in b"0123456789abcdefABCDEF"),
                           None)
                why = ("an odd number of hex digits" if bad is None else
                       f"{chr(word[bad])!r} at column {col + bad} is not a hex digit")
                msg.problem(f"dmpmqmsg: X line {ln.number}: {why}; the rest of this line is lost",
                            ln.offset, self._where(ln), usable=False)
                break
        msg.body += got

    def _sline(self, msg: Message, t: bytes, ln: Line) -> None:
        rest = t[1:].lstrip(_BLANKS)
        where = self._where(ln)
        if not rest:
            return  # an empty body
        if rest[:1] != b'"':
            msg.body += rest.rstrip(b" ")
            return
        out = bytearray()
        i = 1
        while True:
            q, e = rest.find(b'"', i), rest.find(b"~", i)
            if e >= 0 and (q < 0 or e < q):
                out += rest[i:e]
                nxt = rest[e + 1:e + 2]
                if nxt in (b'"', b"~"):
                    out += nxt
                    i = e + 2
                    continue
                msg.problem(f"dmpmqmsg: line {ln.number}: '~' followed by "
                            f"{nxt.decode('latin-1')!r} (only '~~' and '~\"' are escapes); "
                            "the rest of this line is lost", ln.offset, where, usable=False)
            elif q >= 0:
                out += rest[i:q]
                if rest[q + 1:].strip():
                    msg.problem(f"dmpmqmsg: line {ln.number}: text after the closing quote; "
                                "ignored", ln.offset, where)
            elif ln.end != EOF:
                out += rest[i:]
                msg.problem(f"dmpmqmsg: line {ln.number}: no closing quote", ln.offset, where,
                            usable=False)
            else:
                out += rest[i:]
            break
        msg.body += out

    def _tline(self, msg: Message, t: bytes, ln: Line) -> None:
        if not self.text_lines:
            msg.problem("dmpmqmsg: body given as T (text) lines (-dt): line ends and "
                        "unprintable bytes are not recoverable, so it is not byte-exact",
                        ln.offset, self._where(ln), usable=False)
        self.text_lines += 1
        msg.body += t[2:] + b"\n"


def property_value(v: Any) -> Any:
    """A property value from its JSON form (bytes are ``{"hex": "..."}``)."""
    if isinstance(v, dict):
        if set(v) == {"hex"} and isinstance(v["hex"], str):
            return bytes.fromhex(v["hex"])
        raise ValueError("an object other than {\"hex\": ...}")
    if isinstance(v, list):
        raise ValueError("a list")
    return v


def property_json(v: Any) -> Any:
    """The JSON form of a property value (bytes as ``{"hex": "..."}``)."""
    return {"hex": v.hex().upper()} if isinstance(v, bytes) else v
